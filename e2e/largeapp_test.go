package e2e_test

// The large-app paths (issue 13): `kustomize build` of the inputs without the transformer, rendered after it by
// `gateway2tyk render -k`, must print the transformer path's bytes; the Argo CD plugin takes that path, falls
// back to the transformer where the application needs it, and renders a directory of plain YAML without
// kustomize. Each comparison is against what the real kustomize prints with gateway2tyk as its transformer.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gateway2tyk/gateway2tyk/bench/resourcelist"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

// generatedApps writes the benchmark fleet of n routes as application directories (resourcelist.WriteApps).
func generatedApps(t *testing.T, n int, seed uint64) string {
	t.Helper()
	var b bytes.Buffer
	resourcelist.Generate(&b, n, seed)
	dir := t.TempDir()
	if err := resourcelist.WriteApps(dir, &b); err != nil {
		t.Fatal(err)
	}
	return dir
}

// factsInBase is examples/basic with its cluster facts moved into a base kustomization.
func factsInBase(t *testing.T, root string) string {
	t.Helper()
	dir := copyAppTree(t, root, "examples/basic")
	if err := os.Mkdir(filepath.Join(dir, "facts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "cluster-facts.yaml"), filepath.Join(dir, "facts", "cluster-facts.yaml")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "facts", "kustomization.yaml"), "resources: [cluster-facts.yaml]\n")
	replaceIn("kustomization.yaml", "  - cluster-facts.yaml\n", "  - facts\n")(t, dir)
	return dir
}

// runTool runs a binary in dir and returns stdout, stderr and the exit status.
func runTool(t *testing.T, dir string, stdin []byte, bin string, args ...string) (stdout, stderr []byte, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	code = exitCode(cmd.Run())
	if code < 0 {
		t.Fatalf("%s %s did not run", bin, strings.Join(args, " "))
	}
	return o.Bytes(), e.Bytes(), code
}

func TestLargeAppKustomizePathGivesTheTransformersBytes(t *testing.T) {
	root := repoRoot(t)
	kustomize := findKustomize(t, root)
	bin := functionBinary(t, root)
	fleet := generatedApps(t, 150, 3)
	for _, c := range []struct{ name, dir string }{
		{"examples/basic", filepath.Join(root, "examples", "basic")},
		{"examples/storefront", filepath.Join(root, "examples", "storefront")},
		{"examples/secured", filepath.Join(root, "examples", "secured")},
		{"cluster facts in a base", factsInBase(t, root)},
		{"generated fleet of 150 routes", filepath.Join(fleet, resourcelist.AppKustomize)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(c.dir, "kustomization.yaml")); err != nil {
				t.Skipf("SKIPPED: %s has no kustomization.yaml", c.dir)
			}
			// The copy below is in no repository: its APIs get the fallback owner, where the application in the
			// repository is owned by its directory.
			want := bytes.ReplaceAll(kustomizeBuild(t, c.dir), []byte("gateway2tyk.io/owner: "+config.DefaultOwner(c.dir)+"\n"),
				[]byte("gateway2tyk.io/owner: "+config.FallbackOwner+"\n"))

			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(c.dir)); err != nil {
				t.Fatal(err)
			}
			if _, stderr, code := runTool(t, dir, nil, bin, "configure", "--detach-transformer", "."); code != 0 {
				t.Fatalf("configure --detach-transformer: exit %d\n%s", code, stderr)
			}
			k, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(k), "gateway2tyk.yaml") {
				t.Fatalf("the kustomization still names the transformer:\n%s", k)
			}
			inputs, stderr, code := runTool(t, dir, nil, kustomize, "build", ".")
			if code != 0 {
				t.Fatalf("kustomize build of the detached kustomization: exit %d\n%s", code, stderr)
			}
			if bytes.Contains(inputs, []byte("gateway2tyk.io/api-id")) {
				t.Fatalf("kustomize ran gateway2tyk although it was detached")
			}
			file := filepath.Join(t.TempDir(), "inputs.yaml")
			if err := os.WriteFile(file, inputs, 0o644); err != nil {
				t.Fatal(err)
			}
			got, stderr, code := runTool(t, dir, nil, bin, "render", "-k", ".", file)
			if code != 0 {
				t.Fatalf("render -k: exit %d\n%s", code, stderr)
			}
			sameBytes(t, "kustomize build with the transformer", want, "kustomize build, then render -k", got)

			piped, stderr, code := runTool(t, dir, inputs, bin, "render", "-k", ".", "-")
			if code != 0 {
				t.Fatalf("render -k . -: exit %d\n%s", code, stderr)
			}
			sameBytes(t, "kustomize build with the transformer", want, "kustomize build | render -k . -", piped)
		})
	}
}

