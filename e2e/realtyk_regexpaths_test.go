package e2e_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/explaincheck"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
)

// TestRealTykRegexPaths holds the gateway-api profile's RegularExpression paths (translate's regexpaths.go) to a
// real Gateway: the story profile-gateway-api-regex-paths, rendered for the release the Gateway runs. Paths the
// expressions match whole reach their backends as they came, paths they match only in part (longer, shorter,
// another case, a prefix before them) reach the catch-all web app, and explain agrees on every request.
func TestRealTykRegexPaths(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	_, out := renderStoryFor(t, "profile-gateway-api-regex-paths", g)
	for _, a := range out.Translation.APIs {
		a.Document.Tyk.Upstream.PreserveHostHeader = nil // see TestRealTykRequestHeaderAdd
	}
	cases := map[string]string{ // path -> the backend's Service
		"/api/v2/orders/7":       "orders",
		"/api/v10/orders/123":    "orders",
		"/api/v2/orders/7/items": "web",
		"/api/v2/orders/":        "web",
		"/api/vx/orders/7":       "web",
		"/x/api/v2/orders/7":     "web",
		"/assets/site.css":       "static",
		"/assets/a/b/app.js":     "static",
		"/assets/site.cssx":      "web",
		"/assets/site.png":       "web",
		"/img/ab.png":            "static",
		"/img/abc.png":           "web",
		"/img/AB.png":            "web",
		"/x":                     "web",
		"/":                      "web",
	}
	var extra []explaincheck.Request
	for p := range cases {
		extra = append(extra, explaincheck.Request{Method: "GET", Host: "shop.example.com", Path: p},
			explaincheck.Request{Method: "GET", Host: "shop.example.com", Path: p, RawQuery: "q=1"})
	}
	tally := explaincheck.Check(t, g, out, explaincheck.Options{Extra: extra})
	require.NotZero(t, tally.Compared)
	for p, backend := range cases {
		got, err := g.Send(realtyk.Request{Method: "GET", Host: "shop.example.com", Path: p})
		require.NoError(t, err)
		require.NotNil(t, got.Upstream, "GET %s: proxied (status %d)", p, got.Status)
		assert.Contains(t, got.Upstream.URL, "://"+backend+".shop.svc", "GET %s: the backend", p)
		assert.Contains(t, got.Upstream.URL, ":8080"+p, "GET %s: the path upstream as it came", p)
	}
	t.Logf("Tyk Gateway %s serves RegularExpression paths whole; %d requests agree with explain", g.Version, tally.Agreed)
}
