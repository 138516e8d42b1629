package e2e_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/explaincheck"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// TestRealTykRedirectKeepsPath holds the gateway-api profile's redirects that keep the request's path to a real
// Gateway: the story profile-gateway-api-redirect-keeps-path, rendered for the release the Gateway runs. Every
// generated request agrees with explain; then, on a Tyk that finds mock responses the classic way (5.14 here),
// each redirect's Location is the host the rule names followed by the request's path, the bare listen path's
// included, and without the query. On an older Tyk the render drops those rules (the OpenAPI router finds no
// mock on the bare listen path, and looping it there changes the path), so the requests go to the / rule.
func TestRealTykRedirectKeepsPath(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	version, out := renderStoryFor(t, "profile-gateway-api-redirect-keeps-path", g)
	served := tykroute.MockMatchedClassically(version)

	const shop = "shop.example.com"
	agreed := checkRedirects(t, g, out, served, []redirectCase{
		{shop, "/old-shop", "", http.StatusMovedPermanently, "http://shop.example.com/old-shop"},
		{shop, "/old-shop/", "", http.StatusMovedPermanently, "http://shop.example.com/old-shop/"},
		{shop, "/old-shop/cart/7", "coupon=1", http.StatusMovedPermanently, "http://shop.example.com/old-shop/cart/7"},
		{shop, "/blog", "", http.StatusFound, "https://blog.example.com:8443/blog"},
		{shop, "/blog/2026/12/tyk", "", http.StatusFound, "https://blog.example.com:8443/blog/2026/12/tyk"},
	})
	t.Logf("Tyk Gateway %s: redirects that keep the path served: %v; %d generated requests agree with explain", g.Version, served, agreed)
}

// redirectCase is a request to a redirect's rule and the answer a Tyk that serves the redirect gives: status 0
// says another rule proxies it.
type redirectCase struct {
	host, path, query string
	status            int
	location          string
}

// checkRedirects holds g to explain on the generated requests and the cases, then sends each case: where the
// render serves the redirects (served), Tyk answers it itself with the case's status and Location; where it does
// not, or the case's status is 0, the / rule proxies it. It returns how many generated requests agreed.
func checkRedirects(t *testing.T, g *realtyk.Gateway, out *fn.Output, served bool, cases []redirectCase) int {
	t.Helper()
	var extra []explaincheck.Request
	for _, c := range cases {
		extra = append(extra, explaincheck.Request{Method: "GET", Host: c.host, Path: c.path, RawQuery: c.query})
	}
	tally := explaincheck.Check(t, g, out, explaincheck.Options{Extra: extra})
	require.NotZero(t, tally.Compared)

	for _, c := range cases {
		got, err := g.Send(realtyk.Request{Method: "GET", Host: c.host, Path: c.path, RawQuery: c.query})
		require.NoError(t, err)
		what := "GET " + c.host + c.path + "?" + c.query + " on Tyk " + g.Version
		if !served || c.status == 0 {
			assert.True(t, got.FromUpstream, "%s: the / rule proxies it (status %d)", what, got.Status)
			continue
		}
		assert.False(t, got.FromUpstream, what)
		assert.Equal(t, c.status, got.Status, what)
		assert.Equal(t, c.location, got.Header.Get("Location"), what)
	}
	return tally.Agreed
}

// TestRealTykRedirectKeepsHost holds the gateway-api profile's redirects without hostname on routes whose host is
// not exact (any host, a wildcard) to a real Gateway: the story profile-gateway-api-redirect-keeps-host, rendered
// for the release the Gateway runs. Every generated request agrees with explain; on a Tyk that finds mock
// responses the classic way (5.14 here) each Location names the Host the request was sent with
// ($tyk_context.headers_Host); on an older one the render drops those rules and the requests go to the / rule.
func TestRealTykRedirectKeepsHost(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	version, out := renderStoryFor(t, "profile-gateway-api-redirect-keeps-host", g)
	served := tykroute.MockMatchedClassically(version)

	agreed := checkRedirects(t, g, out, served, []redirectCase{
		{"any.example.org", "/see-other", "", http.StatusSeeOther, "http://any.example.org/see-other"},
		{"other.example.net", "/see-other/x", "", http.StatusSeeOther, "http://other.example.net/see-other/x"},
		{"any.example.org", "/moved/a", "", http.StatusPermanentRedirect, "http://any.example.org/new"},
		{"a.stores.example.com", "/old/7", "", http.StatusTemporaryRedirect, "http://a.stores.example.com/old/7"},
		{"any.example.org", "/secure", "", http.StatusFound, "https://any.example.org/secure"},
		{"any.example.org:80", "/secure/a", "", http.StatusFound, "https://any.example.org/secure/a"},
		{"a.stores.example.com:80", "/see-other", "", 0, ""}, // the stores route has no /see-other: proxied
		{"any.example.org:8080", "/admin/x", "", http.StatusFound, "http://any.example.org:8443/admin/x"},
		{"[::1]:80", "/secure", "", http.StatusFound, "https://[::1]/secure"},
		{"any.example.org", "/catalog/shoes/red", "", http.StatusFound, "http://any.example.org/products/shoes/red"},
		{"any.example.org", "/catalog", "", http.StatusFound, "http://any.example.org/products"},
		{"any.example.org", "/catalogue", "", 0, ""}, // not under /catalog: proxied
		{"any.example.org:80", "/legacy/a/b", "", http.StatusFound, "https://any.example.org/a/b"},
		{"any.example.org", "/legacy", "", http.StatusFound, "https://any.example.org/"},
	})
	t.Logf("Tyk Gateway %s: redirects that keep a host that is not exact served: %v; %d generated requests agree with explain",
		g.Version, served, agreed)
}
