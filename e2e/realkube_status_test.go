package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/e2e/internal/localproc"
	"github.com/gateway2tyk/gateway2tyk/e2e/realkube"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/hook"
	"github.com/gateway2tyk/gateway2tyk/sync/status"
)

// The objects of examples/basic whose status the render writes, as the hook names them.
var statusObjects = []string{"GatewayClass tyk", "Gateway shop/edge", "HTTPRoute shop/catalog", "HTTPRoute shop/orders"}

// TestRealKubeStatus runs the sync hook of examples/basic with spec.syncHook.writeStatus on against a real API
// server (RBAC on) and a real Tyk Gateway, as the hook's ServiceAccount (a TokenRequest token): the status of
// each GatewayClass, Gateway and HTTPRoute is written to its status subresource, with observedGeneration and
// lastTransitionTime, and the entries of another controller (in the atomic status.parents of a route, and a
// condition of the Gateway) are kept; a second run changes nothing; `kubectl get` shows it; a status the API
// server refuses fails the run, named, and changes nothing else; `sync --from FILE --kubeconfig` writes the
// stream's status (a new ResolvedRefs, a new lastTransitionTime, the new generation); and the ServiceAccount may
// touch nothing else.
func TestRealKubeStatus(t *testing.T) {
	hc, _, _ := startHookCluster(t, 1, true)
	c := hc.c
	defer hc.printTable(t)
	t.Logf("the hook Job runs: gateway2tyk %s", strings.Join(hc.h.args, " "))
	for _, want := range []string{"--write-status", "GatewayClass/tyk", "Gateway/shop/edge", "HTTPRoute/shop/orders", "HTTPRoute/shop/catalog"} {
		if !slices.Contains(hc.h.args, want) {
			t.Fatalf("the hook Job's args lack %s: %v", want, hc.h.args)
		}
	}
	admin := adminClient(t, c)

	// Another controller (a mesh, say) wrote its own entries first, with server-side apply as its manager.
	mesh := meshParent("mesh")
	applyAs(t, admin.route("orders"), "example.com/mesh-controller", "HTTPRoute", "orders",
		map[string]any{"parents": []any{mesh}})
	otherCondition := map[string]any{"type": "example.com/Inspected", "status": "True", "reason": "Inspected",
		"message": "another manager's condition", "observedGeneration": int64(1), "lastTransitionTime": "2026-01-01T00:00:00Z"}
	applyAs(t, admin.gateways, "example.com/inspector", "Gateway", "edge", map[string]any{"conditions": []any{otherCondition}})

	kubeconfig := c.TokenKubeconfig(t, "shop", hook.Name)
	hc.proxy = startKubeProxy(t, c)
	hc.kubeconfig = hc.proxy.kubeconfig(t, kubeconfig)

	r := hc.sync(t, "1 first run")
	assertExit(t, r, 0)
	assertStatusLines(t, r, "written", "status: 4 written, 0 unchanged, 0 failed")
	first := admin.statuses(t)
	for _, o := range statusObjects {
		checkStamped(t, o, first[o])
	}
	gw := first["Gateway shop/edge"]
	for _, typ := range []string{"Accepted", "Programmed"} {
		if got := conditionStatus(gw.conditions(), typ); got != "True" {
			t.Errorf("Gateway shop/edge: %s is %q, want True", typ, got)
		}
	}
	if cond := findCondition(gw.conditions(), "example.com/Inspected"); cond == nil || cond["lastTransitionTime"] != "2026-01-01T00:00:00Z" {
		t.Errorf("the other manager's condition of Gateway shop/edge is lost or changed: %v", cond)
	}
	orders := first["HTTPRoute shop/orders"]
	parents, _ := orders.status["parents"].([]any)
	if len(parents) != 2 || !jsonEqual(parents[0], mesh) {
		t.Errorf("HTTPRoute shop/orders: status.parents = %s, want the mesh controller's entry as it was, then ours", js(parents))
	}
	for _, o := range []string{"HTTPRoute shop/orders", "HTTPRoute shop/catalog"} {
		ours := first[o].parent("tyk.tyk.io/gateway-controller")
		for _, typ := range []string{"Accepted", "ResolvedRefs"} {
			if got := conditionStatus(conditionsOf(ours), typ); got != "True" {
				t.Errorf("%s: our parent's %s is %q, want True", o, typ, got)
			}
		}
	}
	for _, o := range statusObjects {
		if !first[o].managedBy(status.FieldManager, "status") {
			t.Errorf("%s: no managedFields entry of manager %s on the status subresource: %s", o, status.FieldManager, js(first[o].managed))
		}
	}

	r = hc.sync(t, "2 second run")
	assertExit(t, r, 0)
	assertStatusLines(t, r, "unchanged", "status: 0 written, 4 unchanged, 0 failed")
	second := admin.statuses(t)
	for _, o := range statusObjects {
		if !jsonEqual(first[o].status, second[o].status) || first[o].resourceVersion != second[o].resourceVersion {
			t.Errorf("%s: the second run changed the status:\n%s\n%s", o, js(first[o].status), js(second[o].status))
		}
	}

	t.Run("kubectl", func(t *testing.T) { kubectlShows(t, c) })
	t.Run("refused", func(t *testing.T) { checkStatusRefused(t, c, kubeconfig) })

	// The mesh controller fills status.parents of shop/orders to the CRD's limit of 32: ours cannot be added, and
	// the API server refuses the status. The run fails, naming the route and the API server's reason; the other
	// statuses are written as before, and Tyk serves what it served.
	var full []any
	for i := range 32 {
		full = append(full, meshParent(fmt.Sprintf("mesh-%d", i)))
	}
	applyAs(t, admin.route("orders"), "example.com/mesh-controller", "HTTPRoute", "orders", map[string]any{"parents": full})
	r = hc.sync(t, "3 another controller filled status.parents")
	assertExit(t, r, 1)
	if !strings.Contains(r.log, "gateway2tyk sync: the status of HTTPRoute shop/orders was not written: the API server refused the status: ") ||
		!strings.Contains(r.log, "status.parents: Too many: 33: must have at most 32 items") {
		t.Errorf("the run does not say which status was refused and why:\n%s", r.log)
	}
	if !strings.Contains(r.stdout, "status: 0 written, 3 unchanged, 1 failed") || !strings.Contains(r.stdout, summary(0, 0, 0, len(hc.want("shop/orders", "shop/catalog")))) {
		t.Errorf("the run with a refused status does not sync the APIs and the other statuses as before:\n%s", r.stdout)
	}
	hc.requireServes(t, "after the refused status", "shop/orders", "shop/catalog")
	applyAs(t, admin.route("orders"), "example.com/mesh-controller", "HTTPRoute", "orders", map[string]any{"parents": []any{mesh}})

	// `sync --from FILE --kubeconfig` (the GitOps loop of the conformance harness): the catalog route now names a
	// Service that does not exist; its render says ResolvedRefs False, and Argo CD applies it (generation 2).
	stream, gen := rerenderCatalog(t, hc, admin)
	if now := admin.statuses(t)["HTTPRoute shop/catalog"]; !jsonEqual(now.status, second["HTTPRoute shop/catalog"].status) {
		t.Errorf("the server-side apply of the route's new spec changed its status:\n%s\n%s", js(second["HTTPRoute shop/catalog"].status), js(now.status))
	}
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second))) // a new second for the new time
	adminKC := adminKubeconfig(t, c)
	cmd := exec.Command(hc.bin, "sync", "--from", stream, "--kubeconfig", adminKC, "--write-status",
		"--mode", "ce", "--url", hc.gs[0].URL, "--auth", hc.gs[0].Secret, "-n", "shop")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("sync --from %s --kubeconfig --write-status: %v\n%s%s", stream, err, out.String(), errb.String())
	}
	t.Logf("sync --from FILE --kubeconfig KUBECONFIG --write-status:\n%s%s", out.String(), errb.String())
	if !strings.Contains(out.String(), "status: HTTPRoute shop/catalog: written\n") ||
		!strings.Contains(out.String(), "status: 2 written, 2 unchanged, 0 failed\n") {
		t.Errorf("sync --from does not write the catalog route's new status (and shop/orders', whose mesh entries changed):\n%s", out.String())
	}
	third := admin.statuses(t)
	before, after := first["HTTPRoute shop/catalog"].parent("tyk.tyk.io/gateway-controller"), third["HTTPRoute shop/catalog"].parent("tyk.tyk.io/gateway-controller")
	checkStamped(t, "HTTPRoute shop/catalog", third["HTTPRoute shop/catalog"])
	if third["HTTPRoute shop/catalog"].generation != gen {
		t.Errorf("HTTPRoute shop/catalog: generation %d, want %d after the new spec", third["HTTPRoute shop/catalog"].generation, gen)
	}
	oldRefs, newRefs := findCondition(conditionsOf(before), "ResolvedRefs"), findCondition(conditionsOf(after), "ResolvedRefs")
	oldAcc, newAcc := findCondition(conditionsOf(before), "Accepted"), findCondition(conditionsOf(after), "Accepted")
	switch {
	case newRefs == nil || newRefs["status"] != "False":
		t.Errorf("HTTPRoute shop/catalog: ResolvedRefs after the missing backend: %v, want False", newRefs)
	case !(str(newRefs["lastTransitionTime"]) > str(oldRefs["lastTransitionTime"])):
		t.Errorf("HTTPRoute shop/catalog: ResolvedRefs changed status, but lastTransitionTime %v is not later than %v",
			newRefs["lastTransitionTime"], oldRefs["lastTransitionTime"])
	}
	if newAcc == nil || oldAcc == nil || newAcc["status"] != oldAcc["status"] || newAcc["lastTransitionTime"] != oldAcc["lastTransitionTime"] {
		t.Errorf("HTTPRoute shop/catalog: Accepted kept its status, so its lastTransitionTime must stay: before %v, after %v", oldAcc, newAcc)
	}
}

