package e2e_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/explaincheck"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn/explain"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// TestRealTykExactPaths holds the gateway-api profile's Exact paths to a real Gateway: the story
// profile-gateway-api-exact-paths, rendered for the release the Gateway runs (spec.tykVersion). Every generated
// request (each listen path, <path>/, <path>x, deeper paths, queries, every method) agrees with explain; then the
// requests below, which tell an Exact path from its neighbours, get what Gateway API asks on the real Gateway:
// the rule, and Tyk's own answer (the 404 of a method no rule matches, a redirect) or the upstream path. For a
// Tyk that finds mock responses only through its OpenAPI router (before 5.8.12 and 5.12.0) the render drops the
// Exact rules that need one (POST /login, the /old redirect), so those requests fall to the / rule there.
func TestRealTykExactPaths(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	version, out := renderStoryFor(t, "profile-gateway-api-exact-paths", g)
	mocks := tykroute.MockMatchedClassically(version)

	const web = "spec.rules[7]"
	fallback := func(rule string) string {
		if mocks {
			return rule
		}
		return web
	}
	cases := []exactCase{
		{"GET", "/healthz", "", "spec.rules[0]", 0, "/healthz"},
		{"GET", "/healthz", "probe=1", "spec.rules[0]", 0, "/healthz"},
		{"GET", "/healthz/", "", web, 0, "/healthz/"},
		{"GET", "/healthz/live", "", web, 0, "/healthz/live"},
		{"GET", "/healthzx", "", web, 0, "/healthzx"},
		{"GET", "/orders", "", "spec.rules[1]", 0, "/orders"},     // Exact beats the PathPrefix of the same value
		{"GET", "/orders/7", "", "spec.rules[2]", 0, "/orders/7"}, // the PathPrefix
		{"GET", "/orders/", "", "spec.rules[2]", 0, "/orders/"},   // the PathPrefix keeps the path as it came (segments.go)
		{"GET", "/ordersx", "", web, 0, "/ordersx"},               // a PathPrefix takes whole segments only
		{"GET", "/docs/", "", "spec.rules[3]", 0, "/docs/"},       // the trailing slash kept
		{"GET", "/docs", "", web, 0, "/docs"},
		{"GET", "/docs/x", "", web, 0, "/docs/x"},
		{"POST", "/login", "", fallback("spec.rules[4]"), 0, "/login"},
		{"GET", "/login/", "", web, 0, "/login/"},
		{"GET", "/legacy", "", web, 0, "/legacy"}, // its ReplaceFullPath rule is dropped
		{"GET", "/old/x", "", web, 0, "/old/x"},
	}
	if mocks {
		cases = append(cases,
			// No rule matches GET /login: the Exact API answers the methods its rule does not match.
			exactCase{"GET", "/login", "", "", http.StatusNotFound, ""},
			exactCase{"GET", "/old", "", "spec.rules[5]", http.StatusMovedPermanently, ""})
	} else {
		cases = append(cases, exactCase{"GET", "/login", "", web, 0, "/login"}, exactCase{"GET", "/old", "", web, 0, "/old"})
	}

	var extra []explaincheck.Request
	for _, c := range cases {
		extra = append(extra, explaincheck.Request{Method: c.method, Host: "shop.example.com", Path: c.path, RawQuery: c.query})
	}
	tally := explaincheck.Check(t, g, out, explaincheck.Options{Extra: extra})
	require.NotZero(t, tally.Compared)

	for _, c := range cases {
		u := &url.URL{Scheme: "http", Host: "shop.example.com", Path: c.path, RawQuery: c.query}
		ans, err := explain.Explain(out, explain.Request{Method: c.method, URL: u}, explain.Options{Version: version})
		require.NoError(t, err)
		got, err := g.Send(realtyk.Request{Method: c.method, Host: "shop.example.com", Path: c.path, RawQuery: c.query})
		require.NoError(t, err)
		what := c.method + " " + u.RequestURI() + " on Tyk " + g.Version
		if c.rule != "" {
			assert.Equal(t, c.rule, ans.Rule, "%s: the rule", what)
		}
		if c.status != 0 {
			assert.False(t, got.FromUpstream, "%s: Tyk should answer itself", what)
			assert.Equal(t, c.status, got.Status, what)
			continue
		}
		if assert.NotNil(t, got.Upstream, "%s: nothing went upstream (status %d)", what, got.Status) {
			up, err := url.Parse(got.Upstream.URL)
			require.NoError(t, err)
			assert.Equal(t, c.upstreamPath, up.Path, "%s: the upstream path", what)
			assert.Equal(t, c.query, up.RawQuery, "%s: the upstream query", what)
		}
	}
	t.Logf("Tyk Gateway %s serves the Exact paths (mock responses under them: %v); %d generated requests agree with explain",
		g.Version, mocks, tally.Agreed)
}

// exactCase is a request of TestRealTykExactPaths and what Gateway API asks for it.
type exactCase struct {
	method, path, query string
	rule                string // the rule Gateway API gives the request ("": none)
	status              int    // 0: proxied; else Tyk's own answer
	upstreamPath        string // the path the upstream gets, when proxied
}
