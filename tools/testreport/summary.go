package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent, and the build events of go test -json).
type event struct {
	Action     string
	Package    string
	Test       string
	Elapsed    float64
	Output     string
	ImportPath string // build-output, build-fail
}

// skip is a test that skipped, with what it printed.
type skip struct {
	pkg, test, reason string
}

// summary follows the events of one or more runs: it prints package results as they end and keeps the counts
// and the skips for the report.
type summary struct {
	w                    io.Writer
	label                string              // appended to the package lines of the current run
	output               map[string][]string // by package and test ("" for the package's own lines)
	build                map[string][]string // build output by import path
	open                 map[string]map[string]bool
	passed, failed       int
	skips                []skip
	failedPkgs, packages int
}

func newSummary(w io.Writer) *summary {
	return &summary{w: w, output: map[string][]string{}, build: map[string][]string{}, open: map[string]map[string]bool{}}
}

func key(pkg, test string) string { return pkg + "\x00" + test }

// read consumes a stream of events; a line that is not an event (go test prints some before any JSON) is
// printed as it is.
func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(s.w, "%s\n", line)
			continue
		}
		s.handle(e)
	}
	return sc.Err()
}

func (s *summary) handle(e event) {
	switch e.Action {
	case "build-output":
		s.build[e.ImportPath] = append(s.build[e.ImportPath], e.Output)
		return
	case "build-fail":
		fmt.Fprint(s.w, strings.Join(s.build[e.ImportPath], ""))
		delete(s.build, e.ImportPath)
		return
	}
	k := key(e.Package, e.Test)
	switch e.Action {
	case "run":
		if s.open[e.Package] == nil {
			s.open[e.Package] = map[string]bool{}
		}
		s.open[e.Package][e.Test] = true
	case "output":
		s.output[k] = append(s.output[k], e.Output)
	case "pass", "fail", "skip":
		if e.Test == "" {
			s.endPackage(e)
			return
		}
		delete(s.open[e.Package], e.Test)
		switch e.Action {
		case "pass":
			s.passed++
		case "fail":
			s.failed++
			fmt.Fprint(s.w, strings.Join(s.output[k], ""))
		case "skip":
			s.skips = append(s.skips, skip{pkg: e.Package, test: e.Test, reason: reason(s.output[k])})
		}
		delete(s.output, k)
	}
}

// endPackage prints the package's line, and when it failed, what it printed outside its tests and the output
// of the tests that never ended (a panic, a timeout).
func (s *summary) endPackage(e event) {
	k := key(e.Package, "")
	switch e.Action {
	case "skip":
		fmt.Fprintf(s.w, "?   \t%s\t[no test files]\n", e.Package)
	case "pass":
		s.packages++
		fmt.Fprintf(s.w, "ok  \t%s\t%.3fs%s\n", e.Package, e.Elapsed, s.label)
	case "fail":
		s.packages++
		s.failedPkgs++
		var unfinished []string
		for t := range s.open[e.Package] {
			unfinished = append(unfinished, t)
		}
		sort.Strings(unfinished)
		for _, t := range unfinished {
			fmt.Fprint(s.w, strings.Join(s.output[key(e.Package, t)], ""))
			delete(s.output, key(e.Package, t))
		}
		fmt.Fprint(s.w, strings.Join(s.output[k], ""))
		fmt.Fprintf(s.w, "FAIL\t%s\t%.3fs%s\n", e.Package, e.Elapsed, s.label)
	}
	delete(s.output, k)
	delete(s.open, e.Package)
}

// reason is what a skipped test printed, less go test's own "=== RUN" and "--- SKIP" lines.
func reason(lines []string) string {
	var parts []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " ")
}

// allowance is one line of the may-skip file: a skip of a test of a package, for a reason, may happen, because.
type allowance struct {
	pkg, test, reason *regexp.Regexp
	why               string
}

// parseAllowances reads the may-skip file: "PACKAGE | TEST | REASON | WHY" per line (the first three regular
// expressions, matched against the import path, the test's full name and what it printed), # comments.
func parseAllowances(text string) ([]allowance, error) {
	var out []allowance
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, " | ")
		if len(cols) != 4 || strings.TrimSpace(cols[3]) == "" {
			return nil, fmt.Errorf("line %d: want PACKAGE | TEST | REASON | WHY, got %q", i+1, line)
		}
		var res [3]*regexp.Regexp
		for j := range res {
			re, err := regexp.Compile(strings.TrimSpace(cols[j]))
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", i+1, err)
			}
			res[j] = re
		}
		out = append(out, allowance{pkg: res[0], test: res[1], reason: res[2], why: strings.TrimSpace(cols[3])})
	}
	return out, nil
}

func (a allowance) allows(sk skip) bool {
	return a.pkg.MatchString(sk.pkg) && a.test.MatchString(sk.test) && a.reason.MatchString(sk.reason)
}

// report prints the skips (those that may happen with why, those that may not) and the closing line, and says
// whether the run is green: no failure, and no skip but allowed ones.
func (s *summary) report(w io.Writer, may []allowance, mayPath string) bool {
	var allowed, refused []string
	for _, sk := range s.skips {
		line := fmt.Sprintf("  %s %s: %s", sk.pkg, sk.test, sk.reason)
		ok := false
		for _, a := range may {
			if a.allows(sk) {
				allowed = append(allowed, line+"\n      may skip: "+a.why)
				ok = true
				break
			}
		}
		if !ok {
			refused = append(refused, line)
		}
	}
	if len(allowed) > 0 {
		fmt.Fprintf(w, "\nSkipped, as %s allows (%d):\n%s\n", mayPath, len(allowed), strings.Join(allowed, "\n"))
	}
	if len(refused) > 0 {
		fmt.Fprintf(w, "\nSKIPPED, and must not (a check that did not run; the run fails) (%d):\n%s\n", len(refused),
			strings.Join(refused, "\n"))
	}
	if s.failed > 0 || s.failedPkgs > 0 {
		fmt.Fprintf(w, "\n%d of %d packages failed\n", s.failedPkgs, s.packages)
	}
	fmt.Fprintf(w, "\ntests: %d passed, %d failed, %d skipped\n", s.passed, s.failed, len(s.skips))
	return s.failed == 0 && s.failedPkgs == 0 && len(refused) == 0 && s.packages > 0
}
