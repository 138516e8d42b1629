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

// TestReportsReadme holds README.md's conformance table to the checked-in reports (GATEWAY2TYK_CONFORMANCE_REPORT=write
// rewrites it), and checks that every Core test a report records as failed has a line in README.md that says why
// ("- `<test>`: ..." in the section of the table).
func TestReportsReadme(t *testing.T) {
	root := RepoRoot(t)
	reports, err := ReadReports(filepath.Join(root, ReportsDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) == 0 {
		t.Fatalf("no report in %s: `make e2e-conformance %s=write` writes them", ReportsDir, writeEnv)
	}
	path := filepath.Join(root, "README.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	before, rest, ok1 := strings.Cut(readme, tableBegin)
	_, after, ok2 := strings.Cut(rest, tableEnd)
	if !ok1 || !ok2 {
		t.Fatalf("README.md has no conformance table between %q and %q", tableBegin, tableEnd)
	}
	want := before + tableBegin + Table(reports) + tableEnd + after
	if want != readme {
		if os.Getenv(writeEnv) == "write" {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("rewrote the conformance table of README.md")
		} else {
			t.Errorf("README.md's conformance table is not the reports' (%s=write rewrites it):\n%s", writeEnv, Table(reports))
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
	for _, test := range CoreFailures(reports) {
		if !strings.Contains(after, "- `"+test+"`: ") {
			t.Errorf("README.md says nothing of why the Core test %s fails: add a line \"- `%s`: why\" below the table", test, test)
		}
	}
}
