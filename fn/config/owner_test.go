package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestDefaultOwner: the owner is the application's directory in its repository, wherever the repository is
// checked out and whichever directory the render is given as; two applications of one repository (examples/basic
// and examples/storefront, both with a RenderConfig named gateway2tyk) get two owners.
func TestDefaultOwner(t *testing.T) {
	for _, root := range []string{t.TempDir(), t.TempDir()} {
		require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
		for _, d := range []string{"examples/basic", "examples/storefront", "apps/team-a/overlays/prod"} {
			require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
		}
		assert.Equal(t, "examples.basic", DefaultOwner(filepath.Join(root, "examples", "basic")))
		assert.Equal(t, "examples.storefront", DefaultOwner(filepath.Join(root, "examples", "storefront")))
		assert.Equal(t, "apps.team-a.overlays.prod", DefaultOwner(filepath.Join(root, "apps/team-a/overlays/prod")))
		assert.Equal(t, FallbackOwner, DefaultOwner(root), "the repository's root")

		// The same directory named from elsewhere (a relative path from inside it).
		wd, err := os.Getwd()
		require.NoError(t, err)
		require.NoError(t, os.Chdir(filepath.Join(root, "examples", "basic")))
		assert.Equal(t, "examples.basic", DefaultOwner("."))
		require.NoError(t, os.Chdir(wd))
	}
	// A worktree or submodule has a .git file.
	wt := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: /elsewhere\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(wt, "deploy", "api"), 0o755))
	assert.Equal(t, "deploy.api", DefaultOwner(filepath.Join(wt, "deploy", "api")))

	// No repository, or no directory: the fallback.
	assert.Equal(t, FallbackOwner, DefaultOwner(""))
	noRepo := t.TempDir()
	if _, err := os.Stat(filepath.Join(filepath.Dir(noRepo), ".git")); err == nil {
		t.Fatalf("the temporary directory is inside a repository")
	}
	assert.Equal(t, FallbackOwner, DefaultOwner(noRepo))
}

func TestOwnerOfPath(t *testing.T) {
	for in, want := range map[string]string{
		"examples/basic":        "examples.basic",
		"apps/Team_A/v1.2":      "apps.Team_A.v1.2",
		"apps/team a/café":      "apps.team-a.caf",
		"-x/y-":                 "x.y",
		"///":                   FallbackOwner,
		strings.Repeat("a", 70): strings.Repeat("a", 54) + "-",
	} {
		got := OwnerOfPath(in)
		assert.Empty(t, OwnerError(got), "%q -> %q is a label value", in, got)
		if strings.HasSuffix(want, "-") {
			assert.True(t, strings.HasPrefix(got, want), "%q -> %q", in, got)
			assert.Len(t, got, 63)
			continue
		}
		assert.Equal(t, want, got, in)
	}
	long := strings.Repeat("x", 70)
	assert.NotEqual(t, OwnerOfPath("a/"+long), OwnerOfPath("b/"+long), "long paths with the same end differ")
}

// TestLoadOwner: spec.owner (data.owner) is read and validated as a label value, with a field-named error.
func TestLoadOwner(t *testing.T) {
	load := func(doc string) (Spec, error) { return Load(yaml.MustParse(doc)) }
	s, err := load("apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: tyk}\nspec: {owner: shop-apis}\n")
	require.NoError(t, err)
	assert.Equal(t, "shop-apis", s.Owner)
	assert.Equal(t, "shop-apis", s.WithOwner("/anywhere").Owner, "spec.owner wins over the default")
	s, err = load("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fn-config}\ndata: {owner: shop.apis}\n")
	require.NoError(t, err)
	assert.Equal(t, "shop.apis", s.Owner)
	s, err = load("apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: tyk}\nspec: {output: ConfigMap}\n")
	require.NoError(t, err)
	assert.Empty(t, s.Owner, "unset: the render makes the default")

	_, err = load("apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: tyk}\nspec: {owner: team/a}\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `RenderConfig tyk: spec.owner: `)
	assert.Contains(t, err.Error(), `(got "team/a")`)
	_, err = load("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fn-config}\ndata: {owner: " + strings.Repeat("a", 64) + "}\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ConfigMap fn-config: data.owner: must be no more than 63")
	_, err = load("apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: tyk}\nspec: {owner: 7}\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spec.owner: must be a string (got integer)")
}
