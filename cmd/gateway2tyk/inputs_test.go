package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// example copies examples/NAME into a temporary directory and returns it.
func example(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "examples", name))))
	return dir
}

func write(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

// Every input that cannot be read is one line naming the file (and, for YAML, the line in the file).
func TestInputFileErrors(t *testing.T) {
	for _, c := range []struct {
		name, file, text, want string
	}{
		{"top-level list", "x.yaml", "- a\n- b\n", "x.yaml:1: document 1 is a YAML list, not a Kubernetes object"},
		{"bare string", "x.yaml", "hello\n", "x.yaml:1: document 1 is a bare value, not a Kubernetes object"},
		{"second document a list", "x.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n- a\n",
			"x.yaml:5: document 2 is a YAML list"},
		{"binary", "x.yaml", "\x7fELF\x02\x01\x01\x00\x00-----\n", "x.yaml:1: not YAML text (it holds a NUL byte or bytes that are not UTF-8: a binary file"},
		{"two objects run together", "x.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\napiVersion: v1\nkind: Namespace\n",
			`x.yaml:4: document 1 has the key "apiVersion" twice: are two objects run together without a --- line between them?`},
		{"YAML error on line 9 of the file", "x.yaml",
			"apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: b\n  x: : [\n",
			"x.yaml: yaml: line 9: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := example(t, "basic")
			write(t, filepath.Join(dir, c.file), c.text)
			for _, args := range [][]string{{"render", dir}, {"graph", dir}, {"explain", "--request", "GET http://a/", dir}} {
				code, out, stderr := cli(t, "", args...)
				assert.Equal(t, 2, code, "%v: %s", args, stderr)
				assert.Empty(t, out)
				assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
				assert.Contains(t, stderr, filepath.Join(dir, c.want), "%v", args)
			}
		})
	}
}

// An object given twice (an earlier render's output left in the directory) is refused naming both files: the
// answer must not depend on which file sorts first.
func TestDuplicateObjectNamesBothFiles(t *testing.T) {
	dir := example(t, "basic")
	code, rendered, stderr := cli(t, "", "render", dir)
	require.Equal(t, 0, code, stderr)
	write(t, filepath.Join(dir, "aaa-out.yaml"), rendered)
	code, out, stderr := cli(t, "", "render", dir)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	// The GatewayClass's document starts on the line after the separator above its kind, wherever the output
	// before it (the APIs' ConfigMaps) puts it.
	lines := strings.Split(rendered, "\n")
	start := slices.Index(lines, "kind: GatewayClass")
	require.Positive(t, start, "the rendered output holds the GatewayClass")
	for start > 0 && lines[start-1] != "---" {
		start--
	}
	assert.Contains(t, stderr, "GatewayClass tyk (gateway.networking.k8s.io/v1) is in both "+
		filepath.Join(dir, "aaa-out.yaml")+":"+strconv.Itoa(start+1)+" and "+filepath.Join(dir, "gateway.yaml")+":1")
	assert.Contains(t, stderr, "an earlier render's output")
}

// Two RenderConfigs: which one applies would depend on the file names, so the render refuses, naming both;
// with -c naming the config, those among the inputs are not read.
func TestTwoRenderConfigsRefused(t *testing.T) {
	dir := example(t, "basic")
	write(t, filepath.Join(dir, "zz-config.yaml"), "apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\n"+
		"metadata: {name: other}\nspec: {output: TykOasApiDefinition}\n")
	code, _, stderr := cli(t, "", "render", dir)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "two function configs: RenderConfig gateway2tyk (gateway2tyk.io/v1alpha1) in "+
		filepath.Join(dir, "gateway2tyk.yaml")+":2 and RenderConfig other (gateway2tyk.io/v1alpha1) in "+filepath.Join(dir, "zz-config.yaml")+":1")
	code, _, stderr = cli(t, "", "render", "-c", filepath.Join(dir, "zz-config.yaml"), dir)
	assert.Equal(t, 0, code, stderr)
}

// A directory whose kustomization generates or changes objects is refused by render and by every read-only
// view, with the command that gives kustomize's output instead; examples/secured (a configMapGenerator) was
// answered wrongly before (BaseDocumentUnresolved for a route that is fine).
func TestKustomizationThatMustBeBuiltIsRefused(t *testing.T) {
	dir := example(t, "secured")
	for _, c := range []struct {
		args []string
		how  string
	}{
		{[]string{"render", dir}, "`kustomize build --enable-alpha-plugins " + dir + " | gateway2tyk render -k " + dir + " -`"},
		{[]string{"explain", "--request", "GET http://orders.shop.example.com/orders", dir},
			"`kustomize build --enable-alpha-plugins " + dir + " | gateway2tyk explain -k " + dir + " --request ... -`"},
		{[]string{"graph", dir}, "`kustomize build --enable-alpha-plugins " + dir + " | gateway2tyk graph -k " + dir + " -`"},
		{[]string{"diff", dir, dir}, "diff --git, which builds each revision with kustomize"},
	} {
		code, out, stderr := cli(t, "", c.args...)
		assert.Equal(t, 2, code, "%v: %s", c.args, stderr)
		assert.Empty(t, out)
		assert.Contains(t, stderr, filepath.Join(dir, "kustomization.yaml")+" sets configMapGenerator, which only kustomize applies")
		assert.Contains(t, stderr, c.how)
	}
	// Every field that changes objects, a foreign transformer, and a base outside the directory.
	for name, k := range map[string]string{
		"namespace":   "namespace: other\nresources: [gateway.yaml]\n",
		"patches":     "resources: [gateway.yaml]\npatches: [{path: p.yaml}]\n",
		"transformer": "resources: [gateway.yaml]\ntransformers: [t.yaml]\n",
		"outside":     "resources: [gateway.yaml, ../elsewhere]\n",
	} {
		dir := example(t, "basic")
		write(t, filepath.Join(dir, "t.yaml"), "apiVersion: builtin\nkind: LabelTransformer\nmetadata: {name: l}\nlabels: {a: b}\n")
		require.NoError(t, os.MkdirAll(filepath.Join(filepath.Dir(dir), "elsewhere"), 0o755))
		write(t, filepath.Join(dir, "kustomization.yaml"), k)
		code, _, stderr := cli(t, "", "render", dir)
		assert.Equal(t, 2, code, "%s: %s", name, stderr)
		assert.Contains(t, stderr, "reading its directory's files would answer wrongly", name)
	}
	// A kustomization that lists its files and gateway2tyk is read as before.
	code, _, stderr := cli(t, "", "render", example(t, "basic"))
	assert.Equal(t, 0, code, stderr)
}

