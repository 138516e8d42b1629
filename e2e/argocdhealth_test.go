package e2e_test

// The health checks of examples/argocd (argocd-cm keys resource.customizations.health.<group>_<kind>) run in
// Argo CD's own Lua VM, as the application controller runs them: the settings manager reads them from the
// argocd-cm that the Component builds, and gitops-engine's GetResourceHealth applies them (argocd-cmpdriver's
// "health" request). Each object the render annotates (in every example, every testdata story and every test of
// the Gateway API conformance suite) gets the health its would-be status means; objects without the annotation
// get what Argo CD's built-in checks give them.

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/e2e/modcache"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

// argoCDConfigMap builds examples/argocd over a stand-in for Argo CD's install and returns its argocd-cm.
func argoCDConfigMap(t *testing.T, root string) map[string]any {
	t.Helper()
	base := t.TempDir()
	write(t, filepath.Join(base, "install.yaml"), argoInstallStandIn)
	component, err := filepath.Rel(base, filepath.Join(root, "examples", "argocd"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(base, "kustomization.yaml"), "namespace: argocd\nresources: [install.yaml]\ncomponents: ["+component+"]\n")
	out, stderr, code := runTool(t, base, nil, findKustomize(t, root), "build", ".")
	if code != 0 {
		t.Fatalf("kustomize build of an Argo CD install with examples/argocd: %s", stderr)
	}
	cm := find(parseStream(t, out), "ConfigMap", "argocd", "argocd-cm")
	if cm == nil {
		t.Fatalf("no argocd-cm in:\n%s", out)
	}
	var m map[string]any
	if err := cm.YNode().Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// argoInstallStandIn is the part of Argo CD's install.yaml that the Component patches.
const argoInstallStandIn = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: argocd-repo-server
spec:
  template:
    spec:
      containers:
        - name: argocd-repo-server
          image: quay.io/argoproj/argocd:v3.6.1
          volumeMounts:
            - {name: var-files, mountPath: /var/run/argocd}
            - {name: plugins, mountPath: /home/argocd/cmp-server/plugins}
      volumes:
        - {name: var-files, emptyDir: {}}
        - {name: plugins, emptyDir: {}}
        - {name: tmp, emptyDir: {}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
  labels:
    app.kubernetes.io/name: argocd-cm
    app.kubernetes.io/part-of: argocd
`

// healthOf asks Argo CD's controller code for the health of objects under argocd-cm.
func healthOf(t *testing.T, root string, cm map[string]any, objs []*yaml.RNode) driverAnswer {
	t.Helper()
	driver := argoBinary(t, root, "ARGOCD_CMPDRIVER", "argocd-cmpdriver")
	var list []map[string]any
	for _, o := range objs {
		var m map[string]any
		if err := o.YNode().Decode(&m); err != nil {
			t.Fatal(err)
		}
		list = append(list, m)
	}
	ans := drive(t, driver, t.TempDir(), t.TempDir(), map[string]any{"op": "health", "argocdConfigMap": cm, "objects": list})
	if ans.Error != "" {
		t.Fatalf("health: %s", ans.Error)
	}
	if len(ans.Health) != len(objs) {
		t.Fatalf("%d health answers for %d objects", len(ans.Health), len(objs))
	}
	return ans
}

// wouldBeHealth is what an object's gateway2tyk.io/status means, read here from the status itself: the first
// condition that is not as it should be (True, or False for Conflicted and PartiallyInvalid) makes it Degraded.
func wouldBeHealth(t *testing.T, o *yaml.RNode) (status, reason string) {
	t.Helper()
	var st map[string]any
	if err := json.Unmarshal([]byte(o.GetAnnotations()["gateway2tyk.io/status"]), &st); err != nil {
		t.Fatalf("%s %s/%s: status annotation: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
	}
	var lists [][]any
	add := func(v any) {
		if l, ok := v.([]any); ok {
			lists = append(lists, l)
		}
	}
	add(st["conditions"])
	for _, key := range []string{"listeners", "parents"} {
		if l, ok := st[key].([]any); ok {
			for _, e := range l {
				add(e.(map[string]any)["conditions"])
			}
		}
	}
	for _, l := range lists {
		for _, c := range l {
			c := c.(map[string]any)
			want := "True"
			if c["type"] == "Conflicted" || c["type"] == "PartiallyInvalid" {
				want = "False"
			}
			if c["status"] != want {
				return "Degraded", c["type"].(string) + "/" + c["reason"].(string)
			}
		}
	}
	return "Healthy", ""
}

// renderedObjects are the objects of every example (rendered as its README says) and of every story of the
// render's golden tests (fn/testdata, the failing ones included); conformanceObjects are the suite's.
func renderedObjects(t *testing.T, root string) (examples, stories []*yaml.RNode) {
	t.Helper()
	for _, e := range []string{"basic", "secured", "storefront"} {
		examples = append(examples, parseStream(t, kustomizeBuild(t, filepath.Join("examples", e)))...)
	}
	out, stderr, code := runTool(t, root, nil, functionBinary(t, root), "render", "examples/kpt")
	if code != 0 {
		t.Fatalf("render examples/kpt: %s", stderr)
	}
	examples = append(examples, parseStream(t, out)...)
	files, _ := filepath.Glob(filepath.Join(root, "fn", "testdata", "*", "expected.yaml"))
	failing, _ := filepath.Glob(filepath.Join(root, "fn", "testdata", "failing", "*", "expected.yaml"))
	for _, f := range append(files, failing...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rl, err := yaml.Parse(string(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		items, err := rl.Pipe(yaml.Lookup("items"))
		if err != nil || items == nil {
			continue
		}
		els, _ := items.Elements()
		stories = append(stories, els...)
	}
	if len(files) < 50 {
		t.Fatalf("only %d stories under fn/testdata", len(files))
	}
	return examples, stories
}

func TestRealArgoCDHealth(t *testing.T) {
	root := repoRoot(t)
	cm := argoCDConfigMap(t, root)
	examples, stories := renderedObjects(t, root)
	judged := map[string]int{}
	check := func(t *testing.T, objs []*yaml.RNode, allHealthy bool) {
		mine := map[string]int{}
		defer func() { t.Logf("health: %v", mine) }()
		var annotated []*yaml.RNode
		for _, o := range objs {
			if _, ok := o.GetAnnotations()["gateway2tyk.io/status"]; ok {
				annotated = append(annotated, o)
			}
		}
		ans := healthOf(t, root, cm, annotated)
		for i, o := range annotated {
			a := ans.Health[i]
			name := o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
			want, reason := wouldBeHealth(t, o)
			if a.Error != "" || a.Health == nil {
				t.Errorf("%s: no health (%s)", name, a.Error)
				continue
			}
			judged[o.GetKind()+" "+a.Health.Status]++
			mine[o.GetKind()+" "+a.Health.Status]++
			if a.Health.Status != want || !strings.Contains(a.Health.Message, reason) {
				t.Errorf("%s: Argo CD says %s %q; its would-be status means %s (%s)", name, a.Health.Status, a.Health.Message, want, reason)
			}
			if allHealthy && a.Health.Status != "Healthy" {
				t.Errorf("%s of an example is %s: its Application would never run a PostSync hook", name, a.Health.Status)
			}
		}
	}
	t.Run("examples", func(t *testing.T) { check(t, examples, true) })
	t.Run("stories", func(t *testing.T) { check(t, stories, false) })
	t.Run("conformance stories", func(t *testing.T) { check(t, conformanceObjects(t), false) })
	t.Logf("health of the rendered objects: %v", judged)
	for _, k := range []string{"GatewayClass Healthy", "GatewayClass Degraded", "Gateway Healthy", "Gateway Degraded",
		"HTTPRoute Healthy", "HTTPRoute Degraded", "TykOasApiDefinition Healthy", "TykOasApiDefinition Degraded",
		"ListenerSet Degraded"} {
		if judged[k] == 0 {
			t.Errorf("no rendered object is a %s: the checks are not all exercised", k)
		}
	}

	// Objects another controller owns (no annotation of ours) keep Argo CD's built-in health: Argo CD's own
	// test objects for its built-in checks, judged by our checks and by the built-in ones.
	t.Run("objects without the annotation: the built-in health", func(t *testing.T) {
		modDir := argoModuleDir(t)
		var objs []*yaml.RNode
		for _, kind := range []string{"GatewayClass", "Gateway", "HTTPRoute"} {
			files, _ := filepath.Glob(filepath.Join(modDir, "resource_customizations", "gateway.networking.k8s.io", kind, "testdata", "*.yaml"))
			if len(files) == 0 {
				t.Fatalf("no test objects of Argo CD's built-in %s check under %s", kind, modDir)
			}
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				objs = append(objs, parseStream(t, b)...)
			}
		}
		objs = append(objs, parseStream(t, []byte("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: fresh, namespace: shop}\n"))...)
		ans := healthOf(t, root, cm, objs)
		for i, a := range ans.Health {
			if a.BuiltIn == nil || a.Health == nil || *a.Health != *a.BuiltIn {
				t.Errorf("%s %s: ours %+v, Argo CD's built-in %+v", a.Kind, a.Name, a.Health, a.BuiltIn)
			}
			_ = i
		}
		t.Logf("%d objects of Argo CD's own tests judged as the built-in checks judge them", len(objs))
	})
}

// conformanceObjects renders every test of the Gateway API v1.6.3 conformance suite as the suite applies it (its
// GatewayClass, base/manifests.yaml and the test's manifests, every Gateway of the suite's class) with the
// default config, and returns the rendered objects of all of them. The Secrets the suite generates at run time
// are not among them (package conformance makes them), so the listeners that name them are Degraded, as their
// would-be status says.
func conformanceObjects(t *testing.T) []*yaml.RNode {
	t.Helper()
	conf := modcache.Dir(t, "sigs.k8s.io/gateway-api/conformance", "v1.6.3")
	base := readFileNodes(t, filepath.Join(conf, "base", "manifests.yaml"))
	tests := globYAML(t, conf, "tests")
	if len(base) == 0 || len(tests) < 100 {
		t.Fatalf("conformance suite under %s: %d base objects, %d test files", conf, len(base), len(tests))
	}
	const class = "tyk-conformance"
	var out []*yaml.RNode
	for _, rel := range tests {
		items := []*yaml.RNode{yaml.MustParse("apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\n" +
			"metadata: {name: " + class + "}\nspec: {controllerName: " + config.Default().ControllerName + "}\n")}
		for _, n := range append(append([]*yaml.RNode{}, base...), readFileNodes(t, filepath.Join(conf, rel))...) {
			n = n.Copy()
			if n.GetKind() == "Gateway" {
				if err := n.PipeE(yaml.LookupCreate(yaml.MappingNode, "spec"), yaml.SetField("gatewayClassName", yaml.NewStringRNode(class))); err != nil {
					t.Fatal(err)
				}
			}
			items = append(items, n)
		}
		rendered, err := fn.Render(items, config.Default())
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		out = append(out, rendered.Items...)
	}
	return out
}

// argoModuleDir is argo-cd v3.6.1 in the Go module cache (downloaded by the build of tools/argocd).
func argoModuleDir(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "env", "GOMODCACHE")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(string(bytes.TrimSpace(out)), "github.com", "argoproj", "argo-cd", "v3@v3.6.1")
	if _, err := os.Stat(dir); err != nil {
		msg := "argo-cd v3.6.1 is not in the module cache: make bin/argocd-cmpdriver downloads it"
		if os.Getenv(realArgoCDEnv) == "required" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}
