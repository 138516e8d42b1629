package explain

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

// renderDir renders an example directory as `gateway2tyk render` would (build files and the config left out).
func renderDir(t *testing.T, dir string) *fn.Output {
	t.Helper()
	nodes, err := kio.LocalPackageReader{PackagePath: filepath.Join("..", "..", dir), OmitReaderAnnotations: true}.Read()
	require.NoError(t, err)
	return render(t, nodes)
}

// renderYAML renders src judged by the experimental channel's CRDs: its stories use experimental fields (retry).
func renderYAML(t *testing.T, src string) *fn.Output {
	t.Helper()
	nodes, err := (&kio.ByteReader{Reader: strings.NewReader(src), OmitReaderAnnotations: true}).Read()
	require.NoError(t, err)
	cfg := config.Default()
	cfg.GatewayAPIChannel = config.ChannelExperimental
	return renderWith(t, nodes, cfg)
}

func render(t *testing.T, nodes []*yaml.RNode) *fn.Output {
	return renderWith(t, nodes, config.Default())
}

func renderWith(t *testing.T, nodes []*yaml.RNode, cfg config.Spec) *fn.Output {
	t.Helper()
	var items []*yaml.RNode
	for _, n := range nodes {
		if k := n.GetKind(); k != "Kustomization" && k != "RenderConfig" {
			items = append(items, n)
		}
	}
	out, err := fn.Render(items, cfg)
	require.NoError(t, err)
	return out
}

func ask(t *testing.T, out *fn.Output, request string, opt Options) *Answer {
	t.Helper()
	req, err := ParseRequest(request)
	require.NoError(t, err)
	a, err := Explain(out, req, opt)
	require.NoError(t, err)
	return a
}

func TestExplainExamples(t *testing.T) {
	basic := renderDir(t, "examples/basic")
	storefront := renderDir(t, "examples/storefront")

	t.Run("a plain route: the upstream gets the full path and the query", func(t *testing.T) {
		a := ask(t, basic, "GET http://orders.shop.example.com/orders/42?expand=items", Options{})
		assert.Equal(t, "shop/edge", a.Gateway)
		assert.Contains(t, a.Listener, "http (HTTP, port 8080, *.shop.example.com)")
		assert.Equal(t, "shop/orders", a.Route)
		assert.Equal(t, "spec.rules[0]", a.Rule)
		assert.Equal(t, "http://orders.shop.svc.cluster.local:8080/orders/42?expand=items", a.Upstream)
		assert.Zero(t, a.Status)
	})
	t.Run("a wildcard listener and a route without hostnames", func(t *testing.T) {
		a := ask(t, basic, "DELETE http://anything.shop.example.com/cart", Options{})
		assert.Equal(t, "shop/catalog", a.Route)
		assert.Equal(t, "http://catalog.shop.svc.cluster.local:80/cart", a.Upstream)
	})
	t.Run("a host no listener takes", func(t *testing.T) {
		a := ask(t, basic, "GET http://example.org/", Options{})
		assert.Equal(t, 404, a.Status)
		assert.Empty(t, a.APIID)
		assert.Contains(t, a.Reason, "no listener of Gateway shop/edge takes http://example.org")
	})
	t.Run("a weighted canary with header changes", func(t *testing.T) {
		a := ask(t, storefront, "GET https://shop.storefront.example.com/products/7", Options{})
		require.Len(t, a.Upstreams, 2)
		assert.Equal(t, Target{URL: "http://products-v1.storefront.svc.cluster.local:8080/products/7", Weight: 9}, a.Upstreams[0])
		assert.Equal(t, Target{URL: "http://products-v2.storefront.svc.cluster.local:8080/products/7", Weight: 1}, a.Upstreams[1])
		assert.Equal(t, []string{"set X-Gateway: storefront"}, a.RequestHeaders)
		assert.Equal(t, []string{"remove Server"}, a.ResponseHeaders)
		assert.Equal(t, "get", a.OperationID)
		assert.Contains(t, a.Listener, "https (HTTPS")
	})
	t.Run("a constant redirect", func(t *testing.T) {
		a := ask(t, storefront, "GET https://shop.storefront.example.com/legacy/cart", Options{})
		assert.Equal(t, 301, a.Status)
		assert.Equal(t, "https://docs.storefront.example.com/shop", a.Location)
		assert.Equal(t, "RequestRedirect of spec.rules[1]", a.Reason)
		assert.Empty(t, a.Upstream)
	})
	t.Run("a method no rule matches gets 404", func(t *testing.T) {
		a := ask(t, storefront, "POST https://shop.storefront.example.com/search", Options{})
		assert.Equal(t, 404, a.Status)
		assert.Equal(t, "post", a.OperationID)
		assert.Contains(t, a.Reason, "no rule of HTTPRoute storefront/shop matches method POST on path /search")
	})
	t.Run("a prefix replaced in a cross-namespace backend", func(t *testing.T) {
		a := ask(t, storefront, "GET https://shop.storefront.example.com/search/shoes?size=9", Options{})
		assert.Equal(t, "http://search.search.svc.cluster.local:9000/v1/query/shoes?size=9", a.Upstream)
	})
}

