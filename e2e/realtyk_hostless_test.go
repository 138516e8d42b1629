package e2e_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// TestRealTykHostlessPorts holds fn/testdata/profile-gateway-api-hostless-ports to a real Gateway: listeners
// without hostnames on three ports (HTTP redirected to HTTPS on the listen_port, an admin HTTP listener on a port
// of its own, HTTPS on the TLS port), whose routes share the paths /, /api and /healthz, and a route on all
// three. Tyk keeps one API per custom domain and listen path whatever its port, so the render writes the listen
// paths of all ports but the highest as other templates of the same paths. On a Tyk that loads the APIs none is
// renamed, each port serves its own routes' rules (segment boundaries and Exact paths as on one port), the HTTPS
// listener's certificate is served for a server name no API names, and explain agrees with the Gateway on every
// request.
func TestRealTykHostlessPorts(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	version, err := tykroute.ParseVersion(g.Version)
	require.NoError(t, err)
	const story = "profile-gateway-api-hostless-ports"
	input := forRelease(t, story, storyInput(t, story, map[string]int{"targetPort: 8080}": g.Port,
		"targetPort: 8081}": g.HTTPPorts[0], "targetPort: 8443}": g.TLSPort}), version)
	items, out := renderInput(t, input)

	docs := unpreservedDocs(t, out)
	if refusesOwnPorts(t, g, version, docs) {
		return
	}
	// A redirect without hostname on a listener without hostname keeps the request's host, which a Tyk that finds
	// mock responses only with its OpenAPI router cannot write (v5.8.11): there the redirect's route has no API,
	// and its listener's port answers 404.
	keepsHost := tykroute.MockMatchedClassically(renderedFor(version))
	requireServed(t, out, func(route string) bool { return route == "to-https" && !keepsHost })
	for _, r := range out.Translation.Routes {
		if r.Route.Route.Name == "to-https" && !keepsHost {
			require.Equal(t, "UnsupportedValue", r.Conditions[0][0].Reason, r.Conditions[0][0].Message)
		}
	}
	roots := uploadTLSSecret(t, g, items, "shop-tls", "")
	require.NoError(t, g.Replace(docs))
	assert.NotContains(t, g.Log(), "Listen path collision", "Tyk renamed a listen path")

	cases := []schemeCase{
		{method: "GET", url: "http://shop.example.com/", location: "https://shop.example.com/"},
		{method: "GET", url: "http://other.test/api/orders", location: "https://other.test/api/orders"},
		{method: "GET", url: "http://shop.example.com/healthz", location: "https://shop.example.com/healthz"},
		{method: "GET", url: "http://shop.example.com:8080/", backend: "web"},
		{method: "GET", url: "http://shop.example.com:8080/cart/1", backend: "web"},
		{method: "GET", url: "http://shop.example.com:8080/api", backend: "api"},
		{method: "GET", url: "http://shop.example.com:8080/api/orders", backend: "api"},
		{method: "GET", url: "http://shop.example.com:8080/apix", backend: "web"},
		{method: "GET", url: "http://shop.example.com:8080/healthz", backend: "api"},
		{method: "GET", url: "http://shop.example.com:8080/healthz/x", backend: "web"},
		{method: "GET", url: "https://shop.example.com/", backend: "web"},
		{method: "GET", url: "https://shop.example.com/cart?view=beta", backend: "web-beta"},
		{method: "GET", url: "https://shop.example.com/api/orders", backend: "api"},
		{method: "POST", url: "https://shop.example.com/api", header: map[string]string{"X-Canary": "true"}, backend: "api-canary"},
		{method: "GET", url: "https://shop.example.com/apix", backend: "web"},
		{method: "GET", url: "https://shop.example.com/healthz", backend: "web"},
		{method: "GET", url: "http://shop.example.com/status", backend: "status"},
		{method: "GET", url: "http://shop.example.com:8080/status", backend: "status"},
		{method: "GET", url: "https://shop.example.com/status", backend: "status"},
		{method: "GET", url: "https://shop.example.com/status/x", backend: "web"},
	}
	for _, c := range cases {
		if c.location != "" && !keepsHost {
			c.location, c.notFound = "", true
		}
		checkSchemeCase(t, g, out, version, roots, c)
	}
	t.Logf("Tyk %s: %d requests on three ports without hostnames, explain agreeing on each", g.Version, len(cases))
}
