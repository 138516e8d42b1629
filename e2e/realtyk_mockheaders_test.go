package e2e_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
)

// TestRealTykMockResponseHeaderTransform shows what a Tyk-answered response can carry from the request, the fact
// a CORS preflight answered by the render (HTTPRouteCORS, not claimed yet) would rest on: an operation's
// mockResponse answers with its headers as written (a Tyk variable in them stays literal), and the operation's
// transformResponseHeaders still runs on that answer with Tyk variables replaced, so a header can echo the
// request's Origin ($tyk_context.headers_Origin, context variables enabled). Tyk's own CORS middleware cannot
// answer the suite's preflight (it lists the requested method only and exposes no headers, docs/conformance.md),
// and a response header of its own wins over the upstream's (copyHeader drops the upstream's CORS headers).
func TestRealTykMockResponseHeaderTransform(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	if !loadPreflightAPI(t, g, map[string]any{
		"global": map[string]any{"contextVariables": map[string]any{"enabled": true}},
		"operations": map[string]any{"preflight": map[string]any{
			"mockResponse": map[string]any{"enabled": true, "code": 204, "headers": []any{
				map[string]any{"name": "Access-Control-Allow-Methods", "value": "GET, OPTIONS"},
				map[string]any{"name": "X-Mock-Origin", "value": "$tyk_context.headers_Origin"}}},
			"transformResponseHeaders": map[string]any{"enabled": true, "add": []any{
				map[string]any{"name": "Access-Control-Allow-Origin", "value": "$tyk_context.headers_Origin"}}},
		}},
	}) {
		return
	}
	got, err := g.Send(realtyk.Request{Method: "OPTIONS", Host: "shop.example.com", Path: "/",
		Header: http.Header{"Origin": {"https://www.bar.com"}, "Access-Control-Request-Method": {"GET"}}})
	require.NoError(t, err)
	assert.Equal(t, http.StatusNoContent, got.Status)
	assert.False(t, got.FromUpstream)
	assert.Equal(t, "GET, OPTIONS", got.Header.Get("Access-Control-Allow-Methods"), "the mock's header as written")
	assert.Equal(t, "$tyk_context.headers_Origin", got.Header.Get("X-Mock-Origin"), "a mock's header is not expanded")
	assert.Equal(t, "https://www.bar.com", got.Header.Get("Access-Control-Allow-Origin"), "the transform echoes the Origin")
	t.Logf("Tyk %s: a mock response's transformResponseHeaders echoed the request's Origin", g.Version)
}

