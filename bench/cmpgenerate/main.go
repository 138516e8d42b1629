// Command cmpgenerate runs the generate command of an Argo CD Config Management Plugin config the way
// argocd-cmp-server runs it in the sidecar (the command and args executed directly, in a copy of the application
// directory whose files are mode 0644, with the sidecar's PATH and the build environment of an Application), for
// bench/pipelines.sh to time:
//
//	cmpgenerate -plugin plugin.yaml -app DIR -path PATH > objects.yaml
//
// stdout and stderr are the command's; the exit status is the command's. e2e/argocd_test.go emulates the sidecar
// the same way and checks what the plugin prints.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
)

type command struct {
	Command []string `json:"command"`
	Args    []string `json:"args"`
}

type pluginConfig struct {
	Spec struct {
		Generate command `json:"generate"`
	} `json:"spec"`
}

func main() {
	plugin := flag.String("plugin", "plugin.yaml", "the ConfigManagementPlugin config")
	app := flag.String("app", "", "the application directory (copied first, as Argo CD gives the sidecar a copy)")
	path := flag.String("path", os.Getenv("PATH"), "PATH in the sidecar")
	cache := flag.String("cache", "", "GATEWAY2TYK_CACHE in the sidecar: the memory of verdicts, which the documented "+
		"sidecar (examples/argocd/repo-server-patch.yaml) keeps on its emptyDir across renders; empty: not set")
	flag.Parse()
	if err := run(*plugin, *app, *path, *cache); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			os.Exit(ee.ExitCode())
		}
		fmt.Fprintln(os.Stderr, "cmpgenerate:", err)
		os.Exit(2)
	}
}

func run(pluginFile, app, path, cache string) error {
	b, err := os.ReadFile(pluginFile)
	if err != nil {
		return err
	}
	var c pluginConfig
	if err := k8syaml.Unmarshal(b, &c); err != nil {
		return fmt.Errorf("%s: %w", pluginFile, err)
	}
	if len(c.Spec.Generate.Command) == 0 {
		return fmt.Errorf("%s has no generate command", pluginFile)
	}
	tmp, err := os.MkdirTemp("", "cmpgenerate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "repo", "app")
	if err := os.CopyFS(dir, os.DirFS(app)); err != nil {
		return err
	}
	if err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chmod(p, 0o644)
	}); err != nil {
		return err
	}
	argv := append(append([]string{}, c.Spec.Generate.Command...), c.Spec.Generate.Args...)
	bin, err := lookPath(argv[0], path)
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, argv[1:]...)
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + path, "HOME=" + tmp,
		"ARGOCD_APP_NAME=fleet", "ARGOCD_APP_NAMESPACE=shop", "ARGOCD_APP_PROJECT_NAME=default",
		"ARGOCD_APP_SOURCE_PATH=app", "ARGOCD_APP_REVISION=3f1c2a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a",
		"KUBE_VERSION=1.34.1",
	}
	if cache != "" {
		cmd.Env = append(cmd.Env, "GATEWAY2TYK_CACHE="+cache)
	}
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// lookPath finds name in the sidecar's PATH, not in ours.
func lookPath(name, path string) (string, error) {
	if filepath.IsAbs(name) {
		return name, nil
	}
	for _, d := range filepath.SplitList(path) {
		if info, err := os.Stat(filepath.Join(d, name)); err == nil && !info.IsDir() {
			return filepath.Join(d, name), nil
		}
	}
	return "", fmt.Errorf("%s is not in the sidecar's PATH %s", name, path)
}
