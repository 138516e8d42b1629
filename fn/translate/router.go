package translate

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/status"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Header and query parameter matches (the gateway-api profile) are served by a router API and internal APIs,
// since Tyk picks an API by custom domain and listen path only:
//
//   - every rule that matches on a path where some match has headers or queryParams gets an internal API of its
//     own (info.state.internal: Tyk registers it with no router, so only a tyk://<api id> loop reaches it) with
//     the listen path "/<its id><path>", its filters, backends and method answers as a plain API would have them;
//   - the path itself, on each hostname and data plane, gets one router API (the ID the plain API would have, of
//     the route that takes precedence) whose operations, one per method, keyed "/" (every path under the listen
//     path), hold an urlRewrite: pattern ^(.*)$ (the request path and query), and one trigger per match with
//     conditions, in Gateway API's precedence order (a method first, then more header matches, then more query
//     matches, then the older route, then rule and match order), each rewriting to tyk://<internal id>/<internal
//     id>$1, so the internal API gets the request's path and query under its own listen path; the first match
//     without conditions is the urlRewrite's own rewriteTo, and without one the router sends the request on to
//     the API of the longest shorter listen path on the same hostname (which Gateway API would give it to), or to
//     an internal API that answers 404;
//   - routes that match the same hostname and path share the router: their matches are ordered together, which is
//     Gateway API's precedence across routes (a route none of whose matches can be reached loses the path, as
//     before: PartiallyInvalid PathConflict).
//
// Seen on the 5.4 line, v5.8.11 and v5.14.0: the triggers (header and query rules, condition all) choose the
// internal API, the query reaches it, the 404 API answers, and an internal API's listen path takes no request.

// Role is what an API is for.
type Role int

const (
	// RolePlain is an API as the reference makes it: a route's path on one hostname.
	RolePlain Role = iota
	// RoleRouter is a router API: it only sends requests on to internal APIs (see above).
	RoleRouter
	// RoleInternal is the internal API of one rule on a routed path.
	RoleInternal
	// RoleNoRule is the internal API that answers 404 for a routed path's requests that no rule matches.
	RoleNoRule
)

// routerClaim is a route's share of a routed path on one parent and hostname: its matches there, each with the
// internal API of its rule.
type routerClaim struct {
	plan     *pathPlan
	internal map[int][]internalVariant // rule index → its internal APIs (one unless it adds headers)
	appends  map[int][]tykoas.Header   // rule index → the headers it adds to
	cors     map[int]*corsSpec         // rule index → its CORS filter
	tags     []string
	tls      serverTLS
	port     int
}

// internalVariant is an internal API of a rule: the one for the requests that carry the present added headers
// (appends.go), or the rule's only one.
type internalVariant struct {
	present []string
	// cors is which of a CORS rule's internal APIs it is (cors.go).
	cors corsPart
	id   string
}

// routedBranch is one match on a routed path, with what orders it.
type routedBranch struct {
	branch
	route  *API // the route's router claim
	target string
	// preflight says the target answers CORS preflights (cors.go): only OPTIONS requests go there.
	preflight bool
}

// routerKeys are the paths (claimKey: data plane or Gateway, hostname, listen path) served by a router: those
// some route matches with header or query conditions or with a rule that adds to a request header, and those some route matches with a method where a plain
// API would not do what Gateway API asks, because another route matches the path too (their matches are ordered
// together) or a shorter path on the hostname would take the methods no match of the path takes (the plain API
// answers them 404). A method-only path with neither stays a plain API, whose 404 for the other methods is then
// what Gateway API asks (translateRoute also routes one whose rules send its methods to different backends).
// Every route on a routed path takes part in its router.
func routerKeys(res *attachment.Result, dp DataPlanes, pp *portPlan) map[string]bool {
	keys := map[string]bool{}
	if !dp.HeaderAndQueryMatches() {
		return keys
	}
	type info struct {
		routes        map[*attachment.Route]bool
		conds, method bool
	}
	infos := map[string]*info{}
	values := map[string]map[string]bool{} // where + hostname → the PathPrefix values matched there
	var order []string
	for _, r := range res.Routes {
		for _, parent := range r.Parents {
			if parent.Accepted.Status != "True" {
				continue
			}
			for _, rule := range r.Route.Spec.Rules {
				for _, m := range rule.Matches {
					if m.Path == nil || m.Path.Type == nil || *m.Path.Type != gwv1.PathMatchPathPrefix || m.Path.Value == nil {
						continue
					}
					for _, host := range parentHostnames(parent) {
						for _, port := range pp.ports(parent, host) {
							wh := claimWhere(dataPlaneOf(parent.Gateway), parent.Gateway.Gateway, port) + "\n" + host
							if values[wh] == nil {
								values[wh] = map[string]bool{}
							}
							values[wh][*m.Path.Value] = true
							k := wh + "\n" + *m.Path.Value
							in := infos[k]
							if in == nil {
								in = &info{routes: map[*attachment.Route]bool{}}
								infos[k] = in
								order = append(order, k)
							}
							in.routes[r] = true
							in.conds = in.conds || len(m.Headers)+len(m.QueryParams) > 0 || appendsRule(rule) || corsRule(rule)
							in.method = in.method || m.Method != nil
						}
					}
				}
			}
		}
	}
	for _, k := range order {
		in := infos[k]
		wh, value := k[:strings.LastIndexByte(k, '\n')], k[strings.LastIndexByte(k, '\n')+1:]
		if in.conds || (in.method && (len(in.routes) > 1 || hasShorter(values[wh], value))) {
			keys[k] = true
		}
	}
	return keys
}

