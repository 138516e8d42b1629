package e2e_test

import (
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/explain"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// unpreservedDocs are the final documents of the render's APIs by API ID without preserveHostHeader: Go names
// the Host header, not the upstream, in the request line it sends the recording proxy, so without it the proxy
// sees which backend each request reaches (routing does not depend on it).
func unpreservedDocs(t *testing.T, out *fn.Output) map[string][]byte {
	t.Helper()
	docs := map[string][]byte{}
	for _, a := range out.Translation.APIs {
		a.Document.Tyk.Upstream.PreserveHostHeader = nil
		b, err := a.Final()
		require.NoError(t, err)
		docs[a.ID] = b
	}
	return docs
}

// requireServed fails t unless every parent of every route but those skip names is Accepted and ResolvedRefs
// True, with no rule PartiallyInvalid.
func requireServed(t *testing.T, out *fn.Output, skip func(route string) bool) {
	t.Helper()
	for _, r := range out.Translation.Routes {
		if skip != nil && skip(r.Route.Route.Name) {
			continue
		}
		for _, conds := range r.Conditions {
			for _, c := range conds {
				if c.Type == "Accepted" || c.Type == "ResolvedRefs" {
					require.Equal(t, "True", string(c.Status), "route %s: %s %s", r.Route.Route.Name, c.Reason, c.Message)
				}
				require.NotEqual(t, "PartiallyInvalid", c.Type, "route %s: %s", r.Route.Route.Name, c.Message)
			}
		}
	}
}

// schemeCase is a request to a story's listeners and what it gets: a redirect's Location, a 404 of Tyk's own, or
// else the backend (the Service of the story's namespace shop) it reaches.
type schemeCase struct {
	method, url string
	header      map[string]string
	location    string
	notFound    bool
	backend     string
	// gateway is the Gateway (namespace/name) the request is sent to, for a story of several; tykPort then the
	// port of g it reaches (the targetPort of that Gateway's Service), 0 for the ports the URL says.
	gateway string
	tykPort int
}

// checkSchemeCase sends c to g (an https URL over TLS to its TLSPort with roots, port 8080 to its first
// HTTPPort, else its listen_port) and asserts that Tyk and explain both answer it as c says.
func checkSchemeCase(t *testing.T, g *realtyk.Gateway, out *fn.Output, version tykroute.Version, roots *x509.CertPool, c schemeCase) {
	t.Helper()
	req, err := explain.ParseRequest(c.method + " " + c.url)
	require.NoError(t, err)
	h := http.Header{}
	for k, v := range c.header {
		h.Set(k, v)
	}
	req.Header = h
	r := realtyk.Request{Method: c.method, Host: req.URL.Hostname(), Path: req.URL.EscapedPath(), RawQuery: req.URL.RawQuery, Header: h}
	var got *realtyk.Response
	switch {
	case c.tykPort != 0:
		got, err = g.SendTo(c.tykPort, r)
	case req.URL.Scheme == "https":
		got, err = g.SendTLS(r, roots)
	case req.URL.Port() == "8080":
		got, err = g.SendTo(g.HTTPPorts[0], r)
	default:
		got, err = g.Send(r)
	}
	require.NoError(t, err, c.url)
	model, err := explain.Explain(out, req, explain.Options{Version: version, Gateway: c.gateway})
	require.NoError(t, err)
	what := fmt.Sprintf("%s %s (Tyk %s)", c.method, c.url, g.Version)
	if c.gateway != "" {
		what = fmt.Sprintf("%s %s to Gateway %s (Tyk %s)", c.method, c.url, c.gateway, g.Version)
	}
	switch {
	case c.notFound:
		assert.Equal(t, http.StatusNotFound, got.Status, what)
		assert.False(t, got.FromUpstream, what)
		assert.Equal(t, http.StatusNotFound, model.Status, "%s: explain; notes %v", what, model.Notes)
	case c.location != "":
		assert.Equal(t, http.StatusMovedPermanently, got.Status, what)
		assert.False(t, got.FromUpstream, what)
		assert.Equal(t, c.location, got.Header.Get("Location"), what)
		assert.Equal(t, http.StatusMovedPermanently, model.Status, "%s: explain; notes %v", what, model.Notes)
		assert.Equal(t, c.location, model.Location, "%s: explain", what)
	default:
		require.True(t, got.FromUpstream, "%s: answered %d itself", what, got.Status)
		up, err := url.Parse(got.Upstream.URL)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(up.Host, c.backend+".shop.svc"), "%s: reached %s", what, got.Upstream.URL)
		assert.Zero(t, model.Status, "%s: explain says Tyk proxies it; notes %v", what, model.Notes)
		assert.Equal(t, got.Upstream.URL, model.Upstream, "%s: explain", what)
	}
}
