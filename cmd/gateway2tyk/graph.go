package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"

	"github.com/gateway2tyk/gateway2tyk/fn/graph"
)

func newGraphCommand() *cobra.Command {
	var configPath, kdir, format string
	cmd := &cobra.Command{
		Use:   "graph [-c CONFIG] [-k DIR] [-o mermaid|dot] PATH...",
		Short: "Print the topology of a render: GatewayClass, Gateways, listeners, routes, APIs, Services",
		Long: "graph renders the YAML files and directories given in memory and prints how their GatewayClass,\n" +
			"Gateways, listeners, HTTPRoutes, Tyk APIs and Services connect, as a Mermaid flowchart (the default)\n" +
			"or Graphviz DOT (-o dot). Rejected routes and listeners, and unresolved backends, are drawn red and\n" +
			"dashed with the reason. Nothing is decided here: the graph shows the render's own decisions.\n" +
			"A bad flag, path or function config exits with status 2; a graph is drawn whatever the results.\n" +
			"With -k DIR, the PATHs (- for stdin) hold what `kustomize build DIR` printed, as render -k takes them.",
		Args:          cobra.ArbitraryArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, paths []string) error {
			stderr := cmd.ErrOrStderr()
			// A bad command line is a usage error (exit status 2, printed on one line by exitStatus).
			var write func(*graph.Graph) string
			switch format {
			case "mermaid":
				write = (*graph.Graph).Mermaid
			case "dot":
				write = (*graph.Graph).DOT
			default:
				return usage("graph: -o %q: want mermaid or dot", format)
			}
			if len(paths) == 0 {
				return usage("graph: no PATH given: name the YAML files or directories to draw")
			}
			out, where, err := renderPaths(cmd, paths, configPath, kdir)
			var usageErr *usageError
			if out == nil || errors.As(err, &usageErr) {
				return err
			}
			// Inputs that cannot be read are left out of the graph: say which.
			for _, r := range out.Results {
				if r.Severity == framework.Error {
					fmt.Fprintln(stderr, r.String()+resultFile(r, where))
				}
			}
			if err != nil {
				fmt.Fprintln(stderr, "gateway2tyk graph:", strings.ReplaceAll(err.Error(), "\n", " "))
				return &reportedError{err}
			}
			if out.Counts.Gateways == 0 && out.Counts.Routes == 0 {
				fmt.Fprintln(stderr, "gateway2tyk graph: warning: the input holds no Gateway of ours and no HTTPRoute: the graph is empty")
			}
			if _, err := io.WriteString(cmd.OutOrStdout(), write(graph.Build(out.Attachment, out.Translation))); err != nil {
				fmt.Fprintln(stderr, "gateway2tyk graph:", err)
				return &reportedError{err}
			}
			return nil
		},
	}
	configFlag(cmd, &configPath)
	kustomizationFlag(cmd, &kdir)
	cmd.Flags().StringVarP(&format, "output", "o", "mermaid", "the output format: mermaid or dot")
	return cmd
}
