package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/fn/kustomization"
)

// Every command that reads a directory's files reads the same ones (fn/inputfiles): render (and explain, graph
// and diff through readInput), argocd discover, configure and the large-app path's search for the function
// config. A config render does not see is claimed by none; one render sees is claimed by all; a misspelt one is
// claimed by discover and refused, naming its file, by the others.
func TestInputCommandsAgree(t *testing.T) {
	config := "apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: c}\nspec: {output: ConfigMap}\n"
	typo := strings.Replace(config, "kind: RenderConfig", "kind: RenderConfg", 1)
	for _, c := range []struct {
		name  string
		files map[string]string
		link  [2]string // a symbolic link to make (name, target), if any
		found bool      // render reads a function config
		bad   bool      // ... that is refused
	}{
		{name: "in the directory", files: map[string]string{"app/c.yaml": config}, found: true},
		{name: "in a hidden directory", files: map[string]string{"app/.drafts/c.yaml": config}},
		{name: "in a linked directory", files: map[string]string{".git/HEAD": "", "shared/c.yaml": config},
			link: [2]string{"app/shared", "../shared"}, found: true},
		{name: "misspelt kind", files: map[string]string{"app/c.yaml": typo}, found: true, bad: true},
		{name: "none", files: map[string]string{"app/r.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			for p, text := range c.files {
				require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
				write(t, filepath.Join(root, p), text)
			}
			require.NoError(t, os.MkdirAll(filepath.Join(root, "app"), 0o755))
			if c.link[0] != "" {
				require.NoError(t, os.Symlink(c.link[1], filepath.Join(root, c.link[0])))
			}
			dir := filepath.Join(root, "app")

			in, err := readInput([]string{dir}, "", nil)
			require.NoError(t, err)
			assert.Equal(t, c.found, in.fnConfig != nil, "render")
			_, loadErr := in.loadConfig()
			assert.Equal(t, c.bad, loadErr != nil, "render: %v", loadErr)

			var out bytes.Buffer
			require.NoError(t, argoDiscover(&out, dir))
			assert.Equal(t, c.found, out.Len() > 0, "argocd discover: %q", out.String())

			n, _, err := configureTree(dir, map[string]string{"failOn": "Warning"})
			assert.Equal(t, c.bad, err != nil, "configure: %v", err)
			if !c.bad {
				assert.Equal(t, c.found, n > 0, "configure")
			} else {
				assert.Contains(t, err.Error(), filepath.Join(dir, "c.yaml")+": RenderConfg c: kind: must be RenderConfig")
			}

			write(t, filepath.Join(dir, "kustomization.yaml"), "resources: []\n")
			app, err := kustomization.Load(dir)
			if c.found {
				require.NoError(t, err)
				assert.NotNil(t, app.Config, "render -k")
			} else {
				assert.ErrorContains(t, err, "no gateway2tyk function config", "render -k")
			}
		})
	}
}

// A symbolic link to a directory of routes is read (issue 30, finding 3: it was skipped without a word, so
// render and argocd generate gave 0 HTTPRoutes); hidden directories are not read, and each is named.
func TestRenderFollowsLinksAndSaysWhatItSkips(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	app := filepath.Join(root, "app")
	require.NoError(t, os.CopyFS(app, os.DirFS(filepath.Join("..", "..", "examples", "basic"))))
	require.NoError(t, os.Remove(filepath.Join(app, "kustomization.yaml"))) // a directory of plain YAML
	require.NoError(t, os.Rename(filepath.Join(app, "routes.yaml"), filepath.Join(root, "routes.yaml")))
	require.NoError(t, os.Mkdir(filepath.Join(root, "shared-routes"), 0o755))
	require.NoError(t, os.Rename(filepath.Join(root, "routes.yaml"), filepath.Join(root, "shared-routes", "routes.yaml")))
	require.NoError(t, os.Symlink("../shared-routes", filepath.Join(app, "routes")))
	require.NoError(t, os.MkdirAll(filepath.Join(app, ".github", "workflows"), 0o755))
	write(t, filepath.Join(app, ".github", "workflows", "ci.yml"), "on: push\njobs: {}\n")
	write(t, filepath.Join(app, "values.yaml"), "foo: bar\n")

	code, out, stderr := cli(t, "", "render", app)
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "gateway2tyk render: skipped "+filepath.Join(app, ".github")+": hidden")
	assert.Contains(t, stderr, "gateway2tyk render: skipped "+filepath.Join(app, "values.yaml")+": holds no Kubernetes object")
	assert.Equal(t, "gateway2tyk render: 1 Gateway, 2 HTTPRoutes (2 accepted, 0 not), 2 APIs, 0 warnings, 0 errors", lastLine(stderr))
	assert.Equal(t, 2, strings.Count(out, "gateway2tyk.io/api-id:"))

	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(app, "elsewhere")))
	code, out, stderr = cli(t, "", "render", app)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, filepath.Join(app, "elsewhere")+": a symbolic link to "+outside+", outside the repository "+root)
}

// A file that is not a Kubernetes object in a file that holds objects is an error naming the file and the line,
// before anything is rendered (issue 30, finding 7: "missing Resource metadata" after a summary of success).
func TestDocumentWithoutKindNamesFileAndLine(t *testing.T) {
	dir := example(t, "basic")
	write(t, filepath.Join(dir, "x.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\nfoo: bar\n")
	code, out, stderr := cli(t, "", "render", dir)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Equal(t, "gateway2tyk: render: "+filepath.Join(dir, "x.yaml")+":5: document 2 has no apiVersion or no kind: "+
		"every document of a file that holds Kubernetes objects must be one\n", stderr)
}
