package e2e_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/explaincheck"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn/explain"
)

// TestRealTykListenerIsolation holds the story profile-gateway-api-listener-isolation (listeners without
// hostname, *.example.com, *.foo.example.com and abc.foo.example.com on one port, a route on a path of its own
// for each) to a real Gateway, as the upstream suite's GatewayHTTPListenerIsolation asks: each host reaches only
// the routes of the most specific listener that takes it, every other path of it gets 404, and explain agrees
// on every request.
func TestRealTykListenerIsolation(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	version, out := renderStoryFor(t, "profile-gateway-api-listener-isolation", g)

	owner := map[string]string{ // host -> the one path it is served on
		"bar.com": "/any-host", "example.org": "/any-host", "example.com": "/any-host",
		"bar.example.com": "/example", "foo.example.com": "/example", "a.b.example.com": "/example",
		"bar.foo.example.com": "/foo", "x.abc.foo.example.com": "/foo",
		"abc.foo.example.com": "/abc",
		// a port in the Host header: the isolated domains match it themselves (gorilla/mux keeps the port for a
		// pattern with a colon)
		"bar.com:80": "/any-host", "bar.example.com:80": "/example", "abc.foo.example.com:8080": "/abc",
	}
	paths := []string{"/any-host", "/example", "/foo", "/abc"}
	var extra []explaincheck.Request
	for host := range owner {
		for _, p := range paths {
			extra = append(extra, explaincheck.Request{Method: http.MethodGet, Host: host, Path: p + "/x"})
		}
	}
	tally := explaincheck.Check(t, g, out, explaincheck.Options{Extra: extra})
	require.NotZero(t, tally.Compared)

	for host, served := range owner {
		for _, p := range paths {
			u := &url.URL{Scheme: "http", Host: host, Path: p + "/x"}
			what := "GET " + u.String() + " on Tyk " + g.Version
			ans, err := explain.Explain(out, explain.Request{Method: http.MethodGet, URL: u}, explain.Options{Version: version})
			require.NoError(t, err)
			got, err := g.Send(realtyk.Request{Method: http.MethodGet, Host: host, Path: p + "/x"})
			require.NoError(t, err)
			if p != served {
				assert.Equal(t, http.StatusNotFound, got.Status, "%s: another listener's route", what)
				assert.False(t, got.FromUpstream, what)
				assert.Equal(t, http.StatusNotFound, ans.Status, "%s: explain", what)
				continue
			}
			assert.True(t, got.FromUpstream, "%s: proxied (status %d)", what, got.Status)
			assert.Equal(t, "shop"+p, ans.Route, "%s: explain's route", what)
		}
	}
	// The route named on the listener without hostname, with hostnames that more specific listeners claim but
	// bar.com: only bar.com's requests reach it.
	for host, served := range map[string]bool{"bar.com": true, "bar.com:80": true, "bar.example.com": false,
		"x.foo.example.com": false, "abc.foo.example.com": false, "example.org": false} {
		got, err := g.Send(realtyk.Request{Method: http.MethodGet, Host: host, Path: "/named/x"})
		require.NoError(t, err)
		assert.Equal(t, served, got.FromUpstream, "GET %s/named/x on Tyk %s (status %d)", host, g.Version, got.Status)
		if !served {
			assert.Equal(t, http.StatusNotFound, got.Status, "GET %s/named/x on Tyk %s", host, g.Version)
		}
		extra = append(extra, explaincheck.Request{Method: http.MethodGet, Host: host, Path: "/named/x"})
	}
	tally = explaincheck.Check(t, g, out, explaincheck.Options{Extra: extra})
	t.Logf("Tyk Gateway %s keeps each host to its most specific listener's routes; %d generated requests agree with explain",
		g.Version, tally.Agreed)
}