// hasShorter reports whether a value shorter than v, and a string prefix of it, is matched (Tyk would give such
// an API the requests of v's path that no match of v takes).
func hasShorter(set map[string]bool, v string) bool {
	for i := len(v) - 1; i >= 1; i-- {
		if set[v[:i]] {
			return true
		}
	}
	return false
}

// routedAPIs makes a routed plan's internal APIs (one per rule, or per set of present headers of a rule that
// adds to them) and the route's router claim.
func routedAPIs(r *attachment.Route, parent *attachment.Parent, host, idHost string, plan *pathPlan, rules map[int]*rule,
	tags []string, tls serverTLS, port int, domainVar string, exact ExactPaths, isolated []string) []*API {
	hr, gw := r.Route, parent.Gateway.Gateway
	claim := &routerClaim{plan: plan, internal: map[int][]internalVariant{}, appends: map[int][]tykoas.Header{}, cors: map[int]*corsSpec{},
		tags: tags, tls: tls, port: port}
	var out []*API
	made := map[string]bool{}
	for _, b := range plan.branches {
		if _, done := claim.internal[b.rule]; done {
			continue
		}
		ru := rules[b.rule]
		claim.appends[b.rule] = ru.behaviour.appends
		claim.cors[b.rule] = ru.behaviour.cors
		for _, v := range ruleVariants(ru.behaviour) {
			// The ID is made from what the rule matches on the path, not from its index, so that reordering rules
			// keeps every ID. Two rules that match alike on the path behave alike (groupPaths drops them
			// otherwise), so they share one internal API.
			v.id = APIID(hr.Namespace, hr.Name, plan.listenPath()+"\n"+plan.matchKey(b.rule)+presentKey(v.present)+v.cors.corsKey(),
				gw.Namespace, gw.Name, idHost)
			id := v.id
			claim.internal[b.rule] = append(claim.internal[b.rule], v)
			if made[id] {
				continue
			}
			made[id] = true
			ip := &pathPlan{path: plan.path, listenPrefix: "/" + id,
				methods: map[string]behaviour{anyMethod: ru.behaviour.withCORS(v.cors).withAppends(v.present)}, upstream: ru.upstream, rules: []int{b.rule}}
			if v.cors.preflight() {
				ip.upstream = nil // Tyk answers it
			}
			d := internalDocument(id, host, ip, tags)
			if len(v.present) > 0 || (v.cors != corsNone && v.cors != corsPreflightDenied) {
				enableContextVariables(d)
			}
			out = append(out, &API{ID: id, Route: r, Parent: parent, Hostname: host, Path: plan.path, Rules: ip.rules,
				Role: RoleInternal, Document: d, dataPlane: dataPlaneOf(parent.Gateway), part: v.cors.role(ru.behaviour.cors != nil)})
		}
	}
	out = append(out, &API{ID: APIID(hr.Namespace, hr.Name, plan.listenPath(), gw.Namespace, gw.Name, idHost), Route: r,
		Parent: parent, Hostname: host, Path: plan.path, Rules: plan.rules, Role: RoleRouter, claim: claim,
		dataPlane: dataPlaneOf(parent.Gateway), port: port, domainVar: domainVar, idHost: idHost,
		bySegment: routerBySegment(plan, exact), isolated: isolated})
	return out
}

// routerBySegment reports whether the router of plan takes its PathPrefix by whole segments (segments.go): in
// the gateway-api profile on every release, since a router holds no mock response.
func routerBySegment(plan *pathPlan, exact ExactPaths) bool {
	return exact != ExactRejected && !plan.exact && !strings.HasSuffix(plan.path, "/")
}

