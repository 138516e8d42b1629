package status

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/gateway2tyk/gateway2tyk/fn/emit"
)

// fakeClient holds live objects and records the applies. It knows nothing of server-side apply: what the API
// server makes of an apply is tested against the real one (e2e TestRealKubeStatus); here the writer's body is.
type fakeClient struct {
	objects  map[string]*unstructured.Unstructured
	applied  []*unstructured.Unstructured
	conflict int   // applies to refuse with a conflict
	failGet  error // every Get fails with it
	rv       int
	missing  schema.GroupVersionResource // a resource the cluster does not serve (List answers 404)
}

func key(gvr schema.GroupVersionResource, ns, name string) string {
	return gvr.Resource + "/" + ns + "/" + name
}

func (f *fakeClient) Get(_ context.Context, gvr schema.GroupVersionResource, ns, name string) (*unstructured.Unstructured, error) {
	if f.failGet != nil {
		return nil, f.failGet
	}
	o, ok := f.objects[key(gvr, ns, name)]
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	return o.DeepCopy(), nil
}

func (f *fakeClient) List(_ context.Context, gvr schema.GroupVersionResource, ns string) ([]unstructured.Unstructured, error) {
	if gvr == f.missing {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), "")
	}
	var out []unstructured.Unstructured
	for _, o := range f.objects {
		if o.GetKind() == kindOf(gvr) && (ns == "" || o.GetNamespace() == ns) {
			out = append(out, *o.DeepCopy())
		}
	}
	return out, nil
}

func kindOf(gvr schema.GroupVersionResource) string {
	for k, r := range Resources {
		if r == gvr {
			return k
		}
	}
	return ""
}

func (f *fakeClient) ApplyStatus(_ context.Context, gvr schema.GroupVersionResource, obj *unstructured.Unstructured, manager string) (*unstructured.Unstructured, error) {
	if manager != FieldManager {
		return nil, errors.New("wrong field manager " + manager)
	}
	f.applied = append(f.applied, obj.DeepCopy())
	if f.conflict > 0 {
		f.conflict--
		return nil, apierrors.NewConflict(gvr.GroupResource(), obj.GetName(), errors.New("the object has been modified"))
	}
	live := f.objects[key(gvr, obj.GetNamespace(), obj.GetName())]
	if live.GetResourceVersion() != obj.GetResourceVersion() {
		return nil, apierrors.NewConflict(gvr.GroupResource(), obj.GetName(), errors.New("stale resourceVersion"))
	}
	out := live.DeepCopy()
	// A stand-in for the merge: the status applied replaces the live one (fine for these tests, which look at
	// the body). A body equal to the live status changes nothing, as the API server's no-op apply.
	if !equalJSON(out.Object["status"], obj.Object["status"]) {
		out.Object["status"] = obj.Object["status"]
		f.rv++
		out.SetResourceVersion("rv" + string(rune('0'+f.rv)))
		f.objects[key(gvr, obj.GetNamespace(), obj.GetName())] = out
	}
	return out.DeepCopy(), nil
}

func equalJSON(a, b any) bool {
	ja, _ := utiljson.Marshal(a)
	jb, _ := utiljson.Marshal(b)
	return bytes.Equal(ja, jb)
}

func object(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	nodes, err := (&kio.ByteReader{Reader: bytes.NewBufferString(y)}).Read()
	require.NoError(t, err)
	m, err := nodes[0].Map()
	require.NoError(t, err)
	js, err := utiljson.Marshal(m)
	require.NoError(t, err)
	var obj map[string]any
	require.NoError(t, utiljson.Unmarshal(js, &obj))
	return &unstructured.Unstructured{Object: obj}
}

func newFake(objs ...*unstructured.Unstructured) *fakeClient {
	f := &fakeClient{objects: map[string]*unstructured.Unstructured{}}
	for _, o := range objs {
		f.objects[key(Resources[o.GetKind()], o.GetNamespace(), o.GetName())] = o
	}
	return f
}

var (
	t0 = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	t1 = time.Date(2026, 12, 2, 11, 30, 0, 0, time.UTC)
)

