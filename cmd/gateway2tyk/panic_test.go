package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
)

// A panic is gateway2tyk's bug, never the user's input (issue 44): it exited 2, the status of bad input, so a bug
// read as the user's mistake. It now has a status of its own and asks for a report, on one line.
func TestPanicIsABugReport(t *testing.T) {
	var stderr bytes.Buffer
	code := runRoot(func() *cobra.Command {
		return &cobra.Command{Use: "gateway2tyk", RunE: func(*cobra.Command, []string) error {
			var items []string
			_ = items[1] // an index out of range, as kyaml's GetLabels on a list once did (issue 45)
			return nil
		}}
	}, []string{}, &stderr)
	assert.Equal(t, exitBug, code)
	assert.NotEqual(t, exitUsage, code, "not the status of bad input")
	assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %s", stderr.String())
	assert.Contains(t, stderr.String(), "gateway2tyk: internal error: runtime error: index out of range [1] with length 0: "+
		"this is a bug in gateway2tyk, not in your input; please report it at https://github.com/gateway2tyk/gateway2tyk/issues "+
		"with the input that caused it and what `gateway2tyk version` prints")
	assert.NotContains(t, stderr.String(), "goroutine", "no stack trace")

	// A command that returns an error is not a bug.
	stderr.Reset()
	code = runRoot(func() *cobra.Command {
		return &cobra.Command{Use: "gateway2tyk", SilenceErrors: true, SilenceUsage: true,
			RunE: func(*cobra.Command, []string) error { return usage("bad flag") }}
	}, []string{}, &stderr)
	assert.Equal(t, exitUsage, code)
}
