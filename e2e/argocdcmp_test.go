package e2e_test

// The real Argo CD (v3.6.1) runs the plugin: bin/argocd-cmp-server (argo-cd's own cmd, built by
// `make bin/argocd-cmp-server` from tools/argocd) serves plugin.yaml on a unix socket in a temporary directory,
// and bin/argocd-cmpdriver (tools/argocd/cmpdriver) asks it what the repo-server asks it, with the repo-server's
// own code: discovery, the parameters announcement and manifest generation (reposerver/repository), under the
// repo-server's 60 s deadline. The driver is a subprocess because Argo CD needs Go 1.27 and the project's module
// stays on Go 1.26.
//
// GATEWAY2TYK_REAL_ARGOCD=required (make test, make e2e-argocd) makes a missing binary a failure; otherwise the
// tests skip and say so. ARGOCD_CMP_SERVER and ARGOCD_CMPDRIVER name the binaries.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/gateway2tyk/gateway2tyk/e2e/internal/localproc"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/bench/resourcelist"
)

const realArgoCDEnv = "GATEWAY2TYK_REAL_ARGOCD"

// argoBinary returns the binary named by env (or bin/<name>), skipping or failing the test when it is missing.
func argoBinary(t *testing.T, root, env, name string) string {
	t.Helper()
	bin := os.Getenv(env)
	if bin == "" {
		bin = filepath.Join(root, "bin", name)
	}
	if _, err := os.Stat(bin); err != nil {
		localproc.Missing(t, "Argo CD", []string{fmt.Sprintf("%s (%s; make bin/%s builds it from tools/argocd, Argo CD v3.6.1)",
			bin, env, name)}, realArgoCDEnv, "e2e-argocd")
	}
	return bin
}

// cmpServer is a running argocd-cmp-server with the repository's plugin.yaml.
type cmpServer struct {
	driver  string
	sockDir string
	workDir string   // ARGOCD_CMP_WORKDIR: where the server unpacks each request's repository
	tmpDir  string   // the driver's TMPDIR (the repo-server's tarballs)
	own     string   // the server's TMPDIR (the plugin's, too)
	tools   string   // gateway2tyk and kustomize (the repo-server runs kustomize for a Kustomize source)
	env     []string // variables of both the server and the repo-server (the driver)
	log     *lockedBuffer
}

