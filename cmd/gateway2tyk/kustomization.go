package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/filters"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/kustomization"
)

// renderKustomized is `render -k DIR PATH...` (and the Argo CD plugin's large-app path): PATHs hold what `kustomize build DIR` printed without the
// transformer. Like kustomize with a failing transformer, it prints nothing when the render fails.
func renderKustomized(stdin io.Reader, stdout, stderr io.Writer, context, namespace, dir, configPath string, paths []string) error {
	items, fnConfig, app, err := readKustomized("render", dir, configPath, paths, stdin)
	if err != nil {
		return err
	}
	in := &inputSet{fnConfig: fnConfig, configFile: configSource(configPath, app)}
	if _, err := in.loadConfig(); err != nil {
		return usage("render: %v", err)
	}
	rl := &framework.ResourceList{Items: items, FunctionConfig: fnConfig}
	var counts fn.Counts
	procErr := fn.Processor{Context: context, Counts: &counts, DefaultNamespace: namespace, Dir: dir}.Process(rl)
	reportRender(stderr, rl, procErr, counts, nil)
	if procErr != nil {
		return &reportedError{procErr}
	}
	out, err := (&filters.IsLocalConfig{}).Filter(rl.Items)
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	w := bufio.NewWriterSize(stdout, 1<<20)
	if err := kustomization.Write(w, out, app.Order); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	return w.Flush()
}

// readKustomized reads `-k DIR PATH...`: PATHs (- for stdin) hold what `kustomize build DIR` printed (without
// gateway2tyk, or with it: the render's own earlier output is read past). The items are kustomize's objects and
// DIR's cluster facts, the config DIR's RenderConfig unless configPath names one. An application that cannot be
// rendered that way is *kustomization.Unfaithful; any other problem is a usage error prefixed with name.
func readKustomized(name, dir, configPath string, paths []string, stdin io.Reader) ([]*yaml.RNode, *yaml.RNode, *kustomization.App, error) {
	// The application directory is read while kustomize's output is parsed: both are YAML parses of about the
	// same size, and they are independent.
	type loaded struct {
		app *kustomization.App
		err error
	}
	appc := make(chan loaded, 1)
	go func() {
		app, err := kustomization.Load(dir)
		appc <- loaded{app, err}
	}()
	var items []*yaml.RNode
	var readErr error
	for _, p := range paths {
		nodes, err := readStream(p, stdin)
		if err != nil {
			readErr = err
			break
		}
		items = append(items, nodes...)
	}
	l := <-appc
	app, err := l.app, l.err
	if err != nil {
		if _, ok := err.(*kustomization.Unfaithful); ok {
			return nil, nil, nil, err
		}
		return nil, nil, nil, usage("%s: %v", name, err)
	}
	if app.Kustomization == "" {
		self := name + " " + dir
		if name == "explain" {
			self = "explain --request ... " + dir
		}
		return nil, nil, nil, usage("%s: -k %s: the directory holds no kustomization (%s), and -k reads what kustomize "+
			"built of one; give the directory's files to %s itself: `gateway2tyk %s`", name, dir,
			strings.Join(kustomization.FileNames, ", "), name, self)
	}
	if readErr != nil {
		return nil, nil, nil, usage("%s: %v", name, readErr)
	}
	fnConfig := app.Config
	if configPath != "" {
		if _, fnConfig, err = readPaths(nil, configPath, nil); err != nil {
			return nil, nil, nil, usage("%s: %v", name, err)
		}
	}
	// kustomize prints nothing when it fails: without a single object, the render would delete every API.
	if len(items) == 0 {
		return nil, nil, nil, usage("%s: %s holds no object: did `kustomize build %s` fail?", name, strings.Join(paths, ", "), dir)
	}
	return append(items, app.Facts...), fnConfig, app, nil
}

// errStdinTerminal refuses to wait for a YAML stream a user would have to type.
var errStdinTerminal = errors.New("- is stdin, which is a terminal here: pipe the YAML stream in (kustomize build DIR | ...) or name a file")

// readStream reads the objects of a YAML stream file, or of stdin for "-".
func readStream(path string, stdin io.Reader) ([]*yaml.RNode, error) {
	r := stdin
	if path == "-" && isTerminal(stdin) {
		return nil, errStdinTerminal
	}
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fileName(path), err)
	}
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(data), OmitReaderAnnotations: true}).Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %s", fileName(path), yamlError(data, err))
	}
	return nodes, nil
}

// detachTransformer is `configure --detach-transformer DIR`: it checks that DIR can take the large-app path and
// removes gateway2tyk from its kustomization's transformers, saying on w what it changed.
func detachTransformer(w io.Writer, dir string) error {
	app, err := kustomization.LoadToDetach(dir)
	if err != nil {
		if _, ok := err.(*kustomization.Unfaithful); ok {
			return err
		}
		return usage("configure: %v", err)
	}
	removed, err := app.Detach()
	if err != nil {
		return usage("configure: %v", err)
	}
	if removed == "" {
		fmt.Fprintf(w, "configure: nothing changed: gateway2tyk is not among the transformers of %s\n", orDir(app.Kustomization, dir))
		return nil
	}
	fmt.Fprintf(w, "configure: %s: removed %s from transformers\n", app.Kustomization, removed)
	return nil
}

func orDir(file, dir string) string {
	if file == "" {
		return dir + " (no kustomization)"
	}
	return file
}

// kustomizeBuild builds the kustomization dir with the kustomize on PATH and returns what render -k would render:
// kustomize's objects, dir's cluster facts, and the config (dir's RenderConfig unless configPath names one).
// gateway2tyk is left out of the build without changing a file: kustomize (5.8) runs no exec function without
// --enable-exec, and --enable-alpha-plugins lets it read past the RenderConfig among the transformers.
func kustomizeBuild(name, dir, configPath string) ([]*yaml.RNode, *yaml.RNode, error) {
	app, err := kustomization.Load(dir)
	if err != nil {
		if _, ok := err.(*kustomization.Unfaithful); ok {
			return nil, nil, err
		}
		return nil, nil, usage("diff: %s: %v", name, err)
	}
	if app.Transformer != "" && !isExecFunction(app.Config) {
		return nil, nil, usage("diff: %s: %s runs gateway2tyk as a container function, which kustomize would start "+
			"to build it; give kustomize's output with -k instead", name, app.Kustomization)
	}
	bin, err := exec.LookPath("kustomize")
	if err != nil {
		return nil, nil, usage("diff: %s: %s must be built by kustomize, which is not on PATH "+
			"(go install sigs.k8s.io/kustomize/kustomize/v5@v5.8.2)", name, app.Kustomization)
	}
	args := []string{"build"}
	if app.Transformer != "" {
		args = append(args, "--enable-alpha-plugins")
	}
	c := exec.Command(bin, append(args, dir)...)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, nil, usage("diff: %s: kustomize build: %s", name, msg)
	}
	items, err := (&kio.ByteReader{Reader: &stdout, OmitReaderAnnotations: true}).Read()
	if err != nil {
		return nil, nil, usage("diff: %s: kustomize build's output: %v", name, err)
	}
	fnConfig := app.Config
	if configPath != "" {
		if _, fnConfig, err = readPaths(nil, configPath, nil); err != nil {
			return nil, nil, usage("diff: %v", err)
		}
	}
	return append(items, app.Facts...), fnConfig, nil
}

// isExecFunction reports whether a function config's annotation runs an executable (not a container).
func isExecFunction(n *yaml.RNode) bool {
	spec, err := yaml.Parse(n.GetAnnotations()["config.kubernetes.io/function"])
	return err == nil && spec.Field("exec") != nil
}
