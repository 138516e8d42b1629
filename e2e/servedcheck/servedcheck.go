// Package servedcheck holds a render to what its routes' statuses promise (issue 45: nothing is lost silently):
// each rule of an accepted parent that the status does not name (not dropped, no API lost to another route) is
// served, on every listener the parent attaches to and every hostname that listener gives it, by an API of the
// route whose way in is on that listener's Tyk port: the HTTPS listener's own TLS port in the gateway-api profile
// (for a hostname; without one the reference's listen_port), else the listen_port. A plain API serves the rule
// itself; a routed path's internal API is reached from a router on that port (a trigger or rewriteTo of its own).
// The project's stories (fn) and the upstream suite's manifests (conformance/upstream) are held to it.
package servedcheck

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/translate"
)

// Check holds one render to its routes' statuses and says how many promises it checked; name says which
// render a failure is of.
func Check(t testing.TB, name string, out *fn.Output) int {
	t.Helper()
	byID := map[string]*translate.API{}
	for _, a := range out.Translation.APIs {
		byID[a.ID] = a
	}
	// entries are the ports each internal API is reached from: those of the routers that loop to it.
	entries := map[string][]int{}
	for _, a := range out.Translation.APIs {
		if a.Role != translate.RoleRouter || a.Document == nil || a.Document.Tyk.Middleware == nil {
			continue
		}
		for _, op := range a.Document.Tyk.Middleware.Operations {
			if op.URLRewrite == nil {
				continue
			}
			targets := []string{op.URLRewrite.RewriteTo}
			for _, tr := range op.URLRewrite.Triggers {
				targets = append(targets, tr.RewriteTo)
			}
			for _, to := range targets {
				if strings.HasPrefix(to, "tyk://") {
					id := translate.LoopTarget(to)
					entries[id] = append(entries[id], a.Document.Tyk.Server.Port)
				}
			}
		}
	}
	checked := 0
	for _, tr := range out.Translation.Routes {
		r := tr.Route
		dropped := map[int]bool{}
		for _, d := range tr.Drops {
			dropped[d.Rule] = true
		}
		for pi, p := range r.Parents {
			if !accepted(tr.Conditions[pi]) || len(tr.Lost[pi]) > 0 {
				continue // the status says what the parent does not get
			}
			if _, rejected := tr.Rejected[pi]; rejected {
				continue
			}
			// Listeners of two Tyk ports that give the parent no hostname (an HTTP and an HTTPS listener without
			// one) would give their APIs the same custom domain (none) and listen path, which Tyk does not load both
			// of: the route is served on the lowest of those ports alone (the listen_port, as in the reference, when
			// it is one). A hostless HTTPS listener of a Gateway without such an HTTP one is served on its own TLS
			// port.
			lowestHostless := -1
			for _, l := range p.Listeners {
				if slices.Contains(l.Hostnames, "") {
					if lp := translate.ListenerPort(out.Attachment, p.Gateway, l.Listener.Listener); lowestHostless < 0 || lp < lowestHostless {
						lowestHostless = lp
					}
				}
			}
			for _, l := range p.Listeners {
				for _, h := range l.Hostnames {
					if out.Profile.GatewayAPI() && translate.ClaimedElsewhere(p, h) {
						continue // a more specific listener's hosts: Gateway API gives them to its routes
					}
					want := 0
					switch {
					case !out.Profile.GatewayAPI():
					case h == "":
						want = lowestHostless
					default:
						want = translate.ListenerPort(out.Attachment, p.Gateway, l.Listener.Listener)
					}
					for i := range r.Route.Spec.Rules {
						if dropped[i] {
							continue
						}
						checked++
						if !servedOn(out, byID, entries, tr, h, i, want) {
							t.Errorf("%s: HTTPRoute %s/%s spec.rules[%d] is served, says its status, on listener %s (port %d) for "+
								"host %q, but no API of the route serves it on Tyk port %d",
								name, r.Route.Namespace, r.Route.Name, i, l.Listener.Listener.Name, l.Listener.Listener.Port, h, want)
						}
					}
				}
			}
		}
	}
	return checked
}

// servedOn reports whether an API of the route serves rule i for host on Tyk port port.
func servedOn(out *fn.Output, byID map[string]*translate.API, entries map[string][]int, tr *translate.Route, host string, i, port int) bool {
	for _, a := range out.Translation.APIs {
		if a.Route != tr.Route || a.Hostname != host || !contains(a.Rules, i) {
			continue
		}
		switch a.Role {
		case translate.RolePlain:
			if a.Document.Tyk.Server.Port == port {
				return true
			}
		case translate.RoleInternal:
			for _, p := range entries[a.ID] {
				if p == port {
					return true
				}
			}
		}
	}
	return false
}

func accepted(conds []metav1.Condition) bool {
	for _, c := range conds {
		if c.Type == string(gwv1.RouteConditionAccepted) {
			return c.Status == "True"
		}
	}
	return false
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