// startCMPServer starts the server as the sidecar runs it: its config at <dir>/plugin.yaml, its socket in the
// plugins directory, gateway2tyk and kustomize on its PATH. env is set for it and for the driver (the
// repo-server) alike. It is stopped when the test ends.
func startCMPServer(t *testing.T, root string, env ...string) *cmpServer {
	t.Helper()
	plugin, err := os.ReadFile(filepath.Join(root, "plugin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return startCMPServerWith(t, root, string(plugin), nil, env...)
}

// startCMPServerWith is startCMPServer with another plugin config, and more tools on its PATH (name: target).
func startCMPServerWith(t *testing.T, root, plugin string, moreTools map[string]string, env ...string) *cmpServer {
	t.Helper()
	server := argoBinary(t, root, "ARGOCD_CMP_SERVER", "argocd-cmp-server")
	driver := argoBinary(t, root, "ARGOCD_CMPDRIVER", "argocd-cmpdriver")
	dir := t.TempDir()
	s := &cmpServer{driver: driver, sockDir: filepath.Join(dir, "plugins"), workDir: filepath.Join(dir, "work"),
		tmpDir: filepath.Join(dir, "tmp"), own: filepath.Join(dir, "servertmp"), tools: filepath.Join(dir, "tools"), env: env, log: &lockedBuffer{}}
	config := filepath.Join(dir, "config")
	for _, d := range []string{s.sockDir, s.workDir, s.tmpDir, s.own, config, s.tools} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(config, "plugin.yaml"), plugin)
	tools := map[string]string{"gateway2tyk": functionBinary(t, root), "kustomize": findKustomize(t, root)}
	for name, target := range moreTools {
		tools[name] = target
	}
	for name, target := range tools {
		if err := os.Symlink(target, filepath.Join(s.tools, name)); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(server, "--config-dir-path", config, "--loglevel", "info", "--logformat", "text")
	cmd.Env = []string{"PATH=" + s.tools, "HOME=" + dir, "ARGOCD_PLUGINSOCKFILEPATH=" + s.sockDir,
		"ARGOCD_CMP_WORKDIR=" + s.workDir, "TMPDIR=" + s.own, "ARGOCD_BINARY_NAME=argocd-cmp-server"}
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", server, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	sock := filepath.Join(s.sockDir, "gateway2tyk.sock")
	for deadline := time.Now().Add(30 * time.Second); ; {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("argocd-cmp-server exited before serving (%v):\n%s", err, s.log.take())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("argocd-cmp-server did not create %s within 30 s:\n%s", sock, s.log.take())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s
}

// lockedBuffer is the server's log: written by the process's output copier while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// take returns what was written so far and empties the buffer.
func (b *lockedBuffer) take() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.buf.String()
	b.buf.Reset()
	return s
}

// driverAnswer is tools/argocd/cmpdriver's answer.
type driverAnswer struct {
	Manifests  []string `json:"manifests"`
	SourceType string   `json:"sourceType"`
	Parameters []struct {
		Name  string `json:"name"`
		Title string `json:"title"`
	} `json:"parameters"`
	Health []struct {
		Kind, Namespace, Name string
		Health                *argoHealth `json:"health"`
		BuiltIn               *argoHealth `json:"builtIn"`
		Error                 string      `json:"error"`
	} `json:"health"`
	Error   string  `json:"error"`
	Seconds float64 `json:"seconds"`
}

type argoHealth struct {
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// drive sends one request to the driver, with the server's socket directory (and extra variables).
func drive(t *testing.T, driver, sockDir, tmpDir string, req map[string]any, env ...string) driverAnswer {
	t.Helper()
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(driver)
	cmd.Env = append(append(os.Environ(), "ARGOCD_PLUGINSOCKFILEPATH="+sockDir, "TMPDIR="+tmpDir), env...)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("argocd-cmpdriver: %v\n%s", err, stderr.String())
	}
	var ans driverAnswer
	if err := json.Unmarshal(stdout.Bytes(), &ans); err != nil {
		t.Fatalf("argocd-cmpdriver's answer: %v\n%s", err, stdout.String())
	}
	return ans
}

// argoApp is an Application as Argo CD's API takes it.
type argoApp struct {
	Name, Namespace string // the Application's own
	Path            string // spec.source.path
	Destination     string // spec.destination.namespace
	Plugin          map[string]any
}

func (a argoApp) object() map[string]any {
	source := map[string]any{"repoURL": "https://github.com/gateway2tyk/gateway2tyk.git", "targetRevision": "main", "path": a.Path}
	if a.Plugin != nil {
		source["plugin"] = a.Plugin
	}
	return map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": a.Name, "namespace": a.Namespace},
		"spec": map[string]any{"project": "default", "source": source,
			"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": a.Destination}},
	}
}

// generate asks for the Application's manifests from the repository at repo (the repo-server's checkout),
// with .git kept out of what is sent (reposerver.plugin.tar.exclusions: .git/*).
func (s *cmpServer) generate(t *testing.T, repo string, app argoApp, timeoutSeconds int) driverAnswer {
	t.Helper()
	return s.generateExcluding(t, repo, app, timeoutSeconds, []string{".git/*"})
}

// generateExcluding is generate with the repo-server's tar exclusions given (nil: Argo CD's default, none).
func (s *cmpServer) generateExcluding(t *testing.T, repo string, app argoApp, timeoutSeconds int, exclusions []string) driverAnswer {
	t.Helper()
	return drive(t, s.driver, s.sockDir, s.tmpDir, map[string]any{"op": "generate", "application": app.object(),
		"argocdNamespace": "argocd", "repoRoot": repo, "revision": "3f1c2a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a",
		"timeoutSeconds": timeoutSeconds, "tarExclusions": exclusions}, append([]string{"PATH=" + s.tools + ":" + os.Getenv("PATH")}, s.env...)...)
}

