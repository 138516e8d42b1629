package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cliReferenceDir is the CLI's reference in the manual, generated from the commands themselves.
const cliReferenceDir = "../../docs/reference/cli"

// cliReference is every page of docs/reference/cli: one per command (cobra's own Markdown generator, from the
// commands' Use, Long, examples and flags) and the exit-status table, from exitStatuses.
func cliReference(t *testing.T) map[string]string {
	t.Helper()
	root := newRoot()
	var disable func(c *cobra.Command)
	disable = func(c *cobra.Command) {
		c.DisableAutoGenTag = true // the tag holds the date of the run
		for _, sub := range c.Commands() {
			disable(sub)
		}
	}
	disable(root)
	dir := t.TempDir()
	require.NoError(t, doc.GenMarkdownTreeCustom(root, dir, func(string) string { return "" },
		func(name string) string { return name }))
	pages := map[string]string{}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		pages[e.Name()] = string(b)
	}
	pages["exit-status.md"] = exitStatusMarkdown()
	var index bytes.Buffer
	index.WriteString("# The gateway2tyk command line\n\n" +
		"Generated from the commands by `cmd/gateway2tyk`'s TestCLIReference (`make golden` rewrites it): what\n" +
		"`gateway2tyk COMMAND --help` prints, one page per command.\n\n")
	var names []string
	for name := range pages {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		title := strings.TrimSuffix(strings.ReplaceAll(name, "_", " "), ".md")
		if name == "exit-status.md" {
			title = "exit statuses (gateway2tyk help exit-status)"
		}
		fmt.Fprintf(&index, "- [%s](%s)\n", title, name)
	}
	pages["README.md"] = index.String()
	return pages
}

// exitStatusMarkdown is the exit-status table as the manual shows it.
func exitStatusMarkdown() string {
	var b strings.Builder
	b.WriteString("# Exit statuses\n\nGenerated from `cmd/gateway2tyk/exitcode.go` (TestCLIReference); " +
		"`gateway2tyk help exit-status` prints the same.\n\n| Status | Meaning | From |\n|---|---|---|\n")
	for _, s := range exitStatuses {
		fmt.Fprintf(&b, "| %d | %s | %s |\n", s.code, s.meaning, s.from(func(c string) string { return "`" + c + "`" }))
	}
	return b.String()
}

// TestCLIReference holds docs/reference/cli to the commands: a flag, a command or an exit status changed in the
// code and not in the manual fails here (go test ./cmd/gateway2tyk -update rewrites it; read the diff).
func TestCLIReference(t *testing.T) {
	pages := cliReference(t)
	if *updateDiff {
		require.NoError(t, os.RemoveAll(cliReferenceDir))
		require.NoError(t, os.MkdirAll(cliReferenceDir, 0o755))
		for name, text := range pages {
			require.NoError(t, os.WriteFile(filepath.Join(cliReferenceDir, name), []byte(text), 0o644))
		}
		return
	}
	entries, err := os.ReadDir(cliReferenceDir)
	require.NoError(t, err, "make golden writes docs/reference/cli")
	for _, e := range entries {
		if _, ok := pages[e.Name()]; !ok {
			t.Errorf("docs/reference/cli/%s is no command's page any more (make golden removes it)", e.Name())
		}
	}
	for name, want := range pages {
		got, err := os.ReadFile(filepath.Join(cliReferenceDir, name))
		if err != nil {
			t.Errorf("docs/reference/cli/%s is missing (make golden writes it)", name)
			continue
		}
		assert.Equal(t, want, string(got), "docs/reference/cli/%s is stale: make golden rewrites it", name)
	}
}

// Every command that runs ends its --help with the statuses it can exit with, and only those of exitStatuses.
func TestExitStatusInHelp(t *testing.T) {
	code, out, _ := cli(t, "", "sync", "--help")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "Exit status: 0, 1, 2, 4 or 70 ('gateway2tyk help exit-status' says what each means).")
	code, out, _ = cli(t, "", "explain", "--help")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "Exit status: 0, 2, 3 or 70 (")
	code, out, _ = cli(t, "", "help", "exit-status")
	require.Equal(t, 0, code)
	for _, s := range exitStatuses {
		assert.Contains(t, out, fmt.Sprintf("  %-3d %s.", s.code, s.meaning))
	}
}
