package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/filters"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/krmio"
)

func newRenderCommand() *cobra.Command {
	var configPath, kustomizationDir string
	cmd := &cobra.Command{
		Use:   "render [-c CONFIG] [-k DIR] PATH...",
		Short: "Render YAML files and directories and print the output as a YAML stream",
		Long: "render reads the YAML files and directories given (directories recursively), runs the function over\n" +
			"them (- for a YAML stream on stdin) and prints the result as a plain multi-document YAML stream; results\n" +
			"and a summary line go to stderr; when the render fails, nothing is printed on stdout. The function config\n" +
			"is the file given with -c, or else a RenderConfig found among the inputs.\n" +
			"With -k DIR, the PATHs (- for stdin) hold what `kustomize build DIR` printed without gateway2tyk as a\n" +
			"transformer: the config and the cluster facts come from DIR, and the output is what kustomize would\n" +
			"print with the transformer (exit status 3 when DIR's kustomization cannot be rendered that way).",
		Args:          needPaths("render"),
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, paths []string) error {
			if kustomizationDir != "" {
				return renderKustomized(cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), argoContext(), "", kustomizationDir, configPath, paths)
			}
			return renderFiles(cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), argoContext(), "", paths, configPath)
		},
	}
	configFlag(cmd, &configPath)
	kustomizationFlag(cmd, &kustomizationDir)
	return cmd
}

// renderPaths reads PATHs and the function config as render does (with kdir, as render -k does) and renders them
// in memory, for the read-only views (explain, graph). A problem with the paths or the config is a usage error
// naming the command. The map is where each object was read (inputSet.where).
func renderPaths(cmd *cobra.Command, paths []string, configPath, kdir string) (*fn.Output, map[string]string, error) {
	in, err := readInputs(cmd, paths, configPath, kdir)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := in.loadConfig()
	if err != nil {
		return nil, nil, usage("%s: %v", cmd.Name(), err)
	}
	out, err := fn.Render(in.items, cfg)
	return out, in.where, err
}

// kustomizationFlag is -k DIR of render and the read-only views. pflag reads a word in backquotes as the value's
// name in --help, so the usage names DIR that way and nothing else.
func kustomizationFlag(cmd *cobra.Command, dir *string) {
	cmd.Flags().StringVarP(dir, "kustomization", "k", "",
		"the kustomization `DIR` whose 'kustomize build' output the PATHs hold (- for stdin); its RenderConfig and cluster facts are read from DIR")
}

// reportRender prints a render's results on w, then the processor's error's first line (the Argo CD application
// and why the render fails) unless it only repeats a result (a bad RenderConfig is both), then the summary line
// that ends every render. The processor's error repeats every result below its first line.
func reportRender(w io.Writer, rl *framework.ResourceList, procErr error, c fn.Counts, where map[string]string) {
	warnings, errs := 0, 0
	for _, r := range rl.Results {
		fmt.Fprintln(w, r.String()+resultFile(r, where))
		switch r.Severity {
		case framework.Warning:
			warnings++
		case framework.Error:
			errs++
		}
	}
	if procErr != nil {
		first := strings.SplitN(procErr.Error(), "\n", 2)[0]
		repeats := false
		for _, r := range rl.Results {
			repeats = repeats || strings.Contains(first, r.Message)
		}
		if !repeats {
			fmt.Fprintln(w, first)
		}
	}
	gatewayAPI := 0
	for _, it := range rl.Items {
		if strings.HasPrefix(it.GetApiVersion(), gwv1.GroupName+"/") {
			gatewayAPI++
		}
	}
	if !c.Rendered {
		fmt.Fprintf(w, "gateway2tyk render: not rendered, %s\n", count(errs, "error"))
		return
	}
	if gatewayAPI == 0 {
		fmt.Fprintln(w, "gateway2tyk render: warning: the input holds no Gateway API object (GatewayClass, Gateway, HTTPRoute): nothing to render")
	}
	if note := fn.FallbackOwnerNote(c); note != "" {
		fmt.Fprintln(w, "gateway2tyk render: "+note)
	}
	fmt.Fprintf(w, "gateway2tyk render: %s, %s (%d accepted, %d not), %s, %s, %s\n",
		count(c.Gateways, "Gateway"), count(c.Routes, "HTTPRoute"), c.RoutesAccepted, c.Routes-c.RoutesAccepted,
		count(c.APIs, "API"), count(warnings, "warning"), count(errs, "error"))
}