// objects decodes the manifests (JSON, one object each) as kyaml nodes.
func manifestNodes(t *testing.T, ans driverAnswer) []*yaml.RNode {
	t.Helper()
	if ans.Error != "" {
		t.Fatalf("generate failed: %s", ans.Error)
	}
	var nodes []*yaml.RNode
	for _, m := range ans.Manifests {
		n, err := yaml.Parse(m)
		if err != nil {
			t.Fatalf("manifest %q: %v", m, err)
		}
		nodes = append(nodes, n)
	}
	return nodes
}

// sameObjects compares the manifests with a kustomize build's objects, object by object (Argo CD hands on JSON).
func sameObjects(t *testing.T, nodes []*yaml.RNode, want []byte) {
	t.Helper()
	got := map[string]string{}
	for _, n := range nodes {
		j, err := n.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		got[n.GetKind()+" "+n.GetNamespace()+"/"+n.GetName()] = string(j)
	}
	wantSet := objectSet(t, want)
	if len(got) != len(wantSet) {
		t.Errorf("%d objects from Argo CD, %d from kustomize", len(got), len(wantSet))
	}
	for k, v := range wantSet {
		if got[k] != v {
			t.Errorf("%s differs from kustomize's:\nArgo CD: %s\nkustomize: %s", k, got[k], v)
			return
		}
	}
}

// repoWith copies examples/basic into a fresh repository at rel (with a .git directory, as the repo-server's
// checkout has one) and returns the repository's root.
func repoWith(t *testing.T, root, rel string) string {
	t.Helper()
	app := copyAppTree(t, root, "examples/basic")
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, rel)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(app, filepath.Join(repo, rel)); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	return repo
}

func exampleApp() argoApp {
	return argoApp{Name: "shop-apis", Namespace: "argocd", Path: "apps/shop", Destination: "shop",
		Plugin: map[string]any{"name": "gateway2tyk", "env": []map[string]string{{"name": "GATEWAY2TYK_FAIL_ON", "value": "Warning"}}}}
}