const liveRoute = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: orders, namespace: shop, generation: 4, resourceVersion: "rv0"}
spec: {parentRefs: [{name: edge}, {name: mesh, kind: Service, group: ""}]}
status:
  parents:
  - parentRef: {group: "", kind: Service, name: mesh}
    controllerName: example.com/mesh
    conditions:
    - {type: Accepted, status: "True", reason: Accepted, message: mesh, observedGeneration: 4, lastTransitionTime: "2026-01-01T00:00:00Z"}
  - parentRef: {group: gateway.networking.k8s.io, kind: Gateway, name: edge}
    controllerName: tyk.io/gateway-controller
    conditions:
    - {type: Accepted, status: "True", reason: Accepted, message: old, observedGeneration: 3, lastTransitionTime: "2026-06-01T00:00:00Z"}
    - {type: ResolvedRefs, status: "True", reason: ResolvedRefs, message: "", observedGeneration: 3, lastTransitionTime: "2026-06-01T00:00:00Z"}
  - parentRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gone}
    controllerName: tyk.io/gateway-controller
    conditions:
    - {type: Accepted, status: "True", reason: Accepted, message: "", observedGeneration: 3, lastTransitionTime: "2026-06-01T00:00:00Z"}
`

// The render's status of the route: parentRef as the route's spec says it (no group, no kind), Accepted kept
// True with a new message, ResolvedRefs turned False.
const renderedRoute = `{"parents":[{"conditions":[` +
	`{"message":"accepted","observedGeneration":0,"reason":"Accepted","status":"True","type":"Accepted"},` +
	`{"message":"Service shop/orders does not exist","observedGeneration":0,"reason":"BackendNotFound","status":"False","type":"ResolvedRefs"}],` +
	`"controllerName":"tyk.io/gateway-controller","parentRef":{"name":"edge"}}]}`

func TestWriteRouteKeepsOtherControllersAndTimes(t *testing.T) {
	f := newFake(object(t, liveRoute))
	w := &Writer{Client: f, Now: func() time.Time { return t1 }}
	rep := w.Write(context.Background(), []Object{{Kind: KindHTTPRoute, Namespace: "shop", Name: "orders", Status: renderedRoute}})
	require.Len(t, rep.Results, 1)
	assert.Equal(t, "written", rep.Results[0].Outcome)
	require.Len(t, f.applied, 1)
	body := f.applied[0]
	assert.Equal(t, "rv0", body.GetResourceVersion(), "the live resourceVersion is the apply's precondition")
	assert.Equal(t, "gateway.networking.k8s.io/v1", body.GetAPIVersion())
	want := `{"parents":[` +
		// the mesh controller's entry, as it was
		`{"conditions":[{"lastTransitionTime":"2026-01-01T00:00:00Z","message":"mesh","observedGeneration":4,"reason":"Accepted","status":"True","type":"Accepted"}],` +
		`"controllerName":"example.com/mesh","parentRef":{"group":"","kind":"Service","name":"mesh"}},` +
		// ours: Accepted kept its time (status unchanged), ResolvedRefs changed: now; observedGeneration 4;
		// the entry for Gateway "gone", which the render no longer reports, is dropped
		`{"conditions":[{"lastTransitionTime":"2026-06-01T00:00:00Z","message":"accepted","observedGeneration":4,"reason":"Accepted","status":"True","type":"Accepted"},` +
		`{"lastTransitionTime":"2026-12-02T11:30:00Z","message":"Service shop/orders does not exist","observedGeneration":4,"reason":"BackendNotFound","status":"False","type":"ResolvedRefs"}],` +
		`"controllerName":"tyk.io/gateway-controller","parentRef":{"name":"edge"}}]}`
	js, err := utiljson.Marshal(body.Object["status"])
	require.NoError(t, err)
	assert.JSONEq(t, want, string(js))

	// The same render again: nothing changes, and the API server says so.
	f.applied = nil
	rep = w.Write(context.Background(), []Object{{Kind: KindHTTPRoute, Namespace: "shop", Name: "orders", Status: renderedRoute}})
	assert.Equal(t, "unchanged", rep.Results[0].Outcome)
	js2, _ := utiljson.Marshal(f.applied[0].Object["status"])
	assert.JSONEq(t, want, string(js2), "a second write at a later time keeps every lastTransitionTime")
}

func TestWriteGatewayListenersAndClass(t *testing.T) {
	gw := object(t, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: shop, generation: 2, resourceVersion: "rv0"}
status:
  conditions:
  - {type: Accepted, status: "False", reason: Pending, message: "", observedGeneration: 1, lastTransitionTime: "2026-01-01T00:00:00Z"}
  - {type: Example, status: "True", reason: Other, message: "another manager's", observedGeneration: 1, lastTransitionTime: "2026-01-01T00:00:00Z"}
  listeners:
  - name: http
    attachedRoutes: 1
    supportedKinds: [{kind: HTTPRoute}]
    conditions:
    - {type: Programmed, status: "True", reason: Programmed, message: "", observedGeneration: 1, lastTransitionTime: "2026-01-01T00:00:00Z"}
`)
	gc := object(t, `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: tyk, generation: 1, resourceVersion: "rv0"}
spec: {controllerName: tyk.io/gateway-controller}
`)
	f := newFake(gw, gc)
	w := &Writer{Client: f, Now: func() time.Time { return t0 }}
	rep := w.Write(context.Background(), []Object{
		{Kind: KindGateway, Namespace: "shop", Name: "edge", Status: `{"conditions":[{"message":"","observedGeneration":0,"reason":"Accepted","status":"True","type":"Accepted"}],` +
			`"listeners":[{"attachedRoutes":2,"conditions":[{"message":"","observedGeneration":0,"reason":"Programmed","status":"True","type":"Programmed"}],"name":"http","supportedKinds":[{"group":"gateway.networking.k8s.io","kind":"HTTPRoute"}]},` +
			`{"attachedRoutes":0,"conditions":[{"message":"","observedGeneration":0,"reason":"Programmed","status":"True","type":"Programmed"}],"name":"https","supportedKinds":[]}]}`},
		{Kind: KindGatewayClass, Name: "tyk", Status: `{"conditions":[{"message":"","observedGeneration":0,"reason":"Accepted","status":"True","type":"Accepted"}]}`},
	})
	require.Len(t, rep.Results, 2)
	assert.Equal(t, "GatewayClass tyk", rep.Results[0].Object.String(), "GatewayClasses are written first")
	for _, r := range rep.Results {
		assert.Equal(t, "written", r.Outcome, r.Object.String())
	}
	gcBody, gwBody := f.applied[0], f.applied[1]
	assert.Equal(t, "", gcBody.GetNamespace())
	js, _ := utiljson.Marshal(gcBody.Object["status"])
	assert.JSONEq(t, `{"conditions":[{"lastTransitionTime":"2026-12-02T10:00:00Z","message":"","observedGeneration":1,"reason":"Accepted","status":"True","type":"Accepted"}]}`, string(js))
	js, _ = utiljson.Marshal(gwBody.Object["status"])
	// Only the render's fields: the other manager's condition is not in the body (the API server keeps it,
	// conditions being a map by type); Accepted turned True: now; listener http's Programmed kept its time.
	assert.JSONEq(t, `{"conditions":[{"lastTransitionTime":"2026-12-02T10:00:00Z","message":"","observedGeneration":2,"reason":"Accepted","status":"True","type":"Accepted"}],`+
		`"listeners":[{"attachedRoutes":2,"conditions":[{"lastTransitionTime":"2026-01-01T00:00:00Z","message":"","observedGeneration":2,"reason":"Programmed","status":"True","type":"Programmed"}],"name":"http","supportedKinds":[{"group":"gateway.networking.k8s.io","kind":"HTTPRoute"}]},`+
		`{"attachedRoutes":0,"conditions":[{"lastTransitionTime":"2026-12-02T10:00:00Z","message":"","observedGeneration":2,"reason":"Programmed","status":"True","type":"Programmed"}],"name":"https","supportedKinds":[]}]}`, string(js))
}

