package translate

import (
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
)

// This file owns one question: on which Tyk port an API is served.
//
// The reference puts every API on the Gateway's listen_port and only names the HTTPS listeners' certificates
// in the custom domain, so HTTP and HTTPS cannot both be served by one Tyk Gateway: its listen_port is either
// plain (use_ssl off) or TLS. In the gateway-api profile (DataPlanes.ListenersOwnPorts) an HTTPS listener
// gets a TLS port of its own: its APIs carry server.protocol https and server.port, the port Tyk opens for them
// (it must be allowed by Tyk's ports_whitelist, or disable_ports_whitelist). That port is where the data-plane
// Service sends the listener's port: the targetPort of the Service port that is the listener's port, which is
// the one place the cluster says which port of the Tyk Pods serves a Gateway port. HTTP listeners stay on
// listen_port, as in the reference, unless the HTTP listeners of a data plane's Gateways are sent to more than
// one port of the Tyk Pods (httpOwnPorts): then each is served on its own, as Gateway API serves a listener on its
// port alone.

// ListenerPort is the Tyk port that serves listener l of Gateway g in the gateway-api profile (res is the whole
// attachment, which says what else g's data plane serves): TLSPort for an HTTPS listener, the targetPort of an
// HTTP one when the data plane's HTTP listeners have ports of their own (httpOwnPorts); 0 is the listen_port.
func ListenerPort(res *attachment.Result, g *attachment.Gateway, l gwv1.Listener) int {
	return newPortPlan(res, true).listenerPort(g, l)
}

// TLSPort is the Tyk port that serves an HTTPS listener of a Gateway whose data plane is behind svc in the
// gateway-api profile: the targetPort of svc's port that is the listener's port. It is 0 when the listener is
// not HTTPS, or the port cannot be known offline (targetPort).
func TLSPort(l gwv1.Listener, svc *corev1.Service) int {
	if l.Protocol != gwv1.HTTPSProtocolType {
		return 0
	}
	return targetPort(l.Port, svc)
}

// portPlan answers on which Tyk ports APIs are served, for one render.
type portPlan struct {
	// own is DataPlanes.ListenersOwnPorts: false in the reference, where every API is on listen_port.
	own bool
	// ownHTTP are the data planes (dataPlaneOf) whose HTTP listeners have ports of their own (httpOwnPorts).
	ownHTTP map[string]bool
}

func newPortPlan(res *attachment.Result, own bool) *portPlan {
	pp := &portPlan{own: own, ownHTTP: map[string]bool{}}
	if own && res != nil {
		pp.ownHTTP = httpOwnPorts(res)
	}
	return pp
}

// httpOwnPorts are the data planes whose HTTP listeners are served on ports of their own: the render does not
// know Tyk's listen_port, so while every HTTP listener of the Gateways of a data plane is sent by its Service to
// one port of the Tyk Pods, that port is taken to be the listen_port (the APIs carry no server.port, as in the
// reference). When they are sent to two or more, at most one of them is listen_port, so each listener's APIs
// carry its targetPort as server.port: Tyk serves an API whose port is its listen_port there, and opens any other
// port its ports_whitelist allows for http. A targetPort that cannot be known offline (targetPort) among them
// keeps them all on listen_port. The question is the data plane's, not one Gateway's: a Gateway with one HTTP
// listener on port 8080 beside another Gateway's on port 80 is sent to another port of the same Tyk Pods.
func httpOwnPorts(res *attachment.Result) map[string]bool {
	ports := map[string]map[int]bool{}
	unknown := map[string]bool{}
	for _, g := range res.Gateways {
		dp := dataPlaneOf(g)
		if dp == "" {
			continue
		}
		for _, l := range listenerSpecs(g) {
			if l.Protocol != gwv1.HTTPProtocolType {
				continue
			}
			tp := targetPort(l.Port, g.Infrastructure.Service)
			if tp == 0 {
				unknown[dp] = true
				continue
			}
			if ports[dp] == nil {
				ports[dp] = map[int]bool{}
			}
			ports[dp][tp] = true
		}
	}
	out := map[string]bool{}
	for dp, on := range ports {
		out[dp] = len(on) > 1 && !unknown[dp]
	}
	return out
}