func TestRealArgoCDPlugin(t *testing.T) {
	root := repoRoot(t)
	s := startCMPServer(t, root)
	// The Application's path is apps/shop in its repository: that is its owner, where examples/basic is owned by
	// examples.basic.
	want := bytes.ReplaceAll(kustomizeBuild(t, "examples/basic"), []byte("gateway2tyk.io/owner: examples.basic\n"),
		[]byte("gateway2tyk.io/owner: apps.shop\n"))

	t.Run("parameters announcement", func(t *testing.T) {
		repo := repoWith(t, root, "apps/shop")
		ans := drive(t, s.driver, s.sockDir, s.tmpDir, map[string]any{"op": "parameters", "application": exampleApp().object(),
			"argocdNamespace": "argocd", "repoRoot": repo})
		if ans.Error != "" {
			t.Fatalf("parameters: %s", ans.Error)
		}
		var names []string
		for _, p := range ans.Parameters {
			names = append(names, p.Name)
		}
		if strings.Join(names, ",") != "output,fail-on,owner" {
			t.Errorf("announced parameters %v, want output, fail-on, owner", names)
		}
	})

	t.Run("examples/basic, plugin named", func(t *testing.T) {
		ans := s.generate(t, repoWith(t, root, "apps/shop"), exampleApp(), 0)
		if ans.SourceType != "Plugin" {
			t.Errorf("source type %q, want Plugin", ans.SourceType)
		}
		nodes := manifestNodes(t, ans)
		checkBasicAPIs(t, nodes)
		checkBasicStatus(t, nodes)
		sameObjects(t, nodes, want)
	})

	t.Run("discovery: an Application without a source type", func(t *testing.T) {
		app := exampleApp()
		app.Plugin = nil
		ans := s.generate(t, repoWith(t, root, "apps/shop"), app, 0)
		if ans.SourceType != "Plugin" {
			t.Fatalf("source type %q, want Plugin (discovery claims a directory with a RenderConfig): %s", ans.SourceType, ans.Error)
		}
		sameObjects(t, manifestNodes(t, ans), want)
	})

	t.Run("discovery: a kustomization without the function is not claimed", func(t *testing.T) {
		repo := filepath.Join(t.TempDir(), "repo")
		write(t, filepath.Join(repo, "apps/plain/kustomization.yaml"), "resources: [service.yaml]\n")
		write(t, filepath.Join(repo, "apps/plain/service.yaml"), "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n")
		app := exampleApp()
		app.Path, app.Plugin = "apps/plain", nil
		if ans := s.generate(t, repo, app, 0); ans.SourceType != "Kustomize" {
			t.Errorf("source type %q (%s), want Kustomize", ans.SourceType, ans.Error)
		}
	})

	t.Run("a kustomization with a ../ base", func(t *testing.T) {
		repo := repoWith(t, root, "base/shop")
		// The base has the inputs; the application has the RenderConfig and runs it as its transformer.
		if err := os.Rename(filepath.Join(repo, "base/shop/gateway2tyk.yaml"), filepath.Join(repo, "gateway2tyk.yaml.tmp")); err != nil {
			t.Fatal(err)
		}
		replaceIn("kustomization.yaml", "transformers:\n  - gateway2tyk.yaml\n", "")(t, filepath.Join(repo, "base/shop"))
		write(t, filepath.Join(repo, "apps/shop/kustomization.yaml"), "resources: [../../base/shop]\ntransformers: [gateway2tyk.yaml]\n")
		if err := os.Rename(filepath.Join(repo, "gateway2tyk.yaml.tmp"), filepath.Join(repo, "apps/shop/gateway2tyk.yaml")); err != nil {
			t.Fatal(err)
		}
		wantBase := kustomizeBuild(t, filepath.Join(repo, "apps/shop"))
		ans := s.generate(t, repo, exampleApp(), 0)
		nodes := manifestNodes(t, ans)
		checkBasicAPIs(t, nodes)
		sameObjects(t, nodes, wantBase)
	})

	t.Run("overrides by parameter and by plugin env", func(t *testing.T) {
		for _, c := range []struct {
			name   string
			plugin map[string]any
			defs   bool
		}{
			{"env", map[string]any{"name": "gateway2tyk", "env": []map[string]string{{"name": "GATEWAY2TYK_OUTPUT", "value": "TykOasApiDefinition"}}}, true},
			{"parameter", map[string]any{"name": "gateway2tyk", "parameters": []map[string]string{{"name": "output", "string": "TykOasApiDefinition"}}}, true},
			{"parameter wins over env", map[string]any{"name": "gateway2tyk",
				"env":        []map[string]string{{"name": "GATEWAY2TYK_OUTPUT", "value": "TykOasApiDefinition"}},
				"parameters": []map[string]string{{"name": "output", "string": "ConfigMap"}}}, false},
		} {
			t.Run(c.name, func(t *testing.T) {
				app := exampleApp()
				app.Plugin = c.plugin
				nodes := manifestNodes(t, s.generate(t, repoWith(t, root, "apps/shop"), app, 0))
				checkBasicAPIs(t, nodes)
				defs := 0
				for _, n := range nodes {
					if n.GetKind() == "TykOasApiDefinition" {
						defs++
					}
				}
				if (defs > 0) != c.defs {
					t.Errorf("%d TykOasApiDefinitions; want some: %v", defs, c.defs)
				}
			})
		}
	})

	t.Run("a broken route names the route, the field and the Application", func(t *testing.T) {
		repo := repoWith(t, root, "apps/shop")
		replaceIn("routes.yaml", "          port: 8080\n", "")(t, filepath.Join(repo, "apps/shop"))
		// An Application outside Argo CD's namespace: Argo CD calls it team-a_shop-apis.
		app := exampleApp()
		app.Namespace = "team-a"
		ans := s.generate(t, repo, app, 0)
		for _, w := range []string{"HTTPRoute/shop/orders", "spec.rules[0].backendRefs[0]: Invalid value: Must have port for Service reference",
			"Argo CD application team-a/shop-apis (destination namespace shop)"} {
			if !strings.Contains(ans.Error, w) {
				t.Errorf("the error does not name %q:\n%s", w, ans.Error)
			}
		}
		// What the user sees starts with the command, then our block: no script.
		if !strings.Contains(ans.Error, "`gateway2tyk argocd generate` failed exit status 1: gateway2tyk: Argo CD application team-a/shop-apis") {
			t.Errorf("the error does not start our block right after the command:\n%s", ans.Error)
		}
		if len(ans.Manifests) != 0 {
			t.Errorf("%d manifests from a failed render", len(ans.Manifests))
		}
		t.Logf("the message Argo CD shows:\n%s", ans.Error)
	})

	t.Run("kustomize over the plugin's own deadline", func(t *testing.T) {
		repo := generatedApps(t, 1000, 9)
		app := argoApp{Name: "fleet", Namespace: "argocd", Path: resourcelist.AppKustomize, Destination: "shop",
			Plugin: map[string]any{"name": "gateway2tyk", "env": []map[string]string{{"name": "GATEWAY2TYK_TIMEOUT", "value": "100ms"}}}}
		ans := s.generate(t, repo, app, 0)
		if !strings.Contains(ans.Error, "kustomize build did not finish within 100ms") {
			t.Errorf("error %q, want the plugin's deadline", ans.Error)
		}
	})

	t.Run("Argo CD's deadline kills the plugin, and nothing is left", func(t *testing.T) {
		repo := generatedApps(t, 1000, 9)
		app := argoApp{Name: "fleet", Namespace: "argocd", Path: resourcelist.AppKustomize, Destination: "shop",
			Plugin: map[string]any{"name": "gateway2tyk"}}
		ans := s.generate(t, repo, app, 1)
		if ans.Error == "" {
			t.Fatalf("a 1 s deadline for 1,000 routes: no error")
		}
		t.Logf("after %.1f s: %s", ans.Seconds, ans.Error)
	})

	// Every request's copy of the repository is removed by the server, and the plugin leaves nothing of its own
	// (the server's TMPDIR is the plugin's too), not even when it was killed.
	t.Cleanup(func() {
		time.Sleep(6 * time.Second) // the server's kill of a timed-out command's group waits 5 s
		left, _ := filepath.Glob(filepath.Join(s.workDir, "_cmp_server", "*"))
		tmp, _ := filepath.Glob(filepath.Join(s.own, "*"))
		if len(left)+len(tmp) > 0 {
			t.Errorf("left behind: %v %v", left, tmp)
		}
	})
}

