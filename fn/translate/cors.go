package translate

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// A CORS filter (the gateway-api profile) is served by routing, as an added request header is (appends.go), not
// by Tyk's CORS middleware: that middleware answers a preflight with the requested method alone and no exposed
// headers, and answers every OPTIONS request itself, so a request that is not a preflight never reaches the
// backend (e2e TestRealTykCORSMiddleware, docs/tyk-releases.md). A rule with a CORS filter makes its path
// routed (router.go), and the rule gets these internal APIs, which the router's triggers choose in this order:
//
//   - the preflight of an allowed origin (OPTIONS, an Origin the filter allows, Access-Control-Request-Method):
//     Tyk answers it itself, 204, with a mock response whose transformResponseHeaders write the CORS headers,
//     the origin echoed ($tyk_context.headers_Origin: a mock's own headers are not expanded, its transform's
//     are), a wildcard's methods and headers as the request asks for them (Gateway API: never "*" with
//     credentials). With allowHeaders "*", a preflight without Access-Control-Request-Headers has an API of its
//     own, which leaves Access-Control-Allow-Headers out, as Gateway API asks;
//   - the preflight of another origin: Tyk answers it itself, 204 without CORS headers (the upstream suite's
//     HTTPRouteCORS wants no backend's answer to it);
//   - any other request of an allowed origin: the rule's API with Access-Control-Allow-Origin (echoed),
//     -Allow-Credentials and -Expose-Headers added to its response headers;
//   - everything else (requests without an Origin, or of other origins): the rule's API as it would be without
//     the filter.
//
// The Origin and the request headers a trigger tests are the render's, not the route's matches: they do not
// count in Gateway API's precedence (presence rules, appends.go).

// corsSpec is a CORS filter, compiled.
type corsSpec struct {
	// origin is the anchored pattern of the origins the filter allows (corsOriginPattern).
	origin string
	// methods and headers are the preflight's Access-Control-Allow-Methods and -Allow-Headers ("" for none);
	// anyMethod and anyHeader say the filter allows every one ("*"), answered with what the preflight asks for.
	methods, headers     string
	anyMethod, anyHeader bool
	expose               string
	credentials          bool
	maxAge               int32
}

// corsPart is which of a CORS rule's internal APIs a variant is.
type corsPart int

const (
	// corsNone is the rule's API as without the filter: a rule without one, or the requests of other origins.
	corsNone corsPart = iota
	// corsActual is the requests of an allowed origin that are not its preflights.
	corsActual
	// corsPreflight is the preflights of an allowed origin; corsPreflightNoHeaders, those without
	// Access-Control-Request-Headers where every header is allowed.
	corsPreflight
	corsPreflightNoHeaders
	// corsPreflightDenied is the preflights of other origins.
	corsPreflightDenied
)

// anyOrigin is the pattern of allowOrigins "*".
const anyOrigin = "^.+$"

// The request headers of a preflight, and the response headers of CORS.
const (
	headerOrigin           = "Origin"
	headerRequestMethod    = "Access-Control-Request-Method"
	headerRequestHeaders   = "Access-Control-Request-Headers"
	headerAllowOrigin      = "Access-Control-Allow-Origin"
	headerAllowCredentials = "Access-Control-Allow-Credentials"
	headerAllowMethods     = "Access-Control-Allow-Methods"
	headerAllowHeaders     = "Access-Control-Allow-Headers"
	headerExposeHeaders    = "Access-Control-Expose-Headers"
	headerMaxAge           = "Access-Control-Max-Age"
)

// compileCORS compiles a CORS filter. A filter that allows no origin changes nothing (nil). exposeHeaders "*"
// with credentials cannot be served: Gateway API forbids "*" then, and Tyk cannot list a response's headers.
func compileCORS(field string, c *gwv1.HTTPCORSFilter, add func(string, string, ...any)) *corsSpec {
	if c == nil {
		add(field, "required for a CORS filter")
		return nil
	}
	if len(c.AllowOrigins) == 0 {
		return nil
	}
	s := &corsSpec{origin: corsOriginPattern(c.AllowOrigins), credentials: c.AllowCredentials != nil && *c.AllowCredentials,
		maxAge: c.MaxAge}
	var methods, headers, expose []string
	for _, m := range c.AllowMethods {
		s.anyMethod = s.anyMethod || m == "*"
		methods = append(methods, string(m))
	}
	for _, h := range c.AllowHeaders {
		s.anyHeader = s.anyHeader || h == "*"
		headers = append(headers, string(h))
	}
	for _, h := range c.ExposeHeaders {
		if h == "*" && s.credentials {
			add(field+".exposeHeaders", "\"*\" with allowCredentials is not supported: Gateway API then forbids "+
				"\"*\" in Access-Control-Expose-Headers, and Tyk cannot list the headers of a response")
			return nil
		}
		expose = append(expose, string(h))
	}
	if !s.anyMethod {
		s.methods = strings.Join(methods, ", ")
	}
	if !s.anyHeader {
		s.headers = strings.Join(headers, ", ")
	}
	s.expose = strings.Join(expose, ", ")
	return s
}