const troubled = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: tyk}
spec: {controllerName: tyk.tyk.io/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: shop}
spec:
  gatewayClassName: tyk
  listeners:
  - {name: http, protocol: HTTP, port: 80}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: orders, namespace: shop}
spec:
  parentRefs: [{name: edge}]
  rules:
  - matches: [{path: {value: /orders}}]
    backendRefs: [{name: orders, port: 8080}]
  - matches: [{path: {value: /returns}}]
    retry: {attempts: 3}
    backendRefs: [{name: orders, port: 8080}]
  - matches: [{path: {value: /billing}}]
    backendRefs: [{name: billing, port: 8080}]
  - matches: [{path: {value: /carts}, method: GET}]
    backendRefs: [{name: orders, port: 8080}]
  - matches: [{path: {value: /carts}, method: POST}]
    retry: {attempts: 3}
    backendRefs: [{name: orders, port: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: orders, namespace: shop}
spec: {ports: [{port: 8080}]}
`

func TestExplainTroubles(t *testing.T) {
	out := renderYAML(t, troubled)

	t.Run("a dropped rule is named", func(t *testing.T) {
		a := ask(t, out, "GET http://shop.example.com/returns/1", Options{})
		assert.Equal(t, 404, a.Status)
		assert.Contains(t, a.Reason, "HTTPRoute shop/orders dropped spec.rules[1].retry: not supported by Tyk")
	})
	t.Run("a dropped rule is named behind a 404 Tyk answers itself on a served path", func(t *testing.T) {
		a := ask(t, out, "POST http://shop.example.com/carts", Options{})
		assert.Equal(t, 404, a.Status)
		assert.Contains(t, a.Reason, "no rule of HTTPRoute shop/orders matches method POST on path /carts")
		assert.Contains(t, a.Reason, "HTTPRoute shop/orders dropped spec.rules[4].retry: not supported by Tyk")
		assert.NotContains(t, a.Reason, "spec.rules[1]", "a dropped rule of another path is not named")
	})
	t.Run("an unresolved backend answers 500 and says why", func(t *testing.T) {
		a := ask(t, out, "GET http://shop.example.com/billing", Options{})
		assert.Equal(t, 500, a.Status)
		assert.Equal(t, "http://unresolved.backend.invalid/billing", a.Upstream)
		assert.Contains(t, a.Reason, "Service shop/billing does not exist")
	})
	t.Run("Tyk's prefix match catches more than Gateway API's, unless strict routes", func(t *testing.T) {
		a := ask(t, out, "GET http://shop.example.com/ordersarchive", Options{})
		assert.Equal(t, "shop/orders", a.Route, "without strict routes Tyk serves /ordersarchive from /orders")
		assert.NotEmpty(t, a.Notes)
		assert.Contains(t, strings.Join(a.Notes, "\n"), "enable_strict_routes")

		strict := ask(t, out, "GET http://shop.example.com/ordersarchive", Options{StrictRoutes: true})
		assert.Equal(t, 404, strict.Status, "with strict routes /orders takes only its own segment")
	})
}

func TestExplainRefusesBadRequests(t *testing.T) {
	out := renderYAML(t, troubled)
	for _, bad := range []string{"", "GET", "http://shop.example.com/", "GET /orders", "GET shop.example.com/orders", "G3T http://a/"} {
		_, err := ParseRequest(bad)
		assert.Error(t, err, "%q", bad)
	}
	req, err := ParseRequest("GET http://shop.example.com/")
	require.NoError(t, err)
	_, err = Explain(out, req, Options{Gateway: "shop/other"})
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "Gateway shop/other is not one of ours")
	_, err = Explain(out, req, Options{Gateway: "edge"})
	require.ErrorAs(t, err, &ue)
}

func TestTextTrace(t *testing.T) {
	out := renderYAML(t, troubled)
	req, _ := ParseRequest("GET http://shop.example.com/billing")
	a, err := Explain(out, req, Options{})
	require.NoError(t, err)
	text := a.Text(req)
	for _, want := range []string{"request    GET http://shop.example.com/billing", "route      shop/orders spec.rules[2]",
		"upstream   http://unresolved.backend.invalid/billing", "status     500", "reason     the backend does not resolve"} {
		assert.Contains(t, text, want)
	}
}