// meshParent is an entry of status.parents that another controller writes.
func meshParent(name string) map[string]any {
	return map[string]any{
		"parentRef":      map[string]any{"group": "", "kind": "Service", "name": name},
		"controllerName": "example.com/mesh",
		"conditions": []any{map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted", "message": "mesh",
			"observedGeneration": int64(1), "lastTransitionTime": "2026-01-01T00:00:00Z"}},
	}
}

func assertStatusLines(t *testing.T, r syncRun, outcome, summary string) {
	t.Helper()
	for _, o := range statusObjects {
		if !strings.Contains(r.stdout, "status: "+o+": "+outcome+"\n") {
			t.Errorf("%s: the run does not say the status of %s is %s:\n%s", r.name, o, outcome, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, summary+"\n") {
		t.Errorf("%s: no %q:\n%s", r.name, summary, r.stdout)
	}
}

// adminAccess reads and writes the test's objects as an admin.
type adminAccess struct {
	dyn      dynamic.Interface
	gateways dynamic.ResourceInterface
}

func adminClient(t *testing.T, c *realkube.Cluster) *adminAccess {
	t.Helper()
	return &adminAccess{dyn: c.Dynamic, gateways: c.Dynamic.Resource(status.Resources[status.KindGateway]).Namespace("shop")}
}

func (a *adminAccess) route(string) dynamic.ResourceInterface {
	return a.dyn.Resource(status.Resources[status.KindHTTPRoute]).Namespace("shop")
}

// liveStatus is what the API server holds of one object.
type liveStatus struct {
	status          map[string]any
	generation      int64
	resourceVersion string
	managed         []metav1.ManagedFieldsEntry
}

func (l liveStatus) conditions() []any { c, _ := l.status["conditions"].([]any); return c }

func (l liveStatus) parent(controller string) map[string]any {
	ps, _ := l.status["parents"].([]any)
	for _, p := range ps {
		if m, ok := p.(map[string]any); ok && m["controllerName"] == controller {
			return m
		}
	}
	return nil
}

func (l liveStatus) managedBy(manager, subresource string) bool {
	for _, m := range l.managed {
		if m.Manager == manager && m.Subresource == subresource && m.Operation == metav1.ManagedFieldsOperationApply {
			return true
		}
	}
	return false
}

func (a *adminAccess) statuses(t *testing.T) map[string]liveStatus {
	t.Helper()
	out := map[string]liveStatus{}
	for _, o := range statusObjects {
		kind, rest, _ := strings.Cut(o, " ")
		ns, name, ok := strings.Cut(rest, "/")
		if !ok {
			ns, name = "", rest
		}
		var res dynamic.ResourceInterface = a.dyn.Resource(status.Resources[kind])
		if ns != "" {
			res = a.dyn.Resource(status.Resources[kind]).Namespace(ns)
		}
		u, err := res.Get(realkube.Context(t), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("reading %s: %v", o, err)
		}
		st, _ := u.Object["status"].(map[string]any)
		out[o] = liveStatus{status: st, generation: u.GetGeneration(), resourceVersion: u.GetResourceVersion(), managed: u.GetManagedFields()}
	}
	return out
}

// checkStamped: every condition the render computes (those of gateway2tyk's controller, for a route) has the live
// generation as observedGeneration and a lastTransitionTime.
func checkStamped(t *testing.T, o string, l liveStatus) {
	t.Helper()
	lists := [][]any{l.conditions()}
	ls, _ := l.status["listeners"].([]any)
	for _, li := range ls {
		lists = append(lists, conditionsOf(li))
	}
	if strings.HasPrefix(o, "HTTPRoute") {
		lists = [][]any{conditionsOf(l.parent("tyk.tyk.io/gateway-controller"))}
	}
	n := 0
	for _, list := range lists {
		for _, c := range list {
			m := c.(map[string]any)
			if strings.HasPrefix(str(m["type"]), "example.com/") {
				continue
			}
			n++
			if g, _ := m["observedGeneration"].(int64); g != l.generation || str(m["lastTransitionTime"]) == "" {
				t.Errorf("%s: condition %s: observedGeneration %v (generation %d), lastTransitionTime %q", o, m["type"],
					m["observedGeneration"], l.generation, m["lastTransitionTime"])
			}
		}
	}
	if n == 0 {
		t.Errorf("%s: no condition written: %s", o, js(l.status))
	}
}

func conditionsOf(v any) []any {
	m, _ := v.(map[string]any)
	c, _ := m["conditions"].([]any)
	return c
}

func findCondition(list []any, typ string) map[string]any {
	for _, c := range list {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			return m
		}
	}
	return nil
}

func conditionStatus(list []any, typ string) string { return str(findCondition(list, typ)["status"]) }

func str(v any) string { s, _ := v.(string); return s }

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

func jsonEqual(a, b any) bool { return js(a) == js(b) }

// applyAs server-side applies a status as another field manager (another controller).
func applyAs(t *testing.T, res dynamic.ResourceInterface, manager, kind, name string, st map[string]any) {
	t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": kind,
		"metadata": map[string]any{"name": name, "namespace": "shop"}, "status": st}}
	if _, err := res.ApplyStatus(realkube.Context(t), name, obj, metav1.ApplyOptions{FieldManager: manager, Force: true}); err != nil {
		t.Fatalf("%s's status of %s shop/%s: %v", manager, kind, name, err)
	}
}

