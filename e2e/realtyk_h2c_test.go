package e2e_test

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/explaincheck"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn/explain"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// h2cInput is the story profile-gateway-api-h2c's shape with the orders Services headless and their one ready
// endpoint the loopback backend on port (Tyk dials an h2c upstream itself, past the recording proxy, so the
// backend must be where the URL says).
const h2cInput = inlineStoryHead + `  - apiVersion: v1
    kind: Service
    metadata: {name: tyk-gateway, namespace: tyk, annotations: {config.kubernetes.io/local-config: "true"}}
    spec: {type: ClusterIP, clusterIP: 10.96.0.36, ports: [{name: http, port: 80}]}
  - apiVersion: gateway.networking.k8s.io/v1
    kind: Gateway
    metadata: {name: edge, namespace: shop}
    spec:
      gatewayClassName: tyk
      listeners: [{name: http, protocol: HTTP, port: 80, hostname: shop.example.com}]
  - apiVersion: gateway.networking.k8s.io/v1
    kind: HTTPRoute
    metadata: {name: orders, namespace: shop}
    spec:
      parentRefs: [{name: edge}]
      rules:
        - matches: [{path: {type: PathPrefix, value: /orders.v1}}]
          backendRefs: [{name: orders, port: 9000}]
        - matches: [{path: {type: PathPrefix, value: /orders.v2}}]
          backendRefs: [{name: orders, port: 9000, weight: 90}, {name: orders-canary, port: 9000, weight: 10}]
        - backendRefs: [{name: web, port: 8080}]
  - apiVersion: v1
    kind: Service
    metadata: {name: orders, namespace: shop}
    spec: {clusterIP: None, ports: [{name: grpc, port: 9000, appProtocol: kubernetes.io/h2c}]}
  - apiVersion: discovery.k8s.io/v1
    kind: EndpointSlice
    metadata: {name: orders-1, namespace: shop, labels: {kubernetes.io/service-name: orders}}
    addressType: IPv4
    ports: [{name: grpc, port: PORT}]
    endpoints: [{addresses: [127.0.0.1], conditions: {ready: true}}]
  - apiVersion: v1
    kind: Service
    metadata: {name: orders-canary, namespace: shop}
    spec: {ports: [{name: grpc, port: 9000, appProtocol: kubernetes.io/h2c}]}
  - {apiVersion: v1, kind: Service, metadata: {name: web, namespace: shop}, spec: {ports: [{port: 8080}]}}
` + inlineStoryTail

// startProtoBackend serves HTTP/1.1 and HTTP/2 without TLS (prior knowledge) on a loopback port and answers
// every request with the protocol and path it came in on (X-Backend-Proto, X-Backend-Path).
func startProtoBackend(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Protocols: &http.Protocols{}, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Backend-Proto", r.Proto)
		w.Header().Set("X-Backend-Path", r.URL.RequestURI())
	})}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return l.Addr().(*net.TCPAddr).Port
}