// TestRealTykCORSMiddleware shows what Tyk's own CORS middleware (middleware.global.cors) does with the suite's
// first HTTPRouteCORS rule (origins https://www.foo.com and https://*.bar.com, methods GET and OPTIONS, two
// allowed and two exposed headers, credentials, max age 3600), the facts a render of CORS would build on:
//   - a request of an allowed origin (https://xpto.www.bar.com matches https://*.bar.com) is proxied with the
//     origin echoed, credentials and the exposed headers; another origin's gets none of them;
//   - a preflight is answered by Tyk itself (204) with the origin, headers, credentials and max age as the suite
//     asks, but the requested method alone (not every allowed one) and no exposed headers: what keeps the feature
//     unclaimed with the middleware alone; another origin's preflight gets no Access-Control-Allow-Origin;
//   - with optionsPassthrough the preflight goes to the upstream with no CORS header at all, and a mock response
//     of the API's OPTIONS operation is not reached either: the two cannot be combined on one API.
func TestRealTykCORSMiddleware(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	preflight := func(origin string) realtyk.Request {
		return realtyk.Request{Method: "OPTIONS", Host: "shop.example.com", Path: "/", Header: http.Header{"Origin": {origin},
			"Access-Control-Request-Method": {"GET"}, "Access-Control-Request-Headers": {"x-header-1, x-header-2"}}}
	}
	for _, passthrough := range []bool{false, true} {
		if !loadPreflightAPI(t, g, map[string]any{
			"global": map[string]any{"cors": map[string]any{"enabled": true, "optionsPassthrough": passthrough,
				"allowedOrigins": []any{"https://www.foo.com", "https://*.bar.com"}, "allowedMethods": []any{"GET", "OPTIONS"},
				"allowedHeaders": []any{"x-header-1", "x-header-2"}, "exposedHeaders": []any{"x-header-3", "x-header-4"},
				"allowCredentials": true, "maxAge": 3600}},
			"operations": map[string]any{"preflight": map[string]any{
				"mockResponse": map[string]any{"enabled": true, "code": 204, "headers": []any{
					map[string]any{"name": "X-Mock", "value": "preflight"}}}}},
		}) {
			return
		}
		if passthrough {
			got, err := g.Send(preflight("https://www.foo.com"))
			require.NoError(t, err)
			assert.True(t, got.FromUpstream, "optionsPassthrough: the preflight is proxied")
			assert.Empty(t, got.Header.Get("Access-Control-Allow-Origin"), "optionsPassthrough: no CORS header")
			assert.Empty(t, got.Header.Get("X-Mock"), "optionsPassthrough: the OPTIONS mock is not reached")
			continue
		}
		for _, origin := range []string{"https://www.foo.com", "https://xpto.www.bar.com"} {
			got, err := g.Send(realtyk.Request{Method: "GET", Host: "shop.example.com", Path: "/x", Header: http.Header{"Origin": {origin}}})
			require.NoError(t, err)
			assert.True(t, got.FromUpstream, origin)
			assert.Equal(t, origin, got.Header.Get("Access-Control-Allow-Origin"), origin)
			assert.Equal(t, "true", got.Header.Get("Access-Control-Allow-Credentials"), origin)
			assert.Equal(t, "X-Header-3, X-Header-4", got.Header.Get("Access-Control-Expose-Headers"), origin)

			got, err = g.Send(preflight(origin))
			require.NoError(t, err)
			assert.Equal(t, http.StatusNoContent, got.Status, origin)
			assert.False(t, got.FromUpstream, origin)
			assert.Empty(t, got.Header.Get("X-Mock"), "%s: Tyk's middleware answered, not the OPTIONS mock", origin)
			assert.Equal(t, origin, got.Header.Get("Access-Control-Allow-Origin"), origin)
			assert.Equal(t, "GET", got.Header.Get("Access-Control-Allow-Methods"), "%s: the requested method alone", origin)
			assert.Equal(t, "x-header-1, x-header-2", got.Header.Get("Access-Control-Allow-Headers"), origin)
			assert.Equal(t, "3600", got.Header.Get("Access-Control-Max-Age"), origin)
			assert.Empty(t, got.Header.Get("Access-Control-Expose-Headers"), "%s: no exposed headers on a preflight", origin)
		}
		got, err := g.Send(realtyk.Request{Method: "GET", Host: "shop.example.com", Path: "/x", Header: http.Header{"Origin": {"https://foobar.com"}}})
		require.NoError(t, err)
		assert.Empty(t, got.Header.Get("Access-Control-Allow-Origin"), "another origin")
		got, err = g.Send(preflight("https://foobar.com"))
		require.NoError(t, err)
		assert.Empty(t, got.Header.Get("Access-Control-Allow-Origin"), "another origin's preflight")
	}
	t.Logf("Tyk %s: CORS middleware as the suite's /cors-1 asks: requests served, preflights short of the suite's allowed methods and exposed headers", g.Version)
}

// loadPreflightAPI loads into g limitsInput's API of path / with an OPTIONS operation "preflight" and middleware
// as its x-tyk-api-gateway.middleware, its upstream the recording proxy (a Service's name), and reports whether g
// loaded it (the 5.4 line refuses the story's other API, refusesLoadBalancing).
func loadPreflightAPI(t *testing.T, g *realtyk.Gateway, middleware map[string]any) bool {
	t.Helper()
	docs, root := renderLimits(t, g, closedPort(t), closedPort(t))
	if refusesLoadBalancing(t, g, docs) {
		return false
	}
	doc := docs[root]
	doc["paths"] = map[string]any{"/": map[string]any{"options": map[string]any{"operationId": "preflight",
		"responses": map[string]any{"204": map[string]any{"description": "preflight"}}}}}
	upstreamOf(t, doc)["url"] = "http://web.shop.svc.cluster.local:8080/"
	doc["x-tyk-api-gateway"].(map[string]any)["middleware"] = middleware
	replaceDocs(t, g, docs)
	return true
}
