package explain

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// renderStory renders a golden story's input.yaml (a ResourceList) with its own function config.
func renderStory(t *testing.T, story string) *fn.Output { return renderStoryFor(t, story, "") }

// renderStoryFor renders a story for Tyk release tykVersion ("": the story's own).
func renderStoryFor(t *testing.T, story, tykVersion string) *fn.Output {
	t.Helper()
	data, err := os.ReadFile("../testdata/" + story + "/input.yaml")
	require.NoError(t, err)
	rl, err := yaml.Parse(string(data))
	require.NoError(t, err)
	items, err := rl.Pipe(yaml.Lookup("items"))
	require.NoError(t, err)
	nodes, err := items.Elements()
	require.NoError(t, err)
	fc, err := rl.Pipe(yaml.Lookup("functionConfig"))
	require.NoError(t, err)
	cfg, err := config.Load(fc)
	require.NoError(t, err)
	if tykVersion != "" {
		cfg.TykVersion = tykVersion
	}
	return renderWith(t, nodes, cfg)
}

// In the gateway-api profile a route on two Gateways that share a data plane is served on both by one API (the
// render's status says so); explain follows the Tyk Gateways, which load every API of the data plane.
func TestExplainSharedDataPlane(t *testing.T) {
	out := renderStory(t, "profile-gateway-api-data-plane-shared")
	require.Equal(t, config.ProfileGatewayAPI, out.Profile)

	own := ask(t, out, "GET http://10.96.0.20/orders/1", Options{Gateway: "shop/partners"})
	assert.Equal(t, "shop/orders", own.Route)
	assert.Equal(t, "http://orders.shop.svc.cluster.local:8080/orders/1", own.Upstream)
	assert.Empty(t, own.Notes)

	shared := ask(t, out, "GET http://10.96.0.20/orders/1", Options{Gateway: "shop/public"})
	assert.Equal(t, "shop/orders", shared.Route)
	assert.Equal(t, own.APIID, shared.APIID, "the one API serves the route on both Gateways")
	assert.Equal(t, "http://orders.shop.svc.cluster.local:8080/orders/1", shared.Upstream)
	assert.Zero(t, shared.Status)
	assert.Contains(t, shared.Notes, "the API is the one rendered for Gateway shop/partners, which shares this Gateway's "+
		"data plane (Service tyk/tyk-gateway): the same Tyk Gateways answer both")
}

// In the gateway-api profile an HTTPS listener's APIs are on a TLS port of their own (server.port, the Service's
// targetPort for the listener's port); explain sends an https request there and every other to listen_port, as
// the load balancer and Tyk's per-port routers do.
func TestExplainHTTPSListenerOwnPort(t *testing.T) {
	out := renderStory(t, "profile-gateway-api-https-listener-own-port")
	require.Equal(t, config.ProfileGatewayAPI, out.Profile)

	secure := ask(t, out, "GET https://checkout.shop.example.com/checkout/1", Options{})
	assert.Equal(t, "shop/checkout", secure.Route)
	assert.Equal(t, "http://checkout.shop.svc.cluster.local:8080/checkout/1", secure.Upstream)
	assert.Contains(t, secure.Notes, "an https request reaches Tyk on port 8443, the TLS port of the HTTPS listeners on "+
		"port 443 (the data-plane Service's targetPort), where only the APIs with server.port 8443 are")

	plain := ask(t, out, "GET http://checkout.shop.example.com/checkout/1", Options{})
	assert.Equal(t, 404, plain.Status, "the route attaches to the https listener only, and its API is on the TLS port")
	assert.Empty(t, plain.APIID)

	both := ask(t, out, "GET http://checkout.shop.example.com/account", Options{})
	assert.Equal(t, "shop/account", both.Route)
	bothTLS := ask(t, out, "GET https://checkout.shop.example.com/account", Options{})
	assert.Equal(t, "shop/account", bothTLS.Route, "a route on an HTTP and an HTTPS listener has an API on each port")
	assert.Zero(t, bothTLS.Status, "proxied; notes %v", bothTLS.Notes)
	assert.NotEqual(t, both.APIID, bothTLS.APIID)
}

