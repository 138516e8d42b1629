package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/inputfiles"
)

// newConfigureCommand sets fields of the RenderConfigs in a directory tree, in place. The Argo CD plugin uses it
// to apply an Application's parameters to its throw-away copy of the repository; the files are read and written
// with kyaml, so comments and field order stay and no YAML is edited as text.
func newConfigureCommand() *cobra.Command {
	var output, failOn string
	var detach bool
	cmd := &cobra.Command{
		Use:   "configure [--output-kind ConfigMap|TykOasApiDefinition] [--fail-on Error|Warning] DIR | configure --detach-transformer DIR",
		Short: "Set spec fields of every RenderConfig at or below DIR, in place",
		Long: "configure --output-kind and --fail-on set spec.output and spec.failOn in every gateway2tyk RenderConfig of\n" +
			"the YAML files at or below DIR, in place (the Argo CD plugin applies an Application's parameters this way\n" +
			"to its throw-away copy of the repository). Files are read and written with kyaml: comments, field order\n" +
			"and list indentation stay. A value the RenderConfig refuses changes no file.\n" +
			"configure --detach-transformer DIR removes gateway2tyk from the transformers of DIR's kustomization, for\n" +
			"the large-app path (kustomize build DIR | gateway2tyk render -k DIR -); exit status 3, changing nothing,\n" +
			"when DIR must keep it as a transformer. Each run prints the files it changed, and what in them.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usage("configure: give one DIR, the directory whose RenderConfigs (or kustomization) to change (got %d)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// What changed goes to stderr: in the Argo CD plugin, stdout is the manifests.
			if detach {
				return detachTransformer(cmd.ErrOrStderr(), args[0])
			}
			set := map[string]string{}
			if output != "" {
				set["output"] = output
			}
			if failOn != "" {
				set["failOn"] = failOn
			}
			if len(set) == 0 {
				return usage("configure: nothing to set: give --output-kind or --fail-on")
			}
			n, changes, err := configureTree(args[0], set)
			if err != nil {
				return usage("configure: %v", err)
			}
			if n == 0 {
				return usage("configure: no gateway2tyk RenderConfig at or below %s", args[0])
			}
			for _, c := range changes {
				fmt.Fprintln(cmd.ErrOrStderr(), "configure: "+c)
			}
			if len(changes) == 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "configure: nothing changed: %s already set in the RenderConfigs at or below %s\n",
					strings.Join(setList(set), ", "), args[0])
			}
			return nil
		},
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	// --output-kind, not --output: everywhere else -o/--output is the format of what a command prints, and
	// this sets which kind of object the render emits. --output is still read, and says it is deprecated.
	cmd.Flags().StringVar(&output, "output-kind", "", "spec.output to set: the kind each API is emitted as")
	cmd.Flags().StringVar(&output, "output", "", "spec.output to set")
	_ = cmd.Flags().MarkDeprecated("output", "use --output-kind (the same spec.output; -o/--output is a format elsewhere)")
	cmd.Flags().StringVar(&failOn, "fail-on", "", "spec.failOn to set")
	cmd.Flags().BoolVar(&detach, "detach-transformer", false, "remove gateway2tyk from the transformers of DIR's "+
		"kustomization, for 'kustomize build DIR | gateway2tyk render -k DIR -' (exit status 3 when DIR must keep it)")
	cmd.MarkFlagsMutuallyExclusive("detach-transformer", "output-kind")
	cmd.MarkFlagsMutuallyExclusive("detach-transformer", "output")
	cmd.MarkFlagsMutuallyExclusive("detach-transformer", "fail-on")
	return cmd
}

// setList is the fields to set as "spec.K=V", sorted.
func setList(set map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(set)) {
		out = append(out, "spec."+k+"="+set[k])
	}
	return out
}

// configureTree sets the fields in every RenderConfig of the YAML files below dir and returns how many
// RenderConfigs it found, and a line per field it changed ("FILE: RenderConfig NAME: spec.K: OLD -> NEW"); a
// file where nothing changes is not written. Each changed config must still load (config.Load), so a bad value
// is refused before any file is written.
func configureTree(dir string, set map[string]string) (int, []string, error) {
	type change struct {
		path  string
		nodes []*yaml.RNode
	}
	var changes []change
	var said []string
	count := 0
	l, err := inputfiles.List(dir)
	if err != nil {
		return 0, nil, err
	}
	for _, path := range l.Files {
		data, err := os.ReadFile(path)
		if err != nil {
			return 0, nil, err
		}
		if !bytes.Contains(data, []byte("gateway2tyk.io/")) && !bytes.Contains(data, []byte(config.Kind)) {
			continue
		}
		// The reader's annotations (index, sequence indent) let the writer give the file back as it was.
		nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(data), PreserveSeqIndent: true}).Read()
		if err != nil {
			return 0, nil, fmt.Errorf("%s: %w", path, err)
		}
		changed := false
		for _, n := range nodes {
			if !isFunctionConfig(n) {
				continue
			}
			count++
			for _, k := range slices.Sorted(maps.Keys(set)) {
				v := set[k]
				old, err := n.Pipe(yaml.Lookup("spec", k))
				if err != nil {
					return 0, nil, fmt.Errorf("%s: %w", path, err)
				}
				before := "(unset)"
				if old != nil {
					if before = yaml.GetValue(old); before == v {
						continue
					}
				}
				if err := n.PipeE(yaml.LookupCreate(yaml.MappingNode, "spec"), yaml.SetField(k, yaml.NewStringRNode(v))); err != nil {
					return 0, nil, fmt.Errorf("%s: %w", path, err)
				}
				said = append(said, fmt.Sprintf("%s: RenderConfig %s: spec.%s: %s -> %s", path, n.GetName(), k, before, v))
				changed = true
			}
			// A config of ours with a wrong kind or version is refused here as render refuses it.
			if _, err := config.Load(n); err != nil {
				return 0, nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		if changed {
			changes = append(changes, change{path, nodes})
		}
	}
	for _, c := range changes {
		var buf bytes.Buffer
		w := kio.ByteWriter{Writer: &buf, ClearAnnotations: []string{kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation,
			kioutil.SeqIndentAnnotation}}
		if err := w.Write(c.nodes); err != nil {
			return 0, nil, fmt.Errorf("%s: %w", c.path, err)
		}
		if err := os.WriteFile(c.path, buf.Bytes(), 0o644); err != nil {
			return 0, nil, err
		}
	}
	return count, said, nil
}
