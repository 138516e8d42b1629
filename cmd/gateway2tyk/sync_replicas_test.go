package main

import (
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/gateway2tyk/gateway2tyk/sync/kube"
	"github.com/gateway2tyk/gateway2tyk/sync/target/targettest"
)

// TestSyncSeveralURLs: in ce mode each --url is a replica, synced in turn and reported apart; one that cannot be
// reached fails the run, named, and the others are synced. Several --url are refused for the Dashboard.
func TestSyncSeveralURLs(t *testing.T) {
	a, b := targettest.NewGateway(t), targettest.NewGateway(t)
	down := httptest.NewServer(nil)
	down.Close()
	fast(t, nil, nil)
	path := filepath.Join(t.TempDir(), "rendered.yaml")
	require.NoError(t, os.WriteFile(path, []byte(targettest.Streams(apis())), 0o600))
	base := []string{"sync", "--mode", "ce", "--auth", a.Auth, "--from", path}

	code, out, stderr := cli(t, "", append(base, "--url", a.Server.URL, "--url", b.Server.URL)...)
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "replica 1 of 2: Tyk Gateway at "+a.Server.URL+" (--url)\n")
	assert.Contains(t, out, "replica 2 of 2: Tyk Gateway at "+b.Server.URL+" (--url)\n")
	assert.Contains(t, out, "replicas: 2 of 2 in sync\n")
	assert.Len(t, a.APIs(), 2)
	assert.Len(t, b.APIs(), 2)
	for _, f := range []*targettest.Fake{a, b} {
		var reloads []string
		for _, c := range f.Calls() {
			if c.Method == "GET" && (c.Path == "/tyk/reload" || c.Path == "/tyk/reload/group") {
				reloads = append(reloads, c.Path)
			}
		}
		assert.Equal(t, []string{"/tyk/reload"}, reloads, "each replica is reloaded alone")
	}

	c := targettest.NewGateway(t) // a replica added since: empty until this run
	code, out, stderr = cli(t, "", append(base, "--url", a.Server.URL, "--url", down.URL, "--url", c.Server.URL)...)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, out, "replicas: 2 of 3 in sync; failed: Tyk Gateway at "+down.URL+" (--url): not synced\n")
	assert.Contains(t, stderr, "replica Tyk Gateway at "+down.URL+" (--url): ")
	assert.Contains(t, out, "sync: 2 created, 0 updated, 0 deleted, 0 unchanged, 0 failed", "the new replica is filled")
	assert.Len(t, c.APIs(), 2)

	code, _, stderr = cli(t, "", "sync", "--mode", "pro", "--auth", "k", "--from", path, "--url", a.Server.URL, "--url", b.Server.URL)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "several --url are for open-source Gateways (mode ce)")
	code, _, stderr = cli(t, "", append(base, "--url", a.Server.URL, "--url", "b:1")...)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--url b:1: the Tyk URL must be an absolute http or https URL")
}

// TestSyncInClusterReplicas: with an OperatorContext naming a data-plane Service, the sync pushes to every ready
// endpoint of the Service's EndpointSlices, at the endpoints' port of the Service port its URL names.
func TestSyncInClusterReplicas(t *testing.T) {
	a, b := targettest.NewGateway(t), targettest.NewGateway(t)
	cms := apis()
	objs := []runtime.Object{cms[0].ConfigMap(), cms[1].ConfigMap(),
		secret("tyk", "tyk-operator-conf", map[string]string{"TYK_AUTH": a.Auth}),
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "tyk-gateway", Namespace: "tyk"}, Spec: corev1.ServiceSpec{
			Ports: []corev1.ServicePort{{Name: "http", Port: 8080}, {Name: "metrics", Port: 9090}}}}}
	for i, f := range []*targettest.Fake{a, b} {
		objs = append(objs, endpointSlice(t, "tyk-gateway-"+strconv.Itoa(i), f.Server.URL, true))
	}
	objs = append(objs, endpointSlice(t, "tyk-gateway-starting", "http://127.0.0.1:1", false))
	oc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "tyk.tyk.io/v1alpha1", "kind": "OperatorContext",
		"metadata": map[string]any{"name": "edge", "namespace": "tyk"},
		"spec": map[string]any{
			"env":       map[string]any{"mode": "ce", "url": "http://tyk-gateway.tyk.svc:8080"},
			"secretRef": map[string]any{"name": "tyk-operator-conf"},
			"dataPlane": map[string]any{"serviceRef": map[string]any{"name": "tyk-gateway"}},
		},
	}}
	cluster := &kube.Cluster{Core: fake.NewSimpleClientset(objs...), Dynamic: dynamicfake.NewSimpleDynamicClient(runtime.NewScheme(), oc)}
	fast(t, nil, cluster)
	code, out, stderr := cli(t, "", "sync", "--operator-context", "tyk/edge", "--namespace", "shop")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "replicas: 2 of 2 in sync\n")
	assert.Contains(t, stderr, "pod tyk-gateway-starting (EndpointSlice tyk-gateway-starting) is not ready: not synced")
	assert.Len(t, a.APIs(), 2)
	assert.Len(t, b.APIs(), 2)

	// A URL whose port is none of the Service's: nothing is changed, and the message says why.
	oc.Object["spec"].(map[string]any)["env"].(map[string]any)["url"] = "http://tyk-gateway.tyk.svc:80"
	fast(t, nil, &kube.Cluster{Core: fake.NewSimpleClientset(objs...), Dynamic: dynamicfake.NewSimpleDynamicClient(runtime.NewScheme(), oc)})
	code, _, stderr = cli(t, "", "sync", "--operator-context", "tyk/edge", "--namespace", "shop")
	assert.Equal(t, 4, code)
	assert.Contains(t, stderr, "names port 80, which Service tyk/tyk-gateway does not have (its ports: 8080, 9090)")
}

// endpointSlice is an EndpointSlice of Service tyk/tyk-gateway with one endpoint at the host and port of u, for
// the Service's port "http".
func endpointSlice(t *testing.T, name, u string, ready bool) *discoveryv1.EndpointSlice {
	t.Helper()
	parsed, err := url.Parse(u)
	require.NoError(t, err)
	p, err := strconv.Atoi(parsed.Port())
	require.NoError(t, err)
	port, portName := int32(p), "http"
	return &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: name, Namespace: "tyk", Labels: map[string]string{discoveryv1.LabelServiceName: "tyk-gateway"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{parsed.Hostname()}, Conditions: discoveryv1.EndpointConditions{Ready: &ready},
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: name}}},
		Ports: []discoveryv1.EndpointPort{{Name: &portName, Port: &port}},
	}
}