// TestRealArgoCDPluginLargeApps: the fleets of the large-app paths through the real server. The 10,000-route application's manifests (131 MB) are more than the 100 MB that Argo CD's
// gRPC calls carry by default (the server refuses to send them: ResourceExhausted), so both sides run with
// ARGOCD_GRPC_MAX_SIZE_MB=256, as docs/pipelines/argocd.md says a large application needs.
func TestRealArgoCDPluginLargeApps(t *testing.T) {
	root := repoRoot(t)
	s := startCMPServer(t, root, "ARGOCD_GRPC_MAX_SIZE_MB=256")
	// The first render of the 10,000-route application after the sidecar starts judges every object with the API
	// server's code (on a busy 2-core machine 28 s for the render alone): it runs under a raised deadline, as
	// docs/pipelines/argocd.md says a first render of that size may need. The next render of the same repository (a new commit)
	// finds the verdicts in the sidecar's memory (apiserver.Memory) and runs under Argo CD's default 60 s.
	var repo10k string
	parent := t
	for _, c := range []struct {
		name     string
		routes   int
		path     string
		deadline int
	}{
		{"1,000-route kustomization", 1000, resourcelist.AppKustomize, 60},
		{"10,000-route directory of plain YAML, first render", 10000, resourcelist.AppYAML, 300},
		{"10,000-route directory of plain YAML, next render", 10000, resourcelist.AppYAML, 60},
	} {
		t.Run(c.name, func(t *testing.T) {
			var repo string
			switch {
			case c.routes != 10000:
				repo = generatedApps(t, c.routes, 3)
			case repo10k == "":
				repo10k = generatedApps(parent, c.routes, 3) // kept for the next render
				repo = repo10k
			default:
				repo = repo10k
			}
			app := argoApp{Name: "fleet", Namespace: "argocd", Path: c.path, Destination: "shop",
				Plugin: map[string]any{"name": "gateway2tyk"}}
			ans := s.generate(t, repo, app, c.deadline)
			t.Logf("%s: the repo-server's answer after %.1f s", c.name, ans.Seconds)
			// The server's log times the plugin's own part (its request's deadline, and the command's end).
			for _, l := range strings.Split(s.log.take(), "\n") {
				if strings.Contains(l, "Generating manifests with deadline") || strings.Contains(l, "Plugin command successful") {
					t.Logf("argocd-cmp-server: %.160s", l)
				}
			}
			nodes := manifestNodes(t, ans)
			apis := 0
			for _, n := range nodes {
				if n.GetLabels()["gateway2tyk.io/api-id"] != "" {
					apis++
				}
			}
			if apis < c.routes {
				t.Errorf("%d API objects for %d routes", apis, c.routes)
			}
			t.Logf("%s: %d objects in %.1f s (the deadline: %d s; Argo CD's default: 60 s)", c.name, len(nodes), ans.Seconds, c.deadline)
		})
	}
}

