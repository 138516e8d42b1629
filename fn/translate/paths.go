package translate

import (
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// pathPlan is everything one API of the route serves: one path value and the rules that match it.
type pathPlan struct {
	path string
	// exact says the path is an Exact match's (see ExactListenPath), or a RegularExpression's (regex too, see
	// RegexListenPath).
	exact    bool
	regex    bool
	upstream *upstreamSpec
	// methods maps each method to the behaviour of the rule that matches it; anyMethod is a match without a
	// method, which covers every method.
	methods map[string]behaviour
	// rules are the indexes of the rules that match the path, ascending.
	rules []int
	// branches are the plan's matches with the rule of each, in rule and match order; dispatch says one of them
	// has header or query conditions, or its rule adds to request headers (appends.go), so the path is served by
	// a router API (router.go).
	branches []branch
	dispatch bool
	// listenPrefix goes before the path in an internal API's listen path ("/<api id>"); noRule says the plan's
	// methods that no rule matches answer that no rule matches the request (the routed path's no-rule API).
	listenPrefix string
	noRule       bool
	// upstreams are the upstream keys of the plan's rules that send upstream (a redirect has none).
	upstreams map[int]string
}

// branch is one match of a rule on the plan's path.
type branch struct {
	rule int
	pair
}

// routed says the plan's path is served by a router (router.go) whatever the other routes do: some match has
// conditions or adds to request headers, or, where methods are routed (the gateway-api profile), its methods go to different backends, which
// one plain API cannot do (routerKeys decides the rest).
func (p *pathPlan) routed(methods bool) bool {
	if p.dispatch {
		return true
	}
	if !methods || p.exact {
		return false // an Exact path keeps its own method answers (exact.go)
	}
	// Rules that survived planning with other backends on one path match other methods (groupPaths drops those
	// that a request cannot tell apart).
	first := ""
	for _, b := range p.branches {
		if up := p.upstreams[b.rule]; up != "" {
			if first == "" {
				first = up
			} else if up != first {
				return true
			}
		}
	}
	return false
}

// matchKey is what rule matches on the plan's path: each of its matches there (method and conditions), sorted.
func (p *pathPlan) matchKey(rule int) string {
	var keys []string
	for _, b := range p.branches {
		if b.rule == rule {
			keys = append(keys, b.method+"|"+conditionsKey(b.conds))
		}
	}
	sort.Strings(keys)
	return strings.Join(keys, "\n")
}

// listenPath is the listen path of the plan's API.
func (p *pathPlan) listenPath() string {
	return p.listenPrefix + pair{path: p.path, exact: p.exact, regex: p.regex}.listenPath()
}

// planPaths groups the rules by listen path (API identity: one API per path value, and in the gateway-api
// profile one more per Exact path value) and enforces the rule of the
// reference that rules matching the same path must use the same backends and, for overlapping methods, the same
// filters. No rule can be preferred without depending on rule order, so every rule in such a conflict is
// dropped, and the plan is made again from the rules that are left (a dropped rule may free other paths).
func planPaths(rules []*rule, routesMethods bool) ([]*pathPlan, []Drop) {
	var drops []Drop
	live := rules
	for {
		plans, conflicts := groupPaths(live, routesMethods)
		if len(conflicts) == 0 {
			return plans, drops
		}
		var next []*rule
		for _, r := range live {
			if msg, bad := conflicts[r.index]; bad {
				drops = append(drops, Drop{Rule: r.index, Field: fmt.Sprintf("spec.rules[%d]", r.index), Message: msg})
				continue
			}
			next = append(next, r)
		}
		live = next
	}
}

func groupPaths(rules []*rule, routesMethods bool) ([]*pathPlan, map[int]string) {
	byPath := map[string]*pathPlan{}
	conflicts := map[int]string{}
	conflict := func(a, b int, format string, args ...any) {
		what := fmt.Sprintf(format, args...)
		if _, ok := conflicts[a]; !ok {
			conflicts[a] = fmt.Sprintf("%s as spec.rules[%d]", what, b)
		}
		if _, ok := conflicts[b]; !ok {
			conflicts[b] = fmt.Sprintf("%s as spec.rules[%d]", what, a)
		}
	}
	// Every match is compared with every match of the other rules on its path, not only with the first: a rule
	// that agrees with the first rule but not with a later one is in conflict too, so the outcome does not
	// depend on rule order.
	type claim struct {
		rule      int
		method    string
		upstream  *upstreamSpec
		behaviour behaviour
		// conds are a conditioned claim's conditions: it is served by the rule's own internal API (router.go), so
		// it conflicts only with a claim of the same conditions, which a request takes alike.
		conds string
	}
	// A path served by a router (router.go) gives each rule an internal API of its own, so its rules conflict
	// only where a request cannot tell them apart: the same method and the same conditions.
	routed := map[string]bool{}
	for _, r := range rules {
		for _, pr := range r.pairs {
			if len(pr.conds) > 0 || len(r.behaviour.appends) > 0 || r.behaviour.cors != nil || (routesMethods && !pr.exact && pr.method != anyMethod) {
				routed[pr.listenPath()] = true
			}
		}
	}
	claims := map[string][]claim{}
	for _, r := range rules {
		for _, pr := range r.pairs {
			lp := pr.listenPath()
			p := byPath[lp]
			if p == nil {
				p = &pathPlan{path: pr.path, exact: pr.exact, regex: pr.regex, methods: map[string]behaviour{}, upstreams: map[int]string{}}
				byPath[lp] = p
			}
			if len(p.rules) == 0 || p.rules[len(p.rules)-1] != r.index {
				p.rules = append(p.rules, r.index)
			}
			p.branches = append(p.branches, branch{rule: r.index, pair: pr})
			if r.upstream != nil {
				p.upstreams[r.index] = r.upstream.key()
			}
			p.dispatch = p.dispatch || len(pr.conds) > 0 || len(r.behaviour.appends) > 0 || r.behaviour.cors != nil
			for _, c := range claims[lp] {
				if c.rule == r.index || c.conds != conditionsKey(pr.conds) || (routed[lp] && c.method != pr.method) {
					continue
				}
				if r.upstream != nil && c.upstream != nil && c.upstream.key() != r.upstream.key() {
					conflict(r.index, c.rule, "matches %s with other backends or another ReplacePrefixMatch", pr.description())
				}
				if m, ok := overlap(pr.method, c.method); ok && c.behaviour.key() != r.behaviour.key() {
					conflict(r.index, c.rule, "matches method %s on %s with other filters", methodName(m), pr.description())
				}
			}
			claims[lp] = append(claims[lp], claim{r.index, pr.method, r.upstream, r.behaviour, conditionsKey(pr.conds)})
			if len(pr.conds) > 0 {
				continue // not in the plan's own methods: the router sends it to the rule's internal API
			}
			if r.upstream != nil && p.upstream == nil {
				p.upstream = r.upstream
			}
			if _, seen := p.methods[pr.method]; !seen {
				p.methods[pr.method] = r.behaviour
			}
		}
	}
	var plans []*pathPlan
	for _, p := range byPath {
		plans = append(plans, p)
	}
	sort.Slice(plans, func(i, j int) bool {
		if plans[i].path != plans[j].path {
			return plans[i].path < plans[j].path
		}
		if plans[i].exact != plans[j].exact {
			return !plans[i].exact && plans[j].exact
		}
		return !plans[i].regex && plans[j].regex
	})
	return plans, conflicts
}

// overlap reports whether matches on methods a and b share a method, and which: a match without a method
// overlaps every one.
func overlap(a, b string) (string, bool) {
	switch {
	case a == anyMethod:
		return b, true
	case b == anyMethod, a == b:
		return a, true
	}
	return "", false
}

func methodName(m string) string {
	if m == anyMethod {
		return "(any)"
	}
	return m
}

// operations writes the plan's methods as OpenAPI operations with their Tyk middleware:
//
//   - a path matched for every method with no filter needs no operation: the API proxies everything;
//   - a path matched for every method with filters gets one operation per method, each with the middleware;
//   - a path matched for some methods gets one operation per matched method, and one per other method that
//     answers 404 Not Found, since a request with a method that no rule matches gets 404.
//
// Operations are keyed operationPath and named after their method (see operationPath for how they cover every
// path under the listen path).
//
// host is the API's exact hostname, which a redirect that keeps the request's host names (redirect.locationFor).
func (p *pathPlan) operations(d *tykoas.Document, host string, upstream func(*upstreamSpec) string) {
	if all, ok := p.methods[anyMethod]; ok {
		if all.empty() {
			return
		}
		for _, m := range openAPIMethods {
			p.addOperation(d, host, m, all, upstream)
		}
		return
	}
	for _, m := range openAPIMethods {
		b, ok := p.methods[m]
		if !ok {
			b = behaviour{notFound: true, noRule: p.noRule}
		}
		p.addOperation(d, host, m, b, upstream)
	}
}

// addOperation writes one method's operation. An Exact path's API takes only its bare listen path, so a mock
// needs neither the copy for the paths below it nor the loop of the bare listen path: the classic match of "/"
// finds it (ExactServed; compileRule drops such rules for the releases that only look through the router).
func (p *pathPlan) addOperation(d *tykoas.Document, host, method string, b behaviour, upstream func(*upstreamSpec) string) {
	listenPath, up := p.listenPath(), p.upstream
	id := strings.ToLower(method)
	d.AddOperation(operationPath, method, id)
	var op tykoas.Operation
	if mock := b.mock(method, host); mock != nil {
		op.MockResponse = mock
		fromRequest := b.redirect != nil && b.redirect.fromRequest()
		if fromRequest {
			op.TransformResponseHeaders = &tykoas.TransformHeaders{Enabled: true, Add: []tykoas.Header{requestPathLocation(b.redirect, host)}}
			op.URLRewrite = locationTrigger(b.redirect)
			enableContextVariables(d)
			if b.redirect.copyBelow && !p.exact {
				d.AddOperation(belowPath, method, id+belowSuffix)
				d.DeclarePathParameter(belowPath, restParameter)
				setOperation(d, id+belowSuffix, tykoas.Operation{MockResponse: mock, TransformResponseHeaders: op.TransformResponseHeaders,
					URLRewrite: op.URLRewrite})
			}
		}
		if !p.exact && !fromRequest {
			op.URLRewrite = bareListenPathLoop(listenPath)
			if p.listenPrefix != "" && op.URLRewrite != nil {
				// An internal API's requests come through a loop, whose URL Tyk writes "http:///<path>".
				op.URLRewrite.Pattern = "^(?:[a-z]+://[^/]*)?" + strings.TrimPrefix(op.URLRewrite.Pattern, "^")
			}
			d.AddOperation(belowPath, method, id+belowSuffix)
			d.DeclarePathParameter(belowPath, restParameter)
			setOperation(d, id+belowSuffix, tykoas.Operation{MockResponse: mock, TransformResponseHeaders: b.preflightHeaders()})
		}
		if t := b.preflightHeaders(); t != nil {
			op.TransformResponseHeaders = t
			enableContextVariables(d)
		}
	} else {
		op.EnforceTimeout = b.timeout
		op.TransformRequestHeaders = b.requestHeaders
		op.TransformResponseHeaders = b.responseHeaders
		if b.fullPath != nil {
			op.URLRewrite = fullPathRewrite(listenPath, upstream(up), *b.fullPath)
		}
	}
	if op != (tykoas.Operation{}) {
		setOperation(d, id, op)
	}
}

// mock is the answer Tyk gives itself for the behaviour on the API of host: 404 for a method no rule matches,
// or the redirect.
func (b behaviour) mock(method, host string) *tykoas.MockResponse {
	switch {
	case b.notFound && b.noRule:
		return &tykoas.MockResponse{Enabled: true, Code: 404, Body: `{"error":"no rule of the routes on this path matches the request"}`}
	case b.notFound:
		return &tykoas.MockResponse{Enabled: true, Code: 404,
			Body: `{"error":"no rule of the route matches method ` + method + `"}`}
	case b.redirect != nil && b.redirect.fromRequest():
		return &tykoas.MockResponse{Enabled: true, Code: b.redirect.code} // Location: requestPathLocation
	case b.redirect != nil:
		return &tykoas.MockResponse{Enabled: true, Code: b.redirect.code,
			Headers: []tykoas.Header{{Name: "Location", Value: b.redirect.locationFor(host)}}}
	case b.preflight != nil:
		return &tykoas.MockResponse{Enabled: true, Code: http.StatusNoContent} // its headers: withCORS
	}
	return nil
}

// enableContextVariables turns Tyk's context variables on for the API (requestPathLocation needs them).
func enableContextVariables(d *tykoas.Document) {
	if d.Tyk.Middleware == nil {
		d.Tyk.Middleware = &tykoas.Middleware{Operations: map[string]tykoas.Operation{}}
	}
	d.Tyk.Middleware.Global = &tykoas.Global{ContextVariables: &tykoas.Allowance{Enabled: true}}
}

func setOperation(d *tykoas.Document, id string, op tykoas.Operation) {
	if d.Tyk.Middleware == nil {
		d.Tyk.Middleware = &tykoas.Middleware{Operations: map[string]tykoas.Operation{}}
	}
	d.Tyk.Middleware.Operations[id] = op
}

// The path keys of the operations. Tyk finds an operation's middleware in two ways, and between them every
// path under the listen path must be covered (shown on real Gateways, e2e TestRealTyk*; Tyk's source says
// where to look):
//
//   - the classic way, for urlRewrite, header transforms and ignoreAuthentication: the key read as a regular
//     expression, unanchored, against the path without the listen path. "/" matches every path, the bare listen
//     path included, in every Tyk version; a key with a {variable} does not (from 5.6 a variable is ([^/]+), so
//     "/{rest:.*}" misses "/");
//   - Tyk's OpenAPI router (kin-openapi's gorillamux), for mockResponse: the listen path followed by the key, as
//     an anchored gorilla/mux template. "/" matches only <listenPath>/; "/{rest:.*}" (mux's {name:pattern})
//     matches <listenPath>/ and every path below it. The router tries "/" first (fewer variables). From 5.8.12
//     and 5.12.0 (Tyk's TT-15856) mockResponse is matched the classic way too, "/" first; since both keys hold
//     the same mock for a method (or neither does), every path under the listen path gets the same answer either
//     way. Only the string-prefix neighbour <listenPath>x differs (it strips to the same path as <listenPath>/x):
//     proxied through the router, mocked the classic way (tykroute models both; docs/tyk-releases.md).
//
// So every operation is keyed operationPath ("/") and holds all its middleware; a method Tyk answers itself
// has a second operation, keyed belowPath, with the same mockResponse, for the paths below <listenPath>/; the
// bare listen path, which no key reaches in the router, loops into the API as <listenPath>/ (see
// bareListenPathLoop). The path parameter must be declared, or Tyk refuses the API (400 "invalid paths"); its
// name is the variable as written, pattern included, which is how Tyk's kin-openapi (v0.115 in 5.4 to 5.8,
// v0.132 in 5.11) reads it.
const (
	operationPath = "/"
	restParameter = "rest:.*"
	belowPath     = "/{" + restParameter + "}"
	belowSuffix   = "-below"
)

// IsMockCopy reports whether the operation at path key for method, with middleware op, is the copy of a mock
// the render makes for the paths below <listenPath>/ (see operationPath): the same mockResponse as the method's
// operation at "/" (atRoot), and nothing else but the ignoreAuthentication a base document's merge gives both and
// the Location transform of a redirect that keeps the path (redirect.copyBelow). Readers of rendered documents
// (diff) count such a method once.
func IsMockCopy(key string, op, atRoot tykoas.Operation) bool {
	return key == belowPath && op.MockResponse != nil && atRoot.MockResponse != nil &&
		(reflect.DeepEqual(op, tykoas.Operation{MockResponse: atRoot.MockResponse, IgnoreAuthentication: atRoot.IgnoreAuthentication}) ||
			reflect.DeepEqual(op, tykoas.Operation{MockResponse: atRoot.MockResponse, IgnoreAuthentication: atRoot.IgnoreAuthentication,
				TransformResponseHeaders: atRoot.TransformResponseHeaders}))
}

// IsBareListenPathLoop reports whether rw is the loop the render writes for the bare listen path (see
// bareListenPathLoop): a means of answering on every path, not a rewrite a rule asked for.
func IsBareListenPathLoop(rw *tykoas.URLRewrite, listenPath string) bool {
	loop := bareListenPathLoop(PrefixOfListenPath(listenPath))
	return loop != nil && rw != nil && reflect.DeepEqual(*loop, *rw)
}

// bareListenPathLoop sends a request for exactly the listen path (no trailing slash), query kept, back into the
// same API as <listenPath>/ (Tyk's tyk://self loop), where the OpenAPI router finds the mockResponse. Other
// paths do not match the pattern and are left alone. A listen path that ends with "/" needs no loop: the
// router drops the trailing slash of the listen path, so "/" after it is the listen path itself.
func bareListenPathLoop(listenPath string) *tykoas.URLRewrite {
	if strings.HasSuffix(listenPath, "/") {
		return nil
	}
	return &tykoas.URLRewrite{Enabled: true, Pattern: "^" + regexp.QuoteMeta(listenPath) + `(\?.*)?$`,
		RewriteTo: "tyk://self" + listenPath + "/$1"}
}

// fullPathRewrite writes a ReplaceFullPath filter as Tyk's URL rewrite, which works on the whole request URL:
// the pattern matches the path and captures the query, and rewriteTo puts the query back ($1), so the
// upstream gets the replacement path and the request's query string. rewriteTo is the backend's full URL
// (a relative one would be joined to the upstream URL, which holds the matched path). Tyk then strips the
// listen path from the rewritten path too (strip is on); a replacement that starts with the listen path is
// written behind one more copy of it, so that what reaches the backend is the replacement itself.
func fullPathRewrite(listenPath, backendURL, replacement string) *tykoas.URLRewrite {
	p := replacement
	if strings.HasPrefix(p, listenPath) {
		p = listenPath + p
	}
	return &tykoas.URLRewrite{Enabled: true, Pattern: `^[^?]*(\?.*)?$`, RewriteTo: backendURL + p + "$1"}
}
