package upstream

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	confv1 "sigs.k8s.io/gateway-api/conformance/apis/v1"
	"sigs.k8s.io/yaml"
)

// writeEnv, set to "write", makes the run write its report into the repository instead of comparing with it.
const writeEnv = "GATEWAY2TYK_CONFORMANCE_REPORT"

// CheckReport writes the run's report to bin/conformance-reports/ and compares it with the checked-in report of the
// same channel and mode (the same results; the date and the implementation's version may differ). With
// GATEWAY2TYK_CONFORMANCE_REPORT=write it replaces the checked-in report instead.
func CheckReport(t *testing.T, root string, r *confv1.ConformanceReport) {
	t.Helper()
	raw, err := yaml.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(root, "bin", "conformance-reports", ReportFile(r))
	if err := os.MkdirAll(filepath.Dir(own), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(own, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("the run's ConformanceReport (%s):\n%s", own, raw)
	dir := filepath.Join(root, ReportsDir)
	pattern := filepath.Join(dir, r.GatewayAPIChannel+"-*-"+r.Mode+"-report.yaml")
	existing, _ := filepath.Glob(pattern)
	if os.Getenv(writeEnv) == "write" {
		for _, f := range existing {
			_ = os.Remove(f)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ReportFile(r)), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", filepath.Join(ReportsDir, ReportFile(r)))
		return
	}
	if len(existing) != 1 {
		t.Fatalf("want one checked-in report %s, found %d: run `make e2e-conformance %s=write` and commit it",
			pattern, len(existing), writeEnv)
	}
	checked, err := ReadReports(filepath.Dir(existing[0]))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Normalized(checked[filepath.Base(existing[0])])
	got, _ := Normalized(r)
	if string(want) != string(got) {
		t.Errorf("the run's results differ from the checked-in %s:\n%s\n"+
			"after reading why, `make e2e-conformance %s=write` writes the run's report", existing[0],
			lineDiff(string(want), string(got)), writeEnv)
	}
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}

// tail is the last n lines of a file.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return lastLines(b, n)
}

// firstErrors reads a go test -v log of the suite and lists each failed test with its first error: testify's
// Error line, the Test line that names the test, and the Messages line after it; one test a line.
func firstErrors(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	type entry struct{ name, err, msg string }
	var order []string
	byTop := map[string]*entry{}
	var lastErr string
	var current *entry
	for _, line := range strings.Split(string(b), "\n") {
		field := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(field, "Error Trace:"):
			current = nil
		case strings.HasPrefix(field, "Error:"):
			lastErr = strings.TrimSpace(strings.TrimPrefix(field, "Error:"))
		case strings.HasPrefix(field, "Test:"):
			name := strings.TrimSpace(strings.TrimPrefix(field, "Test:"))
			if i := strings.Index(name, "/"); i >= 0 {
				name = name[i+1:] // TestRealConformanceRun/<test>[/<subtest>]
			}
			top, _, _ := strings.Cut(name, "/")
			current = nil
			if byTop[top] == nil {
				byTop[top] = &entry{name: name, err: lastErr}
				order = append(order, top)
				current = byTop[top]
			}
		case strings.HasPrefix(field, "Messages:") && current != nil:
			current.msg = strings.TrimSpace(strings.TrimPrefix(field, "Messages:"))
			current = nil
		}
	}
	var out []string
	for _, top := range order {
		e := byTop[top]
		out = append(out, fmt.Sprintf("  %s: %s (%s)", e.name, e.msg, e.err))
	}
	return strings.Join(out, "\n")
}

// syncFailures are the distinct reasons the loop's syncs failed, from the run's log (the lines gateway2tyk sync
// printed after "gitops: sync exited"), with how often each was seen; the Gateway's port is left out so that the
// same reason counts once.
func syncFailures(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	port := regexp.MustCompile(`127\.0\.0\.1:\d+`)
	count := map[string]int{}
	var order []string
	lines := strings.Split(string(b), "\n")
	for i, line := range lines {
		if !strings.Contains(line, "gitops: sync exited") {
			continue
		}
		for _, next := range lines[i+1 : min(i+9, len(lines))] {
			next = strings.TrimSpace(next)
			if !strings.HasPrefix(next, "gateway2tyk") {
				break
			}
			next = port.ReplaceAllString(next, "127.0.0.1:PORT")
			if count[next] == 0 {
				order = append(order, next)
			}
			count[next]++
		}
	}
	var out []string
	for _, l := range order {
		out = append(out, fmt.Sprintf("  %dx %s", count[l], l))
	}
	return strings.Join(out, "\n")
}
