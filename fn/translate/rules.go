package translate

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// Drop is a part of a route that cannot be served: the field that asks for it and why.
type Drop struct {
	// Rule is the index of the dropped rule.
	Rule    int
	Field   string
	Message string
}

func (d Drop) String() string { return d.Field + ": " + d.Message }

// anyMethod stands for a match without a method: every method.
const anyMethod = ""

// openAPIMethods are the methods a match may name (the Matches table: the methods OpenAPI defines), in the
// order operations are written.
var openAPIMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"}

// rule is a rule that can be served, in the terms Tyk needs.
type rule struct {
	index int
	// pairs are the (path, method) pairs the rule matches; method anyMethod matches every method.
	pairs []pair
	// upstream is what the rule sends to (nil for a redirect, which never reaches an upstream).
	upstream *upstreamSpec
	// behaviour is the per-operation middleware of the rule.
	behaviour behaviour
	// approximations are the parts of the rule served only approximately (Route.Approximations).
	approximations []Drop
}

// pair is one match: its path value, whether the value is matched exactly (path.type Exact) rather than as a
// prefix, and its method.
type pair struct {
	path  string
	exact bool
	// regex says the path is a RegularExpression's (RegexListenPath), which takes the paths it matches whole, as
	// an Exact path takes one: exact is set too.
	regex  bool
	method string
	// conds are the match's header and query parameter matches (the gateway-api profile; see router.go), and
	// match its index in the rule.
	conds []condition
	match int
}

// listenPath is the listen path of the API that serves the pair's path (see ExactListenPath).
func (p pair) listenPath() string {
	if p.regex {
		lp, _ := RegexListenPath(p.path) // compileRule dropped a value that has none
		return lp
	}
	if p.exact {
		return ExactListenPath(p.path)
	}
	return p.path
}

// GatewayAPIServes ends a rejection of the operator profile (the reference's) that the gateway-api profile
// serves, so that the message leads somewhere.
const GatewayAPIServes = " (the gateway-api profile serves it: spec.profile: gateway-api in the RenderConfig; " +
	"try it with --profile gateway-api)"

// servedFeatures are the parts of Gateway API beyond the reference that the profile serves, and how.
type servedFeatures struct {
	timeouts Timeouts
	exact    ExactPaths
	// redirectsKeepPath is DataPlanes.RedirectsKeepPath.
	redirectsKeepPath bool
	// conditions is DataPlanes.HeaderAndQueryMatches.
	conditions bool
	// redirectsKeepHost is DataPlanes.RedirectsKeepHost.
	redirectsKeepHost bool
	// headerNames is DataPlanes.HeaderNames.
	headerNames HeaderNames
}

// behaviour is what a rule does to a request on top of proxying it. Two rules that overlap on a method must
// behave the same, so it has a canonical form (key) that ignores the order of filters and headers.
type behaviour struct {
	requestHeaders  *tykoas.TransformHeaders
	responseHeaders *tykoas.TransformHeaders
	// fullPath is a ReplaceFullPath rewrite.
	fullPath *string
	redirect *redirect
	// notFound answers 404: the method of a path that no rule matches; noRule, a request no match of a routed
	// path takes (router.go).
	notFound bool
	noRule   bool
	// timeout is the rule's timeouts, enforced (compileTimeouts).
	timeout *tykoas.EnforceTimeout
	// appends are a RequestHeaderModifier's add entries (the gateway-api profile; appends.go), canonical names,
	// sorted: served by one internal API per set of them the request carries.
	appends []tykoas.Header
	// cors is a CORS filter (the gateway-api profile; cors.go): served by internal APIs of the rule's;
	// preflight, the response headers of the internal API that answers an allowed origin's preflights.
	cors      *corsSpec
	preflight *tykoas.TransformHeaders
}

