package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gateway2tyk/gateway2tyk/sync/kube"
	"github.com/gateway2tyk/gateway2tyk/sync/status"
	"github.com/gateway2tyk/gateway2tyk/sync/target/targettest"
)

// statusCluster is a cluster that holds the route shop/cart and records the status applies. client-go's fake
// knows no server-side apply; what the API server makes of one is tested on the real one (e2e TestRealKubeStatus).
func statusCluster(t *testing.T) (*kube.Cluster, *[]string) {
	t.Helper()
	route := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
		"metadata": map[string]any{"name": "cart", "namespace": "shop", "generation": int64(3), "resourceVersion": "7",
			"annotations": map[string]any{"gateway2tyk.io/status": `{"parents":[]}`}},
	}}
	scheme := runtime.NewScheme()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{
		status.Resources[status.KindHTTPRoute]: "HTTPRouteList", status.Resources[status.KindGateway]: "GatewayList",
		status.Resources[status.KindListenerSet]:  "ListenerSetList",
		status.Resources[status.KindGatewayClass]: "GatewayClassList"}, route)
	var applied []string
	dyn.PrependReactor("patch", "httproutes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		p := a.(k8stesting.PatchAction)
		applied = append(applied, a.GetSubresource()+" "+string(p.GetPatchType())+" "+string(p.GetPatch()))
		out := route.DeepCopy()
		out.SetResourceVersion("8")
		return true, out, nil
	})
	return &kube.Cluster{Core: fake.NewSimpleClientset(), Dynamic: dyn}, &applied
}

func TestSyncWriteStatusFromStream(t *testing.T) {
	f := targettest.NewGateway(t)
	cluster, applied := statusCluster(t)
	fast(t, map[string]string{"TYK_MODE": "ce", "TYK_URL": f.Server.URL, "TYK_AUTH": f.Auth}, cluster)
	old := statusNow
	t.Cleanup(func() { statusNow = old })
	statusNow = func() time.Time { return time.Date(2026, 12, 2, 17, 0, 0, 0, time.UTC) }
	rendered := `{"parents":[{"parentRef":{"name":"edge"},"controllerName":"tyk.io/gateway-controller","conditions":[` +
		`{"type":"Accepted","status":"True","reason":"Accepted","message":"","observedGeneration":0}]}]}`
	route := map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
		"metadata": map[string]any{"name": "cart", "namespace": "shop", "annotations": map[string]any{"gateway2tyk.io/status": rendered}}}
	path := filepath.Join(t.TempDir(), "rendered.yaml")
	require.NoError(t, os.WriteFile(path, []byte(targettest.Streams(apis(), route)), 0o600))

	code, out, stderr := cli(t, "", "sync", "--from", path, "--write-status", "--dry-run")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "status: not written (dry run)\n")
	assert.Empty(t, *applied)

	code, out, stderr = cli(t, "", "sync", "--from", path, "--write-status")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "sync: 2 created, 0 updated, 0 deleted, 0 unchanged, 0 failed\n"+
		"status: HTTPRoute shop/cart: written\nstatus: 1 written, 0 unchanged, 0 failed\n")
	require.Len(t, *applied, 1)
	assert.Contains(t, (*applied)[0], "status application/apply-patch+yaml ")
	var body map[string]any
	require.NoError(t, json.Unmarshal([]byte((*applied)[0][len("status application/apply-patch+yaml "):]), &body))
	assert.Equal(t, map[string]any{"name": "cart", "namespace": "shop", "resourceVersion": "7"}, body["metadata"])
	assert.Equal(t, map[string]any{"parents": []any{map[string]any{"parentRef": map[string]any{"name": "edge"},
		"controllerName": "tyk.io/gateway-controller", "conditions": []any{map[string]any{"type": "Accepted", "status": "True",
			"reason": "Accepted", "message": "", "observedGeneration": float64(3), "lastTransitionTime": "2026-12-02T17:00:00Z"}}}}},
		body["status"], "the stream's status, with the live generation and the clock's time")

	// A push that fails writes no status, and says why.
	*applied = nil
	f.FailListing = true
	code, _, stderr = cli(t, "", "sync", "--from", path, "--write-status")
	assert.Equal(t, exitUnreachable, code, "a target that fails the push is exit 4, as the exit status table says")
	assert.Contains(t, stderr, "gateway2tyk sync: --write-status: no status was written: the push to Tyk failed")
	assert.Empty(t, *applied)
}

func TestSyncWriteStatusFailureExits1(t *testing.T) {
	f := targettest.NewGateway(t)
	cluster, applied := statusCluster(t)
	fast(t, map[string]string{"TYK_MODE": "ce", "TYK_URL": f.Server.URL, "TYK_AUTH": f.Auth}, cluster)
	path := filepath.Join(t.TempDir(), "rendered.yaml")
	gone := map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
		"metadata": map[string]any{"name": "edge", "namespace": "shop", "annotations": map[string]any{"gateway2tyk.io/status": `{}`}}}
	require.NoError(t, os.WriteFile(path, []byte(targettest.Streams(apis(), gone)), 0o600))
	code, out, stderr := cli(t, "", "sync", "--from", path, "--write-status")
	assert.Equal(t, 1, code, "a status not written fails the run")
	assert.Contains(t, out, "sync: 2 created, 0 updated, 0 deleted, 0 unchanged, 0 failed\n", "the push is done all the same")
	assert.Contains(t, stderr, "gateway2tyk sync: the status of Gateway shop/edge was not written: not in the cluster")
	assert.Len(t, f.APIs(), 2)
	assert.Empty(t, *applied)

	// In a cluster, the objects named, else those that carry the annotation, with the live annotation's status.
	code, out, stderr = cli(t, "", "sync", "--write-status", "--allow-empty", "-n", "shop")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "status: HTTPRoute shop/cart: written\n")
	code, out, stderr = cli(t, "", "sync", "--write-status", "--allow-empty", "--status-object", "HTTPRoute/shop/cart",
		"--status-object", "Gateway/shop/edge")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "status: HTTPRoute shop/cart: written\n")
	assert.Contains(t, stderr, "the status of Gateway shop/edge was not written: not in the cluster")
}

func TestSyncWriteStatusUsage(t *testing.T) {
	fast(t, nil, nil)
	for args, msg := range map[string][]string{
		"sync: --write-status and --check cannot be combined":       {"--write-status", "--check"},
		"sync: --status-object names the objects of --write-status": {"--status-object", "GatewayClass/tyk"},
		"sync: --status-object is for a cluster's objects":          {"--write-status", "--from", "x.yaml", "--status-object", "GatewayClass/tyk"},
		`sync: --status-object "Service/shop/x": the kind must be`:  {"--write-status", "--status-object", "Service/shop/x"},
		"sync: --write-status needs the cluster that holds the objects": {"--write-status", "--from", "x.yaml", "--mode", "ce",
			"--url", "http://tyk:8080", "--auth", "k"},
	} {
		code, _, stderr := cli(t, "", append([]string{"sync"}, msg...)...)
		assert.Equal(t, 2, code, args)
		assert.Contains(t, stderr, args)
	}
}
