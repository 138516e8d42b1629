package translate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
)

func TestExactListenPath(t *testing.T) {
	for value, want := range map[string]string{
		"/healthz": "/healthz{exact:$}",
		"/docs/":   "/docs{exact:/$}", // the slash inside the variable, so it is not a segment of its own
		"/":        "/{exact:$}",
	} {
		assert.Equal(t, want, ExactListenPath(value), value)
	}
}

// An Exact path is dropped by the reference, served in the gateway-api profile, and for a Tyk that finds mock
// responses only through its OpenAPI router served without a method match or a redirect; a ReplaceFullPath on an
// Exact path is not served yet.
func TestCompileExact(t *testing.T) {
	exact, prefix := gwv1.PathMatchExact, gwv1.PathMatchPathPrefix
	value := "/login"
	post := gwv1.HTTPMethodPost
	match := func(t *gwv1.PathMatchType, m *gwv1.HTTPMethod) []gwv1.HTTPRouteMatch {
		return []gwv1.HTTPRouteMatch{{Path: &gwv1.HTTPPathMatch{Type: t, Value: &value}, Method: m}}
	}
	host := gwv1.PreciseHostname("shop.example.com")
	full := "/v1"
	redirect := []gwv1.HTTPRouteFilter{{Type: gwv1.HTTPRouteFilterRequestRedirect,
		RequestRedirect: &gwv1.HTTPRequestRedirectFilter{Hostname: &host,
			Path: &gwv1.HTTPPathModifier{Type: gwv1.FullPathHTTPPathModifier, ReplaceFullPath: &full}}}}
	rewrite := []gwv1.HTTPRouteFilter{{Type: gwv1.HTTPRouteFilterURLRewrite, URLRewrite: &gwv1.HTTPURLRewriteFilter{
		Path: &gwv1.HTTPPathModifier{Type: gwv1.FullPathHTTPPathModifier, ReplaceFullPath: &full}}}}
	none := func(int) []attachment.Backend { return nil }
	for _, c := range []struct {
		name    string
		rule    gwv1.HTTPRouteRule
		mode    ExactPaths
		dropped []string
	}{
		{"the reference", gwv1.HTTPRouteRule{Matches: match(&exact, nil)}, ExactRejected,
			[]string{"spec.rules[0].matches[0].path.type: Exact is not supported: Tyk matches listen paths by prefix (use PathPrefix)" + GatewayAPIServes}},
		{"served", gwv1.HTTPRouteRule{Matches: match(&exact, &post)}, ExactServed, nil},
		{"a redirect, served", gwv1.HTTPRouteRule{Matches: match(&exact, nil), Filters: redirect}, ExactServed, nil},
		{"proxied only", gwv1.HTTPRouteRule{Matches: match(&exact, nil)}, ExactProxiedOnly, nil},
		{"proxied only: a method", gwv1.HTTPRouteRule{Matches: match(&exact, &post)}, ExactProxiedOnly,
			[]string{"spec.rules[0].matches[0].method: a method match on an Exact path needs Tyk 5.8.12 (5.12.0 on the main line) or later: " +
				"the other methods answer 404 with a mock response, which the older Tyk this render is for (spec.tykVersion) " +
				"never finds under an Exact path's listen path"}},
		{"proxied only: a redirect", gwv1.HTTPRouteRule{Matches: match(&exact, nil), Filters: redirect}, ExactProxiedOnly,
			[]string{"spec.rules[0].filters: RequestRedirect on an Exact path (spec.rules[0].matches[0].path) needs Tyk 5.8.12 " +
				"(5.12.0 on the main line) or later: Tyk answers it with a mock response, which the older Tyk this render " +
				"is for (spec.tykVersion) never finds under an Exact path's listen path"}},
		{"a method on a prefix is no concern", gwv1.HTTPRouteRule{Matches: match(&prefix, &post)}, ExactProxiedOnly, nil},
		{"ReplaceFullPath", gwv1.HTTPRouteRule{Matches: match(&exact, nil), Filters: rewrite}, ExactServed,
			[]string{"spec.rules[0].filters: URLRewrite ReplaceFullPath with an Exact path (spec.rules[0].matches[0].path) is not supported yet"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, drops := compileRule(0, c.rule, none, []listenerFacts{{scheme: "http", port: 80}}, servedFeatures{exact: c.mode})
			var got []string
			for _, d := range drops {
				got = append(got, d.String())
			}
			assert.Equal(t, c.dropped, got)
			if c.dropped == nil && assert.NotNil(t, r) {
				assert.Equal(t, *c.rule.Matches[0].Path.Type == exact, r.pairs[0].exact)
			}
		})
	}
}

// A listen path of an API without hostname that an API on a higher Tyk port has too is written as another
// template of the same paths, by a variable of another name and the same length; a plain prefix that does not
// end with "/", a plain one on a release whose mocks need plain listen paths, and variants past the letters keep
// the listen path (and so the conflict).
func TestListenPathVariant(t *testing.T) {
	for _, c := range []struct {
		lp        string
		variant   int
		templates bool
		want      string
		ok        bool
	}{
		{"/v2{p:/|$}", 1, true, "/v2{q:/|$}", true},
		{"/v2{p:/|$}", 2, false, "/v2{r:/|$}", true}, // a template already: no mock found the classic way is lost
		{"/healthz{exact:$}", 1, true, "/healthz{exacq:$}", true},
		{"/docs{exact:/$}", 3, true, "/docs{exacs:/$}", true},
		{"/{exact:$}", 1, true, "/{exacq:$}", true},
		{"/", 1, true, "/{q:$|}", true},
		{"/api/", 2, true, "/api/{r:$|}", true},
		{"/", 1, false, "/", false},
		{"/v2", 1, true, "/v2", false},
		{"/v2{p:/|$}", 0, true, "/v2{p:/|$}", false},
		{"/v2{p:/|$}", len(variantNames) + 1, true, "/v2{p:/|$}", false},
		{"/v2{p:/|$}", len(variantNames), true, "/v2{z:/|$}", true},
	} {
		got, ok := listenPathVariant(c.lp, c.variant, c.templates)
		assert.Equal(t, c.want, got, "%s variant %d", c.lp, c.variant)
		assert.Equal(t, c.ok, ok, "%s variant %d", c.lp, c.variant)
	}
}