// listenerSpecs are the Gateway's listeners as its spec and those of the ListenerSets it allows give them (a
// ListenerSet's listeners are the Gateway's too).
func listenerSpecs(g *attachment.Gateway) []gwv1.Listener {
	out := g.Gateway.Spec.Listeners
	for _, s := range g.Sets {
		for _, l := range s.Listeners {
			out = append(out[:len(out):len(out)], l.Listener)
		}
	}
	return out
}

// listenerPort is ListenerPort under the plan.
func (pp *portPlan) listenerPort(g *attachment.Gateway, l gwv1.Listener) int {
	switch {
	case !pp.own:
		return 0
	case l.Protocol == gwv1.HTTPSProtocolType:
		return TLSPort(l, g.Infrastructure.Service)
	case l.Protocol == gwv1.HTTPProtocolType && pp.ownHTTP[dataPlaneOf(g)]:
		return targetPort(l.Port, g.Infrastructure.Service)
	}
	return 0
}

// targetPort is the port of the Tyk Pods that svc sends its port port to: its targetPort, the port itself when
// the targetPort is not set (as Kubernetes defaults it). It is 0 when it cannot be known offline: no Service, no
// such port, or a named targetPort (the Pods' container ports name it).
func targetPort(port gwv1.PortNumber, svc *corev1.Service) int {
	if svc == nil {
		return 0
	}
	for _, p := range svc.Spec.Ports {
		if p.Port != port {
			continue
		}
		switch {
		case p.TargetPort.Type == intstr.String && p.TargetPort.StrVal != "":
			return 0
		case p.TargetPort.IntVal != 0:
			return int(p.TargetPort.IntVal)
		default:
			return int(p.Port)
		}
	}
	return 0
}

// serverProtocol is the server.protocol of a parent's APIs on Tyk port port (not 0): https when a listener of
// the parent that gives host is served there over TLS, else http.
func serverProtocol(p *attachment.Parent, host string, port int) string {
	for _, l := range p.Listeners {
		ln := l.Listener.Listener
		if ln.Protocol == gwv1.HTTPSProtocolType && contains(l.Hostnames, host) && TLSPort(ln, p.Gateway.Infrastructure.Service) == port {
			return "https"
		}
	}
	return "http"
}

// sharedClaim says how an API is written apart from the APIs on higher Tyk ports that make its claim too
// (sharedClaims): the zero value for one that needs nothing.
type sharedClaim struct {
	// domainVar names the host template variable of an API of a hostname (plainDomain).
	domainVar string
	// variant numbers the listen path of an API without hostname (listenPathVariant).
	variant int
}

// sharedClaims says how the APIs whose claim (claimWhere on the listen_port, hostname, listen path) APIs on
// other Tyk ports make too are written: an HTTP listener and an HTTPS listener of the same hostname, each with
// its own route on the same path, as in the redirect of plain HTTP to HTTPS beside the HTTPS route, or HTTP
// listeners of one hostname on two ports. Gateway API serves each, and Tyk routes the ports apart, but Tyk
// loads one API per custom domain and listen path whatever its port (a second one's listen path is renamed,
// seen in its api_loader's countApisByListenHash), so every port's API but the highest port's is written as
// another string that Tyk serves alike:
//   - of a hostname, its custom domain is another host template that matches the same hosts (plainDomain):
//     "http" names the variable on the listen_port, "p<port>" on another port;
//   - without hostname, no host template stands for "any host" without changing Tyk's order (custom domains
//     first), so its listen path is another template that takes the same paths and that Tyk orders alike
//     (listenPathVariant), numbered from 1 down the ports.
//
// The key is the claim and the port (sharedDomainKey). The listen paths are read from the routes' matches,
// before the rules are compiled: a path whose rules are all dropped still counts, which only changes how an API
// is written.
func (pp *portPlan) sharedClaims(res *attachment.Result) map[string]sharedClaim {
	out := map[string]sharedClaim{}
	if !pp.own {
		return out
	}
	type claim struct{ where, host, listenPath string }
	ports := map[claim]map[int]bool{}
	for _, r := range res.Routes {
		for _, parent := range r.Parents {
			if parent.Accepted.Status != metav1.ConditionTrue {
				continue
			}
			for _, host := range parentHostnames(parent) {
				where := claimWhere(dataPlaneOf(parent.Gateway), parent.Gateway.Gateway, 0)
				for _, port := range pp.ports(parent, host) {
					for _, lp := range matchListenPaths(r.Route) {
						c := claim{where, host, lp}
						if ports[c] == nil {
							ports[c] = map[int]bool{}
						}
						ports[c][port] = true
					}
				}
			}
		}
	}
	for c, on := range ports {
		down := make([]int, 0, len(on))
		for port := range on {
			down = append(down, port)
		}
		sort.Sort(sort.Reverse(sort.IntSlice(down)))
		for i, port := range down[1:] {
			key := sharedDomainKey(c.where+"\n"+c.host+"\n"+c.listenPath, port)
			if c.host == "" {
				out[key] = sharedClaim{variant: i + 1}
			} else {
				out[key] = sharedClaim{domainVar: domainVariable(port)}
			}
		}
	}
	return out
}

