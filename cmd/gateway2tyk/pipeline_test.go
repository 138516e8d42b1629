package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/sync/target/targettest"
)

// A typo in one route must not delete that route's API (issue 30, finding 1): `render d | sync --from -`
// without pipefail. The failed render prints nothing, and sync refuses the empty stream; the API stays.
func TestTypoInOneRouteDeletesNothing(t *testing.T) {
	dir := example(t, "basic")
	code, rendered, stderr := cli(t, "", "render", dir)
	require.Equal(t, 0, code, stderr)

	f := targettest.NewGateway(t)
	fast(t, map[string]string{"TYK_MODE": "ce", "TYK_URL": f.Server.URL, "TYK_AUTH": f.Auth}, nil)
	code, _, stderr = cli(t, rendered, "sync", "--from", "-", "--tyk-version", "5.8.0")
	require.Equal(t, 0, code, stderr)
	require.Len(t, f.APIs(), 2)

	editRoutes(t, dir, func(s string) string {
		return strings.Replace(s, "hostnames: [orders.shop.example.com]", "hostname: [orders.shop.example.com]", 1)
	})
	code, rendered, stderr = cli(t, "", "render", dir)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "spec.hostname: ")
	assert.Contains(t, stderr, "("+filepath.Join(dir, "routes.yaml")+":2)", "the result names the route's file and line")
	assert.Empty(t, rendered, "a failed render prints nothing")

	code, out, stderr := cli(t, rendered, "sync", "--from", "-", "--tyk-version", "5.8.0")
	assert.Equal(t, 2, code, stderr)
	assert.NotContains(t, out, "delete")
	assert.Len(t, f.APIs(), 2, "no API was deleted")
}

// The KRM function's ResourceList of a failed render carries its results: sync refuses it (exit 2), whatever
// items it holds.
func TestSyncRefusesAFailedRendersResourceList(t *testing.T) {
	stream := targettest.Streams(apis()[:1])
	var items []string
	for _, doc := range strings.Split(strings.TrimPrefix(stream, "---\n"), "\n---\n") {
		items = append(items, "- "+strings.ReplaceAll(strings.TrimSpace(doc), "\n", "\n  "))
	}
	rl := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + strings.Join(items, "\n") + "\n" +
		"results:\n- message: 'spec.hostname: unknown field'\n  severity: error\n"
	f := targettest.NewGateway(t)
	fast(t, map[string]string{"TYK_MODE": "ce", "TYK_URL": f.Server.URL, "TYK_AUTH": f.Auth}, nil)
	code, _, stderr := cli(t, rl, "sync", "--from", "-", "--dry-run", "--tyk-version", "5.8.0")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "gateway2tyk: sync: --from <stdin>: the input is the ResourceList of a failed render (1 result(s) at or above its failOn)")

	// The same list without the failing result is synced.
	ok := strings.Replace(rl, "severity: error", "severity: warning", 1)
	code, _, stderr = cli(t, ok, "sync", "--from", "-", "--dry-run", "--tyk-version", "5.8.0")
	assert.Equal(t, 0, code, stderr)
}

// The exit statuses follow one table (issue 30, finding 11): a directory given to --from is bad input (2), and a
// target that cannot be reached is not drift (4, not 1).
func TestSyncExitStatusTable(t *testing.T) {
	f := targettest.NewGateway(t)
	fast(t, map[string]string{"TYK_MODE": "ce", "TYK_URL": f.Server.URL, "TYK_AUTH": f.Auth}, nil)
	dir := example(t, "basic")
	code, _, stderr := cli(t, "", "sync", "--from", dir, "--dry-run")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "--from "+dir+" is a directory: give the render's output (gateway2tyk render "+dir+" > apis.yaml")

	path := filepath.Join(t.TempDir(), "apis.yaml")
	require.NoError(t, os.WriteFile(path, []byte(targettest.Streams(apis())), 0o600))
	fast(t, map[string]string{"TYK_MODE": "ce", "TYK_URL": "http://127.0.0.1:1", "TYK_AUTH": "k"}, nil)
	code, _, stderr = cli(t, "", "sync", "--check", "--from", path)
	assert.Equal(t, exitUnreachable, code, stderr)
}

// snapshot is every file below dir and its bytes.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files[p] = string(b)
		return err
	}))
	return files
}

