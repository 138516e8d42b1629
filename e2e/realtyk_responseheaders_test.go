package e2e_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/explaincheck"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
)

// TestRealTykResponseHeaderAdd holds the gateway-api profile's ResponseHeaderModifier add (translate's
// headernames.go) to a real Gateway run with ignore_canonical_mime_header_key: true, as the story
// profile-gateway-api-response-header-add declares: every generated request agrees with explain (each add
// checked against an upstream that answers with the header too), and the requests below get the value after
// the backend's, or alone where the backend has none, beside the rule's set (by a name the route spells in lower
// case) and remove; the request header set by a lower-case name replaces the client's.
func TestRealTykResponseHeaderAdd(t *testing.T) {
	g := realtyk.StartWith(t, realtyk.Find(t), "", realtyk.Settings{"ignore_canonical_mime_header_key": true})
	_, out := renderStoryFor(t, "profile-gateway-api-response-header-add", g)
	for _, a := range out.Translation.APIs {
		a.Document.Tyk.Upstream.PreserveHostHeader = nil // as in TestRealTykRequestHeaderAdd: the proxy sees the backend
	}
	tally := explaincheck.Check(t, g, out, explaincheck.Options{})
	require.NotZero(t, tally.Compared)

	cases := []struct {
		path     string
		upstream http.Header // what the backend answers with
		want     map[string][]string
	}{
		{"/catalog/shoes", http.Header{"Vary": {"Origin"}, "Server": {"catalog/1"}, "Cache-Control": {"no-store"}},
			map[string][]string{"Vary": {"Origin", "Accept-Encoding"}, "Cache-Control": {"public, max-age=300"}, "Server": nil}},
		{"/catalog", nil, map[string][]string{"Vary": {"Accept-Encoding"}, "Cache-Control": {"public, max-age=300"}}},
		{"/orders/7", http.Header{"X-Frame-Options": {"SAMEORIGIN"}, "X-Trace-Id": {"t-1"}},
			map[string][]string{"X-Frame-Options": {"DENY"}, "X-Trace-Id": {"t-1", "shop"}, "X-Served-By": {"tyk"},
				"1st-Hop-Id": {"edge"}}},
		{"/orders", http.Header{"X-Served-By": {"orders-2"}, "1st-Hop-Id": {"lb"}},
			map[string][]string{"X-Served-By": {"orders-2", "tyk"}, "1st-Hop-Id": {"lb", "edge"}, "X-Trace-Id": {"shop"}}},
	}
	for _, c := range cases {
		got, err := g.Send(realtyk.Request{Method: "GET", Host: "shop.example.com", Path: c.path,
			Header: http.Header{"X-Request-Id": {"from-client"}}, EchoHeaders: c.upstream})
		require.NoError(t, err)
		require.True(t, got.FromUpstream, "GET %s: proxied (status %d)", c.path, got.Status)
		for name, want := range c.want {
			assert.Equal(t, want, got.Header.Values(name), "GET %s: response header %s", c.path, name)
		}
		if c.path == "/orders/7" {
			require.NotNil(t, got.Upstream)
			assert.Equal(t, []string{"from-gateway"}, got.Upstream.Header.Values("X-Request-Id"),
				"GET %s: the request header set by x-request-id replaces the client's", c.path)
		}
	}
	t.Logf("Tyk Gateway %s appends to response headers; %d generated requests agree with explain", g.Version, tally.Agreed)
}
