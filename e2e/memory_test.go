package e2e_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVerdictMemoryChangesNothing runs the binary on every testdata story (the failing ones too: their refusals
// come from the API server's Validate) with the memory of verdicts off, then twice with a memory of its own (the
// first run fills it, the second takes every verdict from it): stdout, stderr and the exit status are the same
// in all three.
func TestVerdictMemoryChangesNothing(t *testing.T) {
	root := repoRoot(t)
	bin := functionBinary(t, root)
	stories, err := filepath.Glob(filepath.Join(root, "fn/testdata/*/input.yaml"))
	require.NoError(t, err)
	failing, err := filepath.Glob(filepath.Join(root, "fn/testdata/failing/*/input.yaml"))
	require.NoError(t, err)
	stories = append(stories, failing...)
	require.Greater(t, len(stories), 80)
	cache := t.TempDir()
	for _, story := range stories {
		input, err := os.ReadFile(story)
		require.NoError(t, err)
		name, _ := filepath.Rel(root, filepath.Dir(story))
		off, offErr, offCode := run(t, bin, root, input, []string{"GATEWAY2TYK_CACHE=off"})
		for _, pass := range []string{"filling the memory", "from memory"} {
			out, errOut, code := run(t, bin, root, input, []string{"GATEWAY2TYK_CACHE=" + cache})
			assert.Equal(t, offCode, code, "%s, %s: exit status", name, pass)
			assert.Equal(t, string(off), string(out), "%s, %s: stdout", name, pass)
			assert.Equal(t, string(offErr), string(errOut), "%s, %s: stderr", name, pass)
		}
	}
	files, err := filepath.Glob(filepath.Join(cache, "verdicts-*.gob"))
	require.NoError(t, err)
	assert.Len(t, files, 1, "one file, this binary's")
}