// redirect is a RequestRedirect served as a mock response: its Location is scheme://host<port><path>
// (locationFor).
type redirect struct {
	code   int
	scheme string
	// host is the redirect's hostname, "" when it keeps the request's (the API's exact host).
	host string
	// port is ":<port>", or "" when the port is the scheme's default.
	port string
	// path is ReplaceFullPath's value; keepPath says the request's path follows instead (requestPathLocation).
	path     string
	keepPath bool
	// requestHost says the Location names the request's Host header (constantRedirect's hostFromRequest);
	// hostAlone, its host part without a port (hostAloneVariable), for a redirect that changes scheme or port.
	requestHost, hostAlone bool
	// copyBelow says the mock that keeps the path is repeated under the listen path (belowPath), for a Tyk
	// that finds mocks through its OpenAPI router (slashPaths).
	copyBelow bool
	// prefixPattern is a ReplacePrefixMatch's trigger pattern (redirectprefix.go), "" for none; path is then the
	// replacement, which the rest of the request's path follows in the Location.
	prefixPattern string
}

// slashPaths reports whether every match of a rule is a PathPrefix that ends with "/" (the default match, /,
// among them) and has no condition: there a redirect that keeps the path is served on a Tyk that finds mock
// responses through its OpenAPI router too (before 5.8.12 on the 5.8 line), with the mock and its Location
// repeated under the listen path, since such a listen path needs no loop of its bare form, which would change
// the path the Location gets (requestPathLocation).
func slashPaths(matches []gwv1.HTTPRouteMatch) bool {
	for _, m := range matches {
		if m.Path == nil || m.Path.Type == nil || *m.Path.Type != gwv1.PathMatchPathPrefix || m.Path.Value == nil ||
			!strings.HasSuffix(*m.Path.Value, "/") || len(m.Headers)+len(m.QueryParams) > 0 || m.Method != nil {
			return false
		}
	}
	return len(matches) > 0
}

func (b behaviour) empty() bool {
	return b.requestHeaders == nil && b.responseHeaders == nil && b.fullPath == nil && b.redirect == nil &&
		b.timeout == nil && len(b.appends) == 0 && b.cors == nil && b.preflight == nil
}

func (b behaviour) key() string {
	var sb strings.Builder
	for _, t := range []*tykoas.TransformHeaders{b.requestHeaders, b.responseHeaders} {
		if t != nil {
			fmt.Fprintf(&sb, "%v|%v;", t.Add, t.Remove)
		} else {
			sb.WriteString("-;")
		}
	}
	if b.fullPath != nil {
		fmt.Fprintf(&sb, "path=%q;", *b.fullPath)
	}
	if b.redirect != nil {
		rd := b.redirect
		fmt.Fprintf(&sb, "redirect=%d %q %q %q %q %t %t;", rd.code, rd.scheme, rd.host, rd.port, rd.path, rd.keepPath, rd.copyBelow)
		if rd.requestHost {
			sb.WriteString("requestHost;")
		}
		if rd.hostAlone {
			sb.WriteString("hostAlone;")
		}
		if rd.prefixPattern != "" {
			fmt.Fprintf(&sb, "prefix=%q;", rd.prefixPattern)
		}
	}
	if b.timeout != nil {
		fmt.Fprintf(&sb, "timeout=%d %q;", b.timeout.Value, b.timeout.Duration)
	}
	if len(b.appends) > 0 {
		fmt.Fprintf(&sb, "appends=%v;", b.appends)
	}
	sb.WriteString(b.cors.key())
	if b.preflight != nil {
		fmt.Fprintf(&sb, "preflight=%v;", b.preflight.Add)
	}
	return sb.String()
}

