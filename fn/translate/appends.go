package translate

import (
	"fmt"
	"math/bits"
	"net/http"
	"slices"
	"sort"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// A RequestHeaderModifier's add (the gateway-api profile) appends a value to the request's header: "a" becomes
// "a,v", and an absent header becomes "v". Tyk's request header transform only sets a header, but its value may
// hold context variables, and $tyk_context.headers_<Name> is the request's value of the header (the first one);
// an absent header's variable is "", which would leave ",v". So whether each added header is present decides
// the value to write, and Tyk can only choose by routing: a rule with add entries makes its path routed
// (router.go), and the rule gets one internal API per set of its added headers a request may carry, whose
// transform writes "$tyk_context.headers_<Name>,v" for the headers of the set and "v" for the others. The
// router's trigger for each such internal API holds the rule's match and a presence rule (pattern .*) for each
// header of the set; the larger sets come first, so the first trigger that holds is the set the request carries.
// Presence rules are not matches: they do not count in Gateway API's precedence. Seen on real Gateways (e2e
// TestRealTykRequestHeaderAdd; the upstream suite's HTTPRouteRequestHeaderModifier).
//
// Tyk's context variable holds a header's first value, and its trigger counts matching values, not headers: a
// request that carries an added header twice gets the value appended to the first only (the others are
// dropped), and its two values count as two rules met: a trigger of a presence rule and one other rule holds
// without the other (seen on v5.14.0: GET /api with X-Team twice reached the X-Canary rule's backend without
// X-Canary). The rule says so in its Accepted message (appendsApproximation).

// maxAppends is how many headers one rule may add: 2^n internal APIs serve them.
const maxAppends = 3

// PresentPattern is the pattern of a presence rule: any value, the empty one included (readers of routers, such
// as e2e/explaincheck, send a value for it).
const PresentPattern = ".*"

// appendsApproximation is what the rule's Accepted message says of its add entries.
const appendsApproximation = "a header the request carries more than once gets the value appended to its first value " +
	"only (Tyk's context variables hold one value for each header; the others are dropped), and its two values " +
	"count as two matches in Tyk's triggers, so it can meet another rule's match or another added header's " +
	"presence without it"

// compileAppends checks the add entries of a request header modifier and returns them with canonical names,
// sorted. Each name may be added once (header names are case-insensitive) and not also be set or removed by
// the filter, and at most maxAppends headers may be added.
func compileAppends(field string, h *gwv1.HTTPHeaderFilter, add func(string, string, ...any)) []tykoas.Header {
	if len(h.Add) > maxAppends {
		add(field+".add", "%d headers are added: at most %d are supported (each set of them a request carries "+
			"needs an internal API of its own)", len(h.Add), maxAppends)
		return nil
	}
	addConflicts(field, h, add)
	var out []tykoas.Header
	for _, a := range h.Add {
		out = append(out, tykoas.Header{Name: http.CanonicalHeaderKey(string(a.Name)), Value: a.Value})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// addConflicts reports each add of a header filter whose name is added twice, or is also set or removed by the
// filter (header names are case-insensitive), naming its field; it says whether there was none.
func addConflicts(field string, h *gwv1.HTTPHeaderFilter, add func(string, string, ...any)) bool {
	others := map[string]bool{}
	for _, s := range h.Set {
		others[http.CanonicalHeaderKey(string(s.Name))] = true
	}
	for _, r := range h.Remove {
		others[http.CanonicalHeaderKey(r)] = true
	}
	seen := map[string]bool{}
	ok := true
	for k, a := range h.Add {
		name := http.CanonicalHeaderKey(string(a.Name))
		switch {
		case seen[name]:
			add(fmt.Sprintf("%s.add[%d].name", field, k), "%s is added twice (header names are case-insensitive)", a.Name)
			ok = false
		case others[name]:
			add(fmt.Sprintf("%s.add[%d].name", field, k), "%s is also set or removed by this filter: not supported yet", a.Name)
			ok = false
		}
		seen[name] = true
	}
	return ok
}

// checkAppends finishes a rule's add entries: a redirect never reaches an upstream, so there is nothing to add
// to; an Exact path's API is not routed (exact.go), so it cannot choose between the internal APIs; otherwise the
// rule is served, with appendsApproximation. A URLRewrite beside the add is served by each internal API as by a
// plain API (its upstream URL or its operation's urlRewrite): seen on the 5.4 line, v5.8.11 and v5.14.0 (e2e
// TestRealTykRequestHeaderAdd's /v1/orders and /legacy/report; the upstream suite's HTTPRouteRewritePath).
func checkAppends(f string, r gwv1.HTTPRouteRule, exactFields []string, b *behaviour, add func(string, string, ...any),
	approximate func(field, message string)) {
	if len(b.appends) == 0 {
		return
	}
	if b.redirect != nil {
		b.appends = nil
		return
	}
	field := f + ".filters"
	for k, filter := range r.Filters {
		if filter.Type == gwv1.HTTPRouteFilterRequestHeaderModifier {
			field = fmt.Sprintf("%s.filters[%d].requestHeaderModifier.add", f, k)
		}
	}
	if len(exactFields) > 0 {
		add(field, "adding to a request header on an Exact path (%s) is not supported yet", strings.Join(exactFields, ", "))
		return
	}
	approximate(field, appendsApproximation)
}

// appendsRule reports whether a rule adds to a request header and sends upstream (routerKeys: its path is
// routed; checkAppends drops the add entries of a redirect).
func appendsRule(r gwv1.HTTPRouteRule) bool {
	adds := false
	for _, f := range r.Filters {
		switch {
		case f.Type == gwv1.HTTPRouteFilterRequestRedirect:
			return false
		case f.Type == gwv1.HTTPRouteFilterRequestHeaderModifier && f.RequestHeaderModifier != nil:
			adds = adds || len(f.RequestHeaderModifier.Add) > 0
		}
	}
	return adds
}

// appendSets are the sets of added headers a request may carry, the larger first (then in the order of their
// names), the empty set last.
func appendSets(appends []tykoas.Header) [][]string {
	n := len(appends)
	masks := make([]int, 1<<n)
	for m := range masks {
		masks[m] = m
	}
	sort.SliceStable(masks, func(i, j int) bool { return bits.OnesCount(uint(masks[i])) > bits.OnesCount(uint(masks[j])) })
	var out [][]string
	for _, m := range masks {
		var set []string
		for k, a := range appends {
			if m&(1<<k) != 0 {
				set = append(set, a.Name)
			}
		}
		out = append(out, set)
	}
	return out
}

// presentKey is what a set of present headers adds to an internal API's identity ("" for none, so that a rule
// without add entries keeps its ID).
func presentKey(present []string) string {
	if len(present) == 0 {
		return ""
	}
	return "\npresent " + strings.Join(present, ",")
}

// withAppends is the behaviour of the internal API for the requests that carry the present headers: the add
// entries written into the request header transform, appended to the request's value for the present ones.
func (b behaviour) withAppends(present []string) behaviour {
	if len(b.appends) == 0 {
		return b
	}
	t := &tykoas.TransformHeaders{Enabled: true}
	if b.requestHeaders != nil {
		t.Remove = append(t.Remove, b.requestHeaders.Remove...)
		t.Add = append(t.Add, b.requestHeaders.Add...)
	}
	for _, a := range b.appends {
		v := a.Value
		if slices.Contains(present, a.Name) {
			v = "$tyk_context." + headerVariable(a.Name) + "," + v
		}
		t.Add = append(t.Add, tykoas.Header{Name: a.Name, Value: v})
	}
	sort.Slice(t.Add, func(i, j int) bool { return strings.ToLower(t.Add[i].Name) < strings.ToLower(t.Add[j].Name) })
	b.requestHeaders, b.appends = t, nil
	return b
}

// headerVariable is the context variable Tyk gives a request header: headers_ and its canonical name with each
// "-" written "_".
func headerVariable(name string) string {
	return "headers_" + strings.ReplaceAll(http.CanonicalHeaderKey(name), "-", "_")
}

// presenceConditions are a match's conditions with the presence rules of the present headers, or false when
// the match cannot meet the set: it matches on an added header's value (so the header is present) that the set
// leaves out. Such a header needs no presence rule (Tyk keeps one rule for each name in a trigger).
func presenceConditions(conds []condition, appends []tykoas.Header, present []string) ([]condition, bool) {
	tested := map[string]bool{}
	for _, c := range conds {
		if c.in == "header" {
			tested[c.name] = true
		}
	}
	out := append([]condition(nil), conds...)
	for _, a := range appends {
		in := slices.Contains(present, a.Name)
		switch {
		case tested[a.Name] && !in:
			return nil, false
		case in && !tested[a.Name]:
			out = append(out, condition{in: "header", name: a.Name, pattern: PresentPattern, present: true})
		}
	}
	sortConditions(out)
	return out, true
}
