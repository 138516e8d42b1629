package e2e_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn/explain"
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
	input := strings.Replace(tlsStoryInput(t, "profile-gateway-api-http-to-https", g), "spec: {profile: gateway-api}",
		"spec: {profile: gateway-api, tykVersion: \""+renderedFor(version).String()+"\"}", 1)
	require.Contains(t, input, "tykVersion", "the story's RenderConfig changed shape")
	items, out := renderInput(t, input)

	// Go names the Host header, not the upstream, in the request line it sends the recording proxy, so the
	// Gateway and explain get the documents without preserveHostHeader: the proxy then sees which backend each
	// request reaches (routing does not depend on it).
	docs := map[string][]byte{}
	for _, a := range out.Translation.APIs {
		a.Document.Tyk.Upstream.PreserveHostHeader = nil
		b, err := a.Final()
		require.NoError(t, err)
		docs[a.ID] = b
	}
	if version.Less(tykroute.MinVersion) {
		err := g.Replace(docs)
		require.Error(t, err, "Tyk %s loaded APIs rendered with server.port", g.Version)
		assert.Contains(t, err.Error(), "is not allowed")
		t.Logf("Tyk %s refuses the APIs (the render needs %s and later): %v", g.Version, tykroute.MinVersion, err)
		return
	}
	for _, r := range out.Translation.Routes {
		for _, conds := range r.Conditions {
			for _, c := range conds {
				if c.Type == "Accepted" || c.Type == "ResolvedRefs" {
					require.Equal(t, "True", string(c.Status), "route %s: %s %s", r.Route.Route.Name, c.Reason, c.Message)
				}
				require.NotEqual(t, "PartiallyInvalid", c.Type, "route %s: %s", r.Route.Route.Name, c.Message)
			}
		}
	}

	// The story's OperatorContext names no organisation: the certificate's ID is its digest alone.
	roots := uploadTLSSecret(t, g, items, "shop-tls", "")
	require.NoError(t, g.Replace(docs))
	assert.NotContains(t, g.Log(), "Listen path collision", "Tyk renamed a listen path")

	type want struct {
		location string // a redirect's Location
		backend  string // else the Service the request reaches
	}
	cases := []struct {
		method, url string
		header      map[string]string
		want        want
	}{
		{"GET", "http://shop.example.com/", nil, want{location: "https://shop.example.com/"}},
		{"GET", "http://shop.example.com/cart/1", nil, want{location: "https://shop.example.com/cart/1"}},
		{"POST", "http://shop.example.com/api/orders", map[string]string{"X-Canary": "true"}, want{location: "https://shop.example.com/api/orders"}},
		{"GET", "http://shop.example.com/search?view=beta", nil, want{location: "https://shop.example.com/search"}},
		{"GET", "https://shop.example.com/", nil, want{backend: "web"}},
		{"GET", "https://shop.example.com/cart/1", nil, want{backend: "web"}},
		{"GET", "https://shop.example.com/cart?view=beta", nil, want{backend: "web-beta"}},
		{"GET", "https://shop.example.com/api/orders", nil, want{backend: "api"}},
		{"POST", "https://shop.example.com/api", map[string]string{"X-Canary": "true"}, want{backend: "api-canary"}},
		{"GET", "https://shop.example.com/api/v1/x", map[string]string{"X-Canary": "false"}, want{backend: "api"}},
	}
	for _, c := range cases {
		req, err := explain.ParseRequest(c.method + " " + c.url)
		require.NoError(t, err)
		h := http.Header{}
		for k, v := range c.header {
			h.Set(k, v)
		}
		req.Header = h
		r := realtyk.Request{Method: c.method, Host: req.URL.Hostname(), Path: req.URL.EscapedPath(), RawQuery: req.URL.RawQuery, Header: h}
		var got *realtyk.Response
		if req.URL.Scheme == "https" {
			got, err = g.SendTLS(r, roots)
		} else {
			got, err = g.Send(r)
		}
		require.NoError(t, err, c.url)
		model, err := explain.Explain(out, req, explain.Options{Version: version})
		require.NoError(t, err)
		what := fmt.Sprintf("%s %s (Tyk %s)", c.method, c.url, g.Version)
		if c.want.location != "" {
			assert.Equal(t, http.StatusMovedPermanently, got.Status, what)
			assert.False(t, got.FromUpstream, what)
			assert.Equal(t, c.want.location, got.Header.Get("Location"), what)
			assert.Equal(t, http.StatusMovedPermanently, model.Status, "%s: explain; notes %v", what, model.Notes)
			assert.Equal(t, c.want.location, model.Location, "%s: explain", what)
			continue
		}
		require.True(t, got.FromUpstream, "%s: answered %d itself", what, got.Status)
		up, err := url.Parse(got.Upstream.URL)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(up.Host, c.want.backend+".shop.svc"), "%s: reached %s", what, got.Upstream.URL)
		assert.Zero(t, model.Status, "%s: explain says Tyk proxies it; notes %v", what, model.Notes)
		assert.Equal(t, got.Upstream.URL, model.Upstream, "%s: explain", what)
	}
	t.Logf("Tyk %s: %d requests, HTTP redirected to HTTPS and HTTPS served, explain agreeing on each", g.Version, len(cases))
}
