package upstream

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	tableBegin = "<!-- conformance-table: begin (written by conformance/upstream's TestReportsReadme from conformance/reports) -->\n"
	tableEnd   = "<!-- conformance-table: end -->\n"
)

// TestReportsReadme holds the conformance table of README.md and of docs/conformance.md to the checked-in reports
// (GATEWAY2TYK_CONFORMANCE_REPORT=write rewrites both), and checks that every Core test a report records as failed
// is named in a bullet of docs/conformance.md below its table, which says why (the reasons are grouped by cause).
func TestReportsReadme(t *testing.T) {
	root := RepoRoot(t)
	reports, err := ReadReports(filepath.Join(root, ReportsDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) == 0 {
		t.Fatalf("no report in %s: `make e2e-conformance %s=write` writes them", ReportsDir, writeEnv)
	}
	var reasons string
	for _, name := range []string{"README.md", "docs/conformance.md"} {
		after := holdTable(t, filepath.Join(root, name), Table(reports))
		if name == "docs/conformance.md" {
			reasons = after
		}
	}
	items := bulletItems(reasons)
	for _, test := range CoreFailures(reports) {
		named := false
		for _, item := range items {
			named = named || strings.Contains(item, "`"+test+"`")
		}
		if !named {
			t.Errorf("docs/conformance.md says nothing of why the Core test %s fails: name it (`%s`) in a bullet below the table, with its cause", test, test)
		}
	}
	index := filepath.Join(root, ReportsDir, "README.md")
	got, _ := os.ReadFile(index)
	if want := ReportsReadme(reports); string(got) != want {
		if os.Getenv(writeEnv) == "write" {
			if err := os.WriteFile(index, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			t.Errorf("%s is not the reports' table of contents (%s=write rewrites it)", index, writeEnv)
		}
	}
}

// holdTable checks (or, with GATEWAY2TYK_CONFORMANCE_REPORT=write, rewrites) the table between the markers of the
// file at path, and returns what follows the table.
func holdTable(t *testing.T, path, table string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	before, rest, ok1 := strings.Cut(text, tableBegin)
	_, after, ok2 := strings.Cut(rest, tableEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no conformance table between %q and %q", path, tableBegin, tableEnd)
	}
	want := before + tableBegin + table + tableEnd + after
	if want != text {
		if os.Getenv(writeEnv) == "write" {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("rewrote the conformance table of %s", path)
		} else {
			t.Errorf("%s's conformance table is not the reports' (%s=write rewrites it):\n%s", path, writeEnv, table)
		}
	}
	return after
}

// bulletItems are the Markdown bullets of text: a line that starts "- " and the indented lines after it.
func bulletItems(text string) []string {
	var items []string
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "- "):
			items = append(items, line)
		case strings.HasPrefix(line, "  ") && len(items) > 0:
			items[len(items)-1] += "\n" + line
		}
	}
	return items
}
