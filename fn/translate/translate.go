package translate

import (
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/attachment"
	"github.com/gateway2tyk/gateway2tyk/fn/status"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// DataPlanes tells the translation what the implementation knows about a Gateway's data plane.
type DataPlanes interface {
	// Tags are the gateway tags of the Gateway's APIs (nil: none).
	Tags(gw *gwv1.Gateway) []string
}

// API is one Tyk OAS API: a route served on one parent Gateway, effective hostname and path value.
type API struct {
	ID       string
	Route    *attachment.Route
	Parent   *attachment.Parent
	Hostname string
	Path     string
	Document *tykoas.Document
}

// Route is the translated state of one attached route.
type Route struct {
	Route *attachment.Route
	// Conditions are the final conditions of each parent, in the order of Route.Parents.
	Conditions [][]metav1.Condition
	// Drops are the parts of the route that cannot be served.
	Drops []Drop
}

// Output is the result of the translation.
type Output struct {
	// APIs are sorted by ID.
	APIs   []*API
	Routes []*Route
}

// Translate turns every accepted parent of every attached route into APIs and decides the route conditions
// that depend on translation (UnsupportedValue, PartiallyInvalid).
func Translate(res *attachment.Result, dp DataPlanes) *Output {
	out := &Output{}
	for _, r := range res.Routes {
		tr, apis := translateRoute(r, dp)
		out.Routes = append(out.Routes, tr)
		out.APIs = append(out.APIs, apis...)
	}
	sort.Slice(out.APIs, func(i, j int) bool { return out.APIs[i].ID < out.APIs[j].ID })
	return out
}

// pathRule is the rule that serves one path value of a route.
type pathRule struct {
	path string
	rule int
}

func translateRoute(r *attachment.Route, dp DataPlanes) (*Route, []*API) {
	hr := r.Route
	tr := &Route{Route: r}
	var served []pathRule
	seen := map[string]bool{}
	for i, rule := range hr.Spec.Rules {
		if drops := unsupported(i, rule); len(drops) > 0 {
			tr.Drops = append(tr.Drops, drops...)
			continue
		}
		for _, m := range rule.Matches {
			p := *m.Path.Value
			if !seen[p] {
				seen[p] = true
				served = append(served, pathRule{path: p, rule: i})
			}
		}
	}

	var apis []*API
	byKey := map[string]bool{}
	for _, parent := range r.Parents {
		conds := []metav1.Condition{parent.Accepted}
		if parent.Accepted.Status == metav1.ConditionTrue {
			conds = acceptance(hr, tr.Drops, len(served) > 0)
			if len(served) > 0 {
				for _, host := range parentHostnames(parent) {
					for _, pr := range served {
						id := APIID(hr.Namespace, hr.Name, pr.path, parent.Gateway.Gateway.Namespace, parent.Gateway.Gateway.Name, host)
						if byKey[id] {
							continue // another parentRef to the same Gateway already serves it
						}
						byKey[id] = true
						apis = append(apis, &API{ID: id, Route: r, Parent: parent, Hostname: host, Path: pr.path,
							Document: document(id, host, pr.path, r.Backends[pr.rule], dp.Tags(parent.Gateway.Gateway))})
					}
				}
			}
		}
		status.Set(&conds, r.ResolvedRefs)
		tr.Conditions = append(tr.Conditions, conds)
	}
	return tr, apis
}

// acceptance implements partial acceptance: nothing servable is Accepted False UnsupportedValue; some rules
// dropped is Accepted True with PartiallyInvalid True UnsupportedValue listing the dropped rules.
func acceptance(hr *gwv1.HTTPRoute, drops []Drop, anyServed bool) []metav1.Condition {
	gen := hr.Generation
	accepted := string(gwv1.RouteConditionAccepted)
	if !anyServed {
		return []metav1.Condition{status.Condition(accepted, false, string(gwv1.RouteReasonUnsupportedValue),
			"no rule can be served: "+joinDrops(drops), gen)}
	}
	conds := []metav1.Condition{status.Condition(accepted, true, string(gwv1.RouteReasonAccepted),
		"the APIs of the route are rendered", gen)}
	if len(drops) > 0 {
		conds = append(conds, status.Condition(status.ConditionPartiallyInvalid, true,
			string(gwv1.RouteReasonUnsupportedValue), "dropped "+joinDrops(drops), gen))
	}
	return conds
}

func joinDrops(drops []Drop) string {
	var parts []string
	for _, d := range drops {
		parts = append(parts, d.String())
	}
	return strings.Join(parts, "; ")
}

// parentHostnames is the union, in listener order, of the effective hostnames of the listeners the parent
// attaches to.
func parentHostnames(p *attachment.Parent) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range p.Listeners {
		for _, h := range l.Hostnames {
			if !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	return out
}

// document builds the API per the API Configuration table of the reference.
func document(id, hostname, path string, backends []attachment.Backend, tags []string) *tykoas.Document {
	d := tykoas.NewDocument(id)
	d.Tyk.Server.ListenPath = tykoas.ListenPath{Value: path, Strip: true}
	if hostname != "" {
		d.Tyk.Server.CustomDomain = &tykoas.CustomDomain{Enabled: true, Name: customDomain(hostname)}
	}
	if len(tags) > 0 {
		d.Tyk.Server.GatewayTags = &tykoas.GatewayTags{Enabled: true, Tags: tags}
	}
	d.Tyk.Upstream = upstream(backends, path)
	return d
}

// UnresolvedURL is the upstream of a rule none of whose backends resolves: the name cannot resolve, so Tyk
// answers 500 Internal Server Error, as Gateway API asks for invalid backends.
const UnresolvedURL = "http://unresolved.backend.invalid"

// upstream implements the Backends table: the cluster DNS name and port of the Service followed by the path;
// with several weighted backends, load balancing by weight, leaving out weight 0.
func upstream(backends []attachment.Backend, path string) tykoas.Upstream {
	up := tykoas.Upstream{PreserveHostHeader: &tykoas.PreserveHostHeader{Enabled: true}}
	var targets []tykoas.LoadBalancingTarget
	for _, b := range backends {
		if *b.Ref.Weight == 0 {
			continue
		}
		targets = append(targets, tykoas.LoadBalancingTarget{URL: backendURL(b, path), Weight: int(*b.Ref.Weight)})
	}
	switch len(targets) {
	case 0:
		up.URL = UnresolvedURL + path
	case 1:
		up.URL = targets[0].URL
	default:
		up.URL = targets[0].URL
		up.LoadBalancing = &tykoas.LoadBalancing{Enabled: true, Targets: targets}
	}
	return up
}

func backendURL(b attachment.Backend, path string) string {
	if !b.Resolved() {
		return UnresolvedURL + path
	}
	return fmt.Sprintf("http://%s.%s.svc.cluster.local:%d%s", b.Service.Name, b.Service.Namespace, *b.Ref.Port, path)
}
