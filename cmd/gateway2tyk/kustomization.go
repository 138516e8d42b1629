package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/filters"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/kustomization"
)

// exitUseTransformer is the exit status of `render -k` and `configure --detach-transformer` when the
// application must be built with gateway2tyk as a kustomize transformer (kustomization.Unfaithful).
const exitUseTransformer = 3

// renderKustomized is `render -k DIR PATH...` (and the Argo CD plugin's large-app path): PATHs hold what `kustomize build DIR` printed without the
// transformer. Like kustomize with a failing transformer, it prints nothing when the render fails.
func renderKustomized(stdin io.Reader, stdout, stderr io.Writer, context, dir, configPath string, paths []string) error {
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
			return err
		}
		return usage("render: %v", err)
	}
	if readErr != nil {
		return usage("render: %v", readErr)
	}
	fnConfig := app.Config
	if configPath != "" {
		if _, fnConfig, err = readPaths(nil, configPath); err != nil {
			return usage("render: %v", err)
		}
	}
	// kustomize prints nothing when it fails: without a single object, the render would delete every API.
	if len(items) == 0 {
		return usage("render: %s holds no object: did `kustomize build %s` fail?", strings.Join(paths, ", "), dir)
	}
	rl := &framework.ResourceList{Items: append(items, app.Facts...), FunctionConfig: fnConfig}
	procErr := fn.Processor{Context: context}.Process(rl)
	if procErr != nil {
		// kustomize prints the function's error, which lists every result.
		fmt.Fprintln(stderr, procErr)
		return &reportedError{procErr}
	}
	for _, r := range rl.Results {
		fmt.Fprintln(stderr, r.String())
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

// readStream reads the objects of a YAML stream file, or of stdin for "-".
func readStream(path string, stdin io.Reader) ([]*yaml.RNode, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	nodes, err := (&kio.ByteReader{Reader: r, OmitReaderAnnotations: true}).Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return nodes, nil
}

// detachTransformer is `configure --detach-transformer DIR`: it checks that DIR can take the large-app path and
// removes gateway2tyk from its kustomization's transformers.
func detachTransformer(dir string) error {
	app, err := kustomization.LoadToDetach(dir)
	if err != nil {
		if _, ok := err.(*kustomization.Unfaithful); ok {
			return err
		}
		return usage("configure: %v", err)
	}
	if err := app.Detach(); err != nil {
		return usage("configure: %v", err)
	}
	return nil
}