func TestLargeAppRenderRefusesWhatIsNotTheTransformersInput(t *testing.T) {
	root := repoRoot(t)
	bin := functionBinary(t, root)
	basic := filepath.Join(root, "examples", "basic")

	// A failed `kustomize build` prints nothing: rendering nothing would delete every API.
	empty := filepath.Join(t.TempDir(), "empty.yaml")
	write(t, empty, "")
	stdout, stderr, code := runTool(t, basic, nil, bin, "render", "-k", ".", empty)
	if code != 2 || len(stdout) != 0 || !bytes.Contains(stderr, []byte("holds no object")) {
		t.Errorf("render -k of an empty stream: exit %d, stdout %q, stderr %s; want exit 2, nothing printed, and why", code, stdout, stderr)
	}

	// Detaching is a step of its own: with --output-kind or --fail-on it is refused before anything is changed.
	combined := copyAppTree(t, root, "examples/basic")
	before, err := os.ReadFile(filepath.Join(combined, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runTool(t, combined, nil, bin, "configure", "--detach-transformer", "--output-kind", "ConfigMap", "."); code != 2 {
		t.Errorf("configure --detach-transformer --output-kind: exit %d, stderr %s; want exit 2", code, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(combined, "kustomization.yaml")); !bytes.Equal(before, after) {
		t.Errorf("configure --detach-transformer --output-kind changed the kustomization:\n%s", after)
	}

	for _, c := range []struct {
		name  string
		edit  func(t *testing.T, dir string)
		wants string
	}{
		{"another transformer", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "labels.yaml"), "apiVersion: builtin\nkind: LabelTransformer\nmetadata: {name: team}\n"+
				"labels: {team: shop}\nfieldSpecs: [{path: metadata/labels, create: true}]\n")
			replaceIn("kustomization.yaml", "  - gateway2tyk.yaml\n", "  - labels.yaml\n  - gateway2tyk.yaml\n")(t, dir)
		}, `transformer "labels.yaml" is not gateway2tyk's`},
		{"gateway2tyk not last", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "labels.yaml"), "apiVersion: builtin\nkind: LabelTransformer\nmetadata: {name: team}\n"+
				"labels: {team: shop}\nfieldSpecs: [{path: metadata/labels, create: true}]\n")
			replaceIn("kustomization.yaml", "  - gateway2tyk.yaml\n", "  - gateway2tyk.yaml\n  - labels.yaml\n")(t, dir)
		}, "is not the last transformer"},
		{"a namespace over the cluster facts", func(t *testing.T, dir string) {
			appendTo("kustomization.yaml", "namespace: shop\n")(t, dir)
		}, "sets namespace"},
		{"fifo order", func(t *testing.T, dir string) {
			appendTo("kustomization.yaml", "sortOptions: {order: fifo}\n")(t, dir)
		}, "sortOptions.order is not legacy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyAppTree(t, root, "examples/basic")
			c.edit(t, dir)
			before, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			_, stderr, code := runTool(t, dir, nil, bin, "configure", "--detach-transformer", ".")
			if code != 3 || !bytes.Contains(stderr, []byte(c.wants)) {
				t.Errorf("configure --detach-transformer: exit %d, stderr %s; want exit 3 and %q", code, stderr, c.wants)
			}
			after, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Errorf("configure --detach-transformer changed a kustomization it refused:\n%s", after)
			}
			stdout, stderr, code := runTool(t, dir, nil, bin, "render", "-k", ".", filepath.Join(dir, "routes.yaml"))
			if code != 3 || len(stdout) != 0 {
				t.Errorf("render -k: exit %d, stdout %d bytes, stderr %s; want exit 3 and nothing printed", code, len(stdout), stderr)
			}
		})
	}
}

// objectSet is the objects of a YAML stream as canonical JSON, keyed by kind, namespace and name.
func objectSet(t *testing.T, b []byte) map[string]string {
	t.Helper()
	set := map[string]string{}
	for _, it := range parseStream(t, b) {
		j, err := it.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		set[it.GetKind()+" "+it.GetNamespace()+"/"+it.GetName()] = string(j)
	}
	return set
}

