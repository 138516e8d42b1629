package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

func explainJSON(t *testing.T, dir, request string) map[string]any {
	t.Helper()
	code, out, stderr := cli(t, "", "explain", "-o", "json", "--request", request, dir)
	require.Equal(t, 0, code, stderr)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	return m
}

func edit(t *testing.T, path string, from, to string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(b), from)
	write(t, path, strings.Replace(string(b), from, to, 1))
}

// editRoutes rewrites the routes.yaml of an example's copy.
func editRoutes(t *testing.T, dir string, f func(string) string) {
	t.Helper()
	routes := filepath.Join(dir, "routes.yaml")
	b, err := os.ReadFile(routes)
	require.NoError(t, err)
	write(t, routes, f(string(b)))
}

// parentRefTypo makes every parentRef of examples/basic's routes name Gateway webb, which is not in the input.
func parentRefTypo(s string) string { return strings.ReplaceAll(s, "- name: edge", "- name: webb") }

// explain's JSON has a status key whatever the outcome, always a string as the text prints it ("proxied", or the
// code Tyk answers); tykVersion is a version, not a display string: by default the release the render writes for
// (the newest it knows when the RenderConfig names none, spec.tykVersion else), so that the same app is explained
// for the Gateway it is rendered for.
func TestExplainJSONStatus(t *testing.T) {
	dir := example(t, "basic")
	proxied := explainJSON(t, dir, "GET http://orders.shop.example.com/orders")
	assert.Equal(t, "proxied", proxied["status"])
	assert.Equal(t, tykroute.NewestVersion.String(), proxied["tykVersion"])
	assert.Nil(t, proxied["tykVersionOrLater"])

	answered := explainJSON(t, dir, "GET http://shop.example.com/")
	assert.Equal(t, "404", answered["status"])

	code, out, _ := cli(t, "", "explain", "-o", "json", "--tyk-version", "5.4", "--request", "GET http://orders.shop.example.com/orders", dir)
	require.Equal(t, 0, code)
	assert.Contains(t, out, `"tykVersion": "5.4",`)
	assert.NotContains(t, out, "tykVersionOrLater")
}

// The reasons name only routes that would take the request: with the catalog route gone and the orders route
// not accepted, GET /health is not about orders (/orders does not take /health).
func TestExplainReasonsOnlyAboutMatchingRoutes(t *testing.T) {
	dir := example(t, "basic")
	editRoutes(t, dir, func(s string) string {
		orders, _, _ := strings.Cut(s, "\n---\n")
		return strings.Replace(orders, "    - name: edge\n", "    - name: edge\n      sectionName: nope\n", 1)
	})
	health := explainJSON(t, dir, "GET http://orders.shop.example.com/health")
	assert.Equal(t, "no route attached to Gateway shop/edge serves orders.shop.example.com/health", health["reason"])
	ordersAnswer := explainJSON(t, dir, "GET http://orders.shop.example.com/orders/7")
	assert.Contains(t, ordersAnswer["reason"], "HTTPRoute shop/orders is not accepted: Accepted/NoMatchingParent")
}

// A rule without backendRefs gets 500, as Gateway API asks for a rule without a valid backend: explain says so
// (it said "the backend does not resolve: all backend references are resolved"), and the render warns.
func TestRuleWithoutBackendRefs(t *testing.T) {
	dir := example(t, "basic")
	edit(t, filepath.Join(dir, "routes.yaml"), "      backendRefs:\n        - name: orders\n          port: 8080\n", "")
	a := explainJSON(t, dir, "GET http://orders.shop.example.com/orders")
	assert.Equal(t, "500", a["status"])
	assert.Equal(t, "spec.rules[0] of HTTPRoute shop/orders has no backendRefs: Gateway API asks for 500 on every request "+
		"a rule without a valid backend matches", a["reason"])
	code, _, stderr := cli(t, "", "render", dir)
	assert.Equal(t, 0, code)
	assert.Contains(t, stderr, "[warning] gateway.networking.k8s.io/v1/HTTPRoute/shop/orders spec.rules[0].backendRefs: "+
		"the rule has no backendRefs and no RequestRedirect: Tyk answers 500 to every request it matches")

	zero := example(t, "basic")
	edit(t, filepath.Join(zero, "routes.yaml"), "          port: 8080\n", "          port: 8080\n          weight: 0\n")
	a = explainJSON(t, zero, "GET http://orders.shop.example.com/orders")
	assert.Contains(t, a["reason"], "every backendRef of spec.rules[0] of HTTPRoute shop/orders has weight 0")
	_, _, stderr = cli(t, "", "render", zero)
	assert.Contains(t, stderr, "spec.rules[0].backendRefs: every backendRef of the rule has weight 0")
}

// A 404 because a route's parentRef names a Gateway that is not in the input (a typo) says so.
func TestExplainNamesAParentRefTypo(t *testing.T) {
	dir := example(t, "basic")
	editRoutes(t, dir, parentRefTypo)
	a := explainJSON(t, dir, "GET http://orders.shop.example.com/orders")
	assert.Equal(t, "404", a["status"])
	assert.Equal(t, "HTTPRoute shop/catalog would take it, but its spec.parentRefs[0] names Gateway shop/webb, which is not in "+
		"the input; HTTPRoute shop/orders would take it, but its spec.parentRefs[0] names Gateway shop/webb, which is not in the input",
		a["reason"])
}

// graph of an input without Gateway API objects says that its graph is empty.
func TestGraphOfNothingWarns(t *testing.T) {
	code, _, stderr := cli(t, "", "graph", t.TempDir())
	assert.Equal(t, 0, code)
	assert.Equal(t, "gateway2tyk graph: warning: the input holds no Gateway of ours and no HTTPRoute: the graph is empty\n", stderr)
}

// graph draws a route whose parentRef names a Gateway not in the input, hanging from that Gateway: before, the
// route was not drawn at all.
func TestGraphDrawsAParentRefTypo(t *testing.T) {
	dir := example(t, "basic")
	editRoutes(t, dir, parentRefTypo)
	code, out, stderr := cli(t, "", "graph", dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, `gw_shop_webb["Gateway shop/webb<br/>not in the input"]`)
	assert.Contains(t, out, `r_shop_orders(["HTTPRoute shop/orders<br/>attached to nothing"])`)
	assert.Contains(t, out, `gw_shop_webb -.->|"spec.parentRefs[0]"| r_shop_orders`)
}
