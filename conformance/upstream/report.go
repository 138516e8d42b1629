package upstream

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	confv1 "sigs.k8s.io/gateway-api/conformance/apis/v1"
	"sigs.k8s.io/yaml"
)

// ReportsDir is where the reports are checked in, in the upstream layout: reports/<Gateway API minor>/<implementation>/.
const ReportsDir = "conformance/reports/v1.6/gateway2tyk"

// ReportFile is the upstream name of a report: <channel>-<implementation version>-<mode>-report.yaml.
func ReportFile(r *confv1.ConformanceReport) string {
	return fmt.Sprintf("%s-%s-%s-report.yaml", r.GatewayAPIChannel, r.Implementation.Version, r.Mode)
}

// Normalized is the report without what differs from run to run of the same code (the date and the
// implementation's version), as YAML: two runs that got the same results give the same bytes.
func Normalized(r *confv1.ConformanceReport) ([]byte, error) {
	c := *r
	c.Date = ""
	c.Implementation.Version = ""
	return yaml.Marshal(c)
}

// ReadReports reads the checked-in reports of dir, by file name.
func ReadReports(dir string) (map[string]*confv1.ConformanceReport, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*-report.yaml"))
	if err != nil {
		return nil, err
	}
	out := map[string]*confv1.ConformanceReport{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var r confv1.ConformanceReport
		if err := yaml.UnmarshalStrict(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = &r
	}
	return out, nil
}

// profileOf is the render profile of a report's mode (<profile>-tyk-<release>).
func profileOf(mode string) (profile, tyk string) {
	p, t, _ := strings.Cut(mode, "-tyk-")
	return p, t
}

// Table is the conformance table of README.md and docs/conformance.md: for each render profile and Tyk release, the GATEWAY-HTTP profile's
// Core and Extended tests passed / failed / skipped, in the order of the reports' modes.
func Table(reports map[string]*confv1.ConformanceReport) string {
	var modes []string
	byMode := map[string]*confv1.ConformanceReport{}
	for _, r := range reports {
		modes = append(modes, r.Mode)
		byMode[r.Mode] = r
	}
	sort.Strings(modes)
	var b strings.Builder
	b.WriteString("| Render profile | Tyk Gateway | GATEWAY-HTTP Core: passed / failed / skipped | Extended: passed / failed / skipped | Extended features claimed |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, m := range modes {
		r := byMode[m]
		profile, tyk := profileOf(m)
		core, ext, claimed := "no result (the suite's setup did not pass)", "-", "-"
		for _, p := range r.ProfileReports {
			if p.Name != "GATEWAY-HTTP" {
				continue
			}
			if s := p.Core.Statistics; s.Passed+s.Failed+s.Skipped > 0 {
				core = fmt.Sprintf("%d / %d / %d", s.Passed, s.Failed, s.Skipped)
			}
			if p.Extended != nil {
				s := p.Extended.Statistics
				ext = fmt.Sprintf("%d / %d / %d", s.Passed, s.Failed, s.Skipped)
				if len(p.Extended.SupportedFeatures) > 0 {
					claimed = strings.Join(p.Extended.SupportedFeatures, ", ")
				} else {
					claimed = "none"
				}
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", profile, tyk, core, ext, claimed)
	}
	return b.String()
}

// CoreFailures are the Core tests the reports record as failed, sorted, each once.
func CoreFailures(reports map[string]*confv1.ConformanceReport) []string {
	seen := map[string]bool{}
	for _, r := range reports {
		for _, p := range r.ProfileReports {
			for _, f := range p.Core.FailedTests {
				seen[f] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// ReportsReadme is the README.md the upstream layout asks for beside the reports: a table of contents (one row per
// report) and how to reproduce them.
func ReportsReadme(reports map[string]*confv1.ConformanceReport) string {
	var files []string
	for f := range reports {
		files = append(files, f)
	}
	sort.Strings(files)
	var b strings.Builder
	b.WriteString("# gateway2tyk\n\n" +
		"gateway2tyk renders Gateway API routes into Tyk OAS APIs offline (a KRM function, kustomize, kpt, Argo CD) and\n" +
		"pushes them to Tyk with `gateway2tyk sync`, which also writes the would-be status. These reports are the\n" +
		"upstream suite's own, run unmodified against gateway2tyk, a real kube-apiserver and a real Tyk Gateway\n" +
		"(`conformance/upstream` in the repository). The mode is `<render profile>-tyk-<Tyk Gateway release>`.\n\n" +
		"## Table of contents\n\n" +
		"| API channel | Implementation version | Mode | Report |\n|---|---|---|---|\n")
	for _, f := range files {
		r := reports[f]
		fmt.Fprintf(&b, "| %s | %s | %s | [%s report](./%s) |\n", r.GatewayAPIChannel, r.Implementation.Version, r.Mode,
			r.Implementation.Version, f)
	}
	b.WriteString("\n## Reproduce\n\n" +
		"In a clone of the repository (Go 1.26, redis-server on PATH; nothing beside it):\n\n" +
		"```sh\nmake e2e-conformance PROFILE=\"operator gateway-api\" GATEWAY2TYK_CONFORMANCE_REPORT=write\n```\n\n" +
		"It builds the real kube-apiserver, etcd, Tyk Gateway (the 5.4 line; `TYK_GATEWAY=... TYK_GATEWAY_VERSION=...`\n" +
		"for another build) and echo-basic into `bin/`, and writes the reports here.\n")
	return b.String()
}
