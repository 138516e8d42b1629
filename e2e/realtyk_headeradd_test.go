package e2e_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/explaincheck"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
)

// TestRealTykRequestHeaderAdd holds the gateway-api profile's RequestHeaderModifier add (appends.go in translate)
// to a real Gateway: the story profile-gateway-api-header-add, rendered for the release the Gateway runs. Every
// generated request (each trigger's headers, presence rules included, with and without them) and the requests
// below agree with explain; the requests below also reach the backend with the headers Gateway API asks for: the
// value appended to the request's ("a" becomes "a,shop"), or alone when the request has none, the rule's set and
// remove applied too, the canary match still taking precedence over the unconditioned rule; and a header sent
// twice gets the value appended to its first value only, and counts twice in Tyk's triggers (the approximation
// the route's Accepted message names).
func TestRealTykRequestHeaderAdd(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	_, out := renderStoryFor(t, "profile-gateway-api-header-add", g)
	// Go names the Host header, not the upstream, in the request line it sends the recording proxy, so the
	// Gateway and explain get the documents without preserveHostHeader: the proxy then sees which backend each
	// request reaches (routing does not depend on it).
	for _, a := range out.Translation.APIs {
		a.Document.Tyk.Upstream.PreserveHostHeader = nil
	}

	cases := []struct {
		path   string
		header http.Header
		want   map[string]string // upstream request headers; "" for absent
		host   string            // the backend's Service
	}{
		{"/api/v1", http.Header{"X-Debug": {"1"}},
			map[string]string{"X-Team": "shop", "X-Env": "prod", "X-Debug": "", "X-Trace": ""}, "api"},
		{"/api", http.Header{"X-Team": {"ops"}, "X-Env": {"dev"}},
			map[string]string{"X-Team": "ops,shop", "X-Env": "prod"}, "api"},
		{"/api/x", http.Header{"X-Canary": {"true"}},
			map[string]string{"X-Team": "shop", "X-Trace": "canary", "X-Env": ""}, "api-canary"},
		{"/api/x", http.Header{"X-Canary": {"true"}, "X-Trace": {"t-1"}},
			map[string]string{"X-Team": "shop", "X-Trace": "t-1,canary"}, "api-canary"},
		{"/api/x", http.Header{"X-Canary": {"true"}, "X-Team": {"ops"}, "X-Trace": {"abc"}},
			map[string]string{"X-Team": "ops,shop", "X-Trace": "abc,canary"}, "api-canary"},
		{"/api/traced/x", http.Header{"X-Trace": {"t-2"}},
			map[string]string{"X-Team": "shop", "X-Trace": "t-2,traced"}, "api-traced"},
		{"/api/traced", http.Header{"X-Trace": {"t-3"}, "X-Canary": {"true"}},
			map[string]string{"X-Team": "shop", "X-Trace": "t-3,traced"}, "api-traced"},
		{"/api/traced", http.Header{"X-Trace": {"nope"}, "X-Canary": {"true"}},
			map[string]string{"X-Team": "shop", "X-Trace": "nope,canary"}, "api-canary"},
		{"/api/traced", http.Header{"X-Trace": {"nope"}},
			map[string]string{"X-Team": "shop", "X-Env": "prod", "X-Trace": "nope"}, "api"},
		// the approximation: only the first of two values is kept and appended to, and Tyk's trigger counts the
		// two values as two rules met, so the X-Canary rule's trigger (its match and X-Team's presence) holds
		// without X-Canary (seen on v5.14.0)
		{"/api", http.Header{"X-Team": {"a", "b"}}, map[string]string{"X-Team": "a,shop", "X-Trace": "canary"}, "api-canary"},
		{"/", http.Header{"X-Team": {"ops"}}, map[string]string{"X-Team": "ops"}, "web"},
		// a URLRewrite beside the add: the internal API rewrites the path (the upstream path is checked below)
		{"/v1/orders/7", http.Header{"X-Team": {"ops"}}, map[string]string{"X-Team": "ops,shop"}, "api"},
		{"/v1/orders", nil, map[string]string{"X-Team": "shop"}, "api"},
		{"/legacy/report/x", http.Header{"X-Team": {"ops"}}, map[string]string{"X-Team": "ops,shop"}, "api"},
	}
	upstreamPaths := map[string]string{"/v1/orders/7": "/orders/7", "/v1/orders": "/orders", "/legacy/report/x": "/report"}
	var extra []explaincheck.Request
	for _, c := range cases {
		if len(c.header.Values("X-Team")) > 1 {
			continue // explaincheck sends one value for each header
		}
		h := map[string]string{}
		for k := range c.header {
			h[k] = c.header.Get(k)
		}
		extra = append(extra, explaincheck.Request{Method: "GET", Host: "shop.example.com", Path: c.path, Header: h})
	}
	tally := explaincheck.Check(t, g, out, explaincheck.Options{Extra: extra})
	require.NotZero(t, tally.Compared)

	for _, c := range cases {
		got, err := g.Send(realtyk.Request{Method: "GET", Host: "shop.example.com", Path: c.path, Header: c.header})
		require.NoError(t, err)
		what := "GET " + c.path + " " + fmtHeader(c.header)
		require.NotNil(t, got.Upstream, "%s: proxied (status %d)", what, got.Status)
		assert.Contains(t, got.Upstream.URL, "://"+c.host+".shop.svc", "%s: the backend", what)
		if p, ok := upstreamPaths[c.path]; ok {
			u, err := url.Parse(got.Upstream.URL)
			require.NoError(t, err)
			assert.Equal(t, p, u.Path, "%s: the rewritten path upstream", what)
		}
		for name, want := range c.want {
			assert.Equal(t, want, got.Upstream.Header.Get(name), "%s: header %s upstream", what, name)
			if want != "" {
				assert.Len(t, got.Upstream.Header.Values(name), 1, "%s: header %s upstream has one value", what, name)
			}
		}
	}
	t.Logf("Tyk Gateway %s appends to request headers; %d generated requests agree with explain", g.Version, tally.Agreed)
}
