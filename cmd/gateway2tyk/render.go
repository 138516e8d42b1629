package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/filters"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

func newRenderCommand() *cobra.Command {
	var configPath, kustomizationDir string
	cmd := &cobra.Command{
		Use:   "render [-c CONFIG] [-k DIR] PATH...",
		Short: "Render YAML files and directories and print the output as a YAML stream",
		Long: "render reads the YAML files and directories given (directories recursively), runs the function over\n" +
			"them and prints the result as a plain multi-document YAML stream; results go to stderr. The function\n" +
			"config is the file given with -c, or else a RenderConfig found among the inputs.\n" +
			"With -k DIR, the PATHs (- for stdin) hold what `kustomize build DIR` printed without gateway2tyk as a\n" +
			"transformer: the config and the cluster facts come from DIR, and the output is what kustomize would\n" +
			"print with the transformer (exit status 3 when DIR's kustomization cannot be rendered that way).",
		Args:          cobra.MinimumNArgs(1),
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, paths []string) error {
			if kustomizationDir != "" {
				return renderKustomized(cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), argoContext(), kustomizationDir, configPath, paths)
			}
			return renderFiles(cmd.OutOrStdout(), cmd.ErrOrStderr(), argoContext(), paths, configPath)
		},
	}
	cmd.Flags().StringVarP(&configPath, "config", "c", "", "the function config (a RenderConfig or a ConfigMap)")
	cmd.Flags().StringVarP(&kustomizationDir, "kustomization", "k", "",
		"the application directory whose `kustomize build` output the PATHs hold (the large-app kustomize path)")
	return cmd
}

// renderFiles is `render PATH...`: it renders the files and directories and writes the output, even when the
// render fails at failOn (a local check shows what would be applied). context prefixes the error (fn.Processor).
func renderFiles(stdout, stderr io.Writer, context string, paths []string, configPath string) error {
	items, fnConfig, err := readPaths(paths, configPath)
	if err != nil {
		return usage("render: %v", err)
	}
	rl := &framework.ResourceList{Items: items, FunctionConfig: fnConfig}
	// The processor's error repeats every result; render prints the results itself, so the error's first
	// line (the summary, with the Argo CD application when there is one) is printed alone.
	procErr := fn.Processor{Context: context}.Process(rl)
	for _, r := range rl.Results {
		fmt.Fprintln(stderr, r.String())
	}
	if procErr != nil {
		fmt.Fprintln(stderr, strings.SplitN(procErr.Error(), "\n", 2)[0])
	}
	// Local-config items describe the cluster for the render and are not deployed; kustomize and kpt
	// leave them out of their output, and so does a local render.
	if rl.Items, err = (&filters.IsLocalConfig{}).Filter(rl.Items); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	w := kio.ByteWriter{Writer: stdout, ClearAnnotations: []string{
		kioutil.PathAnnotation, kioutil.IndexAnnotation, kioutil.LegacyPathAnnotation, kioutil.LegacyIndexAnnotation,
		kioutil.IdAnnotation, kioutil.LegacyIdAnnotation,
	}}
	if err := w.Write(rl.Items); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	if procErr != nil {
		return &reportedError{procErr}
	}
	return nil
}

// readPaths reads the items of every path. Kustomization and Kptfile objects are build files, not resources,
// and a RenderConfig among the inputs is the function config (unless -c names one), so none of them is an item.
func readPaths(paths []string, configPath string) ([]*yaml.RNode, *yaml.RNode, error) {
	var items []*yaml.RNode
	var fnConfig *yaml.RNode
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		var nodes []*yaml.RNode
		if info.IsDir() {
			nodes, err = kio.LocalPackageReader{PackagePath: p, OmitReaderAnnotations: true}.Read()
		} else {
			var f *os.File
			if f, err = os.Open(p); err == nil {
				nodes, err = (&kio.ByteReader{Reader: f, OmitReaderAnnotations: true}).Read()
				f.Close()
			}
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p, err)
		}
		for _, n := range nodes {
			switch n.GetKind() {
			case "Kustomization", "Component", "Kptfile":
				continue
			case "RenderConfig":
				if fnConfig == nil {
					fnConfig = n
				}
				continue
			}
			items = append(items, n)
		}
	}
	if configPath != "" {
		data, err := os.ReadFile(configPath)
		if err != nil {
			return nil, nil, err
		}
		if fnConfig, err = yaml.Parse(string(data)); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", configPath, err)
		}
	}
	return items, fnConfig, nil
}

// renderPaths reads PATHs and the function config as render does and renders them in memory, for the read-only
// views (explain, graph). A problem with the paths or the config is a usage error; prefix names the command.
func renderPaths(prefix string, paths []string, configPath string) (*fn.Output, error) {
	items, fnConfig, err := readPaths(paths, configPath)
	if err != nil {
		return nil, usage("%s%v", prefix, err)
	}
	cfg, err := config.Load(fnConfig)
	if err != nil {
		return nil, usage("%s%v", prefix, err)
	}
	return fn.Render(items, cfg)
}
