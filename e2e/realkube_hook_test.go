package e2e_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gateway2tyk/gateway2tyk/e2e/realkube"
	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/hook"
	"github.com/gateway2tyk/gateway2tyk/sync/kube"
	"github.com/gateway2tyk/gateway2tyk/sync/target/targettest"
)

// The data plane: Service shop/tyk-gateway, the OperatorContext's spec.dataPlane.serviceRef, in front of real
// Gateways sharing one Redis; its EndpointSlices are written as an admin (the test cluster has no
// controller-manager), one per replica, at a pod IP that the test's pod network routes to the replica.
const hookURL = "http://tyk-gateway.shop.svc.cluster.local:8080"

// TestRealKubeSyncHook applies what the render emits for the sync hook to a real API server (RBAC on) and runs
// the hook Job's command as the hook's ServiceAccount (a TokenRequest token) against two real Tyk Gateways
// sharing one Redis, the ready endpoints of the data-plane Service: the first run creates on each, the second
// changes nothing, a pruned route's ConfigMaps delete exactly its APIs. As that ServiceAccount every access the
// hook's Roles do not grant is refused by the API server. The API server stopped in the middle of a run deletes
// nothing, and the next run converges. A third replica added between runs is filled by the next run; a replica
// that does not answer fails the run, named, and the others are synced.
func TestRealKubeSyncHook(t *testing.T) {
	hc, bins, cert := startHookCluster(t, 2, false)
	c, gs := hc.c, hc.gs
	defer hc.printTable(t)
	t.Logf("the hook Job runs: gateway2tyk %s", strings.Join(hc.h.args, " "))
	// A replica that is not ready (starting, say) is left out, and said so.
	hc.addEndpoint(t, "tyk-gateway-starting", "10.244.0.9", nil, false)
	// ConfigMaps the sync must leave out: one of shop without the render's labels, and a rendered API's copy
	// in tyk, a namespace the hook does not cover.
	unrelated := []*corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "unrelated", Namespace: "shop"}, Data: map[string]string{"k": "v"}}}
	list, err := c.Client.CoreV1().ConfigMaps("shop").List(realkube.Context(t), metav1.ListOptions{LabelSelector: kube.RenderedSelector})
	if err != nil || len(list.Items) == 0 {
		t.Fatalf("no rendered ConfigMap in shop: %v", err)
	}
	elsewhere := list.Items[0].DeepCopy()
	elsewhere.Namespace, elsewhere.ResourceVersion, elsewhere.UID, elsewhere.ManagedFields = "tyk", "", "", nil
	for _, cm := range append(unrelated, elsewhere) {
		if _, err := c.Client.CoreV1().ConfigMaps(cm.Namespace).Create(realkube.Context(t), cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	kubeconfig := c.TokenKubeconfig(t, "shop", hook.Name)
	hc.proxy = startKubeProxy(t, c)
	hc.kubeconfig = hc.proxy.kubeconfig(t, kubeconfig)
	all := hc.want("shop/orders", "shop/catalog")
	orders, catalog := len(hc.h.routes["shop/orders"]), len(hc.h.routes["shop/catalog"])

	r := hc.sync(t, "1 first run")
	if r.exit != 0 {
		t.Fatalf("the first run failed (exit %d): %s", r.exit, r.log)
	}
	assertSummary(t, r, len(gs), len(all), 0, 0, 0)
	hc.requireServes(t, "after the first run", "shop/orders", "shop/catalog")
	assertReloads(t, r, 1, 1)
	if !strings.Contains(r.log, "tyk-gateway-starting (EndpointSlice tyk-gateway-starting) is not ready: not synced") {
		t.Errorf("the run does not say it left out the endpoint that is not ready:\n%s", r.log)
	}
	certID := targettest.CertID(hookOrg, cert)
	if n := len(regexp.MustCompile(`(?m)^`+certID+`\s+upload\s+Secret shop/edge-tls\s+ok: uploaded$`).FindAllString(r.stdout, -1)); n != 1 {
		t.Errorf("the first run uploaded the listener's certificate %s from Secret shop/edge-tls %d times, want once "+
			"(the replicas share the certificate store in Redis)", certID, n)
	}

	r = hc.sync(t, "2 second run")
	assertExit(t, r, 0)
	assertSummary(t, r, len(gs), 0, 0, 0, len(all))
	assertReloads(t, r, 0, 0)

	// Argo CD prunes the ConfigMaps of a route removed from git.
	pruned := pruneRoute(t, c, "shop", "shop/catalog")
	r = hc.sync(t, "3 catalog's ConfigMaps pruned")
	assertExit(t, r, 0)
	assertSummary(t, r, len(gs), 0, 0, catalog, orders)
	hc.requireServes(t, "after the prune", "shop/orders")
	if pruned != catalog {
		t.Errorf("pruned %d ConfigMaps, the route has %d APIs", pruned, catalog)
	}

	t.Run("refused", func(t *testing.T) { checkRefused(t, c, kubeconfig) })

	// The API server stops in the middle of a run: the catalog route is back in git (its ConfigMaps applied
	// again), and the API server goes away when the run asks for the Secret, for the rendered ConfigMaps, or for
	// the data plane's EndpointSlices.
	hc.applyAll(t, func(o *unstructured.Unstructured) bool {
		return o.GetKind() == "ConfigMap" && o.GetAnnotations()[emit.AnnotationRoute] == "shop/catalog"
	})
	for i, at := range []string{"/secrets/", "/configmaps", "/endpointslices"} {
		hc.proxy.stopAt(at)
		r = hc.sync(t, fmt.Sprintf("%d API server stopped at the run's request for %s", 4+i, strings.Trim(at, "/")))
		assertExit(t, r, 4) // the cluster failed the run before an answer: exit status 4, not 1 (issue 30, finding 11)
		if !strings.Contains(strings.ToLower(r.log), strings.Trim(at, "/")[:6]) {
			t.Errorf("the failed run does not name what it could not read:\n%s", r.log)
		}
		hc.requireServes(t, "after the run the API server failed", "shop/orders")
		assertReloads(t, r, 0, 0)
		if err := c.StartAPIServer(); err != nil {
			t.Fatal(err)
		}
	}
	r = hc.sync(t, "7 API server back: converges")
	assertExit(t, r, 0)
	assertSummary(t, r, len(gs), catalog, 0, 0, orders)
	hc.requireServes(t, "after the API server came back", "shop/orders", "shop/catalog")
	r = hc.sync(t, "8 right after")
	assertExit(t, r, 0)
	assertSummary(t, r, len(gs), 0, 0, 0, len(all))

	// A third replica joins the data plane between runs: empty until the next run fills it.
	hc.gs = append(hc.gs, gs[0].AddReplica(t, bins))
	hc.addEndpoint(t, "tyk-gateway-3", "10.244.0.3", hc.gs[2], true)
	if ids := hc.loaded(t, 2); len(ids) != 0 {
		t.Errorf("the new replica serves %v before any run", ids)
	}
	r = hc.sync(t, "9 a third replica added")
	assertExit(t, r, 0)
	assertSummaries(t, r, []string{summary(0, 0, 0, len(all)), summary(0, 0, 0, len(all)), summary(len(all), 0, 0, 0)},
		"replicas: 3 of 3 in sync")
	hc.requireServes(t, "after the third replica's first run", "shop/orders", "shop/catalog")
	assertReloads(t, r, 0, 0, 1)

	// A replica that does not answer fails the run, named; the others are synced.
	hc.gs[1].Stop()
	pruneRoute(t, c, "shop", "shop/catalog")
	r = hc.sync(t, "10 replica 2 down, catalog pruned")
	assertExit(t, r, 1)
	down := "http://10.244.0.2:8080 (pod tyk-gateway-2"
	if !strings.Contains(r.replicas, "replicas: 2 of 3 in sync; failed: Tyk Gateway at "+down) {
		t.Errorf("the run does not name the replica that is down: %q", r.replicas)
	}
	for _, i := range []int{0, 2} {
		assertEqualIDs(t, fmt.Sprintf("replica %d after the run with replica 2 down", i+1), hc.want("shop/orders"), hc.loaded(t, i))
	}
	if err := hc.gs[1].Restart(); err != nil {
		t.Fatal(err)
	}
	r = hc.sync(t, "11 replica 2 back")
	assertExit(t, r, 0)
	assertSummaries(t, r, []string{summary(0, 0, 0, orders), summary(0, 0, catalog, orders), summary(0, 0, 0, orders)},
		"replicas: 3 of 3 in sync")
	hc.requireServes(t, "after replica 2 came back", "shop/orders")
}

func summary(created, updated, deleted, unchanged int) string {
	return fmt.Sprintf("sync: %d created, %d updated, %d deleted, %d unchanged, 0 failed", created, updated, deleted, unchanged)
}

// assertSummary checks that each of the replicas reports the counts, and that all are in sync.
func assertSummary(t *testing.T, r syncRun, replicas, created, updated, deleted, unchanged int) {
	t.Helper()
	want := make([]string, replicas)
	for i := range want {
		want[i] = summary(created, updated, deleted, unchanged)
	}
	assertSummaries(t, r, want, fmt.Sprintf("replicas: %d of %d in sync", replicas, replicas))
}

func assertSummaries(t *testing.T, r syncRun, want []string, replicas string) {
	t.Helper()
	if strings.Join(r.summaries, "\n") != strings.Join(want, "\n") || r.replicas != replicas {
		t.Errorf("%s: the replicas report\n%s\n%s\nwant\n%s\n%s", r.name, strings.Join(r.summaries, "\n"), r.replicas,
			strings.Join(want, "\n"), replicas)
	}
}

// assertReloads checks the reloads each replica logged during the run: each replica is reloaded alone.
func assertReloads(t *testing.T, r syncRun, want ...int) {
	t.Helper()
	if fmt.Sprint(r.reloads) != fmt.Sprint(want) {
		t.Errorf("%s: the replicas logged %v reloads, want %v", r.name, r.reloads, want)
	}
}

func assertExit(t *testing.T, r syncRun, want int) {
	t.Helper()
	if r.exit != want {
		t.Errorf("%s: exit %d, want %d\n%s%s", r.name, r.exit, want, r.stdout, r.log)
	}
}

func assertEqualIDs(t *testing.T, when string, want, got []string) {
	t.Helper()
	if strings.Join(want, ",") != strings.Join(got, ",") {
		t.Errorf("%s the Gateway serves %v, want %v", when, got, want)
	}
}
