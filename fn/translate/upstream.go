package translate

import (
	"fmt"
	"strings"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// UnresolvedURL is the upstream of a backend that does not resolve: the name never resolves, so Tyk answers
// 500 Internal Server Error, as Gateway API asks for requests to an invalid backend.
const UnresolvedURL = "http://unresolved.backend.invalid"

// backendsOf gives the resolved backendRefs of a rule by index.
type backendsOf func(rule int) []attachment.Backend

// upstreamSpec is where the requests of a path go: the rule's backends, and the ReplacePrefixMatch
// replacement that takes the place of the matched path in the upstream URL.
type upstreamSpec struct {
	backends []attachment.Backend
	prefix   *string
}

// weighted leaves out the backends of weight 0, which never serve.
func (u *upstreamSpec) weighted() []attachment.Backend {
	var out []attachment.Backend
	for _, b := range u.backends {
		if *b.Ref.Weight > 0 {
			out = append(out, b)
		}
	}
	return out
}

// key identifies the upstream for the rule that rules on one path must agree on: same backends (kind,
// namespace, name, port, weight, in any order) and same replacement.
func (u *upstreamSpec) key() string {
	var parts []string
	for _, b := range u.backends {
		parts = append(parts, fmt.Sprintf("%s/%s/%s/%s:%d*%d", *b.Ref.Group, *b.Ref.Kind, b.Namespace, b.Ref.Name,
			portOf(b), *b.Ref.Weight))
	}
	sortStrings(parts)
	prefix := "-"
	if u.prefix != nil {
		prefix = *u.prefix
	}
	return strings.Join(parts, ",") + "|" + prefix
}

func portOf(b attachment.Backend) int32 {
	if b.Ref.Port == nil {
		return 0
	}
	return *b.Ref.Port
}

// suffix is what follows the backend's address in the upstream URL: the path value, or its replacement.
func (u *upstreamSpec) suffix(path string) string {
	if u.prefix != nil {
		return *u.prefix
	}
	return path
}

// upstream implements the Backends table and the upstream rows of the settings table: the cluster DNS name and
// port of the Service followed by the path (or its ReplacePrefixMatch replacement); the pod addresses of a
// headless Service; with more than one target, load balancing by weight, each backend's weight shared among its
// pods in whole numbers; weight 0 left out; the unresolved URL when nothing can serve.
func (u *upstreamSpec) upstream(path string) tykoas.Upstream {
	up := tykoas.Upstream{PreserveHostHeader: &tykoas.PreserveHostHeader{Enabled: true}}
	suffix := u.suffix(path)
	targets := u.targets(suffix)
	switch len(targets) {
	case 0:
		up.URL = UnresolvedURL + suffix
	case 1:
		up.URL = targets[0].URL
	default:
		up.URL = targets[0].URL
		up.LoadBalancing = &tykoas.LoadBalancing{Enabled: true, Targets: targets}
	}
	return up
}

// targets lists the upstream URLs with integer weights. A backend of weight w with n pods gives each pod
// w*L/n, L being the least common multiple of the pod counts, so the shares stay exact; all weights are then
// divided by their greatest common divisor.
func (u *upstreamSpec) targets(suffix string) []tykoas.LoadBalancingTarget {
	weighted := u.weighted()
	l := 1
	for _, b := range weighted {
		if n := len(b.Endpoints); n > 1 {
			l = lcm(l, n)
		}
	}
	var out []tykoas.LoadBalancingTarget
	for _, b := range weighted {
		w := int(*b.Ref.Weight)
		if len(b.Endpoints) == 0 || !b.Resolved() {
			out = append(out, tykoas.LoadBalancingTarget{URL: backendURL(b, suffix), Weight: w * l})
			continue
		}
		share := w * l / len(b.Endpoints)
		for _, ep := range b.Endpoints {
			out = append(out, tykoas.LoadBalancingTarget{URL: fmt.Sprintf("%s://%s%s", scheme(b), hostPort(ep.Address, ep.Port), suffix), Weight: share})
		}
	}
	out = tykroute.MergeTargets(out)
	g := 0
	for _, t := range out {
		g = gcd(g, t.Weight)
	}
	for i := range out {
		out[i].Weight /= g
	}
	return out
}

// backendURL is the address of one backend: its cluster DNS name and port (a headless Service's pods listen on
// the target port), or the unresolved URL.
func backendURL(b attachment.Backend, suffix string) string {
	if !b.Resolved() || b.Unready {
		return UnresolvedURL + suffix
	}
	port := *b.Ref.Port
	if b.TargetPort != 0 {
		port = b.TargetPort
	}
	return fmt.Sprintf("%s://%s.%s.svc.cluster.local:%d%s", scheme(b), b.Service.Name, b.Service.Namespace, port, suffix)
}

// scheme is the upstream URL's scheme for a backend: h2c, which Tyk reaches over HTTP/2 without TLS, for a
// Service port of appProtocol kubernetes.io/h2c (attachment's Backend.H2C, only ever a rule's one target), else
// http.
func scheme(b attachment.Backend) string {
	if b.H2C {
		return "h2c"
	}
	return "http"
}

// hostPort brackets an IPv6 address.
func hostPort(addr string, port int32) string {
	if strings.Contains(addr, ":") {
		return fmt.Sprintf("[%s]:%d", addr, port)
	}
	return fmt.Sprintf("%s:%d", addr, port)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int) int { return a / gcd(a, b) * b }
