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
// plain (use_ssl off) or TLS. In the gateway-api profile (DataPlanes.TLSListenersOwnPort) an HTTPS listener
// gets a TLS port of its own: its APIs carry server.protocol https and server.port, the port Tyk opens for them
// (it must be allowed by Tyk's ports_whitelist, or disable_ports_whitelist). That port is where the data-plane
// Service sends the listener's port: the targetPort of the Service port that is the listener's port, which is
// the one place the cluster says which port of the Tyk Pods serves a Gateway port. HTTP listeners stay on
// listen_port, as in the reference.

// TLSPort is the Tyk port that serves an HTTPS listener of a Gateway whose data plane is behind svc in the
// gateway-api profile: the targetPort of svc's port that is the listener's port (the port itself when the
// targetPort is not set, as Kubernetes defaults it). It is 0 when the listener is not HTTPS, or the port cannot
// be known offline: no Service, no such port, or a named targetPort (the Pods' container ports name it).
func TLSPort(l gwv1.Listener, svc *corev1.Service) int {
	if l.Protocol != gwv1.HTTPSProtocolType || svc == nil {
		return 0
	}
	for _, p := range svc.Spec.Ports {
		if p.Port != l.Port {
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

// tykPorts are the Tyk ports of the APIs a parent gets for host: apiPorts in the gateway-api profile, else the
// listen_port alone.
func tykPorts(dp DataPlanes, p *attachment.Parent, host string) []int {
	if !dp.TLSListenersOwnPort() {
		return []int{0}
	}
	return apiPorts(p, host)
}

// plainBesideTLS are the claims (claimWhere on the listen_port, hostname, listen path) that APIs on the
// listen_port and APIs on a TLS port both make: an HTTP listener and an HTTPS listener of the same hostname,
// each with its own route on the same path, as in the redirect of plain HTTP to HTTPS beside the HTTPS route.
// Gateway API serves both, and Tyk routes the two ports apart, but Tyk loads one API per custom domain and
// listen path whatever its port (a second one's listen path is renamed, seen in its api_loader's
// countApisByListenHash), so the listen_port API of such a claim writes its hostname as another host template
// that matches the same hosts (plainDomain). The listen paths are read from the routes' matches, before the rules
// are compiled: a path whose rules are all dropped still counts, which only changes how a domain is written. A
// claim without hostname keeps its conflict: no host template stands for "any host" without changing Tyk's order.
func plainBesideTLS(res *attachment.Result, dp DataPlanes) map[string]bool {
	out := map[string]bool{}
	if !dp.TLSListenersOwnPort() {
		return out
	}
	tls := map[string]bool{}
	plain := map[string]bool{}
	for _, r := range res.Routes {
		for _, parent := range r.Parents {
			if parent.Accepted.Status != metav1.ConditionTrue {
				continue
			}
			for _, host := range parentHostnames(parent) {
				if host == "" {
					continue
				}
				where := claimWhere(dataPlaneOf(parent.Gateway), parent.Gateway.Gateway, 0) + "\n" + host + "\n"
				for _, port := range apiPorts(parent, host) {
					for _, lp := range matchListenPaths(r.Route) {
						if port == 0 {
							plain[where+lp] = true
						} else {
							tls[where+lp] = true
						}
					}
				}
			}
		}
	}
	for k := range plain {
		if tls[k] {
			out[k] = true
		}
	}
	return out
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
			}
		}
	}
	return out
}

// apiPorts are the Tyk ports a parent serves host on in the gateway-api profile, ascending: the TLS port of
// each HTTPS listener that gives the route host (TLSPort), and 0, the listen_port, for an HTTP listener (or an
// HTTPS one whose port cannot be known offline, which stays on listen_port with its certificates, as in the
// reference). A route attached to an HTTP and an HTTPS listener of the same hostname (no sectionName) gets an API
// on each port, as Gateway API serves it through both; Tyk keeps one API per custom domain and listen path
// whatever its port, which plainDomain answers, and the TLS port's API gets an ID of its own (portHost).
func apiPorts(p *attachment.Parent, host string) []int {
	seen := map[int]bool{}
	var out []int
	for _, l := range p.Listeners {
		if !contains(l.Hostnames, host) {
			continue
		}
		tp := TLSPort(l.Listener.Listener, p.Gateway.Infrastructure.Service)
		if !seen[tp] {
			seen[tp] = true
			out = append(out, tp)
		}
	}
	sort.Ints(out)
	if len(out) == 0 || (host == "" && len(out) > 1) {
		// Without a hostname the APIs of two ports would have the same domain (none) and listen path, which Tyk
		// does not load both of: one API on listen_port, as in the reference.
		return []int{0}
	}
	return out
}

// portHost is the hostname an API's ID is made from when the API is on TLS port port and its hostname is served
// on another port too: "shop.example.com:8443", which no hostname can be, so the listen_port's API keeps the ID
// the reference gives it and the other has one of its own.
func portHost(host string, port int) string { return host + ":" + strconv.Itoa(port) }
