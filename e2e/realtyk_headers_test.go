package e2e_test

import (
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/explaincheck"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn/explain"
)

// TestRealTykHeaderAndQueryMatches holds the gateway-api profile's header and query matches (router and internal
// APIs) to a real Gateway: the story profile-gateway-api-header-matching, rendered for the release the Gateway
// runs. Every generated request (each path, every method, with and without each trigger's literal headers and
// query) and the requests below agree with explain; the requests below also get the route and rule Gateway API
// gives them: more header matches before fewer across routes, a method match first, a query match, a regular
// expression, the shorter path's rules for a request no match of a longer one takes (and for a path that only
// shares a string prefix with a longer one), and 404 where no rule does.
func TestRealTykHeaderAndQueryMatches(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	version, out := renderStoryFor(t, "profile-gateway-api-header-matching", g)

	const shop, beta = "shop/shop", "shop/beta"
	cases := []struct {
		method, host, path, query string
		header                    map[string]string
		route, rule               string // "" route: no rule takes it (404)
	}{
		{"GET", "shop.example.com", "/", "", nil, shop, "spec.rules[1]"},
		{"GET", "shop.example.com", "/a/b", "", map[string]string{"X-Canary": "true"}, shop, "spec.rules[0]"},
		{"GET", "shop.example.com", "/a", "", map[string]string{"X-Canary": "false"}, shop, "spec.rules[1]"},
		// two header matches (the newer route) before one (the older)
		{"POST", "shop.example.com", "/a", "", map[string]string{"X-Canary": "true", "X-Beta": "1"}, beta, "spec.rules[0]"},
		{"GET", "shop.example.com", "/a", "", map[string]string{"X-Beta": "1"}, shop, "spec.rules[1]"},
		// /api: a method match first, then the query match; neither: the / rules
		{"GET", "shop.example.com", "/api/v", "version=2", map[string]string{"X-Debug": "yes"}, shop, "spec.rules[3]"},
		{"GET", "shop.example.com", "/api/v", "", map[string]string{"x-debug": "1"}, shop, "spec.rules[3]"},
		{"GET", "shop.example.com", "/api/v", "", map[string]string{"X-Debug": "no"}, shop, "spec.rules[1]"},
		{"POST", "shop.example.com", "/api/v", "version=2", map[string]string{"X-Debug": "yes"}, shop, "spec.rules[2]"},
		{"GET", "shop.example.com", "/api", "version=2&x=1", nil, shop, "spec.rules[2]"},
		{"GET", "shop.example.com", "/api", "version=3", nil, shop, "spec.rules[1]"},
		{"GET", "shop.example.com", "/api", "version=2", map[string]string{"X-Canary": "true"}, shop, "spec.rules[2]"},
		// /checkout: its header match, else the / rules
		{"GET", "shop.example.com", "/checkout/1", "", map[string]string{"X-Session": "s1"}, shop, "spec.rules[4]"},
		{"GET", "shop.example.com", "/checkout/1", "", nil, shop, "spec.rules[1]"},
		// a PathPrefix matches whole segments: /checkoutx and /apiv are the / rules' (segments.go)
		{"GET", "shop.example.com", "/checkoutx", "", map[string]string{"X-Session": "s1"}, shop, "spec.rules[1]"},
		{"GET", "shop.example.com", "/apiv", "version=2", nil, shop, "spec.rules[1]"},
		{"GET", "shop.example.com", "/api/", "version=2", nil, shop, "spec.rules[2]"},
		// /admin: DELETE only; the other methods go on to the / rules
		{"DELETE", "shop.example.com", "/admin/users/7", "", nil, shop, "spec.rules[5]"},
		{"GET", "shop.example.com", "/admin/users/7", "", nil, shop, "spec.rules[1]"},
		{"POST", "shop.example.com", "/admin", "", map[string]string{"X-Canary": "true"}, shop, "spec.rules[0]"},
		// beta.example.com: only beta's match
		{"GET", "beta.example.com", "/x", "", map[string]string{"X-Canary": "true", "X-Beta": "1"}, beta, "spec.rules[0]"},
		{"GET", "beta.example.com", "/x", "", map[string]string{"X-Canary": "true"}, "", ""},
		{"DELETE", "beta.example.com", "/", "", nil, "", ""},
	}
	var extra []explaincheck.Request
	for _, c := range cases {
		extra = append(extra, explaincheck.Request{Method: c.method, Host: c.host, Path: c.path, RawQuery: c.query, Header: c.header})
	}
	tally := explaincheck.Check(t, g, out, explaincheck.Options{Extra: extra})
	require.NotZero(t, tally.Compared)

	for _, c := range cases {
		h := http.Header{}
		for k, v := range c.header {
			h.Set(k, v)
		}
		u := &url.URL{Scheme: "http", Host: c.host, Path: c.path, RawQuery: c.query}
		what := c.method + " " + u.String() + " " + fmtHeader(h)
		ans, err := explain.Explain(out, explain.Request{Method: c.method, URL: u, Header: h}, explain.Options{Version: version})
		require.NoError(t, err)
		if c.route == "" {
			assert.Equal(t, http.StatusNotFound, ans.Status, "%s: no rule takes it", what)
			continue
		}
		assert.Equal(t, c.route, ans.Route, "%s: the route", what)
		assert.Equal(t, c.rule, ans.Rule, "%s: the rule", what)
		assert.Zero(t, ans.Status, "%s: proxied", what)
	}
	t.Logf("Tyk Gateway %s serves the header and query matches; %d generated requests agree with explain", g.Version, tally.Agreed)
}

func fmtHeader(h http.Header) string {
	var parts []string
	for k, v := range h {
		parts = append(parts, k+": "+strings.Join(v, ","))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