// The controllerName of a GatewayClass written in the run is ours: the route's entries of that controller are
// replaced even when the render reports no parent of it any more.
func TestWriteRouteDropsOwnEntriesOfClassController(t *testing.T) {
	gc := object(t, `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: tyk, generation: 1, resourceVersion: "rv0"}
spec: {controllerName: tyk.io/gateway-controller}
`)
	f := newFake(object(t, liveRoute), gc)
	w := &Writer{Client: f, Now: func() time.Time { return t1 }}
	rep := w.Write(context.Background(), []Object{
		{Kind: KindHTTPRoute, Namespace: "shop", Name: "orders", Status: `{"parents":[]}`},
		{Kind: KindGatewayClass, Name: "tyk", Status: `{"conditions":[]}`},
	})
	assert.Equal(t, 0, rep.Failed())
	js, _ := utiljson.Marshal(f.applied[1].Object["status"])
	assert.JSONEq(t, `{"parents":[{"conditions":[{"lastTransitionTime":"2026-01-01T00:00:00Z","message":"mesh","observedGeneration":4,"reason":"Accepted","status":"True","type":"Accepted"}],`+
		`"controllerName":"example.com/mesh","parentRef":{"group":"","kind":"Service","name":"mesh"}}]}`, string(js))
}

func TestWriteRetriesConflicts(t *testing.T) {
	o := []Object{{Kind: KindHTTPRoute, Namespace: "shop", Name: "orders", Status: renderedRoute}}
	f := newFake(object(t, liveRoute))
	f.conflict = 2
	rep := (&Writer{Client: f, Now: func() time.Time { return t1 }}).Write(context.Background(), o)
	assert.Equal(t, "written", rep.Results[0].Outcome)
	assert.Len(t, f.applied, 3, "read again and applied again after each conflict")

	f = newFake(object(t, liveRoute))
	f.conflict = 3
	rep = (&Writer{Client: f, Now: func() time.Time { return t1 }}).Write(context.Background(), o)
	assert.True(t, rep.Results[0].Failed)
	assert.Contains(t, rep.Results[0].Outcome, "failed: the API server refused the status: ")
	assert.Len(t, f.applied, 3, "three attempts at most")
}

