package e2e_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/filters"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/e2e/internal/localproc"
	"github.com/gateway2tyk/gateway2tyk/e2e/realkube"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/apiserver"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/hook"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
	"github.com/gateway2tyk/gateway2tyk/sync/kube"
	"github.com/gateway2tyk/gateway2tyk/sync/target/targettest"
)

// hookRender is examples/basic rendered with the sync hook on: what Argo CD would apply.
type hookRender struct {
	items []*yaml.RNode
	// args are the hook Job's container args: what the Job runs.
	args []string
	// routes maps a route to the IDs of its APIs.
	routes map[string][]string
}

// hookOrg is the organisation of the certificate IDs.
const hookOrg = "5e9d9544a1dcd60001d0ed20"

// renderHook renders examples/basic with spec.syncHook on (context shop/edge, whose env names the real Gateway
// in ce mode, and whose Secret tyk/tyk-operator-conf holds the Gateway's secret), and with an HTTPS listener whose
// certificate is in Secret shop/edge-tls (a local-config stand-in with the certificate alone: the render reads
// it, the cluster has the real one), so that the hook reads a Gateway and a certificate Secret as well.
func renderHook(t *testing.T, gatewayURL string, cert []byte) hookRender {
	t.Helper()
	nodes, err := kio.LocalPackageReader{PackagePath: filepath.Join(repoRoot(t), "examples", "basic"), OmitReaderAnnotations: true}.Read()
	if err != nil {
		t.Fatal(err)
	}
	tlsSecret := targettest.TLSSecret("shop", "edge-tls", cert, nil)
	tlsSecret.Annotations = map[string]string{filters.LocalConfigAnnotation: "true"}
	items := []*yaml.RNode{yaml.MustParse(targettest.Stream(tlsSecret))}
	for _, n := range nodes {
		var spec string
		switch key := n.GetKind() + " " + n.GetNamespace() + "/" + n.GetName(); key {
		case "Kustomization /", "RenderConfig /gateway2tyk":
			continue
		case "OperatorContext shop/edge":
			spec = fmt.Sprintf(`
env: {mode: ce, url: %q, org: %s}
secretRef: {name: tyk-operator-conf, namespace: tyk}
dataPlane: {serviceRef: {name: tyk-gateway}, tags: [edge]}
`, gatewayURL, hookOrg)
		case "Gateway shop/edge":
			spec = `
gatewayClassName: tyk
infrastructure: {parametersRef: {group: tyk.tyk.io, kind: OperatorContext, name: edge}}
listeners:
  - {name: http, protocol: HTTP, port: 8080, hostname: "*.shop.example.com"}
  - {name: https, protocol: HTTPS, port: 8443, hostname: "*.shop.example.com", tls: {certificateRefs: [{name: edge-tls}]}}
`
		}
		if spec != "" {
			if err := n.PipeE(yaml.SetField("spec", yaml.MustParse(spec))); err != nil {
				t.Fatal(err)
			}
		}
		items = append(items, n)
	}
	cfg := config.Default()
	cfg.SyncHook = config.SyncHook{Enabled: true, Image: "gateway2tyk:test", Context: "shop/edge"}
	out, err := fn.Render(items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range out.Results {
		if r.Severity == "error" {
			t.Fatalf("the render of examples/basic with the sync hook: %s", r.Message)
		}
	}
	h := hookRender{items: out.Items, routes: map[string][]string{}}
	for _, n := range out.Items {
		switch {
		case n.GetKind() == "Job" && hook.IsHook(n):
			args, err := n.Pipe(yaml.Lookup("spec", "template", "spec", "containers", "[name=sync]", "args"))
			if err != nil || args == nil {
				t.Fatalf("the hook Job has no args: %v", err)
			}
			for _, a := range args.Content() {
				h.args = append(h.args, a.Value)
			}
		case n.GetKind() == "ConfigMap" && emit.IsEmitted(n):
			route := n.GetAnnotations()[emit.AnnotationRoute]
			h.routes[route] = append(h.routes[route], n.GetLabels()[emit.LabelAPIID])
		}
	}
	if len(h.args) == 0 || len(h.routes) < 2 {
		t.Fatalf("the render emits no hook Job or fewer than two routes' APIs (args %v, routes %v)", h.args, h.routes)
	}
	return h
}

// for54 takes out of a rendered ConfigMap's document the upstream fields a Tyk Gateway older than 5.8.0 refuses:
// the test Gateway is the 5.4 line (the one build the Go module proxy serves). Nothing else is changed.
func for54(t *testing.T, obj *unstructured.Unstructured) {
	t.Helper()
	doc, ok, _ := unstructured.NestedString(obj.Object, "data", emit.DocumentKey)
	if !ok {
		return
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	if up, ok := m["x-tyk-api-gateway"].(map[string]any)["upstream"].(map[string]any); ok {
		for _, f := range tykroute.NewerUpstreamFields {
			delete(up, f)
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(obj.Object, string(b), "data", emit.DocumentKey); err != nil {
		t.Fatal(err)
	}
}

// hookCluster is a real API server holding what the render emits for the sync hook, and the real Gateway.
type hookCluster struct {
	c   *realkube.Cluster
	gs  []*realtyk.Gateway // the data plane's replicas
	bin string
	h   hookRender
	// kubeconfig is the hook ServiceAccount's, through proxy.
	kubeconfig string
	proxy      *kubeProxy
	pods       *podNetwork
	table      []string
}

// applyAll applies, as an admin (Argo CD's Sync phase), every object of the render that a cluster holds: the
// inputs (Gateway API objects, OperatorContexts, Services) and the outputs (API ConfigMaps, ServiceAccount,
// Roles, RoleBindings, Job). keep selects the objects (nil: all).
func (hc *hookCluster) applyAll(t *testing.T, keep func(*unstructured.Unstructured) bool) int {
	t.Helper()
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(hc.c.Client.Discovery()))
	n := 0
	for _, item := range hc.h.items {
		obj, ok := unstructuredOf(item)
		if !ok || (keep != nil && !keep(obj)) {
			continue
		}
		for54(t, obj)
		ensureNamespace(t, hc.c, obj)
		res, err := resourceFor(hc.c.Dynamic, mapper, obj)
		if err != nil {
			t.Fatalf("%s: %v", describe(item), err)
		}
		if err := apply(t, res, obj); err != nil {
			t.Fatalf("the API server refuses %s: %v", describe(item), err)
		}
		n++
	}
	return n
}

// syncRun is one run of the hook Job's command.
type syncRun struct {
	name        string
	exit        int
	stdout, log string
	took        time.Duration
	// reloads and loaded are per replica (loaded -1 for a replica that does not answer).
	reloads, loaded []int
	// summaries are the runs' "sync: ..." lines, one per replica, and the "replicas: ..." line.
	summaries     []string
	replicas      string
	kubeRequests  int
	refusedByKube []string
}

var (
	summaryLine  = regexp.MustCompile(`(?m)^sync: .*$`)
	replicasLine = regexp.MustCompile(`(?m)^replicas: .*$`)
)

// sync runs the hook Job's args with the kubeconfig as the Pod's credentials (KUBECONFIG; the Job itself uses
// the in-cluster config of its ServiceAccount), and nothing of the Tyk target in the environment: the target
// comes from the OperatorContext and its Secret, as in the cluster.
func (hc *hookCluster) sync(t *testing.T, name string) syncRun {
	t.Helper()
	before := make([]int, len(hc.gs))
	for i, g := range hc.gs {
		before[i] = g.Reloads()
	}
	var env []string
	for _, e := range os.Environ() {
		k, _, _ := strings.Cut(e, "=")
		switch strings.ToUpper(k) {
		case "KUBECONFIG", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY":
			continue
		}
		if !strings.HasPrefix(k, "TYK_") {
			env = append(env, e)
		}
	}
	cmd := exec.Command(hc.bin, hc.h.args...)
	cmd.Env = append(env, "KUBECONFIG="+hc.kubeconfig, "HTTP_PROXY="+hc.pods.srv.URL)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	hc.proxy.reset()
	start := time.Now()
	err := cmd.Run()
	r := syncRun{name: name, stdout: stdout.String(), log: stderr.String(), took: time.Since(start)}
	r.kubeRequests, r.refusedByKube = hc.proxy.counts()
	// What the sync needs and the hook's Roles do not grant shows here first.
	if len(r.refusedByKube) > 0 {
		t.Errorf("%s: the API server refused the hook's ServiceAccount (403): %v", name, r.refusedByKube)
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("running %s: %v", hc.bin, err)
	}
	var reloads, loaded []string
	for i, g := range hc.gs {
		r.reloads = append(r.reloads, g.Reloads()-before[i])
		n := -1
		if ids, err := g.LoadedIDs(); err == nil {
			n = len(ids)
		}
		r.loaded = append(r.loaded, n)
		reloads = append(reloads, fmt.Sprint(r.reloads[i]))
		loaded = append(loaded, strings.Replace(fmt.Sprint(n), "-1", "down", 1))
	}
	r.summaries = summaryLine.FindAllString(r.stdout, -1)
	r.replicas = replicasLine.FindString(r.stdout)
	outcome := r.replicas
	if len(r.summaries) > 0 {
		outcome = strings.Join(r.summaries, "<br>") + "<br>" + r.replicas
	}
	if outcome == "" {
		outcome = strings.TrimSpace(strings.ReplaceAll(r.log, "\n", " "))
		if len(outcome) > 160 {
			outcome = outcome[:160] + "…"
		}
	}
	t.Logf("%s (exit %d, %s):\n%s%s", name, r.exit, r.took.Round(time.Millisecond), r.stdout, r.log)
	hc.table = append(hc.table, fmt.Sprintf("| %s | %d | %s | %d (%d) | %s | %s | %s |", name, r.exit, outcome,
		r.kubeRequests, len(r.refusedByKube), strings.Join(reloads, "/"), strings.Join(loaded, "/"),
		r.took.Round(10*time.Millisecond)))
	return r
}

func (hc *hookCluster) printTable(t *testing.T) {
	t.Logf("runs of the hook's sync as ServiceAccount shop/%s against the real API server %s and real Tyk "+
		"Gateways %s sharing one Redis (per replica: reloads logged, APIs loaded after):\n"+
		"| run | exit | outcome | API server requests (403) | reloads | APIs loaded | took |\n"+
		"|---|---|---|---|---|---|---|\n%s",
		hook.Name, hc.c.Version, hc.gs[0].Version, strings.Join(hc.table, "\n"))
}

// requireServes checks that every replica that runs serves exactly the routes' APIs.
func (hc *hookCluster) requireServes(t *testing.T, when string, routes ...string) {
	t.Helper()
	for i, g := range hc.gs {
		ids, err := g.LoadedIDs()
		if err != nil {
			t.Fatalf("replica %d: %v", i+1, err)
		}
		assertEqualIDs(t, fmt.Sprintf("%s replica %d (%s)", when, i+1, g.URL), hc.want(routes...), ids)
	}
}

// want is the sorted IDs of the routes' APIs.
func (hc *hookCluster) want(routes ...string) []string {
	var out []string
	for _, r := range routes {
		out = append(out, hc.h.routes[r]...)
	}
	sort.Strings(out)
	return out
}

// The data plane: Service shop/tyk-gateway, the OperatorContext's spec.dataPlane.serviceRef, in front of real
// Gateways sharing one Redis; its EndpointSlices are written as an admin (the test cluster has no
// controller-manager), one per replica, since each Gateway listens on a port of its own on loopback.
const hookURL = "http://tyk-gateway.shop.svc.cluster.local:8080"

// TestRealKubeSyncHook applies what the render emits for the sync hook to a real API server (RBAC on) and runs
// the hook Job's command as the hook's ServiceAccount (a TokenRequest token) against two real Tyk Gateways
// sharing one Redis, the ready endpoints of the data-plane Service: the first run creates on each, the second
// changes nothing, a pruned route's ConfigMaps delete exactly its APIs. As that ServiceAccount every access the
// hook's Roles do not grant is refused by the API server. The API server stopped in the middle of a run deletes
// nothing, and the next run converges. A third replica added between runs is filled by the next run; a replica
// that does not answer fails the run, named, and the others are synced.
func TestRealKubeSyncHook(t *testing.T) {
	bins := realtyk.Find(t)
	c := realkube.Start(t) // a cluster of the test's own: it stops the API server
	c.InstallCRDs(t, channelCRDs(t, apiserver.Standard)...)
	if !tykInstalled {
		localproc.Missing(t, "Tyk Operator CRDs", []string{"../shared/tyk/operator-1.4.2-crds/*.yaml"}, realkube.RequiredEnv, "e2e-kube")
	}
	gs := realtyk.StartReplicas(t, bins, 2)
	cert, key := targettest.NewCertificate(t, "*.shop.example.com")
	hc := &hookCluster{c: c, gs: gs, bin: functionBinary(t, repoRoot(t)), h: renderHook(t, hookURL, cert)}
	defer hc.printTable(t)
	t.Logf("the hook Job runs: gateway2tyk %s", strings.Join(hc.h.args, " "))

	// The cluster's facts the render only names: the Secret with the Gateway's secret, the listener's
	// certificate, Secrets the hook must not read, and the data-plane Service.
	for _, s := range []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Name: "tyk-operator-conf", Namespace: "tyk"}, StringData: map[string]string{"TYK_AUTH": gs[0].Secret}},
		targettest.TLSSecret("shop", "edge-tls", cert, key),
		{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "tyk"}, StringData: map[string]string{"password": "not for the hook"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "shop"}, StringData: map[string]string{"password": "not for the hook"}},
	} {
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"namespace": s.Namespace}}}
		ensureNamespace(t, c, obj)
		if _, err := c.Client.CoreV1().Secrets(s.Namespace).Create(realkube.Context(t), s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	applied := hc.applyAll(t, nil)
	t.Logf("applied %d objects as an admin", applied)
	if _, err := c.Client.CoreV1().Services("shop").Create(realkube.Context(t), &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "tyk-gateway", Namespace: "shop"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{
			{Name: "http", Port: 8080, TargetPort: intstr.FromString("http")},
			{Name: "https", Port: 8443, TargetPort: intstr.FromString("https")}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	hc.pods = startPodNetwork(t)
	for i, g := range gs {
		hc.addEndpoint(t, fmt.Sprintf("tyk-gateway-%d", i+1), fmt.Sprintf("10.244.0.%d", i+1), g, true)
	}
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
	if n := len(regexp.MustCompile(`(?m)^`+certID+`\s+upload\s+shop/edge-tls\s+ok: uploaded$`).FindAllString(r.stdout, -1)); n != 1 {
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
		assertExit(t, r, 1)
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

// addEndpoint writes an EndpointSlice of Service shop/tyk-gateway with one endpoint, the pod IP ip at the
// Service's port "http" (8080), and routes that pod IP to the replica g (nil: nothing listens there).
func (hc *hookCluster) addEndpoint(t *testing.T, name, ip string, g *realtyk.Gateway, ready bool) {
	t.Helper()
	if g != nil {
		hc.pods.route(ip, g.Port)
	}
	p, proto := int32(8080), corev1.ProtocolTCP
	http := "http"
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: name, Namespace: "shop", Labels: map[string]string{discoveryv1.LabelServiceName: "tyk-gateway"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready},
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: name}}},
		Ports: []discoveryv1.EndpointPort{{Name: &http, Port: &p, Protocol: &proto}},
	}
	if _, err := hc.c.Client.DiscoveryV1().EndpointSlices("shop").Create(realkube.Context(t), slice, metav1.CreateOptions{}); err != nil {
		t.Fatalf("the API server refuses EndpointSlice shop/%s: %v", name, err)
	}
}