// In the gateway-api profile a Gateway whose HTTP listeners are sent to two ports of the Tyk Pods has each
// listener's APIs on its own port; explain sends an http request to the Tyk port of the Service port in its URL
// (80 without one), so one hostname and path reach the site or the back office by port.
func TestExplainHTTPListenerPorts(t *testing.T) {
	out := renderStory(t, "profile-gateway-api-http-listener-ports")
	site := ask(t, out, "GET http://shop.com/cart", Options{})
	assert.Equal(t, "shop/site", site.Route)
	assert.Equal(t, "http://site.shop.svc.cluster.local:8080/cart", site.Upstream)
	assert.Contains(t, site.Notes, "an http request reaches Tyk on port 8080, the own port of the HTTP listeners on "+
		"port 80 (the data-plane Service's targetPort), where only the APIs with server.port 8080 are")
	office := ask(t, out, "GET http://shop.com:8080/cart", Options{})
	assert.Equal(t, "shop/backoffice", office.Route)
	assert.Equal(t, "http://backoffice.shop.svc.cluster.local:8080/cart", office.Upstream)
	assert.Equal(t, "shop/partners", ask(t, out, "GET http://partners.shop.com:8080/api/1", Options{}).Route)
	assert.Equal(t, 404, ask(t, out, "GET http://partners.shop.com/api/1", Options{}).Status, "no listener of port 80 has the hostname")
	status, statusOffice := ask(t, out, "GET http://shop.com/status", Options{}), ask(t, out, "GET http://shop.com:8080/status", Options{})
	assert.Equal(t, "shop/status", status.Route)
	assert.Equal(t, "shop/status", statusOffice.Route)
	assert.NotEqual(t, status.APIID, statusOffice.APIID, "a route on both ports has an API on each")
}

// In the gateway-api profile explain says the timeout Tyk enforces on the upstream, per rule and method: the
// story's /search 500ms, /orders GET 1500ms (POST none), /reports 0s (none); for 5.8, whole seconds.
func TestExplainTimeouts(t *testing.T) {
	out := renderStory(t, "profile-gateway-api-timeouts")
	search := ask(t, out, "GET http://10.96.0.24/search?q=shoes", Options{})
	assert.Equal(t, "500ms", search.Timeout)
	req, err := ParseRequest("GET http://10.96.0.24/search?q=shoes")
	require.NoError(t, err)
	assert.Contains(t, search.Text(req), "timeout    500ms (Tyk answers 504 when the upstream has not answered by then)")
	assert.Contains(t, search.Notes[0], "enforceTimeout.duration, which Tyk takes from 5.14 on")
	assert.Equal(t, "1.5s", ask(t, out, "GET http://10.96.0.24/orders/7", Options{}).Timeout)
	assert.Empty(t, ask(t, out, "POST http://10.96.0.24/orders", Options{}).Timeout)
	assert.Empty(t, ask(t, out, "GET http://10.96.0.24/reports/daily", Options{}).Timeout)
	assert.Equal(t, "10s", ask(t, out, "PUT http://10.96.0.24/checkout/pay", Options{}).Timeout)

	older := renderStory(t, "profile-gateway-api-timeouts-whole-seconds")
	assert.Equal(t, "1s", ask(t, older, "GET http://10.96.0.25/search", Options{}).Timeout)
	assert.Equal(t, "2s", ask(t, older, "GET http://10.96.0.25/orders/7", Options{}).Timeout)
}

