package e2e_test

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn/explain"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// TestRealTykHTTPSListenerOwnPort holds the gateway-api profile's HTTPS listeners to a real Gateway: the story
// profile-gateway-api-https-listener-own-port, its data-plane Service's port 443 sent to the Gateway's TLSPort
// (which its ports_whitelist lets it open), rendered, its certificate uploaded as sync does, its APIs loaded.
// From Tyk 5.8 the https listener's API is served over TLS on that port with the listener's certificate, and
// only there; the other APIs only on listen_port; explain answers every request as the Gateway does. The 5.4
// line refuses an API with server.port and server.protocol (the fields sync's version check names).
func TestRealTykHTTPSListenerOwnPort(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	version, err := tykroute.ParseVersion(g.Version)
	require.NoError(t, err)

	items, out := renderInput(t, tlsStoryInput(t, "profile-gateway-api-https-listener-own-port", g))

	docs := finalDocs(t, out)
	var onTLS []string
	for _, a := range out.Translation.APIs {
		if strings.Contains(string(docs[a.ID]), fmt.Sprintf(`"port": %d`, g.TLSPort)) {
			onTLS = append(onTLS, a.Route.Route.Name)
		}
	}
	require.Len(t, docs, 4)
	sort.Strings(onTLS)
	require.Equal(t, []string{"account", "checkout"}, onTLS, "the routes attached to the https listener have an API on the TLS port")

	if refusesOwnPorts(t, g, version, docs) {
		return
	}

	roots := uploadTLSSecret(t, g, items, "checkout-tls", "5e9d9544a1dcd60001d0ed20")
	require.NoError(t, g.Replace(docs))

	for _, c := range []struct {
		url      string
		upstream string // the path the upstream gets; "" when Tyk answers 404 itself
		// refused: the TLS port presents the one certificate it has (checkout's) for every server name, so a
		// client that checks it gives up before any request; Tyk would answer 404 (no API on the port takes it).
		refused bool
	}{
		{"https://checkout.shop.example.com/checkout/1", "/checkout/1", false},
		{"http://checkout.shop.example.com/checkout/1", "", false},
		{"http://www.shop.example.com/", "/", false},
		{"https://www.shop.example.com/", "", true},
		{"http://checkout.shop.example.com/account", "/account", false},
		{"https://checkout.shop.example.com/account", "/account", false},
	} {
		req, err := explain.ParseRequest("GET " + c.url)
		require.NoError(t, err)
		r := realtyk.Request{Method: "GET", Host: req.URL.Hostname(), Path: req.URL.EscapedPath()}
		var got *realtyk.Response
		if req.URL.Scheme == "https" {
			got, err = g.SendTLS(r, roots)
		} else {
			got, err = g.Send(r)
		}
		model, merr := explain.Explain(out, req, explain.Options{Version: version})
		require.NoError(t, merr)
		if c.refused {
			require.Error(t, err, c.url)
			assert.Contains(t, err.Error(), "certificate is valid for checkout.shop.example.com, not "+req.URL.Hostname(), c.url)
			assert.Equal(t, http.StatusNotFound, model.Status, "%s: explain; notes %v", c.url, model.Notes)
			continue
		}
		require.NoError(t, err, c.url)
		if c.upstream == "" {
			assert.Equal(t, http.StatusNotFound, got.Status, "%s: Tyk %s", c.url, g.Version)
			assert.False(t, got.FromUpstream, c.url)
			assert.Equal(t, http.StatusNotFound, model.Status, "%s: explain; notes %v", c.url, model.Notes)
			continue
		}
		require.True(t, got.FromUpstream, "%s: Tyk %s answered %d itself", c.url, g.Version, got.Status)
		require.NotNil(t, got.Upstream, c.url)
		up, err := url.Parse(got.Upstream.URL)
		require.NoError(t, err)
		assert.Equal(t, c.upstream, up.Path, "%s: the path the upstream got (%s)", c.url, got.Upstream.URL)
		assert.Zero(t, model.Status, "%s: explain says Tyk proxies it; notes %v", c.url, model.Notes)
		assert.Equal(t, "http://checkout.shop.svc.cluster.local:8080"+c.upstream, model.Upstream, c.url)
	}
}