// podNetwork stands in for the cluster's pod network: the sync reaches a pod IP through it (HTTP_PROXY of the
// sync's process), and it forwards to the loopback port of the replica of that pod. The real API server refuses
// a loopback address in an EndpointSlice ("may not be in the loopback range (127.0.0.0/8, ::1/128)"), and the
// tests talk only to loopback. Requests to loopback (the API server's) are never proxied. A pod whose Gateway
// is down drops the connection, as a pod that is gone does.
type podNetwork struct {
	srv  *httptest.Server
	mu   sync.Mutex
	pods map[string]int // pod IP → loopback port
}

func startPodNetwork(t *testing.T) *podNetwork {
	t.Helper()
	n := &podNetwork{pods: map[string]int{}}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			n.mu.Lock()
			port := n.pods[r.In.URL.Hostname()]
			n.mu.Unlock()
			r.Out.URL.Scheme, r.Out.URL.Host = "http", fmt.Sprintf("127.0.0.1:%d", port)
		},
		Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					conn.Close()
					return
				}
			}
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	n.srv = httptest.NewServer(rp)
	t.Cleanup(n.srv.Close)
	return n
}

func (n *podNetwork) route(ip string, port int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.pods[ip] = port
}

func (hc *hookCluster) loaded(t *testing.T, replica int) []string {
	t.Helper()
	ids, err := hc.gs[replica].LoadedIDs()
	if err != nil {
		t.Fatal(err)
	}
	return ids
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

// pruneRoute deletes, as Argo CD's prune would, the rendered ConfigMaps of a route; it returns how many.
func pruneRoute(t *testing.T, c *realkube.Cluster, ns, route string) int {
	t.Helper()
	list, err := c.Client.CoreV1().ConfigMaps(ns).List(realkube.Context(t), metav1.ListOptions{LabelSelector: emit.LabelAPIID})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, cm := range list.Items {
		if cm.Annotations[emit.AnnotationRoute] == route {
			if err := c.Client.CoreV1().ConfigMaps(ns).Delete(realkube.Context(t), cm.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	return n
}

// kubeProxy stands between the sync and the API server, so that a test can stop the API server at a given
// request of a run. It is a TLS server of its own: the service account's bearer token passes through it.
type kubeProxy struct {
	srv *httptest.Server
	c   *realkube.Cluster

	mu        sync.Mutex
	at        string // a path fragment; "" when disarmed
	reqs      int
	forbidden []string // "METHOD path" of the requests the API server refused with 403
}

func startKubeProxy(t *testing.T, c *realkube.Cluster) *kubeProxy {
	t.Helper()
	up, err := url.Parse(c.Config.Host)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(c.CAData())
	rp := httputil.NewSingleHostReverseProxy(up)
	rp.Transport = &http.Transport{Proxy: nil, TLSClientConfig: &tls.Config{RootCAs: pool}}
	p := &kubeProxy{c: c}
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.StatusCode == http.StatusForbidden {
			p.mu.Lock()
			p.forbidden = append(p.forbidden, resp.Request.Method+" "+resp.Request.URL.RequestURI())
			p.mu.Unlock()
		}
		return nil
	}
	p.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.reqs++
		stop := p.at != "" && strings.Contains(r.URL.Path, p.at)
		if stop {
			p.at = ""
		}
		p.mu.Unlock()
		if stop {
			p.c.StopAPIServer()
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *kubeProxy) stopAt(fragment string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.at = fragment
}

func (p *kubeProxy) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reqs, p.forbidden = 0, nil
}

func (p *kubeProxy) counts() (reqs int, forbidden []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reqs, p.forbidden
}

// kubeconfig is the service account's kubeconfig pointed at the proxy.
func (p *kubeProxy) kubeconfig(t *testing.T, direct string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(direct)
	if err != nil {
		t.Fatal(err)
	}
	for _, cl := range cfg.Clusters {
		cl.Server = p.srv.URL
		cl.CertificateAuthorityData = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.srv.Certificate().Raw})
	}
	path := direct + "-proxied"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkRefused shows, as the hook's ServiceAccount, that the API server refuses (403) every access the hook's
// Roles do not grant, and grants the three the sync makes.
func checkRefused(t *testing.T, c *realkube.Cluster, kubeconfig string) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 500, 1000 // a few hundred access reviews
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	get, list := metav1.GetOptions{}, metav1.ListOptions{}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "shop"}}
	merge := []byte(`{"metadata":{"labels":{"x":"y"}}}`)
	ocs := dyn.Resource(kube.OperatorContexts)
	gws := dyn.Resource(kube.Gateways)
	routes := dyn.Resource(kube.Gateways.GroupVersion().WithResource("httproutes"))
	rendered, err := c.Client.CoreV1().ConfigMaps("shop").List(ctx, metav1.ListOptions{LabelSelector: kube.RenderedSelector})
	if err != nil || len(rendered.Items) == 0 {
		t.Fatalf("no rendered ConfigMap in shop: %v", err)
	}
	one := rendered.Items[0].DeepCopy()
	one.Data["x"] = "y"
	calls := []struct {
		what    string
		allowed bool
		call    func() error
	}{
		// What the sync does.
		{"get Secret tyk/tyk-operator-conf (the context's secretRef)", true, func() error {
			_, err := core.CoreV1().Secrets("tyk").Get(ctx, "tyk-operator-conf", get)
			return err
		}},
		{"list ConfigMaps of shop", true, func() error { _, err := core.CoreV1().ConfigMaps("shop").List(ctx, list); return err }},
		{"get OperatorContext shop/edge", true, func() error { _, err := ocs.Namespace("shop").Get(ctx, "edge", get); return err }},
		{"get Gateway shop/edge (it has an HTTPS listener)", true, func() error { _, err := gws.Namespace("shop").Get(ctx, "edge", get); return err }},
		{"get Secret shop/edge-tls (the listener's certificate)", true, func() error {
			_, err := core.CoreV1().Secrets("shop").Get(ctx, "edge-tls", get)
			return err
		}},
		{"get Service shop/tyk-gateway (the data plane's)", true, func() error {
			_, err := core.CoreV1().Services("shop").Get(ctx, "tyk-gateway", get)
			return err
		}},
		{"list EndpointSlices of shop", true, func() error { _, err := core.DiscoveryV1().EndpointSlices("shop").List(ctx, list); return err }},
		// Other reads.
		{"get Service shop/orders", false, func() error { _, err := core.CoreV1().Services("shop").Get(ctx, "orders", get); return err }},
		{"list Services of shop", false, func() error { _, err := core.CoreV1().Services("shop").List(ctx, list); return err }},
		{"list EndpointSlices of tyk", false, func() error { _, err := core.DiscoveryV1().EndpointSlices("tyk").List(ctx, list); return err }},
		{"get EndpointSlice shop/tyk-gateway-1", false, func() error {
			_, err := core.DiscoveryV1().EndpointSlices("shop").Get(ctx, "tyk-gateway-1", get)
			return err
		}},
		{"get Secret tyk/other", false, func() error { _, err := core.CoreV1().Secrets("tyk").Get(ctx, "other", get); return err }},
		{"get Secret shop/other", false, func() error { _, err := core.CoreV1().Secrets("shop").Get(ctx, "other", get); return err }},
		{"list Secrets of tyk", false, func() error { _, err := core.CoreV1().Secrets("tyk").List(ctx, list); return err }},
		{"list Secrets of shop", false, func() error { _, err := core.CoreV1().Secrets("shop").List(ctx, list); return err }},
		{"list ConfigMaps of tyk (not covered)", false, func() error { _, err := core.CoreV1().ConfigMaps("tyk").List(ctx, list); return err }},
		{"list ConfigMaps of default", false, func() error { _, err := core.CoreV1().ConfigMaps("default").List(ctx, list); return err }},
		{"list ConfigMaps of every namespace", false, func() error { _, err := core.CoreV1().ConfigMaps("").List(ctx, list); return err }},
		{"get OperatorContext tyk/tyk-dashboard", false, func() error { _, err := ocs.Namespace("tyk").Get(ctx, "tyk-dashboard", get); return err }},
		{"list OperatorContexts of shop", false, func() error { _, err := ocs.Namespace("shop").List(ctx, list); return err }},
		{"list Gateways of shop", false, func() error { _, err := gws.Namespace("shop").List(ctx, list); return err }},
		{"list HTTPRoutes of shop", false, func() error { _, err := routes.Namespace("shop").List(ctx, list); return err }},
		{"list Pods of shop", false, func() error { _, err := core.CoreV1().Pods("shop").List(ctx, list); return err }},
		{"list Namespaces", false, func() error { _, err := core.CoreV1().Namespaces().List(ctx, list); return err }},
		// Writes.
		{"create ConfigMap shop/x", false, func() error {
			_, err := core.CoreV1().ConfigMaps("shop").Create(ctx, cm, metav1.CreateOptions{})
			return err
		}},
		{"update ConfigMap " + one.Name, false, func() error {
			_, err := core.CoreV1().ConfigMaps("shop").Update(ctx, one, metav1.UpdateOptions{})
			return err
		}},
		{"patch ConfigMap " + one.Name, false, func() error {
			_, err := core.CoreV1().ConfigMaps("shop").Patch(ctx, one.Name, types.MergePatchType, merge, metav1.PatchOptions{})
			return err
		}},
		{"delete ConfigMap " + one.Name, false, func() error {
			return core.CoreV1().ConfigMaps("shop").Delete(ctx, one.Name, metav1.DeleteOptions{})
		}},
		{"delete every ConfigMap of shop", false, func() error {
			return core.CoreV1().ConfigMaps("shop").DeleteCollection(ctx, metav1.DeleteOptions{}, list)
		}},
		{"patch Secret tyk/tyk-operator-conf", false, func() error {
			_, err := core.CoreV1().Secrets("tyk").Patch(ctx, "tyk-operator-conf", types.MergePatchType, merge, metav1.PatchOptions{})
			return err
		}},
		{"delete Secret tyk/tyk-operator-conf", false, func() error {
			return core.CoreV1().Secrets("tyk").Delete(ctx, "tyk-operator-conf", metav1.DeleteOptions{})
		}},
		{"patch OperatorContext shop/edge", false, func() error {
			_, err := ocs.Namespace("shop").Patch(ctx, "edge", types.MergePatchType, merge, metav1.PatchOptions{})
			return err
		}},
		{"patch Gateway shop/edge", false, func() error {
			_, err := gws.Namespace("shop").Patch(ctx, "edge", types.MergePatchType, merge, metav1.PatchOptions{})
			return err
		}},
		{"delete Job shop/" + hook.Name, false, func() error {
			return core.BatchV1().RESTClient().Delete().Namespace("shop").Resource("jobs").Name(hook.Name).Do(ctx).Error()
		}},
		{"patch Role shop/" + hook.Name, false, func() error {
			_, err := core.RbacV1().Roles("shop").Patch(ctx, hook.Name, types.MergePatchType, merge, metav1.PatchOptions{})
			return err
		}},
		{"create Pod shop/x", false, func() error {
			_, err := core.CoreV1().Pods("shop").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "x", Image: "x"}}}}, metav1.CreateOptions{})
			return err
		}},
		{"create a token for ServiceAccount shop/" + hook.Name, false, func() error {
			_, err := core.CoreV1().ServiceAccounts("shop").CreateToken(ctx, hook.Name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
			return err
		}},
	}
	allowed, refused := 0, 0
	for _, k := range calls {
		err := k.call()
		switch {
		case k.allowed && err != nil:
			t.Errorf("%s: refused, but the sync needs it: %v", k.what, err)
		case k.allowed:
			allowed++
		case err == nil:
			t.Errorf("%s: allowed to the hook's ServiceAccount", k.what)
		case !apierrors.IsForbidden(err):
			t.Errorf("%s: %v, want 403 Forbidden", k.what, err)
		default:
			refused++
		}
	}
	// Every write to every kind of the namespaces involved, as the API server's authorizer judges it.
	var writes []string
	for _, ns := range []string{"shop", "tyk", "default"} {
		for _, res := range [][2]string{{"", "configmaps"}, {"", "secrets"}, {"", "pods"}, {"", "serviceaccounts"},
			{"", "services"}, {"batch", "jobs"}, {"rbac.authorization.k8s.io", "roles"}, {"rbac.authorization.k8s.io", "rolebindings"},
			{"tyk.tyk.io", "operatorcontexts"}, {"tyk.tyk.io", "tykoasapidefinitions"}, {"gateway.networking.k8s.io", "gateways"},
			{"gateway.networking.k8s.io", "httproutes"}, {"discovery.k8s.io", "endpointslices"}} {
			for _, verb := range []string{"create", "update", "patch", "delete", "deletecollection"} {
				review, err := core.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
					Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
						Namespace: ns, Verb: verb, Group: res[0], Resource: res[1]}}}, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				writes = append(writes, verb)
				if review.Status.Allowed {
					t.Errorf("the hook's ServiceAccount may %s %s in %s", verb, res[1], ns)
				}
			}
		}
	}
	rules, err := core.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{
		Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "shop"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var granted []string
	for _, r := range rules.Status.ResourceRules {
		granted = append(granted, fmt.Sprintf("%v %v %v %v", r.Verbs, r.APIGroups, r.Resources, r.ResourceNames))
	}
	t.Logf("as ServiceAccount shop/%s: %d accesses made, %d allowed (the sync's), %d refused with 403; %d writes "+
		"judged by SelfSubjectAccessReview, none allowed; its rules in shop: %s", hook.Name, len(calls), allowed, refused,
		len(writes), strings.Join(granted, "; "))
}