// The newcomer's app: plain HTTP redirected to HTTPS beside the HTTPS route of the same hostname. For the release
// the render writes for, a plain-HTTP request is the redirect's, with its own path in the Location, and explain
// names no route of the other listener as Gateway API's answer; an https request reaches the TLS port's router
// and the internal API it loops to, and the note on other releases does not lose the loop's target (the internal
// APIs have no server.port).
func TestExplainHTTPToHTTPS(t *testing.T) {
	out := renderStory(t, "profile-gateway-api-http-to-https")
	require.Equal(t, tykroute.NewestVersion, out.TykVersion, "the story names no tykVersion")

	plain := ask(t, out, "GET http://shop.example.com/cart/1", Options{Version: out.TykVersion})
	assert.Equal(t, "shop/to-https", plain.Route)
	assert.Equal(t, 301, plain.Status)
	assert.Equal(t, "https://shop.example.com/cart/1", plain.Location)
	for _, n := range plain.Notes {
		assert.NotContains(t, n, "shop/app", "a route of the https listener is not Gateway API's answer to plain HTTP")
	}

	for _, opt := range []Options{{Version: out.TykVersion}, {}} {
		secure := ask(t, out, "GET https://shop.example.com/api/x", opt)
		assert.Equal(t, "shop/app", secure.Route)
		assert.Zero(t, secure.Status, "proxied; notes %v", secure.Notes)
		assert.Equal(t, "http://api.shop.svc.cluster.local:8080/api/x", secure.Upstream)
		for _, n := range secure.Notes {
			assert.NotContains(t, n, "answer otherwise", "every release proxies it")
		}
	}
	req, err := ParseRequest("GET https://shop.example.com/api/x")
	require.NoError(t, err)
	req.Header = map[string][]string{"X-Canary": {"true"}}
	c, err := Explain(out, req, Options{Version: out.TykVersion})
	require.NoError(t, err)
	assert.Equal(t, "http://api-canary.shop.svc.cluster.local:8080/api/x", c.Upstream)

	// Rendered for v5.8.11, which finds mock responses through its OpenAPI router: the redirect on / keeps the
	// path there too, its mock and Location repeated under the listen path (seen on v5.8.11, e2e
	// TestRealTykHTTPToHTTPS).
	lts := renderStoryFor(t, "profile-gateway-api-http-to-https", "5.8.11")
	for _, p := range []string{"/", "/cart/1"} {
		a := ask(t, lts, "GET http://shop.example.com"+p, Options{Version: lts.TykVersion})
		assert.Equal(t, 301, a.Status, "%s on 5.8.11: notes %v", p, a.Notes)
		assert.Equal(t, "https://shop.example.com"+p, a.Location, p)
	}
}

// In the gateway-api profile an HTTPS listener whose Gateway validates client certificates (spec.tls.frontend)
// says which CA certificates must have signed the client's, per port; plain HTTP asks for none.
func TestExplainFrontendValidation(t *testing.T) {
	out := renderStory(t, "profile-gateway-api-frontend-validation")

	partners := ask(t, out, "GET https://partners.example.com/orders/7", Options{})
	assert.Equal(t, "partners/orders", partners.Route)
	assert.Equal(t, "required, signed by a CA certificate of ConfigMap partners/partner-ca (Tyk ends the TLS "+
		"handshake of a client without one; one issued for clientAuth alone is answered 403 unless the client "+
		"sends the CA certificate with it)", partners.ClientCertificate)
	req, err := ParseRequest("GET https://partners.example.com/orders/7")
	require.NoError(t, err)
	assert.Contains(t, partners.Text(req), "client     required, signed by a CA certificate of ConfigMap partners/partner-ca")

	ops := ask(t, out, "GET https://ops.example.com:8443/", Options{})
	assert.Equal(t, "partners/ops", ops.Route)
	assert.Contains(t, ops.ClientCertificate, "ConfigMap partners/ops-cas (", "port 8443's own CAs, named once")

	www := ask(t, out, "GET http://www.example.com/", Options{})
	assert.Equal(t, "partners/www", www.Route)
	assert.Empty(t, www.ClientCertificate)
}
