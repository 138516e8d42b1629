package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateDiff = flag.Bool("update", false, "rewrite the golden reports of testdata/diff and docs/reference/cli (make golden)")

// The stories of testdata/diff: each has old/ and new/ inputs (with testdata/diff/common.yaml, and gateway.yaml
// unless the side has its own) and the reports of `gateway2tyk diff old new`, which are reviewed by reading them.
// fails is the exit status each story must have with the default --fail-on.
var diffStories = map[string]int{
	"methods": 0, "upstream-weights": 0, "rewrite": 0, "redirect": 0, "headers": 0, "auth-off": 1,
	"base-middleware": 0, "certificates": 0, "acceptance-lost": 1, "backend-unresolved": 1, "api-added-removed": 1,
	"results-disappear": 0, "parent-typo": 1,
}

// storySides writes a story's two sides into directories, as a user's repository would hold them.
func storySides(t *testing.T, story string) (oldDir, newDir string) {
	t.Helper()
	root := filepath.Join("testdata", "diff")
	side := func(name string) string {
		dir := filepath.Join(t.TempDir(), name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		copyFile(t, filepath.Join(root, "common.yaml"), filepath.Join(dir, "common.yaml"))
		own, err := filepath.Glob(filepath.Join(root, story, name, "*.yaml"))
		require.NoError(t, err)
		require.NotEmpty(t, own)
		hasGateway := false
		for _, f := range own {
			copyFile(t, f, filepath.Join(dir, filepath.Base(f)))
			hasGateway = hasGateway || filepath.Base(f) == "gateway.yaml"
		}
		if !hasGateway {
			copyFile(t, filepath.Join(root, "gateway.yaml"), filepath.Join(dir, "gateway.yaml"))
		}
		return dir
	}
	return side("old"), side("new")
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, data, 0o644))
}

// golden compares got with a golden file, or rewrites it with -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *updateDiff {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run make golden, then read the report")
	assert.Equal(t, string(want), got, path)
}

func TestDiffStories(t *testing.T) {
	for story, code := range diffStories {
		t.Run(story, func(t *testing.T) {
			oldDir, newDir := storySides(t, story)
			got, out, stderr := cli(t, "", "diff", oldDir, newDir)
			assert.Equal(t, code, got, stderr)
			assert.Empty(t, stderr)
			golden(t, filepath.Join("testdata", "diff", story, "report.txt"), out)
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			assert.True(t, strings.HasPrefix(lines[len(lines)-1], "gateway2tyk diff: "), "the summary ends the report")

			// The same inputs give the same bytes.
			_, again, _ := cli(t, "", "diff", oldDir, newDir)
			assert.Equal(t, out, again)
		})
	}
}

// The pull request comment and the JSON of one story with every section: risks, removed APIs, status changes
// and results.
func TestDiffFormats(t *testing.T) {
	oldDir, newDir := storySides(t, "acceptance-lost")
	for format, file := range map[string]string{"markdown": "report.md", "json": "report.json"} {
		code, out, stderr := cli(t, "", "diff", "-o", format, oldDir, newDir)
		assert.Equal(t, 1, code, stderr)
		golden(t, filepath.Join("testdata", "diff", "acceptance-lost", file), out)
	}
}

// --fail-on chooses which risky changes fail: none, or a kind that is not in the change.
func TestDiffFailOn(t *testing.T) {
	oldDir, newDir := storySides(t, "acceptance-lost")
	for _, c := range []struct {
		failOn string
		code   int
	}{{"none", 0}, {"auth-off", 0}, {"listener-emptied", 1}, {"api-removed", 1}, {"all", 1}} {
		code, out, stderr := cli(t, "", "diff", "--fail-on", c.failOn, oldDir, newDir)
		assert.Equal(t, c.code, code, "--fail-on %s: %s", c.failOn, stderr)
		assert.Contains(t, out, "APIs removed (1)", "the report is the same whatever fails")
	}
}

// The bad inputs of the diff: each is one line on stderr and exit status 2.
func TestDiffBadInput(t *testing.T) {
	oldDir, newDir := storySides(t, "methods")
	broken := filepath.Join(t.TempDir(), "broken.yaml")
	require.NoError(t, os.WriteFile(broken, []byte("apiVersion: v1\nkind: Service\nmetadata: {name: [a\n"), 0o644))
	missing := filepath.Join(t.TempDir(), "nope")
	for _, c := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"missing path", []string{"diff", oldDir, missing}, "gateway2tyk: diff: NEW: stat " + missing + ": no such file or directory"},
		{"broken yaml", []string{"diff", broken, newDir}, "gateway2tyk: diff: OLD: " + broken + ": "},
		{"one argument", []string{"diff", oldDir}, "gateway2tyk: diff takes OLD and NEW (got 1 arguments)"},
		{"bad format", []string{"diff", "-o", "html", oldDir, newDir}, `gateway2tyk: diff: -o must be text, markdown or json (got "html")`},
		{"bad fail-on", []string{"diff", "--fail-on", "api-gone", oldDir, newDir}, `gateway2tyk: diff: --fail-on: unknown kind "api-gone"`},
	} {
		t.Run(c.name, func(t *testing.T) { usageErrorLine(t, c.stderr, c.args...) })
	}
}

// usageErrorLine runs the command line and checks that it is a usage error: exit status 2, nothing on stdout, one
// line on stderr that starts with want.
func usageErrorLine(t *testing.T, want string, args ...string) {
	t.Helper()
	code, out, stderr := cli(t, "", args...)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
	assert.True(t, strings.HasPrefix(stderr, want), stderr)
}

// A change that makes an object unreadable (a new route with `rules: "oops"`) is an error result, which the
// pipeline's render would stop at: a risky change that fails by default. It was reported with 0 risky changes.
func TestDiffNewErrorFails(t *testing.T) {
	oldDir, newDir := storySides(t, "methods")
	write(t, filepath.Join(newDir, "broken.yaml"), "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n"+
		"metadata: {name: broken, namespace: shop}\nspec:\n  parentRefs: [{name: edge}]\n  rules: \"oops\"\n")
	code, out, stderr := cli(t, "", "diff", oldDir, newDir)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, out, "HTTPRoute/shop/broken spec.rules: ")
	assert.Contains(t, out, "[risk: new-error, fails]")
	assert.Contains(t, out, "risky change (new-error), 1 failing")
	code, _, _ = cli(t, "", "diff", "--fail-on", "none", oldDir, newDir)
	assert.Equal(t, 0, code)
	code, out, _ = cli(t, "", "diff", "-o", "markdown", oldDir, newDir)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "new-error")

	// Against an already rendered old side, which has no results to compare with, the new side's errors count.
	_, rendered, _ := cli(t, "", "render", oldDir)
	oldFile := filepath.Join(t.TempDir(), "old.yaml")
	write(t, oldFile, rendered)
	code, out, stderr = cli(t, "", "diff", oldFile, newDir)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, out, "1 risky change (new-error), 1 failing")
	assert.Contains(t, out, "Errors of NEW (OLD is a rendered stream, which carries no results)\n  + [error] gateway.networking.k8s.io/v1/HTTPRoute/shop/broken spec.rules: ")
}

// -o json gives every list as a list, empty or not: "status" was null when no object's status changed.
func TestDiffJSONListsNeverNull(t *testing.T) {
	dir := example(t, "basic")
	code, out, stderr := cli(t, "", "diff", "-o", "json", dir, dir)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, out, "null")
	assert.Contains(t, out, `"status": []`)
}
