// Command testreport runs `go test -json` and judges the run as make test must: it prints each package's result
// as go test does (the output of every failed test in full), and at the end every test that skipped and why; it
// fails when go test failed or when a test skipped that may not. A skip may happen only where the file given by
// -may-skip lists it (the test's name and the reason it printed, each a regular expression, and why that skip
// is acceptable); any other skip is a check that did not run, and a run that hides it is not green.
//
// Usage: testreport [-may-skip FILE] -- GO-TEST-ARGS [-- GO-TEST-ARGS ...]
//
// Each group of arguments is one `go test -json` run, one after another (make test runs the packages that
// start goroutines with -race, the others without). The closing line is "tests: N passed, N failed, N
// skipped", counting every test and subtest.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

func main() {
	mayPath := flag.String("may-skip", "", "the file listing the skips that may happen")
	goCmd := flag.String("go", "go", "the go command")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: testreport [-may-skip FILE] [-go GO] -- GO-TEST-ARGS [-- GO-TEST-ARGS ...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	groups := splitGroups(flag.Args())
	if len(groups) == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var may []allowance
	if *mayPath != "" {
		data, err := os.ReadFile(*mayPath)
		if err == nil {
			may, err = parseAllowances(string(data))
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "testreport: %s: %v\n", *mayPath, err)
			os.Exit(2)
		}
	}
	s := newSummary(os.Stdout)
	goFailed := false
	for _, args := range groups {
		if err := run(s, *goCmd, args); err != nil {
			fmt.Fprintf(os.Stdout, "testreport: go test %s: %v\n", strings.Join(args, " "), err)
			goFailed = true
		}
	}
	if !s.report(os.Stdout, may, *mayPath) || goFailed {
		os.Exit(1)
	}
}

// splitGroups splits the arguments at each "--".
func splitGroups(args []string) [][]string {
	var out [][]string
	var cur []string
	for _, a := range args {
		if a == "--" {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, a)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// run runs one `go test -json` and feeds its events to s; go test's own error output goes to stderr as it comes.
func run(s *summary, goCmd string, args []string) error {
	cmd := exec.Command(goCmd, append([]string{"test", "-json"}, args...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	s.label = ""
	for _, a := range args {
		if a == "-race" {
			s.label = " (-race)"
		}
	}
	readErr := s.read(out)
	if _, err := io.Copy(io.Discard, out); err != nil && readErr == nil {
		readErr = err
	}
	if err := cmd.Wait(); err != nil {
		return err
	}
	return readErr
}
