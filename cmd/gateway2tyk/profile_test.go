package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --profile tries the other profile without editing the RenderConfig (issue 45 finding 5): a header match the
// operator profile rejects says the gateway-api profile serves it and how to try it; with --profile gateway-api,
// render serves it and explain answers for that render; a profile that does not exist is a usage error. The
// RenderConfig on disk is not changed.
func TestProfileFlag(t *testing.T) {
	dir := example(t, "basic")
	editRoutes(t, dir, func(s string) string {
		return s + `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: canary, namespace: shop}
spec:
  parentRefs: [{name: edge}]
  hostnames: [orders.shop.example.com]
  rules:
    - matches: [{path: {type: PathPrefix, value: /orders}, headers: [{name: X-Canary, value: "true"}]}]
      backendRefs: [{name: orders, port: 8080}]
`
	})
	before, err := os.ReadFile(filepath.Join(dir, "gateway2tyk.yaml"))
	require.NoError(t, err)
	code, _, stderr := cli(t, "", "render", dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "header matches are not supported by Tyk (the gateway-api profile serves it: "+
		"spec.profile: gateway-api in the RenderConfig; try it with --profile gateway-api)")

	code, out, stderr := cli(t, "", "render", "--profile", "gateway-api", dir)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "header matches are not supported")
	assert.Contains(t, out, "X-Canary", "the router's trigger")

	code, out, stderr = cli(t, "", "explain", "--profile", "gateway-api", "-H", "X-Canary: true",
		"--request", "GET http://orders.shop.example.com/orders/1", dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "route      shop/canary spec.rules[0]")

	code, _, stderr = cli(t, "", "graph", "--profile", "operator-ish", dir)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `--profile must be operator or gateway-api (got "operator-ish")`)

	code, _, stderr = cli(t, "", "diff", "--profile", "gateway-api", dir, dir)
	require.Equal(t, 0, code, stderr)
	after, err := os.ReadFile(filepath.Join(dir, "gateway2tyk.yaml"))
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the RenderConfig on disk is not changed")
}