func TestWriteFailuresAreReportedPerObject(t *testing.T) {
	noAnnotation := object(t, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: plain, namespace: shop, resourceVersion: "rv0"}
`)
	withAnnotation := object(t, liveRoute)
	withAnnotation.SetAnnotations(map[string]string{emit.AnnotationStatus: renderedRoute})
	f := newFake(noAnnotation, withAnnotation)
	rep := (&Writer{Client: f, Now: func() time.Time { return t1 }}).Write(context.Background(), []Object{
		{Kind: KindGateway, Namespace: "shop", Name: "missing", Status: `{}`},
		{Kind: KindGateway, Namespace: "shop", Name: "plain"},
		{Kind: KindHTTPRoute, Namespace: "shop", Name: "orders"}, // its status from the live annotation
		{Kind: KindGateway, Namespace: "shop", Name: "plain", Status: `{"conditions": 3}`},
		{Kind: KindGateway, Namespace: "shop", Name: "plain", Status: `not json`},
	})
	var out, errw bytes.Buffer
	rep.Print(&out, &errw)
	assert.Equal(t, `status: Gateway shop/missing: failed: not in the cluster (apply the rendered objects before the sync)
status: Gateway shop/plain: failed: the live object has no annotation gateway2tyk.io/status (not rendered by gateway2tyk, or applied without it)
status: Gateway shop/plain: failed: annotation gateway2tyk.io/status: status.conditions: not a list
status: Gateway shop/plain: failed: annotation gateway2tyk.io/status: invalid character 'o' in literal null (expecting 'u')
status: HTTPRoute shop/orders: written
status: 1 written, 0 unchanged, 4 failed
`, out.String())
	assert.Equal(t, `gateway2tyk sync: the status of Gateway shop/missing was not written: not in the cluster (apply the rendered objects before the sync)
gateway2tyk sync: the status of Gateway shop/plain was not written: the live object has no annotation gateway2tyk.io/status (not rendered by gateway2tyk, or applied without it)
gateway2tyk sync: the status of Gateway shop/plain was not written: annotation gateway2tyk.io/status: status.conditions: not a list
gateway2tyk sync: the status of Gateway shop/plain was not written: annotation gateway2tyk.io/status: invalid character 'o' in literal null (expecting 'u')
`, errw.String())
	assert.Equal(t, 4, rep.Failed())

	f.failGet = apierrors.NewForbidden(Resources[KindGateway].GroupResource(), "edge", errors.New("RBAC"))
	rep = (&Writer{Client: f, Now: time.Now}).Write(context.Background(), []Object{{Kind: KindGateway, Namespace: "shop", Name: "edge", Status: `{}`}})
	assert.Contains(t, rep.Results[0].Outcome, `failed: reading it: gateways.gateway.networking.k8s.io "edge" is forbidden`)
}

func TestFromStreamAndDiscover(t *testing.T) {
	stream := `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: tyk, annotations: {gateway2tyk.io/status: '{"conditions":[]}'}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: shop, annotations: {gateway2tyk.io/status: '{}'}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: shop-listeners, namespace: shop, annotations: {gateway2tyk.io/status: '{"conditions":[]}'}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: blog, namespace: blog, annotations: {gateway2tyk.io/status: '{"parents":[]}'}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: plain, namespace: shop}