// sharedDomainKey is sharedClaims' key: the claim and the Tyk port.
func sharedDomainKey(claim string, port int) string { return claim + "\n" + strconv.Itoa(port) }

// domainVariable is the name of the host template variable of an API on Tyk port port whose claim an API on a
// higher port makes too.
func domainVariable(port int) string {
	if port == 0 {
		return "http"
	}
	return "p" + strconv.Itoa(port)
}

// matchListenPaths are the listen paths the route's PathPrefix and Exact matches would have.
func matchListenPaths(hr *gwv1.HTTPRoute) []string {
	var out []string
	for _, rule := range hr.Spec.Rules {
		for _, m := range rule.Matches {
			if m.Path == nil || m.Path.Type == nil || m.Path.Value == nil {
				continue
			}
			switch *m.Path.Type {
			case gwv1.PathMatchPathPrefix:
				out = append(out, *m.Path.Value)
			case gwv1.PathMatchExact:
				out = append(out, ExactListenPath(*m.Path.Value))
			case gwv1.PathMatchRegularExpression:
				if lp, err := RegexListenPath(*m.Path.Value); err == nil {
					out = append(out, lp)
				}
			}
		}
	}
	return out
}

// ports are the Tyk ports a parent serves host on, ascending: the listen_port (0) alone in the reference; in the
// gateway-api profile the port of each listener that gives the route host (listenerPort), 0, the listen_port,
// for an HTTP listener that has no port of its own (or an HTTPS one whose port cannot be known offline, which
// stays on listen_port with its certificates, as in the reference). A route attached to two listeners of the same hostname on two ports (no sectionName) gets
// an API on each port, as Gateway API serves it through both; Tyk keeps one API per custom domain and listen path
// whatever its port, which plainDomain answers, and every port's API but the primary port's gets an ID of its own
// (portHost).
func (pp *portPlan) ports(p *attachment.Parent, host string) []int {
	if !pp.own {
		return []int{0}
	}
	seen := map[int]bool{}
	var out []int
	for _, l := range p.Listeners {
		if !contains(l.Hostnames, host) {
			continue
		}
		tp := pp.listenerPort(p.Gateway, l.Listener.Listener)
		if !seen[tp] {
			seen[tp] = true
			out = append(out, tp)
		}
	}
	sort.Ints(out)
	if len(out) == 0 {
		return []int{0}
	}
	// Without a hostname the APIs of two ports have the same domain (none) and listen path, which Tyk does not
	// load both of: each but the highest port's writes its listen path otherwise (sharedClaims), and where it
	// cannot, one of them is kept (resolveCollisions).
	return out
}

// primaryPort is the port among a parent's ports for host (ascending) whose API keeps the ID the reference gives
// it: the lowest that serves plain HTTP (the listen_port when it is one of them), else the lowest. Plain HTTP
// first keeps an HTTP listener's IDs when its data plane's HTTP listeners get ports of their own, whatever the
// numbers of the TLS ports.
func primaryPort(p *attachment.Parent, host string, ports []int) int {
	for _, port := range ports {
		if port == 0 || serverProtocol(p, host, port) == "http" {
			return port
		}
	}
	return ports[0]
}

// portHost is the hostname an API's ID is made from when the API is on Tyk port port and its hostname is served
// on another port too (primaryPort's): "shop.example.com:8443", which no hostname can be, so the primary port's
// API keeps the ID the reference gives it and the others have IDs of their own.
func portHost(host string, port int) string { return host + ":" + strconv.Itoa(port) }
