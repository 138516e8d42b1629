package e2e_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// run runs the gateway2tyk binary from the repository root with stdin and extra environment, and returns
// stdout, stderr and the exit status.
func run(t *testing.T, bin, root string, stdin []byte, env []string, args ...string) (stdout, stderr []byte, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = root
	// The binary must not read the Argo CD variables of whoever runs the tests unless a test sets them.
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "ARGOCD_") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = exitCode(err)
	if code < 0 {
		t.Fatalf("gateway2tyk %s did not run: %v", strings.Join(args, " "), err)
	}
	return o.Bytes(), e.Bytes(), code
}

// noStackTrace fails t when a Go panic or stack trace reached the user.
func noStackTrace(t *testing.T, stderr []byte) {
	t.Helper()
	for _, s := range []string{"goroutine ", "panic: ", "runtime/debug."} {
		if bytes.Contains(stderr, []byte(s)) {
			t.Errorf("stderr holds %q, a Go stack trace or source location:\n%s", s, stderr)
		}
	}
}

func TestRenderDirectory(t *testing.T) {
	root := repoRoot(t)
	bin := functionBinary(t, root)

	stdout, stderr, code := run(t, bin, root, nil, nil, "render", exampleDir)
	if code != 0 {
		t.Fatalf("gateway2tyk render %s: exit %d\nstderr:\n%s", exampleDir, code, stderr)
	}
	noStackTrace(t, stderr)

	// A plain YAML stream: objects, no ResourceList around them, no reader annotations on them.
	items := parseStream(t, stdout)
	if len(items) == 0 {
		t.Fatalf("no objects on stdout")
	}
	for _, it := range items {
		if it.GetKind() == "ResourceList" || it.GetApiVersion() == "config.kubernetes.io/v1" {
			t.Fatalf("stdout is a ResourceList, want a plain YAML stream:\n%s", stdout)
		}
	}
	for _, a := range []string{
		kioutil.PathAnnotation, kioutil.LegacyPathAnnotation, kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation,
		kioutil.IdAnnotation, kioutil.LegacyIdAnnotation,
	} {
		if bytes.Contains(stdout, []byte(a+":")) {
			t.Errorf("stdout holds the reader annotation %s:\n%s", a, stdout)
		}
	}
	// The build files and the function config are not resources.
	for _, kind := range []string{"Kustomization", "RenderConfig"} {
		for _, it := range items {
			if it.GetKind() == kind {
				t.Errorf("stdout holds the %s %s, which is not a resource", kind, it.GetName())
			}
		}
	}
	checkBasicAPIs(t, items)
	checkBasicStatus(t, items)
}

func TestRenderBadConfig(t *testing.T) {
	root := repoRoot(t)
	bin := functionBinary(t, root)

	for _, c := range []struct {
		name, config, field string
	}{
		{"bad value", "apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: x}\nspec:\n  output: Bogus\n", "spec.output"},
		{"unknown field", "apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: x}\nspec:\n  outptu: ConfigMap\n", "spec.outptu"},
		{"wrong type", "apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: x}\nspec:\n  failOn: [Error]\n", "spec.failOn"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(cfg, []byte(c.config), 0o644); err != nil {
				t.Fatal(err)
			}
			_, stderr, code := run(t, bin, root, nil, nil, "render", "-c", cfg, exampleDir)
			if code == 0 {
				t.Errorf("exit 0 with a bad function config, want non-zero; stderr:\n%s", stderr)
			}
			if !bytes.Contains(stderr, []byte(c.field)) {
				t.Errorf("stderr does not name the field %s:\n%s", c.field, stderr)
			}
			noStackTrace(t, stderr)
		})
	}
}

// krmInput is examples/basic as the ResourceList a KRM function runner sends.
func krmInput(t *testing.T) []byte {
	t.Helper()
	items, fnConfig := readExample(t)
	return resourceList(t, items, fnConfig)
}

