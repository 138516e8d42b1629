package upstream

import (
	"os"
	"path/filepath"
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
func CheckReport(t *testing.T, root string, r *confv1.ConformanceReport, setupOK bool) {
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
		t.Errorf("the run's results differ from the checked-in %s (setup passed: %v):\n%s\n"+
			"after reading why, `make e2e-conformance %s=write` writes the run's report", existing[0], setupOK,
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