// internalDocument is the API of an internal plan for host: a plain document with the internal listen path, no
// custom domain (Tyk routes nothing to it), marked internal.
func internalDocument(id, host string, plan *pathPlan, tags []string) *tykoas.Document {
	d := document(id, host, "", plan, tags, serverTLS{}, ExactRejected)
	d.Tyk.Info.State.Internal = true
	return d
}

// buildRouters merges the router claims of each routed path into one router API (its document is made by
// finishRouters, once the APIs of shorter paths are known), drops the internal APIs no router reaches, and tells
// a route none of whose matches can be reached there that it lost the path.
func buildRouters(candidates []*API, routes []*Route) []*API {
	byRoute := map[*attachment.Route]*Route{}
	for _, r := range routes {
		byRoute[r.Route] = r
	}
	groups := map[string][]*API{}
	var keys []string
	for _, a := range candidates {
		if a.Role != RoleRouter {
			continue
		}
		k := claimKey(a)
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], a)
	}
	if len(groups) == 0 {
		return candidates
	}
	reached := map[string]bool{}
	drop := map[*API]bool{}
	for _, k := range keys {
		claims := groups[k]
		sort.SliceStable(claims, func(i, j int) bool { return claimBefore(claims[i], claims[j]) })
		owner := claims[0]
		owner.routed = routeMethods(claims)
		used := map[*API]bool{}
		for _, bs := range owner.routed {
			for _, b := range bs {
				reached[b.target] = true
				used[b.route] = true
			}
		}
		for _, c := range claims[1:] {
			drop[c] = true
			if !used[c] && c.Route != owner.Route && !sameRouteBefore(claims, c) {
				w := owner.Route.Route
				lose(byRoute[c.Route], c, status.ReasonPathConflict, fmt.Sprintf(
					"%s on %s of Gateway %s/%s is served by HTTPRoute %s/%s, whose matches take precedence over every "+
						"match of this route there", c.PathDescription(), hostDescription(c.Hostname),
					c.Parent.Gateway.Gateway.Namespace, c.Parent.Gateway.Gateway.Name, w.Namespace, w.Name))
			}
		}
	}
	var out []*API
	for _, a := range candidates {
		if drop[a] || (a.Role == RoleInternal && !reached[a.ID]) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// routeMethods orders the matches of a routed path for each method, in Gateway API's precedence, up to and
// including the first without conditions (the ones after it can never be reached). A match of a rule that adds
// to request headers stands for one branch per internal API of the rule, with its presence rules, the larger
// sets of present headers first (appends.go).
func routeMethods(claims []*API) map[string][]routedBranch {
	var all []routedBranch
	seen := map[*attachment.Route]bool{}
	for _, c := range claims {
		if seen[c.Route] {
			continue // the same route through a second Gateway of the data plane: its matches are the first's
		}
		seen[c.Route] = true
		for _, b := range c.claim.plan.branches {
			appends, cors := c.claim.appends[b.rule], c.claim.cors[b.rule]
			for _, v := range c.claim.internal[b.rule] {
				rb := routedBranch{branch: b, route: c, target: v.id, preflight: v.cors.preflight()}
				if rb.preflight && b.method != anyMethod && b.method != "OPTIONS" {
					continue // a preflight is an OPTIONS request, which the match does not take
				}
				var ok bool
				if rb.conds, ok = presenceConditions(b.conds, appends, v.present); ok {
					rb.conds = cors.corsConditions(rb.conds, v.cors)
					all = append(all, rb)
				}
			}
		}
	}
	order := map[*API]int{}
	for i, c := range claims {
		order[c] = i
	}
	out := map[string][]routedBranch{}
	for _, m := range openAPIMethods {
		var bs []routedBranch
		for _, b := range all {
			if (b.method == anyMethod || b.method == m) && (!b.preflight || m == "OPTIONS") {
				bs = append(bs, b)
			}
		}
		sort.SliceStable(bs, func(i, j int) bool {
			a, b := bs[i], bs[j]
			if (a.method != anyMethod) != (b.method != anyMethod) {
				return a.method != anyMethod
			}
			ha, qa := count(a.conds)
			hb, qb := count(b.conds)
			if ha != hb {
				return ha > hb
			}
			if qa != qb {
				return qa > qb
			}
			if order[a.route] != order[b.route] {
				return order[a.route] < order[b.route]
			}
			// Then Gateway API's rule order (the upstream suite's HTTPRouteHeaderMatching holds it: "version: two"
			// of rule 1 before "color: blue" of rule 3). So reordering the rules of a route can reorder its
			// triggers here, where two of its matches with as many header and query matches are met by one
			// request; the API IDs stay.
			if a.rule != b.rule {
				return a.rule < b.rule
			}
			return a.match < b.match
		})
		for i, b := range bs {
			if len(b.conds) == 0 {
				bs = bs[:i+1]
				break
			}
		}
		out[m] = bs
	}
	return out
}

// finishRouters writes each router's document: its operations' triggers, and where a request no match takes
// goes (the API of the longest shorter listen path on the same hostname and data plane, among the APIs kept, or
// the route's internal API that answers 404, which it adds).
func finishRouters(apis []*API, encode bool) []*API {
	public := map[string][]*API{} // where + hostname → the non-internal APIs
	for _, a := range apis {
		if a.Role == RolePlain || a.Role == RoleRouter {
			k := claimWhereOf(a) + "\n" + a.Hostname
			public[k] = append(public[k], a)
		}
	}
	var added []*API
	for _, a := range apis {
		if a.Role != RoleRouter {
			continue
		}
		fallback := shorterAPI(public[claimWhereOf(a)+"\n"+a.Hostname], a)
		var noRule *API
		target := func() string {
			if fallback != nil {
				return "tyk://" + fallback.ID + "$1"
			}
			if noRule == nil {
				noRule = noRuleAPI(a)
				added = append(added, noRule)
			}
			return internalTarget(noRule.ID)
		}
		a.Document = routerDocument(a, target)
		if encode {
			a.Encoded, a.EncodeErr = a.Encode()
			a.Document = nil
		}
	}
	for _, n := range added {
		if encode {
			n.Encoded, n.EncodeErr = n.Encode()
			n.Document = nil
		}
	}
	return append(apis, added...)
}

// shorterAPI is the API Tyk would give a request for the router's path if the router did not take it: of the
// plain and router APIs on the same hostname and data plane, the one with the longest listen path that is a
// string prefix of the router's, shorter than it (Exact paths' listen paths are no string prefixes; a listen path
// by segments is a prefix only where the router's path goes on with "/"), or nil.
func shorterAPI(public []*API, router *API) *API {
	lp := router.ListenPath()
	var best *API
	for _, a := range public {
		if a == router || a.Exact {
			continue
		}
		alp := a.ListenPath()
		if a.bySegment && !strings.HasPrefix(lp, alp+"/") {
			continue
		}
		if len(alp) < len(lp) && strings.HasPrefix(lp, alp) && (best == nil || len(alp) > len(best.ListenPath())) {
			best = a
		}
	}
	return best
}

// routerListenPath is the listen path of a router API (a router holds no mock response, so a PathPrefix takes
// whole segments on every release of the gateway-api profile: routerBySegment), before listenPathVariant.
func (a *API) routerListenPath() string {
	if a.bySegment {
		return SegmentListenPath(a.Path)
	}
	return a.ListenPath()
}

// internalTarget is the rewriteTo that sends a request into an internal API: its path and query ($1) behind the
// internal API's own prefix.
func internalTarget(id string) string { return "tyk://" + id + "/" + id + "$1" }

// routerPattern is the router's urlRewrite pattern: the whole request path and query, kept as $1. Tyk matches
// it against the request URL as a string, which after a tyk:// loop (another router's fallback) is an absolute
// URL without host, "http:///api?x=1" (Tyk sets the scheme and puts back the original, empty, host; seen on the
// 5.4 line), so a scheme and host in front are skipped.
const routerPattern = "^(?:[a-z]+://[^/]*)?(.*)$"

// routerDocument is the router API: the path on its hostname, with every method's operation keyed "/" holding
// the urlRewrite that sends each request on (see above). Its upstream is the unresolved URL, which only a method
// outside OpenAPI's (no operation) reaches: Tyk answers it 500.
func routerDocument(a *API, fallback func() string) *tykoas.Document {
	c := a.claim
	lp := a.routerListenPath()
	if v, ok := listenPathVariant(lp, a.variant, true); ok {
		lp = v
	}
	d := frame(a.ID, a.domain(), lp, true, c.tags, c.tls)
	d.Tyk.Upstream = (&upstreamSpec{}).upstream(a.Path)
	if c.port != 0 {
		d.Tyk.Server.Protocol, d.Tyk.Server.Port = serverProtocol(a.Parent, a.Hostname, c.port), c.port
	}
	for _, m := range openAPIMethods {
		rw := tykoas.URLRewrite{Enabled: true, Pattern: routerPattern}
		bs := a.routed[m]
		for _, b := range bs {
			if len(b.conds) == 0 {
				rw.RewriteTo = internalTarget(b.target)
				break
			}
			tr := tykoas.URLRewriteTrigger{Condition: "all", RewriteTo: internalTarget(b.target)}
			for _, cond := range b.conds {
				tr.Rules = append(tr.Rules, cond.rule())
			}
			rw.Triggers = append(rw.Triggers, tr)
		}
		if rw.RewriteTo == "" {
			rw.RewriteTo = fallback()
		}
		id := strings.ToLower(m)
		d.AddOperation(operationPath, m, id)
		setOperation(d, id, tykoas.Operation{URLRewrite: &rw})
	}
	return d
}

// noRuleAPI is the internal API that answers 404 for the requests of a routed path that no match takes.
func noRuleAPI(router *API) *API {
	hr, gw := router.Route.Route, router.Parent.Gateway.Gateway
	id := APIID(hr.Namespace, hr.Name, router.ListenPath()+"\nno rule", gw.Namespace, gw.Name, router.idHost)
	plan := &pathPlan{path: router.Path, listenPrefix: "/" + id, methods: map[string]behaviour{}, noRule: true}
	return &API{ID: id, Route: router.Route, Parent: router.Parent, Hostname: router.Hostname, Path: router.Path,
		Role: RoleNoRule, Document: internalDocument(id, router.Hostname, plan, router.claim.tags), dataPlane: router.dataPlane}
}

// claimWhere is where an API's claims live: its Gateway's data plane, else the Gateway itself, and the Tyk port
// (0: the listen_port). Gateway API never lets listeners on different ports conflict, and Tyk routes each port
// by itself (one router per port), so claims on two ports are apart; Tyk's own check of one API per custom
// domain and listen path, which ignores the port, is met by plainDomain.
func claimWhere(dataPlane string, gw *gwv1.Gateway, port int) string {
	w := dataPlane
	if w == "" {
		w = "gateway " + gw.Namespace + "/" + gw.Name
	}
	if port != 0 {
		w += " port " + strconv.Itoa(port)
	}
	return w
}

func claimWhereOf(a *API) string { return claimWhere(a.dataPlane, a.Parent.Gateway.Gateway, a.port) }

// claimBefore orders the router claims of one path: the route that takes precedence first; of one route's claims
// (two parents whose Gateways share a data plane), the Gateway that sorts first, as dataPlaneShared keeps it.
func claimBefore(a, b *API) bool {
	if a.Route != b.Route {
		return olderRoute(a, b)
	}
	ga, gb := a.Parent.Gateway.Gateway, b.Parent.Gateway.Gateway
	if ga.Namespace != gb.Namespace {
		return ga.Namespace < gb.Namespace
	}
	return ga.Name < gb.Name
}

// IsRouterRewrite reports whether rw is a router API's urlRewrite (see routerDocument), which readers of rendered
// documents (diff) describe as routing, not as a rewrite a rule asked for.
func IsRouterRewrite(rw *tykoas.URLRewrite) bool {
	return rw != nil && rw.Pattern == routerPattern && strings.HasPrefix(rw.RewriteTo, "tyk://")
}

// LoopTarget is the API a router's rewriteTo sends to: the ID in tyk://<id>/...
func LoopTarget(rewriteTo string) string {
	id, _, _ := strings.Cut(strings.TrimPrefix(rewriteTo, "tyk://"), "/")
	return strings.TrimSuffix(id, "$1")
}

// Part says which requests of its rule an internal API takes, where the rule has several internal APIs that a
// reader should tell apart ("CORS preflights of allowed origins"; cors.go), or "".
func (a *API) Part() string { return a.part }

// RoleAnnotation is the API's role as the emitted objects say it (emit.AnnotationRole): "" for a plain API.
func (a *API) RoleAnnotation() string {
	switch a.Role {
	case RoleRouter:
		return "router"
	case RoleInternal:
		if a.part != "" {
			return fmt.Sprintf("internal spec.rules[%d] (%s)", a.Rules[0], a.part)
		}
		return fmt.Sprintf("internal spec.rules[%d]", a.Rules[0])
	case RoleNoRule:
		return "no rule"
	}
	return ""
}

// sameRouteBefore reports whether a claim of c's route comes before c (a second Gateway of the same data plane:
// its matches are served by the first's).
func sameRouteBefore(claims []*API, c *API) bool {
	for _, o := range claims {
		if o == c {
			return false
		}
		if o.Route == c.Route {
			return true
		}
	}
	return false
}
