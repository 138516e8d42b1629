package fn_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/e2e/servedcheck"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

// TestNothingLostSilently holds every story to what a route's status promises (issue 45; e2e/servedcheck says
// what that is). A route attached to an HTTP and an HTTPS listener of one hostname broke it: Accepted, nothing
// named, and no API on the TLS port (HTTPS got 404).
func TestNothingLostSilently(t *testing.T) {
	dirs, err := filepath.Glob("testdata/*/input.yaml")
	require.NoError(t, err)
	checked := 0
	for _, input := range dirs {
		story := filepath.Base(filepath.Dir(input))
		if story == "failing" || story == "fuzz" {
			continue
		}
		out := renderStoryFile(t, input)
		checked += servedcheck.Check(t, story, out)
	}
	require.Greater(t, checked, 100, "rules checked over every story")
	t.Logf("%d (rule, listener, hostname) promises checked over %d stories", checked, len(dirs))
}

func renderStoryFile(t *testing.T, path string) *fn.Output {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	rl, err := yaml.Parse(string(data))
	require.NoError(t, err)
	list, err := rl.Pipe(yaml.Lookup("items"))
	require.NoError(t, err)
	var items []*yaml.RNode
	if list != nil {
		items, err = list.Elements()
		require.NoError(t, err)
	}
	fc, err := rl.Pipe(yaml.Lookup("functionConfig"))
	require.NoError(t, err)
	cfg, err := config.Load(fc)
	require.NoError(t, err, path)
	out, err := fn.Render(items, cfg)
	require.NoError(t, err, path)
	return out
}
