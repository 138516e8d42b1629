package e2e_test

// The Argo CD Config Management Plugin (plugin.yaml)'s commands run directly, with the variables Argo CD v3.6.1
// sets (as e2e/argocdcmp_test.go's real argocd-cmp-server shows them): what the real server cannot show is the
// exact bytes of stdout (the repo-server hands on objects as JSON) and the many small failure cases, which run
// here without a server. The command and args of plugin.yaml are executed in a copy of the Application's source
// directory whose files are mode 0644, with the sidecar's PATH (gateway2tyk and kustomize), the build
// environment (ARGOCD_APP_*, KUBE_VERSION, ...) and the Application's plugin env (ARGOCD_ENV_*) and parameters
// (PARAM_*, ARGOCD_APP_PARAMETERS).

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

// cmpCommand, cmpConfig and cmpParameter mirror Argo CD's ConfigManagementPlugin config (cmpserver/plugin), so
// that a strict decode refuses a field Argo CD would not read.
type cmpCommand struct {
	Command []string `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
}

type cmpParameter struct {
	Name           string            `json:"name"`
	Title          string            `json:"title,omitempty"`
	Tooltip        string            `json:"tooltip,omitempty"`
	Required       bool              `json:"required,omitempty"`
	ItemType       string            `json:"itemType,omitempty"`
	CollectionType string            `json:"collectionType,omitempty"`
	String         string            `json:"string,omitempty"`
	Array          []string          `json:"array,omitempty"`
	Map            map[string]string `json:"map,omitempty"`
}

type cmpConfig struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version  string     `json:"version,omitempty"`
		Init     cmpCommand `json:"init,omitempty"`
		Generate cmpCommand `json:"generate"`
		Discover struct {
			FileName string `json:"fileName,omitempty"`
			Find     struct {
				cmpCommand `json:",inline"`
				Glob       string `json:"glob,omitempty"`
			} `json:"find,omitempty"`
		} `json:"discover,omitempty"`
		AllowConcurrency bool `json:"allowConcurrency,omitempty"`
		LockRepo         bool `json:"lockRepo,omitempty"`
		Parameters       struct {
			Static  []cmpParameter `json:"static,omitempty"`
			Dynamic cmpCommand     `json:"dynamic,omitempty"`
		} `json:"parameters,omitempty"`
		PreserveFileMode bool `json:"preserveFileMode,omitempty"`
		ProvideGitCreds  bool `json:"provideGitCreds,omitempty"`
	} `json:"spec"`
}

// argoApplication is the part of examples/argocd/application.yaml that the plugin sees.
type argoApplication struct {
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Spec struct {
		Project string `json:"project"`
		Source  struct {
			RepoURL        string `json:"repoURL"`
			TargetRevision string `json:"targetRevision"`
			Path           string `json:"path"`
			Plugin         *struct {
				Name string `json:"name"`
				Env  []struct {
					Name  string `json:"name"`
					Value string `json:"value"`
				} `json:"env"`
			} `json:"plugin"`
		} `json:"source"`
		Destination struct {
			Namespace string `json:"namespace"`
		} `json:"destination"`
	} `json:"spec"`
}

func readPluginConfig(t *testing.T, file string) cmpConfig {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var c cmpConfig
	if err := k8syaml.UnmarshalStrict(b, &c); err != nil {
		t.Fatalf("%s is not a ConfigManagementPlugin config Argo CD can read: %v", file, err)
	}
	return c
}

func readApplication(t *testing.T, root string) argoApplication {
	t.Helper()
	file := filepath.Join(root, "examples", "argocd", "application.yaml")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var app argoApplication
	if err := k8syaml.Unmarshal(b, &app); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if app.Spec.Source.Plugin == nil || app.Spec.Source.Path == "" {
		t.Fatalf("%s: spec.source.path and spec.source.plugin must be set", file)
	}
	return app
}

func TestArgoCDPluginConfig(t *testing.T) {
	root := repoRoot(t)
	c := readPluginConfig(t, filepath.Join(root, "plugin.yaml"))

	if c.APIVersion != "argoproj.io/v1alpha1" || c.Kind != "ConfigManagementPlugin" {
		t.Errorf("plugin.yaml is %s %s, want argoproj.io/v1alpha1 ConfigManagementPlugin", c.APIVersion, c.Kind)
	}
	// With a version, Argo CD would name the plugin <name>-<version>.
	if c.Metadata.Name != "gateway2tyk" || c.Spec.Version != "" {
		t.Errorf("plugin name %q, version %q: want gateway2tyk and no version", c.Metadata.Name, c.Spec.Version)
	}
	if c.Spec.PreserveFileMode {
		t.Errorf("preserveFileMode is true: the plugin must not rely on executable files in the repository")
	}
	if len(c.Spec.Generate.Command) == 0 || len(c.Spec.Discover.Find.Command) == 0 {
		t.Fatalf("plugin.yaml needs a generate command and a discover.find command")
	}
	raw, err := os.ReadFile(filepath.Join(root, "plugin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The logic is in gateway2tyk, not in a shell script in YAML.
	for name, cmd := range map[string]cmpCommand{"generate": c.Spec.Generate, "discover": c.Spec.Discover.Find.cmpCommand} {
		if got := strings.Join(append(cmd.Command, cmd.Args...), " "); got != "gateway2tyk argocd "+name {
			t.Errorf("plugin.yaml's %s command is %q, want gateway2tyk argocd %s", name, got, name)
		}
	}
	// Every announced parameter is one the generate command reads as PARAM_<NAME> (Argo CD: upper-cased, every
	// character but A-Z, 0-9 and _ replaced by _).
	source, err := os.ReadFile(filepath.Join(root, "cmd", "gateway2tyk", "argocd.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range c.Spec.Parameters.Static {
		env := "PARAM_" + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(p.Name))
		if !strings.Contains(string(source), `"`+env+`"`) {
			t.Errorf("parameter %q is announced but gateway2tyk argocd generate does not read %s", p.Name, env)
		}
	}

	// The Component's copy (kustomize reads files only from inside its directory) is the same file.
	copyPath := filepath.Join(root, "examples", "argocd", "plugin.yaml")
	copied, err := os.ReadFile(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, copied) {
		t.Errorf("examples/argocd/plugin.yaml differs from plugin.yaml: run `cp plugin.yaml examples/argocd/plugin.yaml`")
	}

	// The example Application names this plugin and sets only variables the plugin reads.
	app := readApplication(t, root)
	if app.Spec.Source.Plugin.Name != c.Metadata.Name {
		t.Errorf("examples/argocd/application.yaml names the plugin %q, want %q", app.Spec.Source.Plugin.Name, c.Metadata.Name)
	}
	for _, e := range app.Spec.Source.Plugin.Env {
		if !strings.Contains(string(source), `"`+e.Name+`"`) {
			t.Errorf("the Application sets plugin env %s, which the generate command does not read as ARGOCD_ENV_%s", e.Name, e.Name)
		}
	}
	if _, err := os.Stat(filepath.Join(root, app.Spec.Source.Path, "kustomization.yaml")); err != nil {
		t.Errorf("the Application's source path %s holds no kustomization.yaml: %v", app.Spec.Source.Path, err)
	}
}

// cmpSidecar is a sidecar of argocd-repo-server as the gateway2tyk image makes it: a PATH holding gateway2tyk
// and kustomize, and nothing else (the plugin's commands need no shell).
type cmpSidecar struct {
	name string
	path string // PATH in the sidecar
}

// cmpSidecars returns the sidecar to run the plugin in (a list, so that the cases read as before).
func cmpSidecars(t *testing.T, root string, withFunction bool) []cmpSidecar {
	t.Helper()
	tools := t.TempDir()
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(tools, name)); err != nil {
			t.Fatal(err)
		}
	}
	link(findKustomize(t, root), "kustomize")
	if withFunction {
		link(functionBinary(t, root), "gateway2tyk")
	}
	return []cmpSidecar{{name: "sidecar", path: tools}}
}

// argoRun is one run of a plugin command by argocd-cmp-server.
type argoRun struct {
	stdout, stderr []byte
	code           int
}

// argoEnv is the environment argocd-cmp-server gives a plugin command: its own (the sidecar's) and the build
// environment of the Application, with its plugin env prefixed ARGOCD_ENV_ and its parameters.
func argoEnv(sc cmpSidecar, home string, app argoApplication, extra []string) []string {
	rev := "3f1c2a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"
	env := []string{
		"PATH=" + sc.path,
		"HOME=" + home,
		"HOSTNAME=argocd-repo-server-5d9f7c6b8-x2x7q",
		// The Application is in Argo CD's namespace (argocd): Argo CD names it plainly. ARGOCD_APP_NAMESPACE
		// is the destination namespace.
		"ARGOCD_APP_NAME=" + app.Metadata.Name,
		"ARGOCD_APP_NAMESPACE=" + app.Spec.Destination.Namespace,
		"ARGOCD_APP_PROJECT_NAME=" + app.Spec.Project,
		"ARGOCD_APP_REVISION=" + rev,
		"ARGOCD_APP_REVISION_SHORT=" + rev[:7],
		"ARGOCD_APP_REVISION_SHORT_8=" + rev[:8],
		"ARGOCD_APP_SOURCE_REPO_URL=" + app.Spec.Source.RepoURL,
		"ARGOCD_APP_SOURCE_PATH=" + app.Spec.Source.Path,
		"ARGOCD_APP_SOURCE_TARGET_REVISION=" + app.Spec.Source.TargetRevision,
		"KUBE_VERSION=1.34.1",
		"KUBE_API_VERSIONS=v1,apps/v1,gateway.networking.k8s.io/v1,gateway.networking.k8s.io/v1beta1,tyk.tyk.io/v1alpha1",
	}
	for _, e := range app.Spec.Source.Plugin.Env {
		env = append(env, "ARGOCD_ENV_"+e.Name+"="+e.Value)
	}
	// Later entries win, as with Argo CD's append of the request's variables to the sidecar's.
	return append(env, extra...)
}

// withParameters returns the variables Argo CD sets for string parameters of an Application.
func withParameters(params map[string]string) []string {
	var list []map[string]string
	var env []string
	for name, value := range params {
		list = append(list, map[string]string{"name": name, "string": value})
		env = append(env, "PARAM_"+strings.ToUpper(strings.ReplaceAll(name, "-", "_"))+"="+value)
	}
	b, _ := json.Marshal(list)
	return append(env, "ARGOCD_APP_PARAMETERS="+string(b))
}

// copyAppTree copies the directory src into a fresh repository copy at the same relative path, as the
// repo-server's tarball gives it to the sidecar: files mode 0644, directories 0755. It returns the copy of src.
func copyAppTree(t *testing.T, root, rel string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "repo", rel)
	err := filepath.WalkDir(filepath.Join(root, rel), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, err := filepath.Rel(filepath.Join(root, rel), p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, r)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, b, 0o644); err != nil {
			return err
		}
		return os.Chmod(target, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// runPluginCommand runs one command of plugin.yaml as argocd-cmp-server does: exec of command[0] with
// command[1:] and args, in dir, with exactly env.
func runPluginCommand(t *testing.T, cmd cmpCommand, dir string, env []string) argoRun {
	t.Helper()
	argv := append(append([]string{}, cmd.Command...), cmd.Args...)
	// exec.Command looks argv[0] up in the test's PATH; the sidecar looks it up in its own.
	path := ""
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "PATH="); ok {
			path = v
		}
	}
	bin := argv[0]
	if !strings.Contains(bin, "/") {
		for _, d := range filepath.SplitList(path) {
			if _, err := os.Stat(filepath.Join(d, bin)); err == nil {
				bin = filepath.Join(d, bin)
				break
			}
		}
	}
	c := exec.Command(bin, argv[1:]...)
	c.Dir = dir
	c.Env = env
	var o, e bytes.Buffer
	c.Stdout, c.Stderr = &o, &e
	err := c.Run()
	code := exitCode(err)
	if code < 0 {
		t.Fatalf("%v did not run: %v", argv, err)
	}
	return argoRun{stdout: o.Bytes(), stderr: e.Bytes(), code: code}
}

// kubernetesObjects splits the generate command's stdout as the repo-server does (gitops-engine's
// kube.SplitYAML: apimachinery's YAML-or-JSON decoder into unstructured objects) and fails t unless every
// document is a Kubernetes object.
func kubernetesObjects(t *testing.T, stdout []byte) []*unstructured.Unstructured {
	t.Helper()
	var objs []*unstructured.Unstructured
	d := k8syaml.NewYAMLOrJSONDecoder(bytes.NewReader(stdout), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := d.Decode(u); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatalf("stdout is not a stream of Kubernetes objects, as Argo CD needs: %v\n%s", err, stdout)
		}
		if u.Object == nil {
			continue
		}
		if u.GetAPIVersion() == "" || u.GetKind() == "" || u.GetName() == "" {
			t.Errorf("stdout holds a document that is not a Kubernetes object (apiVersion %q, kind %q, name %q)",
				u.GetAPIVersion(), u.GetKind(), u.GetName())
		}
		objs = append(objs, u)
	}
	return objs
}

func TestArgoCDPluginGenerate(t *testing.T) {
	root := repoRoot(t)
	plugin := readPluginConfig(t, filepath.Join(root, "plugin.yaml"))
	app := readApplication(t, root)
	appPath := app.Spec.Source.Path
	// What kustomize builds from the example outside Argo CD: the plugin must give the same bytes.
	want := kustomizeBuild(t, appPath)

	for _, sc := range cmpSidecars(t, root, true) {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			generate := func(t *testing.T, dir string, extra ...string) argoRun {
				t.Helper()
				return runPluginCommand(t, plugin.Spec.Generate, dir, argoEnv(sc, t.TempDir(), app, extra))
			}

			t.Run("example application", func(t *testing.T) {
				dir := copyAppTree(t, root, appPath)
				r := generate(t, dir)
				if r.code != 0 {
					t.Fatalf("generate: exit %d\nstderr:\n%s", r.code, r.stderr)
				}
				noStackTrace(t, r.stderr)
				objs := kubernetesObjects(t, r.stdout)
				for _, o := range objs {
					if o.GetAnnotations()["config.kubernetes.io/local-config"] == "true" {
						t.Errorf("%s %s/%s is local-config and must not be deployed", o.GetKind(), o.GetNamespace(), o.GetName())
					}
					for k := range o.GetAnnotations() {
						if strings.HasPrefix(k, "internal.config.kubernetes.io/") || strings.HasPrefix(k, "config.kubernetes.io/") {
							t.Errorf("%s %s/%s carries the build annotation %s", o.GetKind(), o.GetNamespace(), o.GetName(), k)
						}
					}
				}
				items := parseStream(t, r.stdout)
				checkBasicAPIs(t, items)
				checkBasicStatus(t, items)
				// The Argo CD variables, and the Application's failOn (the example has no warning), change no byte.
				// The plugin renders a copy of the application outside any repository (copyAppTree): the fallback
				// owner, where the application in the repository is owned by its directory.
				sameBytes(t, "kustomize build "+appPath, bytes.ReplaceAll(want,
					[]byte("gateway2tyk.io/owner: "+config.DefaultOwner(filepath.Join(root, appPath))+"\n"),
					[]byte("gateway2tyk.io/owner: "+config.FallbackOwner+"\n")), "the plugin's stdout", r.stdout)
			})

			t.Run("output from env and parameter", func(t *testing.T) {
				for _, c := range []struct {
					name  string
					extra []string
					want  string
				}{
					{"env", []string{"ARGOCD_ENV_GATEWAY2TYK_OUTPUT=TykOasApiDefinition"}, "TykOasApiDefinition"},
					{"parameter wins over env", append(withParameters(map[string]string{"output": "TykOasApiDefinition"}),
						"ARGOCD_ENV_GATEWAY2TYK_OUTPUT=ConfigMap"), "TykOasApiDefinition"},
					{"env ConfigMap", []string{"ARGOCD_ENV_GATEWAY2TYK_OUTPUT=ConfigMap"}, "ConfigMap"},
				} {
					t.Run(c.name, func(t *testing.T) {
						r := generate(t, copyAppTree(t, root, appPath), c.extra...)
						if r.code != 0 {
							t.Fatalf("generate: exit %d\nstderr:\n%s", r.code, r.stderr)
						}
						kubernetesObjects(t, r.stdout)
						items := parseStream(t, r.stdout)
						checkBasicAPIs(t, items)
						var defs int
						for _, e := range basicAPIs {
							def := find(items, "TykOasApiDefinition", e.namespace, e.id())
							if def == nil {
								continue
							}
							defs++
							if got := field(t, def, "spec", "tykOAS", "configmapRef", "name"); got != e.id() {
								t.Errorf("TykOasApiDefinition %s: configmapRef.name %q", e.id(), got)
							}
						}
						if wantDefs := map[string]int{"ConfigMap": 0, "TykOasApiDefinition": len(basicAPIs)}[c.want]; defs != wantDefs {
							t.Errorf("%d TykOasApiDefinitions, want %d (output %s)", defs, wantDefs, c.want)
						}
					})
				}
			})

			// A broken input: non-zero exit, nothing on stdout, and a stderr a person can act on (Argo CD shows it).
			for _, c := range []struct {
				name   string
				break_ func(t *testing.T, dir string)
				extra  []string
				want   []string
			}{
				{
					name:   "bad function config",
					break_: replaceIn("gateway2tyk.yaml", "output: ConfigMap", "output: Secret"),
					want:   []string{"spec.output", `"Secret"`, "Argo CD application shop-apis (destination namespace shop)"},
				},
				{
					name:   "route without backend port",
					break_: replaceIn("routes.yaml", "          port: 8080\n", ""),
					want:   []string{"HTTPRoute/shop/orders", "spec.rules[0].backendRefs[0]: Invalid value: Must have port for Service reference", "Argo CD application shop-apis (destination namespace shop)"},
				},
				{
					// The Application asks for GATEWAY2TYK_FAIL_ON=Warning: a route whose backend is missing fails the sync.
					name:   "warning with the Application's failOn",
					break_: replaceIn("routes.yaml", "        - name: orders\n", "        - name: no-such-service\n"),
					want:   []string{"BackendNotFound", "no-such-service", "at or above failOn Warning"},
				},
				{
					name:   "malformed YAML",
					break_: appendTo("services.yaml", "---\napiVersion: v1\nkind: Service\nmetadata: {name: broken\n"),
					want:   []string{"services.yaml"},
				},
				{
					name:  "bad output parameter",
					extra: withParameters(map[string]string{"output": "Bogus"}),
					want:  []string{"spec.output: must be one of ConfigMap, TykOasApiDefinition", `"Bogus"`, "Argo CD application shop-apis"},
				},
				{
					name:  "bad fail-on from the Application's env",
					extra: []string{"ARGOCD_ENV_GATEWAY2TYK_FAIL_ON=Sometimes"},
					want:  []string{"spec.failOn: must be one of", `"Sometimes"`, "Argo CD application shop-apis"},
				},
			} {
				t.Run(c.name, func(t *testing.T) {
					dir := copyAppTree(t, root, appPath)
					if c.break_ != nil {
						c.break_(t, dir)
					}
					r := generate(t, dir, c.extra...)
					checkArgoFailure(t, r, c.want)
				})
			}
		})
	}
}

func checkArgoFailure(t *testing.T, r argoRun, want []string) {
	t.Helper()
	if r.code == 0 {
		t.Fatalf("generate: exit 0, want non-zero\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	if len(bytes.TrimSpace(r.stdout)) != 0 {
		t.Errorf("stdout is not empty on failure (Argo CD could apply it):\n%s", r.stdout)
	}
	for _, w := range want {
		if !bytes.Contains(r.stderr, []byte(w)) {
			t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
		}
	}
	noStackTrace(t, r.stderr)
}

func replaceIn(file, old, new string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		p := filepath.Join(dir, file)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(old)) {
			t.Fatalf("%s does not hold %q", file, old)
		}
		if err := os.WriteFile(p, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func appendTo(file, text string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		f, err := os.OpenFile(filepath.Join(dir, file), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
	}
}

func TestArgoCDPluginDiscover(t *testing.T) {
	root := repoRoot(t)
	plugin := readPluginConfig(t, filepath.Join(root, "plugin.yaml"))
	app := readApplication(t, root)

	plainKustomization := func(t *testing.T, dir string) {
		t.Helper()
		write(t, filepath.Join(dir, "kustomization.yaml"), "resources: [service.yaml]\n")
		write(t, filepath.Join(dir, "service.yaml"), "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n")
	}
	for _, sc := range cmpSidecars(t, root, true) {
		t.Run(sc.name, func(t *testing.T) {
			for _, c := range []struct {
				name  string
				setup func(t *testing.T) string
				match bool
			}{
				{"the example application", func(t *testing.T) string { return copyAppTree(t, root, app.Spec.Source.Path) }, true},
				{"a kustomization without the function", func(t *testing.T) string {
					dir := t.TempDir()
					plainKustomization(t, dir)
					return dir
				}, false},
				// A directory of plain YAML with a RenderConfig: gateway2tyk renders it without kustomize.
				{"a RenderConfig without a kustomization", func(t *testing.T) string {
					dir := copyAppTree(t, root, app.Spec.Source.Path)
					if err := os.Remove(filepath.Join(dir, "kustomization.yaml")); err != nil {
						t.Fatal(err)
					}
					return dir
				}, true},
				{"plain YAML without a RenderConfig", func(t *testing.T) string {
					dir := t.TempDir()
					write(t, filepath.Join(dir, "service.yaml"), "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n")
					return dir
				}, false},
			} {
				t.Run(c.name, func(t *testing.T) {
					dir := c.setup(t)
					r := runPluginCommand(t, plugin.Spec.Discover.Find.cmpCommand, dir, argoEnv(sc, t.TempDir(), app, nil))
					if r.code != 0 {
						t.Fatalf("discover: exit %d (Argo CD counts that as an error)\nstderr:\n%s", r.code, r.stderr)
					}
					if got := len(bytes.TrimSpace(r.stdout)) > 0; got != c.match {
						t.Errorf("discover matched %v (stdout %q), want %v", got, r.stdout, c.match)
					}
				})
			}
		})
	}
}

func write(t *testing.T, file, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestArgoCDSidecarComponent builds examples/argocd (a Component) over a stand-in for Argo CD's install, with
// the repo-server's volumes, and checks the sidecar Argo CD needs.
func TestArgoCDSidecarComponent(t *testing.T) {
	root := repoRoot(t)
	kustomize := findKustomize(t, root)
	base := t.TempDir()
	write(t, filepath.Join(base, "repo-server.yaml"), argoInstallStandIn)
	component, err := filepath.Rel(base, filepath.Join(root, "examples", "argocd")) // kustomize wants it relative
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(base, "kustomization.yaml"), "namespace: argocd\nresources: [repo-server.yaml]\ncomponents: ["+component+"]\n")
	cmd := exec.Command(kustomize, "build", base)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kustomize build of an Argo CD install with examples/argocd: %v\n%s", err, stderr.String())
	}
	items := parseStream(t, out)

	cm := find(items, "ConfigMap", "argocd", "gateway2tyk-plugin")
	if cm == nil {
		t.Fatalf("no ConfigMap argocd/gateway2tyk-plugin in:\n%s", out)
	}
	plugin, err := os.ReadFile(filepath.Join(root, "plugin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if cm.GetDataMap()["plugin.yaml"] != string(plugin) {
		t.Errorf("ConfigMap gateway2tyk-plugin's plugin.yaml is not the repository's plugin.yaml")
	}

	dep := find(items, "Deployment", "argocd", "argocd-repo-server")
	if dep == nil {
		t.Fatalf("no Deployment argocd/argocd-repo-server in:\n%s", out)
	}
	var d struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Name            string   `json:"name"`
						Image           string   `json:"image"`
						Command         []string `json:"command"`
						SecurityContext struct {
							RunAsNonRoot *bool  `json:"runAsNonRoot"`
							RunAsUser    *int64 `json:"runAsUser"`
						} `json:"securityContext"`
						VolumeMounts []struct {
							Name      string `json:"name"`
							MountPath string `json:"mountPath"`
							SubPath   string `json:"subPath"`
						} `json:"volumeMounts"`
					} `json:"containers"`
					Volumes []struct {
						Name      string    `json:"name"`
						EmptyDir  *struct{} `json:"emptyDir"`
						ConfigMap *struct {
							Name string `json:"name"`
						} `json:"configMap"`
					} `json:"volumes"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	s, err := dep.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(s, &d); err != nil {
		t.Fatal(err)
	}
	pod := d.Spec.Template.Spec
	names := map[string]int{}
	for i, c := range pod.Containers {
		names[c.Name] = i
	}
	i, ok := names["gateway2tyk"]
	if _, repo := names["argocd-repo-server"]; !repo || !ok || len(pod.Containers) != 2 {
		t.Fatalf("containers %v: want the repo-server and the gateway2tyk sidecar", names)
	}
	sc := pod.Containers[i]
	if sc.Image == "" {
		t.Errorf("the sidecar has no image")
	}
	if len(sc.Command) != 1 || sc.Command[0] != "/var/run/argocd/argocd-cmp-server" {
		t.Errorf("sidecar command %v, want [/var/run/argocd/argocd-cmp-server]", sc.Command)
	}
	if r := sc.SecurityContext; r.RunAsNonRoot == nil || !*r.RunAsNonRoot || r.RunAsUser == nil || *r.RunAsUser != 999 {
		t.Errorf("sidecar securityContext: want runAsNonRoot true and runAsUser 999")
	}
	volumes := map[string]string{} // name -> "emptyDir" or "configMap:<name>"
	for _, v := range pod.Volumes {
		switch {
		case v.EmptyDir != nil:
			volumes[v.Name] = "emptyDir"
		case v.ConfigMap != nil:
			volumes[v.Name] = "configMap:" + v.ConfigMap.Name
		}
	}
	mounts := map[string]string{} // mountPath -> volume kind and subPath
	for _, m := range sc.VolumeMounts {
		mounts[m.MountPath] = m.Name + "|" + volumes[m.Name] + "|" + m.SubPath
	}
	for path, want := range map[string]string{
		"/var/run/argocd":                            "var-files|emptyDir|",
		"/home/argocd/cmp-server/plugins":            "plugins|emptyDir|",
		"/home/argocd/cmp-server/config/plugin.yaml": "gateway2tyk-plugin|configMap:gateway2tyk-plugin|plugin.yaml",
	} {
		if mounts[path] != want {
			t.Errorf("sidecar mount at %s: %q, want %q (volume|kind|subPath)", path, mounts[path], want)
		}
	}
	if m := strings.Split(mounts["/tmp"], "|"); len(m) != 3 || m[1] != "emptyDir" || m[0] == "tmp" {
		t.Errorf("sidecar /tmp: %q: want an emptyDir of its own (not the repo-server's tmp)", mounts["/tmp"])
	}
}