// argocd generate run by hand leaves the files it is pointed at as they were (issue 30, finding 5: it removed
// gateway2tyk.yaml from the kustomization's transformers and wrote the parameters into the RenderConfig); the
// output is the same as in Argo CD's copy, where it edits in place.
func TestArgoGenerateByHandChangesNoFile(t *testing.T) {
	kustomizeOnPath(t)
	dir := example(t, "basic")
	before := snapshot(t, dir)
	t.Chdir(dir)
	env := map[string]string{"PARAM_OUTPUT": "TykOasApiDefinition", "ARGOCD_ENV_GATEWAY2TYK_FAIL_ON": "Warning"}
	var out, errb strings.Builder
	require.NoError(t, argoGenerate(&out, &errb, func(k string) string { return env[k] }), errb.String())
	assert.Equal(t, before, snapshot(t, dir), "no file changed")
	assert.Contains(t, out.String(), "kind: TykOasApiDefinition")

	// In Argo CD's copy (ARGOCD_APP_NAME set) the same command edits in place, and prints the same.
	env["ARGOCD_APP_NAME"] = "shop-apis"
	var inPlace strings.Builder
	require.NoError(t, argoGenerate(&inPlace, &errb, func(k string) string { return env[k] }), errb.String())
	assert.Equal(t, out.String(), inPlace.String())
	assert.NotEqual(t, before, snapshot(t, dir), "Argo CD's copy is edited in place")
}

// Objects without metadata.namespace get Argo CD's destination namespace, which the plugin passes (issue 30,
// finding 2), on the plain-YAML path and the large-app path alike; render without one names the object and file.
func TestArgoDestinationNamespace(t *testing.T) {
	kustomizeOnPath(t)
	for _, kustomized := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain YAML", true: "kustomization"}[kustomized], func(t *testing.T) { argoDestination(t, kustomized) })
	}
}

func argoDestination(t *testing.T, kustomized bool) {
	{
		dir := example(t, "basic")
		for _, f := range []string{"gateway.yaml", "routes.yaml", "services.yaml", "cluster-facts.yaml"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			require.NoError(t, err)
			write(t, filepath.Join(dir, f), strings.ReplaceAll(string(b), "\n  namespace: shop\n", "\n"))
		}
		if !kustomized {
			require.NoError(t, os.Remove(filepath.Join(dir, "kustomization.yaml")))
			code, out, stderr := cli(t, "", "render", dir)
			assert.Equal(t, 1, code)
			assert.Empty(t, out)
			assert.Contains(t, stderr, "HTTPRoute/orders metadata.namespace: missing: the object is namespaced, and nothing gives it a namespace")
			assert.Contains(t, stderr, "("+filepath.Join(dir, "routes.yaml")+":2)")
		}
		t.Chdir(dir)
		env := map[string]string{"ARGOCD_APP_NAME": "shop-apis", "ARGOCD_APP_NAMESPACE": "shop"}
		var out, errb strings.Builder
		require.NoError(t, argoGenerate(&out, &errb, func(k string) string { return env[k] }), errb.String())
		assert.Contains(t, out.String(), "orders.shop.svc.cluster.local:8080/orders", "kustomized: %v", kustomized)
		assert.NotContains(t, out.String(), "..svc")
	}
}