// compileRule checks one rule against the Matches, Filters and Unsupported Features tables of the reference,
// and translates what it can. A rule with any unsupported field is dropped whole, so what is served is never a
// weakened version of what was asked; every field at fault is reported. served says whether and how the rule's
// timeouts and Exact paths are served (the gateway-api profile); a part served only approximately is noted on
// the rule.
func compileRule(i int, r gwv1.HTTPRouteRule, backends backendsOf, listeners []listenerFacts, served servedFeatures) (*rule, []Drop) {
	f := fmt.Sprintf("spec.rules[%d]", i)
	var drops []Drop
	add := func(field, format string, args ...any) {
		drops = append(drops, Drop{Rule: i, Field: field, Message: fmt.Sprintf(format, args...)})
	}
	out := &rule{index: i}
	compileTimeouts(f, r.Timeouts, served.timeouts, &out.behaviour, add, func(field, format string, args ...any) {
		out.approximations = append(out.approximations, Drop{Rule: i, Field: field, Message: fmt.Sprintf(format, args...)})
	})
	for _, unsupported := range []struct {
		set   bool
		field string
	}{{r.Retry != nil, "retry"}, {r.SessionPersistence != nil, "sessionPersistence"}} {
		if unsupported.set {
			add(f+"."+unsupported.field, "not supported by Tyk")
		}
	}
	var exactFields []string // the Exact matches, for the checks below
	var regexFields []string // the RegularExpression matches, likewise
	for m, match := range r.Matches {
		mf := fmt.Sprintf("%s.matches[%d]", f, m)
		exact, regex := false, false
		switch t := *match.Path.Type; {
		case t == gwv1.PathMatchPathPrefix:
		case t == gwv1.PathMatchExact && served.exact != ExactRejected:
			exact = true
			exactFields = append(exactFields, mf+".path")
		case t == gwv1.PathMatchRegularExpression && served.exact != ExactRejected:
			// served as an anchored listen path, as Exact is (the same releases take such templates)
			if _, err := RegexListenPath(*match.Path.Value); err != nil {
				add(mf+".path.value", "%q: %v", *match.Path.Value, err)
			}
			exact, regex = true, true
			regexFields = append(regexFields, mf+".path")
			if match.Method != nil || len(match.Headers)+len(match.QueryParams) > 0 {
				add(mf, "method, header and query parameter matches on a RegularExpression path are not supported yet")
			}
		case served.exact != ExactRejected:
			add(mf+".path.type", "%s is not supported yet: Tyk serves PathPrefix and Exact paths", t)
		case t == gwv1.PathMatchExact:
			add(mf+".path.type", "%s is not supported: Tyk matches listen paths by prefix (use PathPrefix)%s", t, GatewayAPIServes)
		default:
			add(mf+".path.type", "%s is not supported: Tyk matches listen paths by prefix (use PathPrefix)", t)
		}
		if exact && !regex && served.exact == ExactProxiedOnly && match.Method != nil {
			add(mf+".method", "a method match on an Exact path needs Tyk 5.8.12 (5.12.0 on the main line) or later: "+
				"the other methods answer 404 with a mock response, which the older Tyk this render is for "+
				"(spec.tykVersion) never finds under an Exact path's listen path")
		}
		method := anyMethod
		if match.Method != nil {
			method = string(*match.Method)
			if !isOpenAPIMethod(method) {
				add(mf+".method", "%s is not supported: only the methods OpenAPI defines can be matched", method)
			}
		}
		var conds []condition
		switch {
		case !served.conditions:
			if len(match.Headers) > 0 {
				add(mf+".headers", "header matches are not supported by Tyk%s", GatewayAPIServes)
			}
			if len(match.QueryParams) > 0 {
				add(mf+".queryParams", "query parameter matches are not supported by Tyk%s", GatewayAPIServes)
			}
		case regex:
		case exact && len(match.Headers)+len(match.QueryParams) > 0:
			add(mf, "header and query parameter matches on an Exact path are not supported yet")
		default:
			conds = compileConditions(mf, match, add)
		}
		out.pairs = append(out.pairs, pair{path: *match.Path.Value, exact: exact, regex: regex, method: method, conds: conds, match: m})
	}
	for b, ref := range r.BackendRefs {
		if len(ref.Filters) > 0 {
			add(fmt.Sprintf("%s.backendRefs[%d].filters", f, b), "filters on a backend reference are not supported by Tyk")
		}
	}
	filterServed := served
	below := !served.redirectsKeepPath && served.redirectsKeepHost && served.exact == ExactProxiedOnly && slashPaths(r.Matches)
	if below {
		filterServed.redirectsKeepPath = true // slashPaths
	}
	redirects := redirectServing{keepPath: filterServed.redirectsKeepPath, keepHost: served.redirectsKeepHost,
		hostFromRequest: served.redirectsKeepHost && served.exact == ExactServed,
		replacePrefix:   served.redirectsKeepPath, matches: r.Matches}
	prefix := compileFilters(f, r.Filters, &out.behaviour, listeners, filterServed, redirects, add)
	if len(regexFields) > 0 {
		b := out.behaviour
		if b.redirect != nil || b.fullPath != nil || prefix != nil || len(b.appends) > 0 {
			add(f+".filters", "RequestRedirect, URLRewrite and requestHeaderModifier.add on a RegularExpression path (%s) "+
				"are not supported yet", strings.Join(regexFields, ", "))
		}
	}
	checkAppends(f, r, exactFields, &out.behaviour, add, func(field, message string) {
		out.approximations = append(out.approximations, Drop{Rule: i, Field: field, Message: message})
	})
	checkCORS(f, r, append(append([]string(nil), exactFields...), regexFields...), &out.behaviour, add)
	if rd := out.behaviour.redirect; rd != nil && rd.requestHost && !rd.keepPath {
		for m, match := range r.Matches {
			if len(match.Headers)+len(match.QueryParams) > 0 || match.Method != nil {
				// Served by a router, whose loop into the internal API does not keep the Host header.
				add(fmt.Sprintf("%s.matches[%d]", f, m), "a RequestRedirect that keeps a host that is not exact, with a "+
					"header, query parameter or method match, is not supported yet")
			}
		}
	}
	if rd := out.behaviour.redirect; rd != nil && (rd.keepPath || rd.prefixPattern != "") {
		rd.copyBelow = below && rd.keepPath
		for m, match := range r.Matches {
			if len(match.Headers)+len(match.QueryParams) > 0 || match.Method != nil {
				// Its path is then served by a router, and the internal API that would answer the redirect
				// gets the request under its own listen path: $tyk_context.path would not be the client's path.
				add(fmt.Sprintf("%s.matches[%d]", f, m), "a RequestRedirect that keeps the path or "+
					"replaces its prefix, with a header, query parameter or method match, is not supported yet")
			}
		}
		kept := "the Location keeps the request's path"
		if rd.prefixPattern != "" {
			kept = "the Location keeps what follows the replaced prefix in the request's path"
		}
		for k, filter := range r.Filters {
			if filter.Type == gwv1.HTTPRouteFilterRequestRedirect {
				out.approximations = append(out.approximations, Drop{Rule: i, Field: fmt.Sprintf("%s.filters[%d].requestRedirect", f, k),
					Message: kept + " but not its query: Tyk has no context variable that holds the query"})
			}
		}
	}
	if len(exactFields) > 0 {
		switch {
		case out.behaviour.fullPath != nil:
			add(f+".filters", "URLRewrite ReplaceFullPath with an Exact path (%s) is not supported yet", strings.Join(exactFields, ", "))
		case out.behaviour.redirect != nil && served.exact == ExactProxiedOnly:
			add(f+".filters", "RequestRedirect on an Exact path (%s) needs Tyk 5.8.12 (5.12.0 on the main line) or "+
				"later: Tyk answers it with a mock response, which the older Tyk this render is for (spec.tykVersion) "+
				"never finds under an Exact path's listen path", strings.Join(exactFields, ", "))
		}
	}
	if out.behaviour.redirect == nil {
		out.upstream = &upstreamSpec{backends: backends(i), prefix: prefix}
		if out.behaviour.fullPath != nil && len(out.upstream.weighted()) > 1 {
			add(f+".filters", "URLRewrite ReplaceFullPath with several weighted backends is not supported: Tyk "+
				"rewrites to a full URL, which bypasses load balancing")
		}
	}
	if len(drops) > 0 {
		return nil, drops
	}
	return out, nil
}

