package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// Every render ends with one line on stderr saying what it made of the input; problems that render nothing
// (a parentRef typo, no Gateway API object at all) are said, not passed quietly.
func TestRenderSummaryLine(t *testing.T) {
	basic := example(t, "basic")
	code, _, stderr := cli(t, "", "render", basic)
	assert.Equal(t, 0, code)
	// A copy outside any repository: the owner is the fallback, and the render says so (issue 45 finding 3).
	assert.Equal(t, fallbackOwnerNote+"gateway2tyk render: 1 Gateway, 2 HTTPRoutes (2 accepted, 0 not), 2 APIs, 0 warnings, 0 errors\n", stderr)
	owned := example(t, "basic")
	cfgFile := filepath.Join(owned, "gateway2tyk.yaml")
	data, err := os.ReadFile(cfgFile)
	require.NoError(t, err)
	write(t, cfgFile, strings.Replace(string(data), "spec:\n", "spec:\n  owner: shop\n", 1))
	code, _, stderr = cli(t, "", "render", owned)
	assert.Equal(t, 0, code)
	assert.Equal(t, "gateway2tyk render: 1 Gateway, 2 HTTPRoutes (2 accepted, 0 not), 2 APIs, 0 warnings, 0 errors\n", stderr)

	typo := example(t, "basic")
	editRoutes(t, typo, parentRefTypo)
	code, _, stderr = cli(t, "", "render", typo)
	assert.Equal(t, 0, code)
	assert.Contains(t, stderr, "spec.parentRefs[0]: Gateway shop/webb is not in the input")
	assert.Equal(t, "gateway2tyk render: 1 Gateway, 2 HTTPRoutes (0 accepted, 2 not), 0 APIs, 2 warnings, 0 errors", lastLine(stderr))

	for name, dir := range map[string]string{"empty": t.TempDir(), "no Gateway API object": filepath.Join(basic, "services.yaml")} {
		code, _, stderr = cli(t, "", "render", dir)
		assert.Equal(t, 0, code, name)
		assert.Contains(t, stderr, "gateway2tyk render: warning: the input holds no Gateway API object", name)
		assert.Equal(t, "gateway2tyk render: 0 Gateways, 0 HTTPRoutes (0 accepted, 0 not), 0 APIs, 0 warnings, 0 errors", lastLine(stderr), name)
	}
}

// A bad RenderConfig is said once (it was printed as a result and again as the failure's headline).
func TestRenderConfigErrorOnce(t *testing.T) {
	dir := example(t, "basic")
	write(t, filepath.Join(dir, "gateway2tyk.yaml"), "apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\n"+
		"metadata: {name: x}\nspec: {output: Secret}\n")
	// A bad function config is bad input, exit status 2 as from graph, explain and diff (issue 30, finding 11),
	// one line naming its file and line.
	for _, args := range [][]string{{"render", dir}, {"graph", dir}, {"explain", "--request", "GET http://a/", dir}, {"diff", dir, dir}} {
		code, out, stderr := cli(t, "", args...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
		assert.Empty(t, out, "%v", args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%v: %s", args, stderr)
		assert.Contains(t, stderr, filepath.Join(dir, "gateway2tyk.yaml")+`:1: RenderConfig x: spec.output: must be one of ConfigMap, TykOasApiDefinition (got "Secret")`, "%v", args)
	}
}

// render -k ends with the same line; the KRM function does not print it (kustomize passes an exec function's
// stderr through on every build: it prints only its results and the fallback owner's warning, reportKRM).
func TestRenderKustomizedSummaryLine(t *testing.T) {
	kustomizeOnPath(t)
	dir := example(t, "basic")
	code, _, stderr := cli(t, kustomizeBuildOf(t, dir, "--enable-alpha-plugins"), "render", "-k", dir, "-")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, fallbackOwnerNote+"gateway2tyk render: 1 Gateway, 2 HTTPRoutes (2 accepted, 0 not), 2 APIs, 0 warnings, 0 errors\n", stderr)
}

// fallbackOwnerNote is what a render of a copy of an example outside any repository prints first.
const fallbackOwnerNote = `gateway2tyk render: warning: the APIs' owner is "gateway2tyk", the fallback: the render cannot see ` +
	`this application's directory in a git repository (stdin, kpt, no .git above it, or the repository's root), so ` +
	`every application rendered that way gets the same owner, and the sync of one would delete the others' APIs; ` +
	`set spec.owner in the RenderConfig (a name of this application's own)` + "\n"

// A route that cannot be read counts among the routes not accepted: the summary said "2 HTTPRoutes" for three.
func TestRenderSummaryCountsUnreadableRoutes(t *testing.T) {
	dir := example(t, "basic")
	write(t, filepath.Join(dir, "broken.yaml"), "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n"+
		"metadata: {name: broken, namespace: shop}\nspec:\n  parentRefs: [{name: edge}]\n  rules: [1, 2]\n")
	code, _, stderr := cli(t, "", "render", dir)
	assert.Equal(t, 1, code)
	assert.Equal(t, "gateway2tyk render: 1 Gateway, 3 HTTPRoutes (2 accepted, 1 not), 2 APIs, 0 warnings, 2 errors", lastLine(stderr))
}