func TestKRMFunctionMode(t *testing.T) {
	root := repoRoot(t)
	bin := functionBinary(t, root)
	input := krmInput(t)

	stdout, stderr, code := run(t, bin, root, input, nil)
	if code != 0 {
		t.Fatalf("gateway2tyk (KRM mode): exit %d\nstderr:\n%s", code, stderr)
	}
	noStackTrace(t, stderr)
	rl, err := yaml.Parse(string(stdout))
	if err != nil {
		t.Fatalf("stdout is not YAML: %v\n%s", err, stdout)
	}
	if rl.GetApiVersion() != "config.kubernetes.io/v1" || rl.GetKind() != "ResourceList" {
		t.Fatalf("stdout is %s %s, want a config.kubernetes.io/v1 ResourceList:\n%s", rl.GetApiVersion(), rl.GetKind(), stdout)
	}
	items := parseResourceList(t, stdout)
	checkBasicAPIs(t, items)
	checkBasicStatus(t, items)

	// The binary writes what the function writes in process.
	sameBytes(t, "the in-process function's output", execute(t, input), "the binary's stdout", stdout)
}

func TestKRMFunctionModeBadConfig(t *testing.T) {
	root := repoRoot(t)
	bin := functionBinary(t, root)
	items, fnConfig := readExample(t)
	if err := fnConfig.PipeE(yaml.LookupCreate(yaml.MappingNode, "spec"), yaml.SetField("output", yaml.NewStringRNode("Bogus"))); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, bin, root, resourceList(t, items, fnConfig), nil)
	if code == 0 {
		t.Errorf("exit 0 with a bad function config, want non-zero; stderr:\n%s", stderr)
	}
	if !bytes.Contains(stderr, []byte("spec.output")) {
		t.Errorf("stderr does not name the field spec.output:\n%s", stderr)
	}
	if !bytes.HasSuffix(stderr, []byte("\n")) {
		t.Errorf("stderr does not end with a newline, so the next message of a log would run on:\n%q", stderr)
	}
	noStackTrace(t, stderr)
	// The output is still written: a ResourceList whose results name the field.
	rl, err := yaml.Parse(string(stdout))
	if err != nil || rl.GetKind() != "ResourceList" {
		t.Fatalf("stdout is not a ResourceList (%v):\n%s", err, stdout)
	}
	results, err := rl.Pipe(yaml.Lookup("results"))
	if err != nil || results == nil {
		t.Fatalf("the ResourceList has no results:\n%s", stdout)
	}
	s, _ := results.String()
	if !strings.Contains(s, "spec.output") || !strings.Contains(s, "severity: error") {
		t.Errorf("results do not hold an error naming spec.output:\n%s", s)
	}
}

func TestArgoCDEnvironmentChangesNoOutput(t *testing.T) {
	root := repoRoot(t)
	bin := functionBinary(t, root)
	argo := []string{"ARGOCD_APP_NAME=shop", "ARGOCD_APP_NAMESPACE=argocd"}

	t.Run("KRM mode", func(t *testing.T) {
		input := krmInput(t)
		plain, _, code := run(t, bin, root, input, nil)
		withArgo, stderr, argoCode := run(t, bin, root, input, argo)
		if code != 0 || argoCode != 0 {
			t.Fatalf("exit %d without, %d with the Argo CD variables; stderr:\n%s", code, argoCode, stderr)
		}
		sameBytes(t, "stdout without the Argo CD variables", plain, "stdout with them", withArgo)
	})

	t.Run("render", func(t *testing.T) {
		plain, _, code := run(t, bin, root, nil, nil, "render", exampleDir)
		withArgo, stderr, argoCode := run(t, bin, root, nil, argo, "render", exampleDir)
		if code != 0 || argoCode != 0 {
			t.Fatalf("exit %d without, %d with the Argo CD variables; stderr:\n%s", code, argoCode, stderr)
		}
		sameBytes(t, "stdout without the Argo CD variables", plain, "stdout with them", withArgo)
	})

	t.Run("failing render", func(t *testing.T) {
		cfg := filepath.Join(t.TempDir(), "config.yaml")
		bad := "apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: x}\nspec:\n  failOn: Warning\n  output: Bogus\n"
		if err := os.WriteFile(cfg, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		plain, _, code := run(t, bin, root, nil, nil, "render", "-c", cfg, exampleDir)
		withArgo, stderr, argoCode := run(t, bin, root, nil, argo, "render", "-c", cfg, exampleDir)
		if code == 0 || argoCode != code {
			t.Errorf("exit %d without, %d with the Argo CD variables: want the same non-zero status", code, argoCode)
		}
		sameBytes(t, "stdout without the Argo CD variables", plain, "stdout with them", withArgo)
		noStackTrace(t, stderr)
	})
}
