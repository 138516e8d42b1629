package e2e_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExplainCommandLine runs `gateway2tyk explain` as a user would: a text trace, the JSON keys of the
// contract, and one-line errors with exit status 2 for requests that cannot be explained.
func TestExplainCommandLine(t *testing.T) {
	root := repoRoot(t)
	bin := functionBinary(t, root)

	stdout, stderr, code := run(t, bin, root, nil, nil, "explain", "--request", "GET http://orders.shop.example.com/orders/1", "examples/basic")
	require.Equal(t, 0, code, "stderr: %s", stderr)
	assert.Contains(t, string(stdout), "upstream   http://orders.shop.svc.cluster.local:8080/orders/1")

	stdout, stderr, code = run(t, bin, root, nil, nil, "explain", "-o", "json", "--gateway", "shop/edge",
		"--request", "GET http://orders.shop.example.com/orders/1", "examples/basic")
	require.Equal(t, 0, code, "stderr: %s", stderr)
	var answer map[string]any
	require.NoError(t, json.Unmarshal(stdout, &answer))
	assert.Equal(t, "shop/edge", answer["gateway"])
	assert.Equal(t, "shop/orders", answer["route"])
	assert.Equal(t, "spec.rules[0]", answer["rule"])
	assert.Equal(t, "http://orders.shop.svc.cluster.local:8080/orders/1", answer["upstream"])
	assert.Equal(t, "proxied", answer["status"], "every answer has a status, a string")
	assert.NotContains(t, answer, "location")

	for name, args := range map[string][]string{
		"no method":           {"--request", "http://orders.shop.example.com/"},
		"a URL without host":  {"--request", "GET /orders"},
		"a gateway not ours":  {"--gateway", "shop/other", "--request", "GET http://orders.shop.example.com/"},
		"no request":          {},
		"a bad output format": {"-o", "yaml", "--request", "GET http://orders.shop.example.com/"},
	} {
		t.Run(name, func(t *testing.T) {
			stdout, stderr, code := run(t, bin, root, nil, nil, append(append([]string{"explain"}, args...), "examples/basic")...)
			assert.Equal(t, 2, code, "stderr: %s", stderr)
			assert.Empty(t, stdout)
			assert.Equal(t, 1, bytes.Count(bytes.TrimSpace(stderr), []byte("\n"))+1, "one line: %q", stderr)
			noStackTrace(t, stderr)
		})
	}
}
