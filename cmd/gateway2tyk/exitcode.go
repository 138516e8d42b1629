package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// The exit statuses of every command, in one place. exitStatuses says what each means and which commands return
// it; every command's --help ends with its own, `gateway2tyk help exit-status` prints the table, and
// docs/reference/cli/ is generated from both (TestCLIReference), so no text says it a second time.
const (
	// exitOK: the command did what it was asked.
	exitOK = 0
	// exitResults: the command ran and its answer is "no": results at or above failOn (render, the KRM function,
	// argocd generate), drift (sync --check), a change that fails (diff), sync actions that failed.
	exitResults = 1
	// exitUsage: the command cannot run as asked: a bad flag, PATH, request or setting, or input that cannot
	// be read (a file that does not parse, a bad function config, a failed render's output given to sync).
	exitUsage = 2
	// exitRefused: the application must be built with gateway2tyk as kustomize's transformer (render -k,
	// configure --detach-transformer: kustomization.Unfaithful).
	exitRefused = 3
	// exitUnreachable: something the command must talk to (a Tyk Dashboard or Gateway, the cluster) failed it
	// before an answer could be given: nothing was decided, and nothing changed that the output does not say.
	exitUnreachable = 4
	// exitBug: gateway2tyk itself failed (a panic): a bug to report, never the user's input (sysexits' EX_SOFTWARE).
	exitBug = 70
)

// exitUseTransformer is the exit status of `render -k` and `configure --detach-transformer` when the
// application must be built with gateway2tyk as a kustomize transformer (kustomization.Unfaithful).
const exitUseTransformer = exitRefused

// exitStatusDoc is one row of the exit-status table: a status, what it means, and the commands that return it
// (command paths below gateway2tyk, "" for the KRM function itself; with a flag where only that form returns it;
// none for every command).
type exitStatusDoc struct {
	code     int
	meaning  string
	commands []string
}

var exitStatuses = []exitStatusDoc{
	{exitOK, "done as asked", nil},
	{exitResults, `the answer is "no": results at or above failOn, drift, a change that fails, sync actions that failed`,
		[]string{"", "render", "argocd generate", "diff", "sync", "sync --check", "graph"}},
	{exitUsage, "usage and bad input: a bad flag, PATH, request or setting, a file that does not parse, a bad function " +
		"config, a failed render's output given to sync", nil},
	{exitRefused, "refused: the application must keep gateway2tyk as kustomize's transformer",
		[]string{"render -k", "explain -k", "graph -k", "configure --detach-transformer"}},
	{exitUnreachable, "the target or the cluster failed the run before an answer (unreachable, a refused credential, " +
		"a failed listing): nothing decided", []string{"sync", "sync --check"}},
	{exitBug, "gateway2tyk itself failed (an internal error): a bug, not the input; the one line asks for a report " +
		"with the input and 'gateway2tyk version'", nil},
}

// returns reports whether the command at path (below gateway2tyk) can exit with s.
func (s exitStatusDoc) returns(path string) bool {
	if s.commands == nil {
		return true
	}
	for _, c := range s.commands {
		if name, _, _ := strings.Cut(c, " -"); name == path {
			return true
		}
	}
	return false
}

// from names the commands that return s, each written by name (a command path, "" for the KRM function).
func (s exitStatusDoc) from(name func(string) string) string {
	if s.commands == nil {
		return "every command"
	}
	var names []string
	for _, c := range s.commands {
		if c == "" {
			names = append(names, "the KRM function (no command)")
		} else {
			names = append(names, name(c))
		}
	}
	return strings.Join(names, ", ")
}

// exitStatusTable is the table `gateway2tyk help exit-status` prints.
func exitStatusTable() string {
	var b strings.Builder
	b.WriteString("Every command of gateway2tyk exits with one of these statuses:\n\n")
	for _, s := range exitStatuses {
		fmt.Fprintf(&b, "  %-3d %s.\n      From: %s.\n", s.code, s.meaning, s.from(func(c string) string { return c }))
	}
	return b.String()
}

// newExitStatusTopic is `gateway2tyk help exit-status`: a help topic (no Run), so cobra lists it under
// "Additional help topics".
func newExitStatusTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-status",
		Short: "The exit statuses of every command and what each means",
		Long:  exitStatusTable(),
	}
}

// addExitStatusLines ends the --help of root and of every command below it that runs with the statuses it
// returns, from exitStatuses.
func addExitStatusLines(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && c.Name() != "help" && c.Name() != "completion" && !strings.HasPrefix(c.CommandPath(), "gateway2tyk completion") {
			path := strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), root.Name()), " ")
			var codes []string
			for _, s := range exitStatuses {
				if s.returns(path) {
					codes = append(codes, fmt.Sprint(s.code))
				}
			}
			c.Long = strings.TrimRight(c.Long, "\n") + "\n\nExit status: " + strings.Join(codes[:len(codes)-1], ", ") +
				" or " + codes[len(codes)-1] + " ('gateway2tyk help exit-status' says what each means)."
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
