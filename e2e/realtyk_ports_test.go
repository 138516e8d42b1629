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

// TestRealTykHTTPListenerPorts holds the gateway-api profile's HTTP listeners on ports of their own to a real
// Gateway: the story profile-gateway-api-http-listener-ports, its data-plane Service's port 80 sent to the
// Gateway's listen_port and port 8080 to one of its HTTPPorts (which its ports_whitelist lets it open for
// http), rendered, its APIs loaded. From Tyk 5.8 a request reaches the routes of the listeners of the port it
// is sent to and only those, though the site and the back office claim the same hostname and path; the Host
// header may carry the port (the suite's requests do); explain answers every request as the Gateway does. The
// 5.4 line refuses an API with server.port and server.protocol.
func TestRealTykHTTPListenerPorts(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	version, err := tykroute.ParseVersion(g.Version)
	require.NoError(t, err)

	_, out := renderInput(t, httpPortsStoryInput(t, "profile-gateway-api-http-listener-ports", g))
	docs := finalDocs(t, out)
	var ports []string
	for _, a := range out.Translation.APIs {
		for name, p := range map[string]int{"listen_port": g.Port, "own": g.HTTPPorts[0]} {
			if strings.Contains(string(docs[a.ID]), fmt.Sprintf(`"port": %d`, p)) {
				ports = append(ports, a.Route.Route.Name+" on "+name)
			}
		}
	}
	sort.Strings(ports)
	require.Equal(t, []string{"backoffice on own", "partners on own", "site on listen_port", "status on listen_port", "status on own"}, ports)

	if refusesOwnPorts(t, g, version, docs) {
		return
	}
	require.NoError(t, g.Replace(docs))

	for _, c := range []struct {
		url      string
		upstream string // the upstream's host and path; "" when Tyk answers 404 itself
	}{
		{"http://shop.com/", "site/"},
		{"http://shop.com/cart", "site/cart"},
		{"http://shop.com:8080/", "backoffice/"},
		{"http://shop.com:8080/cart", "backoffice/cart"},
		{"http://shop.com/status", "status/status"},
		{"http://shop.com:8080/status", "status/status"},
		{"http://shop.com:8080/statusboard", "backoffice/statusboard"},
		{"http://partners.shop.com:8080/api/orders", "partners/api/orders"},
		{"http://partners.shop.com:8080/", ""},
		{"http://partners.shop.com/api/orders", ""},
		{"http://other.com:8080/", ""},
	} {
		req, err := explain.ParseRequest("GET " + c.url)
		require.NoError(t, err)
		r := realtyk.Request{Method: "GET", Host: req.URL.Host, Path: req.URL.EscapedPath()}
		var got *realtyk.Response
		if req.URL.Port() == "8080" {
			got, err = g.SendTo(g.HTTPPorts[0], r)
		} else {
			got, err = g.Send(r)
		}
		require.NoError(t, err, c.url)
		model, merr := explain.Explain(out, req, explain.Options{Version: version})
		require.NoError(t, merr)
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
		// The upstream's address cannot be seen (the Host is preserved, and Go's proxy request line names it), so
		// the path and the listener the site and the back office name tell the routes apart.
		service, path, _ := strings.Cut(c.upstream, "/")
		assert.Equal(t, "/"+path, up.Path, "%s: the path the upstream got (%s)", c.url, got.Upstream.URL)
		if service == "site" || service == "backoffice" {
			assert.Equal(t, service, got.Upstream.Header.Get("X-Listener"), "%s: the route that took it", c.url)
		}
		assert.Zero(t, model.Status, "%s: explain says Tyk proxies it; notes %v", c.url, model.Notes)
		assert.Equal(t, "http://"+service+".shop.svc.cluster.local:8080/"+path, model.Upstream, c.url)
	}
}

// httpPortsStoryInput is a story's input.yaml with its data-plane Service's targetPorts 8080 (Tyk's listen_port)
// and 8081 (an HTTP listener's own port) made Gateway g's listen_port and first HTTPPort.
func httpPortsStoryInput(t *testing.T, story string, g *realtyk.Gateway) string {
	t.Helper()
	return storyInput(t, story, map[string]int{"targetPort: 8080}": g.Port, "targetPort: 8081}": g.HTTPPorts[0]})
}
