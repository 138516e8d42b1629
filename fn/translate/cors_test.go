package translate

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
)

// The allowed origins' pattern takes an origin as Gateway API's CORS filter does: exactly as written (in any
// case), a "*" in the host for any number of DNS labels (never none, never a port or path), "*" alone for any.
func TestCORSOriginPattern(t *testing.T) {
	re := regexp.MustCompile(corsOriginPattern([]gwv1.CORSOrigin{"https://www.foo.com", "https://*.bar.com", "http://localhost:3000"}))
	for origin, want := range map[string]bool{
		"https://www.foo.com":          true,
		"HTTPS://WWW.FOO.COM":          true,
		"https://www.bar.com":          true,
		"https://xpto.www.bar.com":     true,
		"http://localhost:3000":        true,
		"https://bar.com":              false,
		"https://www.foo.com:8443":     false,
		"http://www.foo.com":           false,
		"https://wwwxfoo.com":          false,
		"https://evil.com/.bar.com":    false,
		"https://evil.com:1.bar.com":   false,
		"https://www.foo.com.evil.com": false,
		"http://localhost:30000":       false,
		"":                             false,
	} {
		assert.Equal(t, want, re.MatchString(origin), origin)
	}
	any := regexp.MustCompile(corsOriginPattern([]gwv1.CORSOrigin{"*"}))
	assert.True(t, any.MatchString("https://foobar.com:12345"))
	assert.False(t, any.MatchString(""))
}

// A CORS filter is the gateway-api profile's (the operator profile keeps the reference's rejection); what cannot
// be served is rejected naming the field.
func TestCompileCORS(t *testing.T) {
	prefix, exact := gwv1.PathMatchPathPrefix, gwv1.PathMatchExact
	value := "/api"
	match := func(t *gwv1.PathMatchType) []gwv1.HTTPRouteMatch {
		return []gwv1.HTTPRouteMatch{{Path: &gwv1.HTTPPathMatch{Type: t, Value: &value}}}
	}
	yes := true
	cors := func(c gwv1.HTTPCORSFilter) gwv1.HTTPRouteFilter {
		return gwv1.HTTPRouteFilter{Type: gwv1.HTTPRouteFilterCORS, CORS: &c}
	}
	shop := gwv1.HTTPCORSFilter{AllowOrigins: []gwv1.CORSOrigin{"https://www.shop.example.com"}, AllowMethods: []gwv1.HTTPMethodWithWildcard{"GET", "PUT"}}
	host := gwv1.PreciseHostname("shop.example.com")
	full := "/v1"
	none := func(int) []attachment.Backend { return nil }
	for _, c := range []struct {
		name       string
		rule       gwv1.HTTPRouteRule
		conditions bool // the gateway-api profile
		dropped    []string
		served     bool // the rule has a CORS filter to serve
	}{
		{"the reference", gwv1.HTTPRouteRule{Matches: match(&prefix), Filters: []gwv1.HTTPRouteFilter{cors(shop)}}, false,
			[]string{"spec.rules[0].filters[0]: CORS filters are not supported by Tyk"}, false},
		{"served", gwv1.HTTPRouteRule{Matches: match(&prefix), Filters: []gwv1.HTTPRouteFilter{cors(shop)}}, true, nil, true},
		{"no origin: nothing to serve", gwv1.HTTPRouteRule{Matches: match(&prefix), Filters: []gwv1.HTTPRouteFilter{
			cors(gwv1.HTTPCORSFilter{AllowMethods: []gwv1.HTTPMethodWithWildcard{"GET"}})}}, true, nil, false},
		{"every exposed header with credentials", gwv1.HTTPRouteRule{Matches: match(&prefix), Filters: []gwv1.HTTPRouteFilter{
			cors(gwv1.HTTPCORSFilter{AllowOrigins: []gwv1.CORSOrigin{"*"}, ExposeHeaders: []gwv1.HTTPHeaderName{"*"}, AllowCredentials: &yes})}}, true,
			[]string{"spec.rules[0].filters[0].cors.exposeHeaders: \"*\" with allowCredentials is not supported: Gateway API " +
				"then forbids \"*\" in Access-Control-Expose-Headers, and Tyk cannot list the headers of a response"}, false},
		{"an Exact path", gwv1.HTTPRouteRule{Matches: match(&exact), Filters: []gwv1.HTTPRouteFilter{cors(shop)}}, true,
			[]string{"spec.rules[0].filters[0].cors: a CORS filter on an Exact or RegularExpression path (spec.rules[0].matches[0].path) is not supported yet"}, false},
		{"a redirect", gwv1.HTTPRouteRule{Matches: match(&prefix), Filters: []gwv1.HTTPRouteFilter{cors(shop),
			{Type: gwv1.HTTPRouteFilterRequestRedirect, RequestRedirect: &gwv1.HTTPRequestRedirectFilter{Hostname: &host,
				Path: &gwv1.HTTPPathModifier{Type: gwv1.FullPathHTTPPathModifier, ReplaceFullPath: &full}}}}}, true,
			[]string{"spec.rules[0].filters[0].cors: a CORS filter with a RequestRedirect is not supported yet"}, false},
		{"a match on Origin", gwv1.HTTPRouteRule{Matches: []gwv1.HTTPRouteMatch{{Path: match(&prefix)[0].Path,
			Headers: []gwv1.HTTPHeaderMatch{{Name: "origin", Value: "https://www.shop.example.com"}}}},
			Filters: []gwv1.HTTPRouteFilter{cors(shop)}}, true,
			[]string{"spec.rules[0].matches[0].headers[0].name: a match on origin beside a CORS filter is not supported yet"}, false},
		{"a response header the filter writes", gwv1.HTTPRouteRule{Matches: match(&prefix), Filters: []gwv1.HTTPRouteFilter{cors(shop),
			{Type: gwv1.HTTPRouteFilterResponseHeaderModifier, ResponseHeaderModifier: &gwv1.HTTPHeaderFilter{
				Set: []gwv1.HTTPHeader{{Name: "Access-Control-Allow-Origin", Value: "*"}}}}}}, true,
			[]string{"spec.rules[0].filters[0].cors: the rule's response header filter sets Access-Control-Allow-Origin, which the CORS filter writes: not supported"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, drops := compileRule(0, c.rule, none, []listenerFacts{{scheme: "http", port: 80}},
				servedFeatures{exact: ExactServed, conditions: c.conditions})
			var got []string
			for _, d := range drops {
				got = append(got, d.String())
			}
			assert.Equal(t, c.dropped, got)
			if c.dropped == nil && assert.NotNil(t, r) {
				assert.Equal(t, c.served, r.behaviour.cors != nil)
			}
		})
	}
}