func TestArgoCDPluginLargeApps(t *testing.T) {
	root := repoRoot(t)
	plugin := readPluginConfig(t, filepath.Join(root, "plugin.yaml"))
	app := readApplication(t, root)
	// The generated fleet has warnings: without the example Application's GATEWAY2TYK_FAIL_ON=Warning, the
	// RenderConfig in git (failOn Error) decides, as for the kustomize build it is compared with.
	plain := *app.Spec.Source.Plugin
	plain.Env = nil
	app.Spec.Source.Plugin = &plain
	fleet := generatedApps(t, 120, 5)
	transformer := kustomizeBuild(t, filepath.Join(fleet, resourcelist.AppKustomize))

	withExtraTransformer := copyAppTree(t, root, "examples/basic")
	write(t, filepath.Join(withExtraTransformer, "labels.yaml"), "apiVersion: builtin\nkind: LabelTransformer\n"+
		"metadata: {name: team}\nlabels: {team: shop}\nfieldSpecs: [{path: metadata/labels, create: true}]\n")
	replaceIn("kustomization.yaml", "  - gateway2tyk.yaml\n", "  - labels.yaml\n  - gateway2tyk.yaml\n")(t, withExtraTransformer)
	extraWant := kustomizeBuild(t, withExtraTransformer)
	if !bytes.Contains(extraWant, []byte("team: shop")) || !bytes.Contains(extraWant, []byte("gateway2tyk.io/api-id")) {
		t.Fatalf("the fallback case does not exercise both transformers:\n%s", extraWant)
	}

	for _, sc := range cmpSidecars(t, root, true) {
		t.Run(sc.name, func(t *testing.T) {
			generate := func(t *testing.T, dir string) argoRun {
				t.Helper()
				r := runPluginCommand(t, plugin.Spec.Generate, dir, argoEnv(sc, t.TempDir(), app, nil))
				if r.code != 0 {
					t.Fatalf("generate: exit %d\nstderr:\n%s", r.code, r.stderr)
				}
				kubernetesObjects(t, r.stdout)
				return r
			}
			copyDir := func(t *testing.T, src string) string {
				dst := filepath.Join(t.TempDir(), "app")
				if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
					t.Fatal(err)
				}
				return dst
			}

			t.Run("generated kustomization: the transformer's bytes", func(t *testing.T) {
				r := generate(t, copyDir(t, filepath.Join(fleet, resourcelist.AppKustomize)))
				sameBytes(t, "kustomize build with the transformer", transformer, "the plugin's stdout", r.stdout)
			})

			t.Run("another transformer: falls back to the transformer path", func(t *testing.T) {
				r := generate(t, copyDir(t, withExtraTransformer))
				sameBytes(t, "kustomize build with both transformers", extraWant, "the plugin's stdout", r.stdout)
			})

			t.Run("directory of plain YAML: the same objects", func(t *testing.T) {
				dir := copyDir(t, filepath.Join(fleet, resourcelist.AppYAML))
				r := generate(t, dir)
				got, want := objectSet(t, r.stdout), objectSet(t, transformer)
				var missing, extra, differ []string
				for k, v := range want {
					switch g, ok := got[k]; {
					case !ok:
						missing = append(missing, k)
					case g != v:
						differ = append(differ, k)
					}
				}
				for k := range got {
					if _, ok := want[k]; !ok {
						extra = append(extra, k)
					}
				}
				sort.Strings(missing)
				sort.Strings(extra)
				sort.Strings(differ)
				if len(missing)+len(extra)+len(differ) > 0 {
					t.Errorf("the plain-YAML render differs from the transformer path: missing %v, extra %v, different %v",
						missing, extra, differ)
				}
				if len(want) < 300 {
					t.Fatalf("only %d objects: the fleet is not what this test needs", len(want))
				}
			})

			t.Run("directory of plain YAML: a failure prints nothing", func(t *testing.T) {
				dir := copyDir(t, filepath.Join(fleet, resourcelist.AppYAML))
				replaceIn("gateway2tyk.yaml", "output: ConfigMap", "output: Secret")(t, dir)
				r := runPluginCommand(t, plugin.Spec.Generate, dir, argoEnv(sc, t.TempDir(), app, nil))
				checkArgoFailure(t, r, []string{"spec.output", `"Secret"`})
			})
		})
	}
}