// corsOriginPattern is the anchored pattern of the allowed origins: each as written, but for a "*" in its host,
// which takes any number of DNS labels (Gateway API: a greedy match to the left), and "*" alone, any origin.
// Scheme and host are matched in any case, as browsers send them in lower case.
func corsOriginPattern(origins []gwv1.CORSOrigin) string {
	var alts []string
	for _, o := range origins {
		if o == "*" {
			return anyOrigin
		}
		alts = append(alts, strings.ReplaceAll(regexp.QuoteMeta(string(o)), `\*`, `[^/:]+`))
	}
	return "(?i)^(?:" + strings.Join(alts, "|") + ")$"
}

func (s *corsSpec) key() string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf("cors=%+v;", *s)
}

// corsParts are the internal APIs of a rule with the filter, in the order of the router's triggers; for a rule
// without one, corsNone alone.
func (b behaviour) corsParts() []corsPart {
	if b.cors == nil {
		return []corsPart{corsNone}
	}
	parts := []corsPart{corsPreflight}
	if b.cors.anyHeader {
		parts = append(parts, corsPreflightNoHeaders)
	}
	if b.cors.origin != anyOrigin {
		parts = append(parts, corsPreflightDenied)
	}
	return append(parts, corsActual, corsNone)
}

// preflight reports whether the part answers preflights, which only the OPTIONS operation of the router sends
// to it.
func (p corsPart) preflight() bool {
	return p == corsPreflight || p == corsPreflightNoHeaders || p == corsPreflightDenied
}

// corsKey is what a part adds to an internal API's identity ("" for corsNone, so that a rule keeps its IDs).
func (p corsPart) corsKey() string {
	switch p {
	case corsActual:
		return "\ncors"
	case corsPreflight:
		return "\ncors preflight"
	case corsPreflightNoHeaders:
		return "\ncors preflight without headers"
	case corsPreflightDenied:
		return "\ncors preflight denied"
	}
	return ""
}

// corsConditions are a branch's conditions with the render's rules that choose the part.
func (s *corsSpec) corsConditions(conds []condition, p corsPart) []condition {
	if p == corsNone {
		return conds
	}
	origin := s.origin
	if p == corsPreflightDenied {
		origin = PresentPattern // after the allowed origins' preflights: any other
	}
	out := append(append([]condition(nil), conds...), condition{in: "header", name: headerOrigin, pattern: origin, present: true})
	if p.preflight() {
		out = append(out, condition{in: "header", name: headerRequestMethod, pattern: PresentPattern, present: true})
	}
	if p == corsPreflight && s.anyHeader {
		out = append(out, condition{in: "header", name: headerRequestHeaders, pattern: PresentPattern, present: true})
	}
	sortConditions(out)
	return out
}

// corsReserved reports whether a header's name is one the render's rules test or write for CORS.
func corsReserved(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case headerOrigin, headerRequestMethod, headerRequestHeaders, headerAllowOrigin, headerAllowCredentials,
		headerAllowMethods, headerAllowHeaders, headerExposeHeaders, headerMaxAge:
		return true
	}
	return false
}

// withCORS is the behaviour of the rule's internal API for the part: a preflight's answer, or the rule's with
// the CORS headers of an allowed origin's request added to its response headers.
func (b behaviour) withCORS(p corsPart) behaviour {
	s := b.cors
	b.cors = nil
	switch p {
	case corsPreflightDenied:
		return behaviour{preflight: &tykoas.TransformHeaders{Enabled: true}}
	case corsPreflight, corsPreflightNoHeaders:
		t := &tykoas.TransformHeaders{Enabled: true}
		set := func(name, value string) {
			if value != "" {
				t.Add = append(t.Add, tykoas.Header{Name: name, Value: value})
			}
		}
		set(headerAllowOrigin, "$tyk_context."+headerVariable(headerOrigin))
		if s.credentials {
			set(headerAllowCredentials, "true")
		}
		if s.anyMethod {
			set(headerAllowMethods, "$tyk_context."+headerVariable(headerRequestMethod))
		} else {
			set(headerAllowMethods, s.methods)
		}
		if s.anyHeader && p == corsPreflight {
			set(headerAllowHeaders, "$tyk_context."+headerVariable(headerRequestHeaders))
		} else {
			set(headerAllowHeaders, s.headers)
		}
		set(headerExposeHeaders, s.expose) // the upstream suite's HTTPRouteCORS asks for them on a preflight too
		if s.maxAge > 0 {
			set(headerMaxAge, strconv.Itoa(int(s.maxAge)))
		}
		sortAsTyk(t.Add)
		return behaviour{preflight: t}
	case corsActual:
		t := &tykoas.TransformHeaders{Enabled: true}
		if b.responseHeaders != nil {
			t.Add = append(t.Add, b.responseHeaders.Add...)
			t.Remove = append(t.Remove, b.responseHeaders.Remove...)
		}
		t.Add = append(t.Add, tykoas.Header{Name: headerAllowOrigin, Value: "$tyk_context." + headerVariable(headerOrigin)})
		if s.credentials {
			t.Add = append(t.Add, tykoas.Header{Name: headerAllowCredentials, Value: "true"})
		}
		if s.expose != "" {
			t.Add = append(t.Add, tykoas.Header{Name: headerExposeHeaders, Value: s.expose})
		}
		sortAsTyk(t.Add)
		b.responseHeaders = t
	}
	return b
}