// rerenderCatalog points the catalog route at a Service that does not exist, renders the hook's output again
// from it (the render runs on its own output), applies the route as an admin (Argo CD's Sync phase) and writes
// the rendered stream, as the plugin's output, to a file; it returns the file and the route's new generation.
func rerenderCatalog(t *testing.T, hc *hookCluster, admin *adminAccess) (string, int64) {
	t.Helper()
	var items []*yaml.RNode
	for _, it := range hc.h.items {
		it = it.Copy()
		if it.GetKind() == "HTTPRoute" && it.GetName() == "catalog" {
			if err := it.PipeE(yaml.Lookup("spec", "rules", "0", "backendRefs", "0"), yaml.SetField("name", yaml.NewStringRNode("missing"))); err != nil {
				t.Fatal(err)
			}
		}
		items = append(items, it)
	}
	cfg := config.Default()
	cfg.SyncHook = config.SyncHook{Enabled: true, Image: "gateway2tyk:test", Context: "shop/edge", WriteStatus: true}
	out, err := fn.Render(items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rendered := hookRender{items: out.Items}
	applied := (&hookCluster{c: hc.c, h: rendered}).applyAll(t, func(o *unstructured.Unstructured) bool {
		return o.GetKind() == "HTTPRoute" && o.GetName() == "catalog"
	})
	if applied != 1 {
		t.Fatalf("applied %d catalog routes", applied)
	}
	u, err := admin.route("catalog").Get(realkube.Context(t), "catalog", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for _, it := range out.Items {
		obj, ok := toUnstructured(it)
		if !ok {
			continue
		}
		for54(t, obj)
		b, err := json.Marshal(obj.Object)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	path := filepath.Join(t.TempDir(), "rendered.yaml")
	if err := os.WriteFile(path, []byte(strings.Join(docs, "\n---\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, u.GetGeneration()
}

// adminKubeconfig writes a kubeconfig with the admin's client certificate.
func adminKubeconfig(t *testing.T, c *realkube.Cluster) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test"] = &clientcmdapi.Cluster{Server: c.Config.Host, CertificateAuthorityData: c.CAData()}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificate: c.Config.CertFile, ClientKey: c.Config.KeyFile}
	cfg.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "admin"}
	cfg.CurrentContext = "test"
	path := filepath.Join(t.TempDir(), "kubeconfig-admin")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// kubectlShows runs the real kubectl (bin/kubectl, or $KUBECTL): `kubectl get gateway,httproute` and the
// conditions with -o jsonpath. HTTPRoute's printer columns are its hostnames and age: its conditions show in
// the jsonpath (and in kubectl describe), not in the table.
func kubectlShows(t *testing.T, c *realkube.Cluster) {
	kubectl := localproc.EnvOr("KUBECTL", filepath.Join(repoRoot(t), "bin", "kubectl"))
	if _, err := os.Stat(kubectl); err != nil {
		if os.Getenv(realkube.RequiredEnv) == "required" {
			t.Fatalf("no kubectl at %s (make bin/kubectl): %v", kubectl, err)
		}
		t.Skipf("SKIPPED: no kubectl at %s (make bin/kubectl builds it)", kubectl)
	}
	kc := adminKubeconfig(t, c)
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(kubectl, append([]string{"--kubeconfig", kc}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Logf("$ kubectl %s\n%s", strings.Join(args, " "), out)
		return string(out)
	}
	table := run("get", "gateway,httproute", "-n", "shop")
	lines := strings.Split(table, "\n")
	if len(lines) < 2 || strings.Join(strings.Fields(lines[0]), " ") != "NAME CLASS ADDRESS PROGRAMMED AGE" ||
		!strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), "gateway.gateway.networking.k8s.io/edge tyk edge.lb.example.net True ") {
		t.Errorf("kubectl get gateway does not show the Gateway Programmed with its address:\n%s", table)
	}
	for _, r := range []string{"httproute.gateway.networking.k8s.io/catalog", "httproute.gateway.networking.k8s.io/orders"} {
		if !strings.Contains(table, r) {
			t.Errorf("kubectl get httproute does not list %s:\n%s", r, table)
		}
	}
	got := run("get", "httproute", "-n", "shop", "-o",
		`jsonpath={range .items[*]}{.metadata.name}{range .status.parents[?(@.controllerName=="tyk.tyk.io/gateway-controller")].conditions[*]}{" "}{.type}={.status}{end}{"\n"}{end}`)
	if got != "catalog Accepted=True ResolvedRefs=True\norders Accepted=True ResolvedRefs=True\n" {
		t.Errorf("kubectl -o jsonpath of the routes' conditions:\n%s", got)
	}
	got = run("get", "gateway", "edge", "-n", "shop", "-o", `jsonpath={range .status.conditions[*]}{.type}={.status} {end}`)
	if got != "Accepted=True Programmed=True example.com/Inspected=True " {
		t.Errorf("kubectl -o jsonpath of the Gateway's conditions: %q", got)
	}
}

// checkStatusRefused: the hook's ServiceAccount may patch the status of the objects the hook names and nothing
// else: not the objects themselves, not the status of another route or class, and it may list none of them.
func checkStatusRefused(t *testing.T, c *realkube.Cluster, kubeconfig string) {
	for _, o := range []*unstructured.Unstructured{
		{Object: map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
			"metadata": map[string]any{"name": "another", "namespace": "shop"}, "spec": map[string]any{}}},
		{Object: map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GatewayClass",
			"metadata": map[string]any{"name": "another"}, "spec": map[string]any{"controllerName": "example.com/other"}}},
	} {
		var res dynamic.ResourceInterface = c.Dynamic.Resource(status.Resources[o.GetKind()])
		if o.GetNamespace() != "" {
			res = c.Dynamic.Resource(status.Resources[o.GetKind()]).Namespace(o.GetNamespace())
		}
		if _, err := res.Create(realkube.Context(t), o, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	routes := dyn.Resource(status.Resources[status.KindHTTPRoute]).Namespace("shop")
	classes := dyn.Resource(status.Resources[status.KindGatewayClass])
	patch := []byte(`{"status":{"parents":[]}}`)
	ctx := realkube.Context(t)
	for what, call := range map[string]func() error{
		"patch the status of HTTPRoute shop/another": func() error {
			_, err := routes.Patch(ctx, "another", types.MergePatchType, patch, metav1.PatchOptions{}, "status")
			return err
		},
		"get HTTPRoute shop/another":  func() error { _, err := routes.Get(ctx, "another", metav1.GetOptions{}); return err },
		"list the HTTPRoutes of shop": func() error { _, err := routes.List(ctx, metav1.ListOptions{}); return err },
		"patch HTTPRoute shop/orders itself": func() error {
			_, err := routes.Patch(ctx, "orders", types.MergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`), metav1.PatchOptions{})
			return err
		},
		"patch the status of GatewayClass another": func() error {
			_, err := classes.Patch(ctx, "another", types.MergePatchType, []byte(`{"status":{"conditions":[]}}`), metav1.PatchOptions{}, "status")
			return err
		},
		"list the GatewayClasses": func() error { _, err := classes.List(ctx, metav1.ListOptions{}); return err },
		"patch GatewayClass tyk itself": func() error {
			_, err := classes.Patch(ctx, "tyk", types.MergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`), metav1.PatchOptions{})
			return err
		},
		"patch the status of Gateway shop/edge's listeners through the object": func() error {
			_, err := dyn.Resource(status.Resources[status.KindGateway]).Namespace("shop").Patch(ctx, "edge", types.MergePatchType,
				[]byte(`{"spec":{"listeners":[]}}`), metav1.PatchOptions{})
			return err
		},
	} {
		if err := call(); !apierrors.IsForbidden(err) {
			t.Errorf("as the hook's ServiceAccount, %s: %v, want Forbidden", what, err)
		}
	}
}
