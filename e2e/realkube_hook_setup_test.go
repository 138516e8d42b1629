package e2e_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/filters"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/e2e/realkube"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/apiserver"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/hook"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
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
	return renderHookWith(t, gatewayURL, cert, true, false)
}

// renderHookWith is renderHook with the OperatorContext's data-plane Service or without it (the sync then
// pushes to gatewayURL alone), and spec.syncHook.writeStatus.
func renderHookWith(t *testing.T, gatewayURL string, cert []byte, dataPlane, writeStatus bool) hookRender {
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
`, gatewayURL, hookOrg)
			if dataPlane {
				spec += "dataPlane: {serviceRef: {name: tyk-gateway}, tags: [edge]}\n"
			}
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
	cfg.SyncHook = config.SyncHook{Enabled: true, Image: "gateway2tyk:test", Context: "shop/edge", WriteStatus: writeStatus}
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
	loadable := loadableDocument(t, doc, tykroute.Version{Major: 5, Minor: 4})
	if err := unstructured.SetNestedField(obj.Object, loadable, "data", emit.DocumentKey); err != nil {
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

func (hc *hookCluster) loaded(t *testing.T, replica int) []string {
	t.Helper()
	ids, err := hc.gs[replica].LoadedIDs()
	if err != nil {
		t.Fatal(err)
	}
	return ids
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

// startHookCluster is a real API server (RBAC on) holding what the render of examples/basic emits with the sync
// hook on (see renderHookWith), applied as an admin, with the cluster's facts the render only names (the Secret
// with the Gateway's secret, the listener's certificate, Secrets the hook must not read, the data-plane Service),
// and real Tyk Gateways sharing one Redis behind that Service, each a ready endpoint at a pod IP the pod network
// routes to it. It returns the listener's certificate too.
func startHookCluster(t *testing.T, replicas int, writeStatus bool) (*hookCluster, realtyk.Binaries, []byte) {
	t.Helper()
	bins := realtyk.Find(t)
	c := realkube.Start(t) // a cluster of the test's own: it stops the API server
	c.InstallCRDs(t, channelCRDs(t, apiserver.Standard)...)
	gs := realtyk.StartReplicas(t, bins, replicas)
	cert, key := targettest.NewCertificate(t, "*.shop.example.com")
	hc := &hookCluster{c: c, gs: gs, bin: functionBinary(t, repoRoot(t)), h: renderHookWith(t, hookURL, cert, true, writeStatus)}

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
	t.Logf("applied %d objects as an admin", hc.applyAll(t, nil))
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
	return hc, bins, cert
}