---
apiVersion: tyk.tyk.io/v1alpha1
kind: TykOasApiDefinition
metadata: {name: base, namespace: shop, annotations: {gateway2tyk.io/status: '{"conditions":[]}'}}
---
apiVersion: example.com/v1
kind: Gateway
metadata: {name: other, namespace: shop, annotations: {gateway2tyk.io/status: '{}'}}
`
	nodes, err := (&kio.ByteReader{Reader: bytes.NewBufferString(stream)}).Read()
	require.NoError(t, err)
	got := FromStream(nodes, func(ns string) bool { return ns == "shop" })
	assert.Equal(t, []Object{
		{Kind: KindGatewayClass, Name: "tyk", Status: `{"conditions":[]}`},
		{Kind: KindGateway, Namespace: "shop", Name: "edge", Status: `{}`},
		{Kind: KindListenerSet, Namespace: "shop", Name: "shop-listeners", Status: `{"conditions":[]}`},
	}, got)

	var objs []*unstructured.Unstructured
	for _, n := range nodes[:5] {
		objs = append(objs, object(t, n.MustString()))
	}
	found, err := Discover(context.Background(), newFake(objs...), []string{"shop"})
	require.NoError(t, err)
	assert.Equal(t, []Object{{Kind: KindGatewayClass, Name: "tyk"}, {Kind: KindGateway, Namespace: "shop", Name: "edge"},
		{Kind: KindListenerSet, Namespace: "shop", Name: "shop-listeners"}}, found)

	// A cluster whose Gateway API CRDs predate ListenerSets answers their list 404: none to write, not an error.
	f := newFake(objs...)
	f.missing = Resources[KindListenerSet]
	found, err = Discover(context.Background(), f, []string{"shop"})
	require.NoError(t, err)
	assert.Equal(t, []Object{{Kind: KindGatewayClass, Name: "tyk"}, {Kind: KindGateway, Namespace: "shop", Name: "edge"}}, found)
}

func TestParseObject(t *testing.T) {
	for in, want := range map[string]Object{
		"GatewayClass/tyk":         {Kind: KindGatewayClass, Name: "tyk"},
		"Gateway/shop/edge":        {Kind: KindGateway, Namespace: "shop", Name: "edge"},
		"HTTPRoute/shop/orders.v2": {Kind: KindHTTPRoute, Namespace: "shop", Name: "orders.v2"},
	} {
		got, err := ParseObject(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got)
	}
	for in, msg := range map[string]string{
		"Service/shop/x":      `"Service/shop/x": the kind must be one of Gateway, GatewayClass, HTTPRoute`,
		"GatewayClass/ns/tyk": `"GatewayClass/ns/tyk": must be GatewayClass/NAME, Gateway/NAMESPACE/NAME or HTTPRoute/NAMESPACE/NAME`,
		"HTTPRoute/orders":    `"HTTPRoute/orders": must be GatewayClass/NAME, Gateway/NAMESPACE/NAME or HTTPRoute/NAMESPACE/NAME`,
		"HTTPRoute/Shop/x":    `"HTTPRoute/Shop/x": namespace a lowercase RFC 1123 label must consist of`,
		"Gateway/shop/a b":    `"Gateway/shop/a b": name a lowercase RFC 1123 subdomain must consist of`,
	} {
		_, err := ParseObject(in)
		assert.ErrorContains(t, err, msg, in)
	}
}
