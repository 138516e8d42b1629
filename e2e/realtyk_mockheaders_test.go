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
	docs, root := renderLimits(t, g, closedPort(t), closedPort(t))
	if refusesLoadBalancing(t, g, docs) {
		return
	}
	doc := docs[root]
	doc["paths"] = map[string]any{"/": map[string]any{"options": map[string]any{"operationId": "preflight",
		"responses": map[string]any{"204": map[string]any{"description": "preflight"}}}}}
	tyk := doc["x-tyk-api-gateway"].(map[string]any)
	tyk["middleware"] = map[string]any{
		"global": map[string]any{"contextVariables": map[string]any{"enabled": true}},
		"operations": map[string]any{"preflight": map[string]any{
			"mockResponse": map[string]any{"enabled": true, "code": 204, "headers": []any{
				map[string]any{"name": "Access-Control-Allow-Methods", "value": "GET, OPTIONS"},
				map[string]any{"name": "X-Mock-Origin", "value": "$tyk_context.headers_Origin"}}},
			"transformResponseHeaders": map[string]any{"enabled": true, "add": []any{
				map[string]any{"name": "Access-Control-Allow-Origin", "value": "$tyk_context.headers_Origin"}}},
		}},
	}
	replaceDocs(t, g, docs)
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