func isOpenAPIMethod(m string) bool {
	for _, o := range openAPIMethods {
		if o == m {
			return true
		}
	}
	return false
}

// dollarDigit finds the capture-group references that Tyk's URL rewrite would expand in a replacement path.
var dollarDigit = regexp.MustCompile(`\$[0-9]`)

// compileFilters translates a rule's filters into its behaviour, per the Filters table; it returns the
// ReplacePrefixMatch replacement, which changes the upstream URL rather than an operation. Filter order has no
// effect: Tyk applies its middleware in a fixed order, and headers are sorted.
func compileFilters(f string, filters []gwv1.HTTPRouteFilter, b *behaviour, listeners []listenerFacts, served servedFeatures,
	redirects redirectServing, add func(field, format string, args ...any)) *string {
	var prefix *string
	for k, filter := range filters {
		ff := fmt.Sprintf("%s.filters[%d]", f, k)
		switch filter.Type {
		case gwv1.HTTPRouteFilterRequestHeaderModifier:
			b.requestHeaders, b.appends = headerTransform(ff+".requestHeaderModifier", filter.RequestHeaderModifier, served.conditions, add)
			b.requestHeaders = served.headerNames.setByCanonicalName(b.requestHeaders)
		case gwv1.HTTPRouteFilterResponseHeaderModifier:
			b.responseHeaders = responseHeaderTransform(ff+".responseHeaderModifier", filter.ResponseHeaderModifier, served.headerNames, add)
		case gwv1.HTTPRouteFilterURLRewrite:
			rw := filter.URLRewrite
			if rw == nil {
				add(ff+".urlRewrite", "required for a URLRewrite filter")
				continue
			}
			if rw.Hostname != nil {
				add(ff+".urlRewrite.hostname", "rewriting the hostname is not supported by Tyk")
			}
			if rw.Path == nil {
				continue
			}
			switch rw.Path.Type {
			case gwv1.PrefixMatchHTTPPathModifier:
				if rw.Path.ReplacePrefixMatch == nil {
					add(ff+".urlRewrite.path.replacePrefixMatch", "required for ReplacePrefixMatch")
					continue
				}
				prefix = rw.Path.ReplacePrefixMatch
			case gwv1.FullPathHTTPPathModifier:
				p := rw.Path.ReplaceFullPath
				switch {
				case p == nil:
					add(ff+".urlRewrite.path.replaceFullPath", "required for ReplaceFullPath")
				case dollarDigit.MatchString(*p):
					add(ff+".urlRewrite.path.replaceFullPath", "%q contains $ followed by a digit, which Tyk's URL "+
						"rewrite would read as a capture group", *p)
				default:
					b.fullPath = p
				}
			}
		case gwv1.HTTPRouteFilterRequestRedirect:
			b.redirect = constantRedirect(ff+".requestRedirect", filter.RequestRedirect, listeners, redirects, add)
		case gwv1.HTTPRouteFilterCORS:
			if !served.conditions {
				add(ff, "%s filters are not supported by Tyk", filter.Type)
				continue
			}
			b.cors = compileCORS(ff+".cors", filter.CORS, add)
		default:
			add(ff, "%s filters are not supported by Tyk", filter.Type)
		}
	}
	return prefix
}

