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
)

// TestRealTykListenerHostnames holds the gateway-api profile's listener hostnames to a real Gateway: the story
// profile-gateway-api-listener-hostnames (listeners shop.com, www.shop.com, api.shop.com, *.shop.com and
// *.shop.net on one port, each with its own route), rendered for the release the Gateway runs. Every generated
// request and the requests below agree with explain, and the requests below get the route Gateway API gives
// them: an exact listener's host is its route's alone (www.shop.com's / though the wildcard's / ties with it in
// Tyk's order; api.shop.com/catalog answered 404 though the wildcard's route serves /catalog), while the names
// next to a left-out one (ap, apix, www2) and deeper names stay the wildcard's.
func TestRealTykListenerHostnames(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	version, out := renderStoryFor(t, "profile-gateway-api-listener-hostnames", g)

	const stores = "shop/stores"
	cases := []struct {
		host, path  string
		route, rule string // "" route: 404
	}{
		{"shop.com", "/", "shop/home", "spec.rules[0]"},
		{"www.shop.com", "/", "shop/www", "spec.rules[0]"},
		{"www.shop.com", "/catalog/1", "shop/www", "spec.rules[0]"},
		{"api.shop.com", "/v1/items", "shop/api", "spec.rules[0]"},
		{"api.shop.com", "/catalog", "", ""},
		{"api.shop.com", "/", "", ""},
		{"a.shop.com", "/catalog/1", stores, "spec.rules[0]"},
		{"a.shop.com", "/", stores, "spec.rules[1]"},
		{"ap.shop.com", "/", stores, "spec.rules[1]"},
		{"apix.shop.com", "/catalog", stores, "spec.rules[0]"},
		{"www2.shop.com", "/", stores, "spec.rules[1]"},
		{"www2.shop.com:80", "/", stores, "spec.rules[1]"}, // with a port: the isolated domain takes it itself
		{"www.shop.com:80", "/catalog/1", "shop/www", "spec.rules[0]"},
		{"multiple.prefixes.shop.com", "/", stores, "spec.rules[1]"},
		{"api.v2.shop.com", "/", stores, "spec.rules[1]"},
		{"x.shop.net", "/catalog", stores, "spec.rules[0]"},
		{"shop.net", "/", "", ""},
		{"no.matching.host", "/", "", ""},
	}
	var extra []explaincheck.Request
	for _, c := range cases {
		extra = append(extra, explaincheck.Request{Method: http.MethodGet, Host: c.host, Path: c.path})
	}
	tally := explaincheck.Check(t, g, out, explaincheck.Options{Extra: extra})
	require.NotZero(t, tally.Compared)

	for _, c := range cases {
		u := &url.URL{Scheme: "http", Host: c.host, Path: c.path}
		what := "GET " + u.String() + " on Tyk " + g.Version
		ans, err := explain.Explain(out, explain.Request{Method: http.MethodGet, URL: u}, explain.Options{Version: version})
		require.NoError(t, err)
		got, err := g.Send(realtyk.Request{Method: http.MethodGet, Host: c.host, Path: c.path})
		require.NoError(t, err)
		if c.route == "" {
			assert.Equal(t, http.StatusNotFound, ans.Status, "%s: explain: no listener's route takes it", what)
			assert.Equal(t, http.StatusNotFound, got.Status, "%s: no listener's route takes it", what)
			assert.False(t, got.FromUpstream, what)
			continue
		}
		assert.Equal(t, c.route, ans.Route, "%s: the route", what)
		assert.Equal(t, c.rule, ans.Rule, "%s: the rule", what)
		assert.True(t, got.FromUpstream, "%s: proxied (status %d)", what, got.Status)
	}
	t.Logf("Tyk Gateway %s keeps each exact listener's hosts to its routes; %d generated requests agree with explain",
		g.Version, tally.Agreed)
}
