// Command gateway2tyk renders Kubernetes Gateway API routes into Tyk OAS API definitions.
//
// With no arguments it is a KRM function: a ResourceList on stdin, a ResourceList on stdout, messages on
// stderr. `gateway2tyk render` renders files and directories for a local check before commit.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	kerrors "sigs.k8s.io/kustomize/kyaml/errors"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/fn/framework/command"
	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/krmio"
	"github.com/gateway2tyk/gateway2tyk/fn/kustomization"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// run executes the command line and returns the exit status.
func run(args []string) int { return runRoot(newRoot, args, os.Stderr) }

// runRoot runs the command newRoot makes. A panic anywhere below is a bug of gateway2tyk's, never the user's
// mistake: it is turned into one line (no Go stack trace reaches the user) asking for a bug report, with an exit
// status of its own (exitBug), so that a script or a pipeline does not read it as bad input.
func runRoot(newRoot func() *cobra.Command, args []string, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "gateway2tyk: internal error: %v: this is a bug in gateway2tyk, not in your input; please "+
				"report it at %s with the input that caused it and what `gateway2tyk version` prints\n", r, bugReports)
			code = exitBug
		}
	}()
	save := rememberVerdicts()
	defer save()
	root := newRoot()
	root.SetArgs(args)
	return exitStatus(root.Execute(), stderr)
}

// bugReports is where a panic asks to be reported.
const bugReports = "https://github.com/gateway2tyk/gateway2tyk/issues"

// usageError is a request the command cannot carry out as asked (a bad flag, request or path): exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usage(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// reportedError is a failure the command has already told the user about: exit status 1.
type reportedError struct{ error }

// unreachableError is a failure of something the command talks to, already told the user: exit status 4.
type unreachableError struct{ error }

// exitStatus turns a command's error into the exit status, printing what has not been printed yet on one line.
// Errors that cobra makes itself (unknown flag, missing argument) are usage errors.
func exitStatus(err error, stderr io.Writer) int {
	var reported *reportedError
	var unreachable *unreachableError
	var unfaithful *kustomization.Unfaithful
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &unreachable):
		return exitUnreachable
	case errors.As(err, &reported):
		return exitResults
	case errors.As(err, &unfaithful):
		fmt.Fprintln(stderr, "gateway2tyk:", err)
		return exitRefused
	}
	// One line: cobra's own messages hold newlines and tabs ("Did you mean this?\n\trender").
	fmt.Fprintln(stderr, "gateway2tyk:", strings.Join(strings.Fields(err.Error()), " "))
	return exitUsage
}

// reportKRM prints on stderr, after a KRM function run that did not fail, its results and the fallback owner's
// warning: kustomize keeps a transformer's results to itself and passes its stderr through, so without this a
// kustomize user never sees a warning. (A failing run prints them in its error.) kpt and Argo CD show stderr too.
func reportKRM(w io.Writer, results framework.Results, c fn.Counts) {
	if len(results) > 0 {
		fmt.Fprintf(w, "gateway2tyk: the render wrote its output, with %s:\n", count(len(results), "result"))
		for _, r := range results {
			fmt.Fprintln(w, "  "+r.String())
		}
	}
	if note := fn.FallbackOwnerNote(c); note != "" {
		fmt.Fprintln(w, "gateway2tyk: "+note)
	}
}

func newRoot() *cobra.Command {
	// kyaml's command prints the error without a final newline, so the next message would run on in the same
	// line of a log: it is printed here instead.
	//
	// The KRM path is command.Build's own (StandaloneDisabled: the ResourceList on stdin), with krmio.Execute in
	// place of framework.Execute: the same bytes out, written faster (see package krmio).
	processor := fn.Processor{Context: argoContext(), DefaultNamespace: os.Getenv(envDefaultNamespace), KustomizeDir: workingDir()}
	root := command.Build(processor, command.StandaloneDisabled, true)
	root.RunE = func(cmd *cobra.Command, args []string) error {
		// Run by hand on a terminal, the function would wait for a ResourceList without a word.
		if isTerminal(cmd.InOrStdin()) {
			return usage("with no command, gateway2tyk is a KRM function: it reads a ResourceList on stdin, which is " +
				"a terminal here; pipe one in (as kustomize and kpt do), or run 'gateway2tyk render PATH' " +
				"(gateway2tyk --help lists the commands)")
		}
		rw := &kio.ByteReadWriter{Reader: cmd.InOrStdin(), Writer: cmd.OutOrStdout(), KeepReaderAnnotations: true}
		var counts fn.Counts
		var results framework.Results
		p := processor
		p.Counts = &counts
		err := krmio.Execute(framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
			err := p.Process(rl)
			results = rl.Results
			return err
		}), rw)
		if err == nil {
			reportKRM(cmd.ErrOrStderr(), results, counts)
		}
		if err != nil {
			if printStack, _ := cmd.Flags().GetBool("stack"); printStack {
				if s := kerrors.GetStack(err); s != "" {
					fmt.Fprintln(cmd.ErrOrStderr(), s)
				}
			}
			fmt.Fprintln(cmd.ErrOrStderr(), err)
			return &reportedError{err}
		}
		return nil
	}
	// command.Build accepts any arguments (its standalone mode reads them as files); with the standalone mode off
	// they would be ignored and a mistyped subcommand would run the KRM function on stdin. Without an Args check
	// cobra refuses an unknown word on a root command that has subcommands, and suggests the closest one.
	root.Args = nil
	root.Use = "gateway2tyk"
	root.Short = "Render Kubernetes Gateway API routes into Tyk OAS APIs (a KRM function)"
	root.Long = "With no arguments, gateway2tyk is a KRM function: it reads a ResourceList on stdin and writes one on stdout.\n" +
		"Use it as a kustomize transformer, with kpt, or in an Argo CD Config Management Plugin."
	root.AddCommand(newRenderCommand(), newExplainCommand(), newConfigureCommand())
	root.AddCommand(newGraphCommand())
	root.AddCommand(newSyncCommand())
	root.AddCommand(newDiffCommand())
	root.AddCommand(newVersionCommand())
	// --version prints what `gateway2tyk version` prints.
	root.Version = "set"
	root.SetVersionTemplate("{{with .}}{{end}}" + versionText())
	root.InitDefaultVersionFlag()
	root.Flags().Lookup("version").Usage = "print what 'gateway2tyk version' prints"
	// command.Build's --stack is the KRM function's alone: no subcommand takes it.
	root.Flags().Lookup("stack").Usage = "with no subcommand (the KRM function): print the stack trace of a failure"
	root.AddCommand(newArgoCDCommand())
	root.AddCommand(newExitStatusTopic())
	addExitStatusLines(root)
	return root
}

// isTerminal reports whether r is a terminal (a user typing, not a pipe or a file).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// argoContext names the Argo CD application the render runs for, when it runs in a Config Management Plugin,
// so that a failure in a log names its application. It never changes the output.
func argoContext() string {
	if app := argoApplication(); app != "" {
		return "Argo CD application " + app
	}
	return ""
}