// TestRealTykH2CBackend holds the gateway-api profile's h2c backends (attachment's H2C, translate's upstream.go)
// to a real Gateway: a Service port of appProtocol kubernetes.io/h2c, its rule's one target, is reached over
// HTTP/2 without TLS (the backend sees HTTP/2.0), the plain Service beside it over HTTP/1.1, and a rule of two
// h2c backends, refused (UnsupportedProtocol), answers 500; every generated request and explain agree. And the
// fact that refusal rests on: the same backend as two load-balanced h2c:// targets gets HTTP/1.1 (Tyk's
// EnsureTransport), where the model (tykroute) says so too.
func TestRealTykH2CBackend(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	port := startProtoBackend(t)
	version, err := tykroute.ParseVersion(g.Version)
	require.NoError(t, err)
	input := strings.Replace(h2cInput, "port: PORT", fmt.Sprintf("port: %d", port), 1)
	_, out := renderInput(t, forRelease(t, "h2c", input, version))
	explaincheck.ForVersion(out.Translation, version)
	for _, a := range out.Translation.APIs {
		a.Document.Tyk.Upstream.PreserveHostHeader = nil // see TestRealTykRequestHeaderAdd
	}
	require.NoError(t, g.Replace(finalDocs(t, out)))

	h2cURL := fmt.Sprintf("h2c://127.0.0.1:%d/orders.v1", port)
	var sawH2C, sawRefused bool
	var extra []explaincheck.Request
	for _, p := range []string{"/orders.v1", "/orders.v1/Get", "/orders.v2/x", "/"} {
		extra = append(extra, explaincheck.Request{Method: "POST", Host: "shop.example.com", Path: p})
	}
	compared := 0
	for _, r := range append(explaincheck.Requests(out.Translation.APIs), extra...) {
		u := &url.URL{Scheme: "http", Host: r.Host, Path: r.Path, RawQuery: r.RawQuery}
		ans, err := explain.Explain(out, explain.Request{Method: r.Method, URL: u}, explain.Options{Gateway: "shop/edge", Version: version})
		require.NoError(t, err)
		got, err := g.Send(realtyk.Request{Method: r.Method, Host: r.Host, Path: r.Path, RawQuery: r.RawQuery})
		require.NoError(t, err)
		what := fmt.Sprintf("%s %s?%s", r.Method, r.Path, r.RawQuery)
		compared++
		switch {
		case ans.Status != 0:
			assert.Equal(t, ans.Status, got.Status, "%s: explain answers %d", what, ans.Status)
			sawRefused = sawRefused || strings.HasPrefix(r.Path, "/orders.v2")
		case strings.HasPrefix(ans.Upstream, "h2c://"):
			want, err := url.Parse(ans.Upstream)
			require.NoError(t, err)
			assert.Equal(t, "HTTP/2.0", got.Header.Get("X-Backend-Proto"), "%s: explain says %s", what, ans.Upstream)
			if r.Method != "HEAD" {
				assert.Equal(t, want.RequestURI(), got.Header.Get("X-Backend-Path"), "%s: the path upstream", what)
			}
			assert.True(t, strings.HasPrefix(ans.Upstream, h2cURL), "%s: upstream %s", what, ans.Upstream)
			sawH2C = true
		default:
			require.NotNil(t, got.Upstream, "%s: explain says proxied to %s; Tyk answered %d", what, ans.Upstream, got.Status)
			assert.Equal(t, ans.Upstream, got.Upstream.URL, "%s: the upstream", what)
		}
	}
	require.True(t, sawH2C, "no request reached the h2c backend")
	require.True(t, sawRefused, "no request of the refused rule")

	// The fact behind the refusal: load-balanced, the same h2c:// target is spoken to in HTTP/1.1.
	if version.Less(tykroute.MinVersion) {
		t.Logf("Tyk Gateway %s: no upstream.loadBalancing in its schema; the balanced h2c target is not tried", g.Version)
		return
	}
	for _, a := range out.Translation.APIs {
		up := &a.Document.Tyk.Upstream
		if strings.HasPrefix(up.URL, "h2c://") {
			up.LoadBalancing = &tykoas.LoadBalancing{Enabled: true, Targets: []tykoas.LoadBalancingTarget{
				{URL: up.URL, Weight: 1}, {URL: up.URL + "/", Weight: 1}}}
		}
	}
	require.NoError(t, g.Replace(finalDocs(t, out)))
	u, _ := url.Parse("http://shop.example.com/orders.v1/Get")
	ans, err := explain.Explain(out, explain.Request{Method: "POST", URL: u}, explain.Options{Gateway: "shop/edge", Version: version})
	require.NoError(t, err)
	require.Len(t, ans.Upstreams, 2)
	for i := range 2 {
		got, err := g.Send(realtyk.Request{Method: "POST", Host: "shop.example.com", Path: "/orders.v1/Get"})
		require.NoError(t, err)
		assert.Equal(t, "HTTP/1.1", got.Header.Get("X-Backend-Proto"), "request %d to a balanced h2c:// target", i)
		assert.True(t, strings.HasPrefix(ans.Upstreams[i].URL, "http://127.0.0.1:"), "explain: %s", ans.Upstreams[i].URL)
	}
	t.Logf("Tyk Gateway %s: %d requests agree with explain; an h2c:// upstream is spoken to in HTTP/2, a balanced one in HTTP/1.1",
		g.Version, compared)
}
