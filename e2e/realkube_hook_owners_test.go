package e2e_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/e2e/realkube"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/apiserver"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/hook"
)

// ownersTeamB is a second application beside examples/basic: in the same namespace, on the same Gateway, with
// the same OperatorContext (so its hook Job lives in the same namespace as examples/basic's).
const ownersTeamB = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: returns, namespace: shop}
spec:
  parentRefs: [{name: edge}]
  hostnames: [returns.shop.example.com]
  rules:
    - matches: [{path: {type: PathPrefix, value: /returns}}]
      backendRefs: [{name: orders, port: 8080}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: reviews, namespace: shop}
spec:
  parentRefs: [{name: edge}]
  hostnames: [reviews.shop.example.com]
  rules:
    - matches: [{path: {type: PathPrefix, value: /reviews}}]
      backendRefs: [{name: orders, port: 8080}]
`

// hookApp is one application's render with the sync hook on.
type hookApp struct {
	name, owner string
	items       []*yaml.RNode
	args        []string
	routes      map[string][]string // route -> its API IDs
	kubeconfig  string
}

// renderOwnedHook renders examples/basic's cluster facts with routes (basic's own, or team B's) and the sync hook
// on, with context shop/edge, whose env names the real Gateway in ce mode (no data plane: the hook pushes to it).
func renderOwnedHook(t *testing.T, name string, cfg config.Spec, gatewayURL string, teamB bool) *hookApp {
	t.Helper()
	nodes, err := kio.LocalPackageReader{PackagePath: filepath.Join(repoRoot(t), "examples", "basic"), OmitReaderAnnotations: true}.Read()
	if err != nil {
		t.Fatal(err)
	}
	var items []*yaml.RNode
	for _, n := range nodes {
		switch key := n.GetKind() + " " + n.GetNamespace() + "/" + n.GetName(); {
		case key == "Kustomization /" || key == "RenderConfig /gateway2tyk":
			continue
		case teamB && n.GetKind() == "HTTPRoute":
			continue
		case key == "OperatorContext shop/edge":
			if err := n.PipeE(yaml.SetField("spec", yaml.MustParse(fmt.Sprintf(
				"env: {mode: ce, url: %q, org: %s}\nsecretRef: {name: tyk-operator-conf, namespace: tyk}\n", gatewayURL, hookOrg)))); err != nil {
				t.Fatal(err)
			}
		}
		items = append(items, n)
	}
	if teamB {
		extra, err := (&kio.ByteReader{Reader: strings.NewReader(ownersTeamB), OmitReaderAnnotations: true}).Read()
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, extra...)
	}
	cfg.SyncHook = config.SyncHook{Enabled: true, Image: "gateway2tyk:test", Context: "shop/edge"}
	out, err := fn.Render(items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := &hookApp{name: name, owner: cfg.Owner, items: out.Items, routes: map[string][]string{}}
	for _, n := range out.Items {
		switch {
		case n.GetKind() == "Job" && hook.IsHook(n):
			args, err := n.Pipe(yaml.Lookup("spec", "template", "spec", "containers", "[name=sync]", "args"))
			if err != nil || args == nil {
				t.Fatalf("the hook Job has no args: %v", err)
			}
			for _, v := range args.Content() {
				a.args = append(a.args, v.Value)
			}
		case n.GetKind() == "ConfigMap" && emit.IsEmitted(n):
			route := n.GetAnnotations()[emit.AnnotationRoute]
			a.routes[route] = append(a.routes[route], n.GetLabels()[emit.LabelAPIID])
		}
	}
	if len(a.args) == 0 || len(a.routes) != 2 {
		t.Fatalf("%s: no hook Job, or not two routes' APIs (args %v, routes %v)", name, a.args, a.routes)
	}
	return a
}

func (a *hookApp) ids(routes ...string) []string {
	var out []string
	for _, r := range routes {
		out = append(out, a.routes[r]...)
	}
	sort.Strings(out)
	return out
}

// TestRealKubeSyncHookTwoApplications: two applications that share a Tyk, an OperatorContext and so the
// namespace of their hook Jobs have hook objects of different names on the real API server, and their Jobs'
// command, run as each hook's own ServiceAccount against a real Tyk Gateway, syncs only its own owner's APIs:
// neither loses an API, whichever runs first or when both run at once, and each one's pruned route deletes
// exactly its APIs.
func TestRealKubeSyncHookTwoApplications(t *testing.T) {
	bins := realtyk.Find(t)
	c := realkube.Start(t) // a cluster of the test's own: it leaves objects behind
	c.InstallCRDs(t, channelCRDs(t, apiserver.Standard)...)
	g := realtyk.Start(t, bins)
	bin := functionBinary(t, repoRoot(t))

	aCfg := config.Default().WithOwner(filepath.Join(repoRoot(t), "examples", "basic"))
	bCfg := config.Default()
	bCfg.Owner = "shop-returns"
	a := renderOwnedHook(t, "A (examples/basic)", aCfg, g.URL, false)
	b := renderOwnedHook(t, "B (team B)", bCfg, g.URL, true)
	if a.owner != "examples.basic" {
		t.Fatalf("examples/basic's default owner is %q, want examples.basic", a.owner)
	}
	t.Logf("A's hook runs: gateway2tyk %s\nB's hook runs: gateway2tyk %s", strings.Join(a.args, " "), strings.Join(b.args, " "))

	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"namespace": "tyk"}}}
	ensureNamespace(t, c, obj)
	if _, err := c.Client.CoreV1().Secrets("tyk").Create(realkube.Context(t), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "tyk-operator-conf", Namespace: "tyk"}, StringData: map[string]string{"TYK_AUTH": g.Secret},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(c.Client.Discovery()))
	applied := map[string]string{} // kind namespace/name -> the application that applied it
	for _, app := range []*hookApp{a, b} {
		for _, item := range app.items {
			o, ok := unstructuredOf(item)
			if !ok {
				continue
			}
			for54(t, o) // the test Gateway is the 5.4 line
			ensureNamespace(t, c, o)
			res, err := resourceFor(c.Dynamic, mapper, o)
			if err != nil {
				t.Fatalf("%s: %v", describe(item), err)
			}
			if err := apply(t, res, o); err != nil {
				t.Fatalf("the API server refuses %s: %v", describe(item), err)
			}
			if hook.IsHook(item) {
				key := o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
				if other, shared := applied[key]; shared {
					t.Errorf("%s is the hook object of both %s and %s", key, other, app.name)
				}
				applied[key] = app.name
			}
		}
	}
	jobs, err := c.Client.BatchV1().Jobs("shop").List(realkube.Context(t), metav1.ListOptions{LabelSelector: "app.kubernetes.io/component=sync-hook"})
	if err != nil || len(jobs.Items) != 2 {
		t.Fatalf("the API server holds %v hook Jobs in shop (%v), want 2: one per application", len(jobs.Items), err)
	}
	for _, app := range []*hookApp{a, b} {
		app.kubeconfig = c.TokenKubeconfig(t, "shop", hook.NameFor(app.owner))
	}

	var table []string
	var mu sync.Mutex
	defer func() {
		t.Logf("runs of the two hooks' sync, each as its own ServiceAccount, against the real API server %s and a "+
			"real Tyk Gateway %s:\n| run | exit | outcome | APIs loaded after |\n|---|---|---|---|\n%s",
			c.Version, g.Version, strings.Join(table, "\n"))
	}()
	run := func(name string, app *hookApp) (int, string) {
		var env []string
		for _, e := range os.Environ() {
			k, _, _ := strings.Cut(e, "=")
			switch strings.ToUpper(k) {
			case "KUBECONFIG", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY":
				continue
			}
			if !strings.HasPrefix(k, "TYK_") {
				env = append(env, e)
			}
		}
		cmd := exec.Command(bin, app.args...)
		cmd.Env = append(env, "KUBECONFIG="+app.kubeconfig)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("running %s: %v", bin, err)
		}
		ids, _ := g.LoadedIDs()
		mu.Lock()
		defer mu.Unlock()
		t.Logf("%s: %s (exit %d):\n%s%s", name, app.name, code, stdout.String(), stderr.String())
		table = append(table, fmt.Sprintf("| %s: %s | %d | %s | %d |", name, app.name, code,
			strings.Join(summaryLine.FindAllString(stdout.String(), -1), "<br>"), len(ids)))
		return code, summaryLine.FindString(stdout.String())
	}
	expect := func(when string, code int, got string, created, deleted, unchanged int) {
		t.Helper()
		if want := summary(created, 0, deleted, unchanged); code != 0 || got != want {
			t.Errorf("%s: exit %d, %q, want exit 0, %q", when, code, got, want)
		}
	}
	serves := func(when string, want ...[]string) {
		t.Helper()
		var all []string
		for _, w := range want {
			all = append(all, w...)
		}
		sort.Strings(all)
		ids, err := g.LoadedIDs()
		if err != nil {
			t.Fatal(err)
		}
		assertEqualIDs(t, when, all, ids)
	}

	code, s := run("1", a)
	expect("A's first run", code, s, 2, 0, 0)
	code, s = run("2", b)
	expect("B's first run, after A's", code, s, 2, 0, 0)
	serves("after both ran", a.ids("shop/orders", "shop/catalog"), b.ids("shop/returns", "shop/reviews"))

	// Argo CD prunes A's catalog ConfigMaps; B's hook runs first and deletes none of A's APIs, then A's deletes
	// exactly catalog's.
	if n := pruneRoute(t, c, "shop", "shop/catalog"); n != len(a.routes["shop/catalog"]) {
		t.Errorf("pruned %d ConfigMaps of shop/catalog, want %d", n, len(a.routes["shop/catalog"]))
	}
	code, s = run("3", b)
	expect("B's run after A's catalog was pruned", code, s, 0, 0, 2)
	serves("after B's run", a.ids("shop/orders", "shop/catalog"), b.ids("shop/returns", "shop/reviews"))
	code, s = run("4", a)
	expect("A's run after its catalog was pruned", code, s, 0, len(a.routes["shop/catalog"]), 1)
	serves("after A's run", a.ids("shop/orders"), b.ids("shop/returns", "shop/reviews"))

	// B's reviews pruned, and both hooks run at once.
	pruneRoute(t, c, "shop", "shop/reviews")
	var wg sync.WaitGroup
	var codes [2]int
	var sums [2]string
	for i, app := range []*hookApp{a, b} {
		wg.Add(1)
		go func() { defer wg.Done(); codes[i], sums[i] = run("5 at once", app) }()
	}
	wg.Wait()
	expect("A's run at once with B's", codes[0], sums[0], 0, 0, 1)
	expect("B's run at once with A's", codes[1], sums[1], 0, len(b.routes["shop/reviews"]), 1)
	serves("after both ran at once", a.ids("shop/orders"), b.ids("shop/returns"))
}
