// Command gateway2tyk renders Kubernetes Gateway API routes into Tyk OAS API definitions.
//
// With no arguments it is a KRM function: a ResourceList on stdin, a ResourceList on stdout, messages on
// stderr. `gateway2tyk render` renders files and directories for a local check before commit.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/fn/framework/command"

	"github.com/gateway2tyk/gateway2tyk/fn"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// run executes the command line and returns the exit status. A panic anywhere below is turned into a one-line
// error: no Go stack trace reaches the user.
func run(args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "gateway2tyk: internal error: %v (please report it with the input that caused it)\n", r)
			code = 2
		}
	}()
	root := newRoot()
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		return 1
	}
	return 0
}

func newRoot() *cobra.Command {
	// kyaml's command prints the error without a final newline, so the next message would run on in the same
	// line of a log: it is printed here instead.
	root := command.Build(fn.Processor{Context: argoContext()}, command.StandaloneDisabled, true)
	krm := root.RunE
	root.RunE = func(cmd *cobra.Command, args []string) error {
		err := krm(cmd, args)
		if err != nil {
			fmt.Fprintln(cmd.ErrOrStderr(), err)
		}
		return err
	}
	root.Use = "gateway2tyk"
	root.Short = "Render Kubernetes Gateway API routes into Tyk OAS APIs (a KRM function)"
	root.Long = "With no arguments, gateway2tyk is a KRM function: it reads a ResourceList on stdin and writes one on stdout.\n" +
		"Use it as a kustomize transformer, with kpt, or in an Argo CD Config Management Plugin."
	root.AddCommand(newRenderCommand())
	return root
}

// argoContext names the Argo CD application the render runs for, when it runs in a Config Management Plugin,
// so that a failure in a log names its application. It never changes the output.
func argoContext() string {
	name := os.Getenv("ARGOCD_APP_NAME")
	if name == "" {
		return ""
	}
	if ns := os.Getenv("ARGOCD_APP_NAMESPACE"); ns != "" {
		return "Argo CD application " + ns + "/" + name
	}
	return "Argo CD application " + name
}