// checkCORS finishes a rule's CORS filter: served on a PathPrefix that sends upstream, where the router can
// choose among the rule's internal APIs; the route's own header matches and header filters may not touch the
// headers the render tests and writes for it (a trigger holds one rule for each header name).
func checkCORS(f string, r gwv1.HTTPRouteRule, exactFields []string, b *behaviour, add func(string, string, ...any)) {
	if b.cors == nil {
		return
	}
	field := f + ".filters"
	for k, filter := range r.Filters {
		if filter.Type == gwv1.HTTPRouteFilterCORS {
			field = fmt.Sprintf("%s.filters[%d].cors", f, k)
		}
	}
	switch {
	case b.redirect != nil:
		add(field, "a CORS filter with a RequestRedirect is not supported yet")
	case len(exactFields) > 0:
		add(field, "a CORS filter on an Exact or RegularExpression path (%s) is not supported yet", strings.Join(exactFields, ", "))
	}
	for m, match := range r.Matches {
		for k, h := range match.Headers {
			if corsReserved(string(h.Name)) {
				add(fmt.Sprintf("%s.matches[%d].headers[%d].name", f, m, k), "a match on %s beside a CORS filter is not supported yet", h.Name)
			}
		}
	}
	for _, a := range b.appends {
		if corsReserved(a.Name) {
			add(field, "the rule's request header filter adds to %s, which the CORS filter tests: not supported", a.Name)
		}
	}
	if t := b.responseHeaders; t != nil {
		for _, h := range t.Add {
			if corsReserved(h.Name) {
				add(field, "the rule's response header filter sets %s, which the CORS filter writes: not supported", h.Name)
			}
		}
		for _, name := range t.Remove {
			if corsReserved(name) {
				add(field, "the rule's response header filter removes %s, which the CORS filter writes: not supported", name)
			}
		}
	}
}

// corsRule reports whether a rule has a CORS filter that allows some origin (routerKeys: its path is routed).
func corsRule(r gwv1.HTTPRouteRule) bool {
	for _, f := range r.Filters {
		if f.Type == gwv1.HTTPRouteFilterCORS && f.CORS != nil && len(f.CORS.AllowOrigins) > 0 {
			return true
		}
	}
	return false
}

// ruleVariants are the internal APIs of a rule on a routed path, in the order of the router's triggers: a CORS
// filter's preflight parts first (no header is added to what Tyk answers itself), then for each set of added
// headers a request may carry (appends.go) the allowed origins' part before the others'.
func ruleVariants(b behaviour) []internalVariant {
	var out []internalVariant
	parts := b.corsParts()
	for _, p := range parts {
		if p.preflight() {
			out = append(out, internalVariant{cors: p})
		}
	}
	for _, present := range appendSets(b.appends) {
		for _, p := range parts {
			if !p.preflight() {
				out = append(out, internalVariant{present: present, cors: p})
			}
		}
	}
	return out
}

// role is what the role annotation of the part's internal API adds, so that a reviewer reads which requests it
// takes; "" for a rule without a CORS filter.
func (p corsPart) role(cors bool) string {
	switch {
	case !cors:
		return ""
	case p == corsPreflight:
		return "CORS preflights of allowed origins"
	case p == corsPreflightNoHeaders:
		return "CORS preflights of allowed origins without Access-Control-Request-Headers"
	case p == corsPreflightDenied:
		return "CORS preflights of other origins"
	case p == corsActual:
		return "CORS, requests of allowed origins"
	}
	return "CORS, requests of other origins"
}

// preflightHeaders is the response header transform of a preflight's answer, nil for none (another origin's).
func (b behaviour) preflightHeaders() *tykoas.TransformHeaders {
	if b.preflight == nil || len(b.preflight.Add) == 0 {
		return nil
	}
	return b.preflight
}