// readNodes reads the objects of a YAML stream.
func readNodes(t *testing.T, b []byte) []*yaml.RNode {
	t.Helper()
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(b), OmitReaderAnnotations: true}).Read()
	if err != nil {
		t.Fatal(err)
	}
	return nodes
}

// TestRealArgoCDSendsGit shows what docs/pipelines/argocd.md says of the repository the sidecar gets: with Argo CD's default tar
// exclusions (none) the repository's .git arrives with it; with reposerver.plugin.tar.exclusions ".git/*" it
// does not. A probe plugin in the real server looks for .git/HEAD at the repository's root (the working directory
// is the Application's path, two levels down), and gateway2tyk's own plugin renders the same objects either way.
func TestRealArgoCDSendsGit(t *testing.T) {
	root := repoRoot(t)
	const probe = `apiVersion: argoproj.io/v1alpha1
kind: ConfigManagementPlugin
metadata:
  name: gateway2tyk
spec:
  generate:
    command: [sh, -c, 'if [ -f ../../.git/HEAD ]; then n=git-sent; else n=git-not-sent; fi; echo "{apiVersion: v1, kind: ConfigMap, metadata: {name: $n}}"']
`
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	s := startCMPServerWith(t, root, probe, map[string]string{"sh": sh})
	repo := repoWith(t, root, "apps/shop")
	app := argoApp{Name: "probe", Namespace: "argocd", Path: "apps/shop", Destination: "shop", Plugin: map[string]any{"name": "gateway2tyk"}}
	for _, c := range []struct {
		exclusions []string
		want       string
	}{{nil, "git-sent"}, {[]string{".git/*"}, "git-not-sent"}} {
		nodes := manifestNodes(t, s.generateExcluding(t, repo, app, 60, c.exclusions))
		if len(nodes) != 1 || nodes[0].GetName() != c.want {
			t.Errorf("tar exclusions %q: the probe says %v, want %s", c.exclusions, names(nodes), c.want)
		}
	}

	ours := startCMPServer(t, root)
	app = exampleApp()
	withGit := manifestNodes(t, ours.generateExcluding(t, repo, app, 60, nil))
	withoutGit := manifestNodes(t, ours.generate(t, repo, app, 60))
	if len(withGit) == 0 || strings.Join(names(withGit), " ") != strings.Join(names(withoutGit), " ") {
		t.Errorf("with .git sent: %v; without: %v", names(withGit), names(withoutGit))
	}
}

func names(nodes []*yaml.RNode) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.GetKind()+"/"+n.GetName())
	}
	return out
}