// headerTransform translates a header modifier: set becomes Tyk's add (Tyk holds one value per header name, so
// adding replaces), remove stays. add needs a second value for the name, which Tyk's transform cannot write: it
// is rejected, as the reference does, unless appends (the gateway-api profile, request headers) says it is
// served by appending to the request's value (appends.go); then its entries are returned apart.
func headerTransform(field string, h *gwv1.HTTPHeaderFilter, appends bool, add func(string, string, ...any)) (*tykoas.TransformHeaders, []tykoas.Header) {
	if h == nil {
		add(field, "required for this filter type")
		return nil, nil
	}
	var added []tykoas.Header
	switch {
	case len(h.Add) > 0 && appends:
		added = compileAppends(field, h, add)
	case len(h.Add) > 0:
		add(field+".add", "not supported: Tyk Gateway holds one value for each header name; use set to replace the value")
		return nil, nil
	}
	t := &tykoas.TransformHeaders{Enabled: true}
	for _, s := range h.Set {
		t.Add = append(t.Add, tykoas.Header{Name: string(s.Name), Value: s.Value})
	}
	sort.Slice(t.Add, func(i, j int) bool { return strings.ToLower(t.Add[i].Name) < strings.ToLower(t.Add[j].Name) })
	t.Remove = append(t.Remove, h.Remove...)
	sort.Slice(t.Remove, func(i, j int) bool { return strings.ToLower(t.Remove[i]) < strings.ToLower(t.Remove[j]) })
	return t, added
}

// description names the pair's path in a message: "path /one", or "exact path /one".
func (p pair) description() string {
	if p.regex {
		return "regular expression path " + p.path
	}
	if p.exact {
		return "exact path " + p.path
	}
	return "path " + p.path
}