// resultFile is " (FILE:LINE)" of the object a result is about, when the render read it from a file ("" else).
// An object that had no namespace is found under none.
func resultFile(r *framework.Result, where map[string]string) string {
	ref := r.ResourceRef
	if ref == nil || where == nil {
		return ""
	}
	group, _, found := strings.Cut(ref.APIVersion, "/")
	if !found {
		group = ""
	}
	for _, ns := range []string{ref.Namespace, ""} {
		if at, ok := where[group+"\x00"+ref.Kind+"\x00"+ns+"\x00"+ref.Name]; ok {
			return " (" + at + ")"
		}
	}
	return ""
}

// count is n and the noun, plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// needPaths refuses a command line without a PATH in words of the command's own (cobra's says "requires at
// least 1 arg(s), only received 0").
func needPaths(name string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usage("%s: no PATH given: name the YAML files or directories to read (with -k, the files of "+
				"kustomize's output, or - for stdin)", name)
		}
		return nil
	}
}

// configFlag is -c FILE of render and the read-only views.
func configFlag(cmd *cobra.Command, path *string) {
	cmd.Flags().StringVarP(path, "config", "c", "", "the function config `FILE` (a RenderConfig or a ConfigMap)")
	profileFlag(cmd)
}

// renderFiles is `render PATH...` (and the Argo CD plugin's plain-YAML path): it renders the files and
// directories (- for stdin) and writes the output. Like kustomize with a failing function, and like render -k, it
// prints nothing on stdout when the render fails at failOn: a pipeline into sync must never get part of the
// APIs, whose sync would delete the others. context prefixes the error (fn.Processor); namespace is the one the
// pipeline gives objects without one (Argo CD's destination).
func renderFiles(stdin io.Reader, stdout, stderr io.Writer, context, namespace string, paths []string, configPath string) error {
	in, err := readInput(paths, configPath, stdin)
	if err != nil {
		return inputError("render", err)
	}
	noteSkipped(stderr, "render", in.skipped)
	if _, err := in.loadConfig(); err != nil {
		return usage("render: %v", err)
	}
	rl := &framework.ResourceList{Items: in.items, FunctionConfig: in.fnConfig}
	var counts fn.Counts
	procErr := fn.Processor{Context: context, Counts: &counts, DefaultNamespace: namespace, Dir: appDir(paths, configPath)}.Process(rl)
	reportRender(stderr, rl, procErr, counts, in.where)
	if procErr != nil {
		return &reportedError{procErr}
	}
	// Local-config items describe the cluster for the render and are not deployed; kustomize and kpt
	// leave them out of their output, and so does a local render.
	if rl.Items, err = (&filters.IsLocalConfig{}).Filter(rl.Items); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	if err := krmio.WriteStream(stdout, rl.Items, []string{
		kioutil.PathAnnotation, kioutil.IndexAnnotation, kioutil.LegacyPathAnnotation, kioutil.LegacyIndexAnnotation,
		kioutil.IdAnnotation, kioutil.LegacyIdAnnotation,
	}); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	return nil
}

// noteSkipped says on w what of the inputs was left out, a line each.
func noteSkipped(w io.Writer, name string, skipped []string) {
	for _, s := range skipped {
		fmt.Fprintf(w, "gateway2tyk %s: skipped %s\n", name, s)
	}
}