// An exact hostname and a wildcard on one listener (issue 30, finding 6): Gateway API gives legacy.shop.example.com
// to the exact route; Tyk cannot be told to (e2e's TestRealTykExamples holds explain to a real Gateway on this
// story), so both routes get a warning naming the other, and explain says which API each release serves.
func TestExactHostnameBesideAWildcard(t *testing.T) {
	story := filepath.Join("..", "..", "e2e", "testdata", "realtyk", "exact-and-wildcard")
	code, _, stderr := cli(t, "", "render", story)
	assert.Equal(t, 0, code, stderr)
	for _, route := range []string{"legacy", "catalog", "wide"} {
		assert.Contains(t, stderr, "[warning] gateway.networking.k8s.io/v1/HTTPRoute/shop/"+route+" spec.hostnames: on Gateway shop/edge, HTTPRoute shop/legacy serves the exact hostname legacy.shop.example.com (path /)")
	}
	assert.Contains(t, stderr, "4 warnings, 0 errors")

	code, out, stderr := cli(t, "", "explain", "--request", "GET http://legacy.shop.example.com/orders/1", story)
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "Gateway API gives this request to HTTPRoute shop/legacy, whose exact hostname legacy.shop.example.com beats a wildcard")
	assert.Contains(t, out, "from 5.8.0 it serves it with API gwapi-7d760ad01b23b2c6346b of HTTPRoute shop/wide (*.shop.example.com/orders), "+
		"before 5.8.0 with API gwapi-380fe1e5b13cdb1d4539 of HTTPRoute shop/catalog (*.shop.example.com/)")

	// Before 5.8.0 Tyk ties custom domains of one length whatever their listen paths, so the exact API between the
	// two wildcard ones keeps / before /orders for every host (seen on the 5.4 line: catalog answered).
	code, out, stderr = cli(t, "", "explain", "--tyk-version", "5.4", "--request", "DELETE http://one.shop.example.com/orders", story)
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "route      shop/catalog spec.rules[0]\n")

	// basic's exact orders.shop.example.com/orders and wildcard / do not overlap that way: no warning.
	code, _, stderr = cli(t, "", "render", example(t, "basic"))
	assert.Equal(t, 0, code)
	assert.NotContains(t, stderr, "exact hostname")
}

// Issue 30, finding 12: the smaller ones.
func TestSmallerFindings(t *testing.T) {
	// A mistyped command is one line with the suggestion, no tab.
	code, _, stderr := cli(t, "", "rendr", "a")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "gateway2tyk: unknown command \"rendr\" for \"gateway2tyk\" Did you mean this? render\n", stderr)

	// configure without DIR says what it wants.
	code, _, stderr = cli(t, "", "configure", "--fail-on", "Warning")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "gateway2tyk: configure: give one DIR, the directory whose RenderConfigs (or kustomization) to change (got 0)\n", stderr)

	// render --help does not break "function config" over two lines.
	code, out, _ := cli(t, "", "render", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "The function config\nis the file given with -c")

	// explain reads the request's port: no listener of basic listens on 9999.
	code, out, stderr = cli(t, "", "explain", "--request", "GET http://orders.shop.example.com:9999/orders", example(t, "basic"))
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "listener   none matches\n")
	assert.Contains(t, out, "no listener of Gateway shop/edge takes http://orders.shop.example.com:9999")
	code, out, _ = cli(t, "", "explain", "--request", "GET http://orders.shop.example.com:8080/orders", example(t, "basic"))
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "listener   http (HTTP, port 8080, *.shop.example.com)\n")
}

// Errors about an input name its file and line; stdin is <stdin> (issue 30, finding 10).
func TestInputErrorsNameFileAndLine(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, text, want string }{
		{"latin1.yaml", "apiVersion: v1\nkind: Namespace\n# caf\xe9\nmetadata: {name: a}\n", ":3: not YAML text"},
		{"tab.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n\tname: a\n", ": yaml: line 4: found character that cannot start any token"},
		{"helm.yaml", "apiVersion: v1\nkind: Namespace\n{{- if .Values.x }}\nmetadata:\n  name: a\n{{- end }}\n", ": yaml: line 3: "},
	} {
		path := filepath.Join(dir, c.name)
		write(t, path, c.text)
		code, _, stderr := cli(t, "", "render", path)
		assert.Equal(t, exitUsage, code, c.name)
		assert.Contains(t, stderr, path+c.want, c.name)
		code, _, stderr = cli(t, c.text, "render", "-")
		assert.Equal(t, exitUsage, code, c.name)
		assert.Contains(t, stderr, "<stdin>"+c.want, c.name)
		code, _, stderr = cli(t, c.text, "render", "-k", example(t, "basic"), "-")
		assert.Equal(t, exitUsage, code, c.name)
		if c.name != "latin1.yaml" { // -k reads kustomize's output, which is UTF-8
			assert.Contains(t, stderr, "<stdin>"+c.want, "-k: %s", c.name)
		}
	}
	// The same object twice on stdin names both lines.
	ns := "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n"
	code, _, stderr := cli(t, ns+"---\n"+ns, "render", "-")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "Namespace a (v1) is in both <stdin>:1 and <stdin>:5")
}