// kustomizeOnPath puts the kustomize binary of make test ($KUSTOMIZE, or bin/kustomize) first on PATH.
func kustomizeOnPath(t *testing.T) string {
	t.Helper()
	k := os.Getenv("KUSTOMIZE")
	if k == "" {
		k, _ = filepath.Abs(filepath.Join("..", "..", "bin", "kustomize"))
	}
	if _, err := os.Stat(k); err != nil {
		t.Skipf("SKIPPED: no kustomize binary (%s); run `make test`, which installs it", k)
	}
	link := filepath.Join(t.TempDir(), "kustomize")
	require.NoError(t, os.Symlink(k, link))
	t.Setenv("PATH", filepath.Dir(link)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return link
}

func kustomizeBuildOf(t *testing.T, dir string, flags ...string) string {
	t.Helper()
	out, err := exec.Command("kustomize", append(append([]string{"build"}, flags...), dir)...).Output()
	require.NoError(t, err)
	return string(out)
}

// explain, graph and diff take kustomize's output with -k, as render -k does: examples/secured's orders route
// asks for authentication (401), which only its generated base document says.
func TestViewsTakeKustomizeOutput(t *testing.T) {
	kustomizeOnPath(t)
	dir := example(t, "secured")
	req := "GET http://orders.shop.example.com/orders"
	built := kustomizeBuildOf(t, dir, "--enable-alpha-plugins")
	code, out, stderr := cli(t, built, "explain", "-k", dir, "--request", req, "-")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "status     401")
	assert.Contains(t, out, "route      shop/orders spec.rules[0]")

	code, out, stderr = cli(t, built, "graph", "-k", dir, "-")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "gwapi-53599a2d8b59c6cdad60")
	assert.NotContains(t, out, "BaseDocumentUnresolved")

	// diff -k: the orders route's base document deleted is authentication turned off, which fails.
	old := kustomizeBuildOf(t, dir, "--enable-alpha-plugins")
	noAuth := example(t, "secured")
	k, err := os.ReadFile(filepath.Join(noAuth, "definitions.yaml"))
	require.NoError(t, err)
	// definitions.yaml holds the two TykOasApiDefinitions; keep the Gateway's only.
	docs := strings.Split(string(k), "\n---\n")
	var kept []string
	for _, d := range docs {
		if !strings.Contains(d, "name: orders-auth") {
			kept = append(kept, d)
		}
	}
	require.Len(t, kept, len(docs)-1, "definitions.yaml holds orders-auth once")
	write(t, filepath.Join(noAuth, "definitions.yaml"), strings.Join(kept, "\n---\n"))
	oldFile, newFile := filepath.Join(t.TempDir(), "old.yaml"), filepath.Join(t.TempDir(), "new.yaml")
	write(t, oldFile, old)
	write(t, newFile, kustomizeBuildOf(t, noAuth, "--enable-alpha-plugins"))
	code, out, stderr = cli(t, "", "diff", "-k", dir, "-k", noAuth, oldFile, newFile)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, out, "[risk: auth-off, fails]")
}

// "-" reads a YAML stream on stdin.
func TestRenderStdin(t *testing.T) {
	var all []string
	for _, f := range []string{"gateway.yaml", "routes.yaml", "services.yaml", "cluster-facts.yaml", "gateway2tyk.yaml"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "basic", f))
		require.NoError(t, err)
		all = append(all, string(b))
	}
	code, fromStdin, stderr := cli(t, strings.Join(all, "\n---\n"), "render", "-")
	require.Equal(t, 0, code, stderr)
	_, fromDir, _ := cli(t, "", "render", filepath.Join("..", "..", "examples", "basic"))
	// A stream says nothing of the application's place in its repository: its APIs get the fallback owner,
	// unless -c names the config file in the application's directory.
	const dirOwner, streamOwner = "gateway2tyk.io/owner: examples.basic\n", "gateway2tyk.io/owner: gateway2tyk\n"
	require.Equal(t, 2, strings.Count(fromDir, dirOwner))
	assert.Equal(t, strings.ReplaceAll(fromDir, dirOwner, streamOwner), fromStdin)
	code, withConfig, stderr := cli(t, strings.Join(all[:4], "\n---\n"), "render", "-c",
		filepath.Join("..", "..", "examples", "basic", "gateway2tyk.yaml"), "-")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, fromDir, withConfig)
}
