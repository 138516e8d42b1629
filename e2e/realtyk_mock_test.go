package e2e_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// TestRealTykMockMatching holds tykroute's two ways of finding a mockResponse to a real Gateway, on an API the
// render would not write (so that the two ways answer differently): under /shop, GET has no mock at "/" and a
// 410 mock at "/{rest:.*}", POST a 409 mock at "/" and none at "/{rest:.*}".
//
// Through Tyk's OpenAPI router (before 5.8.12 on the 5.8 line, before 5.12.0 otherwise) "/" takes only /shop/
// and "/{rest:.*}" the paths below it, and the string-prefix neighbour /shopx meets no mock. Matched the classic
// way (TT-15856, from 5.8.12 and 5.12.0), every key is an unanchored expression over the path without the listen
// path: "/" comes first and takes every path, so GET below /shop meets the disabled shield Tyk adds for "/"
// (from 5.8.13 and 5.12.1) and is proxied, POST meets the 409 everywhere, and /shopx is the same as /shop/x.
func TestRealTykMockMatching(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	version, err := tykroute.ParseVersion(g.Version)
	require.NoError(t, err)

	d := tykoas.NewDocument("mock-matching")
	d.Tyk.Server.ListenPath = tykoas.ListenPath{Value: "/shop", Strip: true}
	d.Tyk.Upstream.URL = "http://backend.test"
	d.Tyk.Middleware = &tykoas.Middleware{Operations: map[string]tykoas.Operation{
		"get-below": {MockResponse: &tykoas.MockResponse{Enabled: true, Code: http.StatusGone}},
		"post":      {MockResponse: &tykoas.MockResponse{Enabled: true, Code: http.StatusConflict}},
	}}
	d.AddOperation("/", "GET", "get")
	d.AddOperation("/", "POST", "post")
	d.AddOperation("/{rest:.*}", "GET", "get-below")
	d.AddOperation("/{rest:.*}", "POST", "post-below")
	d.DeclarePathParameter("/{rest:.*}", "rest:.*")
	doc, err := d.Encode()
	require.NoError(t, err)
	require.NoError(t, g.Replace(map[string][]byte{d.Tyk.Info.ID: doc}))

	classic, shielded := classicMockRelease(version)
	const proxied = 0
	for _, c := range []struct {
		method, path          string
		router, classicStatus int // the status through the router, and matched the classic way (0: proxied)
	}{
		{"GET", "/shop/", proxied, proxied},
		{"GET", "/shop/x", http.StatusGone, proxied},
		{"GET", "/shopx", proxied, proxied},
		{"POST", "/shop/", http.StatusConflict, http.StatusConflict},
		{"POST", "/shop/x", proxied, http.StatusConflict},
		{"POST", "/shopx", proxied, http.StatusConflict},
		{"POST", "/shop", proxied, http.StatusConflict},
	} {
		want := c.router
		if classic {
			want = c.classicStatus
		}
		got, err := g.Send(realtyk.Request{Method: c.method, Host: "any-host.test", Path: c.path})
		require.NoError(t, err)
		gotStatus := got.Status
		if got.FromUpstream {
			gotStatus = proxied
		}
		model := tykroute.Route([]*tykoas.Document{d}, tykroute.Request{Method: c.method, Host: "any-host.test", Path: c.path},
			tykroute.Options{Version: version})
		if classic && !shielded {
			// 5.8.12 and 5.12.0: the mocks in Go's map order, no shields; only the model is held to the Gateway.
			want = model.Status
		}
		assert.Equal(t, want, gotStatus, "%s %s: Tyk %s (0: proxied)", c.method, c.path, g.Version)
		assert.Equal(t, want, model.Status, "%s %s: tykroute for %s (0: proxied); notes: %v", c.method, c.path, version, model.Notes)
	}
	t.Logf("Tyk Gateway %s matches mock responses %s", g.Version, map[bool]string{true: "the classic way", false: "through its OpenAPI router"}[classic])
}

// classicMockRelease is whether Tyk release v matches mockResponse the classic way (TT-15856: 5.8.12 and later
// 5.8 releases, and 5.12.0 and later), and whether it adds the shields and sorts the mocks by path (TT-16890:
// 5.8.13, 5.12.1 and later), as Tyk's git history says; v5.8.11, v5.11.1 and v5.14.0 were seen.
func classicMockRelease(v tykroute.Version) (classic, shielded bool) {
	if v.Major == 5 && v.Minor == 8 {
		return v.Patch >= 12, v.Patch >= 13
	}
	return !v.Less(tykroute.Version{Major: 5, Minor: 12}), !v.Less(tykroute.Version{Major: 5, Minor: 12, Patch: 1})
}
