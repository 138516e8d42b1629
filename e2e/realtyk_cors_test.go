package e2e_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/explaincheck"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
)

// TestRealTykCORS holds the CORS filter's render (translate/cors.go) to a real Gateway: the story
// profile-gateway-api-cors (an API whose origins are a storefront and its preview sites, with credentials, and a
// public catalogue of any origin, method and header), with explain agreeing on every request:
//   - an allowed origin's preflight is answered by Tyk itself, 204, the origin echoed, the filter's methods and
//     headers (or, for a wildcard, the requested ones), exposed headers, max age and credentials; another
//     origin's preflight is answered 204 without CORS headers;
//   - an allowed origin's other requests (a plain OPTIONS among them) reach the backend, and its answer carries
//     the echoed origin, credentials and exposed headers beside the rule's own response header;
//   - another origin's other requests reach the backend and get no CORS header.
func TestRealTykCORS(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	_, out := renderStoryFor(t, "profile-gateway-api-cors", g)
	const (
		host      = "api.shop.example.com"
		storefont = "https://www.shop.example.com"
		preview   = "https://pr-12.eu.preview.shop.example.com"
		other     = "https://evil.example.com"
	)
	preflight := func(path, origin, method, headers string) explaincheck.Request {
		h := map[string]string{"Origin": origin, "Access-Control-Request-Method": method}
		if headers != "" {
			h["Access-Control-Request-Headers"] = headers
		}
		return explaincheck.Request{Method: "OPTIONS", Host: host, Path: path, Header: h}
	}
	request := func(method, path, origin string) explaincheck.Request {
		r := explaincheck.Request{Method: method, Host: host, Path: path}
		if origin != "" {
			r.Header = map[string]string{"Origin": origin}
		}
		return r
	}
	cases := []struct {
		req      explaincheck.Request
		proxied  bool
		response map[string]string // CORS response headers; "" for absent
	}{
		{preflight("/api/cart", storefont, "PUT", "content-type"), false, map[string]string{
			"Access-Control-Allow-Origin": storefont, "Access-Control-Allow-Methods": "GET, POST, PUT, DELETE",
			"Access-Control-Allow-Headers": "content-type, x-cart-id", "Access-Control-Allow-Credentials": "true",
			"Access-Control-Max-Age": "600", "Access-Control-Expose-Headers": "x-request-id"}},
		{preflight("/api", preview, "DELETE", ""), false, map[string]string{
			"Access-Control-Allow-Origin": preview, "Access-Control-Allow-Credentials": "true"}},
		{preflight("/api/cart", other, "PUT", "content-type"), false, map[string]string{
			"Access-Control-Allow-Origin": "", "Access-Control-Allow-Methods": "", "Access-Control-Allow-Credentials": ""}},
		{preflight("/api/cart", "https://shop.example.com", "GET", ""), false, map[string]string{"Access-Control-Allow-Origin": ""}},
		{request("GET", "/api/cart", storefont), true, map[string]string{
			"Access-Control-Allow-Origin": storefont, "Access-Control-Allow-Credentials": "true",
			"Access-Control-Expose-Headers": "x-request-id", "X-Served-By": "tyk", "Access-Control-Allow-Methods": ""}},
		{request("OPTIONS", "/api/cart", preview), true, map[string]string{"Access-Control-Allow-Origin": preview}},
		{request("POST", "/api/cart", other), true, map[string]string{"Access-Control-Allow-Origin": "", "X-Served-By": "tyk"}},
		{request("GET", "/api/cart", ""), true, map[string]string{"Access-Control-Allow-Origin": ""}},
		{preflight("/catalog/items", other, "PATCH", "x-one, x-two"), false, map[string]string{
			"Access-Control-Allow-Origin": other, "Access-Control-Allow-Methods": "PATCH",
			"Access-Control-Allow-Headers": "x-one, x-two", "Access-Control-Max-Age": "5", "Access-Control-Allow-Credentials": ""}},
		{preflight("/catalog", other, "GET", ""), false, map[string]string{
			"Access-Control-Allow-Origin": other, "Access-Control-Allow-Methods": "GET", "Access-Control-Allow-Headers": ""}},
		{request("GET", "/catalog/items", other), true, map[string]string{
			"Access-Control-Allow-Origin": other, "Access-Control-Allow-Credentials": ""}},
		{request("GET", "/catalog/items", ""), true, map[string]string{"Access-Control-Allow-Origin": ""}},
		{request("GET", "/home", storefont), true, map[string]string{"Access-Control-Allow-Origin": ""}},
	}
	var extra []explaincheck.Request
	for _, c := range cases {
		extra = append(extra, c.req)
	}
	tally := explaincheck.Check(t, g, out, explaincheck.Options{Extra: extra})
	require.NotZero(t, tally.Compared)
	// explain's answer named each response header set; here, what must be absent too.
	for _, c := range cases {
		h := http.Header{}
		for k, v := range c.req.Header {
			h.Set(k, v)
		}
		got, err := g.Send(realtyk.Request{Method: c.req.Method, Host: c.req.Host, Path: c.req.Path, Header: h})
		require.NoError(t, err)
		what := c.req.Method + " " + c.req.Path + " " + c.req.Header["Origin"]
		assert.Equal(t, c.proxied, got.FromUpstream, what)
		if !c.proxied {
			assert.Equal(t, http.StatusNoContent, got.Status, what)
		}
		for name, want := range c.response {
			assert.Equal(t, want, got.Header.Get(name), "%s: %s", what, name)
		}
	}
	t.Logf("Tyk %s: %d requests, explain agreeing on each; preflights of allowed origins answered by Tyk, other requests proxied with CORS headers for allowed origins only", g.Version, tally.Compared)
}
