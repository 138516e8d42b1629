package e2e_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// TestRealTykHTTPToHTTPS holds the newcomer's app of fn/testdata/profile-gateway-api-http-to-https to a real
// Gateway, rendered for the release it runs: plain HTTP redirected to HTTPS (scheme only, no hostname, no path)
// beside an HTTPS route with path, header and query rules on the same hostname. On a Tyk that loads the APIs,
// every plain-HTTP request is answered 301 with the HTTPS URL of its own path, every HTTPS request reaches the
// backend its rule names, and explain agrees with the Gateway on each. Both APIs on / load under their own
// listen path: the redirect's custom domain is another template of the same host ({http:shop}.example.com), so
// Tyk's one-API-per-domain-and-listen-path check, which ignores the port, does not rename either.
func TestRealTykHTTPToHTTPS(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	version, err := tykroute.ParseVersion(g.Version)
	require.NoError(t, err)
	const story = "profile-gateway-api-http-to-https"
	input := forRelease(t, story, tlsStoryInput(t, story, g), version)
	items, out := renderInput(t, input)

	docs := unpreservedDocs(t, out)
	if version.Less(tykroute.MinVersion) {
		err := g.Replace(docs)
		require.Error(t, err, "Tyk %s loaded APIs rendered with server.port", g.Version)
		assert.Contains(t, err.Error(), "is not allowed")
		t.Logf("Tyk %s refuses the APIs (the render needs %s and later): %v", g.Version, tykroute.MinVersion, err)
		return
	}
	requireServed(t, out, nil)

	// The story's OperatorContext names no organisation: the certificate's ID is its digest alone.
	roots := uploadTLSSecret(t, g, items, "shop-tls", "")
	require.NoError(t, g.Replace(docs))
	assert.NotContains(t, g.Log(), "Listen path collision", "Tyk renamed a listen path")

	cases := []schemeCase{
		{method: "GET", url: "http://shop.example.com/", location: "https://shop.example.com/"},
		{method: "GET", url: "http://shop.example.com/cart/1", location: "https://shop.example.com/cart/1"},
		{method: "POST", url: "http://shop.example.com/api/orders", header: map[string]string{"X-Canary": "true"}, location: "https://shop.example.com/api/orders"},
		{method: "GET", url: "http://shop.example.com/search?view=beta", location: "https://shop.example.com/search"},
		{method: "GET", url: "https://shop.example.com/", backend: "web"},
		{method: "GET", url: "https://shop.example.com/cart/1", backend: "web"},
		{method: "GET", url: "https://shop.example.com/cart?view=beta", backend: "web-beta"},
		{method: "GET", url: "https://shop.example.com/api/orders", backend: "api"},
		{method: "POST", url: "https://shop.example.com/api", header: map[string]string{"X-Canary": "true"}, backend: "api-canary"},
		{method: "GET", url: "https://shop.example.com/api/v1/x", header: map[string]string{"X-Canary": "false"}, backend: "api"},
	}
	for _, c := range cases {
		checkSchemeCase(t, g, out, version, roots, c)
	}
	t.Logf("Tyk %s: %d requests, HTTP redirected to HTTPS and HTTPS served, explain agreeing on each", g.Version, len(cases))
}
