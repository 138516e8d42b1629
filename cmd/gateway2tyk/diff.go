package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/apidiff"
	"github.com/gateway2tyk/gateway2tyk/fn/kustomization"
)

func newDiffCommand() *cobra.Command {
	var configPath, output, failOn string
	var kdirs []string
	var gitForm bool
	cmd := &cobra.Command{
		Use: "diff [-c CONFIG] [-o text|markdown|json] [--fail-on KINDS] OLD NEW\n" +
			"  gateway2tyk diff [flags] --git REV [REV2] PATH",
		Short: "Report what a change does to the rendered APIs, for review in a pull request",
		Long: "diff renders OLD and NEW (each a file or directory as render takes them, or an already rendered YAML\n" +
			"stream) and reports per API what is added, removed and changed, the would-be status changes of routes,\n" +
			"listeners and Gateways, and the results that appear or disappear. With --git it compares PATH at git\n" +
			"revision REV with the working tree, or with revision REV2; a side whose kustomization only kustomize can\n" +
			"build is built with kustomize (on PATH). With -k DIR (once for both sides, or twice: OLD's, then NEW's),\n" +
			"OLD and NEW hold what `kustomize build DIR` printed, as render -k takes them.\n\n" +
			"Risky changes are marked; those of a kind --fail-on names make the exit status 1. Kinds: " +
			strings.Join(apidiff.KindNames(apidiff.RiskKinds), ", ") + ", all, none.",
		Args: func(cmd *cobra.Command, args []string) error {
			if gitForm {
				if len(args) < 2 || len(args) > 3 {
					return usage("diff --git takes REV [REV2] PATH (got %d arguments)", len(args))
				}
				return nil
			}
			if len(args) != 2 {
				return usage("diff takes OLD and NEW (got %d arguments); or --git REV [REV2] PATH", len(args))
			}
			return nil
		},
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "markdown" && output != "json" {
				return usage("diff: -o must be text, markdown or json (got %q)", output)
			}
			fail, err := apidiff.ParseFailOn(failOn)
			if err != nil {
				return usage("diff: %v", err)
			}
			var old, new *apidiff.Snapshot
			switch {
			case len(kdirs) > 2:
				return usage("diff: -k is given once (both sides) or twice (OLD's, then NEW's), not %d times", len(kdirs))
			case gitForm && len(kdirs) > 0:
				return usage("diff: --git builds each revision itself: -k is for OLD and NEW files of kustomize's output")
			case gitForm:
				old, new, err = gitSides(args, configPath)
			default:
				old, new, err = pathSides(cmd, args[0], args[1], configPath, kdirs)
			}
			if err != nil {
				return err
			}
			report, err := apidiff.Compare(old, new, fail)
			if err != nil {
				return usage("diff: %v", err)
			}
			if err := apidiff.WriteFormat(cmd.OutOrStdout(), output, report); err != nil {
				return err
			}
			if report.Failing > 0 {
				return &reportedError{fmt.Errorf("%d failing change(s)", report.Failing)}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&configPath, "config", "c", "", "the function config `FILE` for both sides (a RenderConfig or a ConfigMap)")
	profileFlag(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", "text, markdown (a pull request comment) or json")
	cmd.Flags().StringVar(&failOn, "fail-on", strings.Join(apidiff.KindNames(apidiff.DefaultFailOn), ","),
		"the kinds of risky change that make the exit status 1, separated by commas")
	cmd.Flags().StringArrayVarP(&kdirs, "kustomization", "k", nil,
		"the kustomization `DIR` whose 'kustomize build' output OLD and NEW hold (twice: OLD's, then NEW's)")
	cmd.Flags().BoolVar(&gitForm, "git", false, "compare PATH at git revision REV with the working tree (or with REV2)")
	return cmd
}

// pathSides renders (or reads, when already rendered) both sides.
func pathSides(cmd *cobra.Command, oldPath, newPath, configPath string, kdirs []string) (*apidiff.Snapshot, *apidiff.Snapshot, error) {
	// The two sides are two versions of one application: the owner of both is made from NEW's directory, so that
	// a copy of the old version elsewhere does not read as every API changing owner.
	if len(kdirs) > 0 {
		dir := kdirs[len(kdirs)-1]
		old, err := kustomizedSide(cmd, "OLD", kdirs[0], oldPath, configPath, dir)
		if err != nil {
			return nil, nil, err
		}
		new, err := kustomizedSide(cmd, "NEW", dir, newPath, configPath, dir)
		return old, new, err
	}
	dir := appDir([]string{newPath}, configPath)
	old, err := loadSide("OLD", []string{oldPath}, configPath, nil, dir)
	if err != nil {
		return nil, nil, err
	}
	new, err := loadSide("NEW", []string{newPath}, configPath, nil, dir)
	return old, new, err
}

// kustomizedSide is a side of `diff -k DIR`: kustomize's output, rendered as render -k renders it.
func kustomizedSide(cmd *cobra.Command, name, dir, path, configPath, ownerDir string) (*apidiff.Snapshot, error) {
	items, fnConfig, _, err := readKustomized("diff: "+name, dir, configPath, []string{path}, cmd.InOrStdin())
	if err != nil {
		return nil, err
	}
	s, err := apidiff.Render(items, fnConfig, ownerDir)
	if err != nil {
		return nil, usage("diff: %s: %v", name, err)
	}
	return s, nil
}

// gitSides extracts PATH at REV (and REV2) with git; a side that does not have PATH is empty, but PATH must be
// on one side at least. A side whose kustomization must be built is built with kustomize from the whole
// revision (its bases may be anywhere in the repository).
func gitSides(args []string, configPath string) (*apidiff.Snapshot, *apidiff.Snapshot, error) {
	path := args[len(args)-1]
	revs, err := apidiff.OpenRevisions(path)
	if err != nil {
		return nil, nil, usage("diff %v", err)
	}
	tmp, err := os.MkdirTemp("", "gateway2tyk-diff-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	side := func(rev, dir string) ([]string, func() (string, error), error) {
		p, present, err := revs.Extract(rev, filepath.Join(tmp, dir))
		if err != nil {
			return nil, nil, usage("diff %v", err)
		}
		if !present {
			return nil, nil, nil
		}
		whole := func() (string, error) {
			all := apidiff.Revision{Top: revs.Top, Rel: "."}
			top, _, err := all.Extract(rev, filepath.Join(tmp, dir+"-all"))
			if err != nil {
				return "", usage("diff %v", err)
			}
			return filepath.Join(top, filepath.FromSlash(revs.Rel)), nil
		}
		return []string{p}, whole, nil
	}
	oldPaths, oldWhole, err := side(args[0], "old")
	if err != nil {
		return nil, nil, err
	}
	var newPaths []string
	var newWhole func() (string, error)
	if len(args) == 3 {
		if newPaths, newWhole, err = side(args[1], "new"); err != nil {
			return nil, nil, err
		}
	} else if _, err := os.Stat(path); err == nil {
		newPaths = []string{path}
		newWhole = func() (string, error) { return path, nil }
	}
	if oldPaths == nil && newPaths == nil {
		return nil, nil, usage("diff --git: %s is on neither side (not in %s, nor in %s)", path, args[0], newSideName(args))
	}
	// Each revision is extracted without .git, but the application is the same directory of the repository on
	// both sides: its owner is made from PATH in the working tree (config.DefaultOwner).
	dir := appDir([]string{path}, configPath)
	old, err := loadSide("OLD", oldPaths, configPath, oldWhole, dir)
	if err != nil {
		return nil, nil, err
	}
	new, err := loadSide("NEW", newPaths, configPath, newWhole, dir)
	return old, new, err
}

func newSideName(args []string) string {
	if len(args) == 3 {
		return args[1]
	}
	return "the working tree"
}

// loadSide reads paths as render does and makes their snapshot; a problem with the paths or the config is a
// usage error naming the side. A kustomization that must be built is built with kustomize when build says where
// the side's directory is with everything around it (diff --git), and refused otherwise.
func loadSide(name string, paths []string, configPath string, build func() (string, error), ownerDir string) (*apidiff.Snapshot, error) {
	in, err := readInput(paths, configPath, nil)
	var items []*yaml.RNode
	var fnConfig *yaml.RNode
	if err == nil {
		if _, err := in.loadConfig(); err != nil {
			return nil, usage("diff: %s: %v", name, err)
		}
		items, fnConfig = in.items, in.fnConfig
	}
	var nb *kustomization.NeedsBuild
	if errors.As(err, &nb) && build != nil && len(paths) == 1 && nb.Dir == filepath.Clean(paths[0]) {
		dir, err := build()
		if err != nil {
			return nil, err
		}
		if items, fnConfig, err = kustomizeBuild(name, dir, configPath); err != nil {
			return nil, err
		}
		s, err := apidiff.Render(items, fnConfig, ownerDir)
		if err != nil {
			return nil, usage("diff: %s: %v", name, err)
		}
		return s, nil
	}
	if errors.As(err, &nb) && build != nil && len(paths) == 1 {
		rel, _ := filepath.Rel(paths[0], nb.Dir)
		return nil, usage("diff: %s: %s %s: diff --git builds a kustomization with kustomize when PATH is its "+
			"directory: give PATH/%s", name, filepath.Join(filepath.ToSlash(rel), filepath.Base(nb.Kustomization)), nb.Reason,
			filepath.ToSlash(rel))
	}
	if err != nil {
		return nil, inputError("diff", fmt.Errorf("%s: %w", name, err))
	}
	s, err := apidiff.Load(items, fnConfig, ownerDir)
	if err != nil {
		return nil, usage("diff: %s: %v", name, err)
	}
	return s, nil
}
