package source_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gateway2tyk/gateway2tyk/sync/kube"
	"github.com/gateway2tyk/gateway2tyk/sync/plan"
	"github.com/gateway2tyk/gateway2tyk/sync/source"
	"github.com/gateway2tyk/gateway2tyk/sync/target/targettest"
)

const org = "5e9d9544a1dcd60001d0ed20"

func apis() []targettest.API {
	return []targettest.API{
		{Route: "shop/cart", Gateway: "gateways/edge", Hostname: "shop.example.com", Path: "/cart", Upstream: "http://cart"},
		{Route: "blog/posts", Gateway: "gateways/edge", Path: "/posts", Upstream: "http://posts"},
	}
}

func TestReadStreamYAMLAndResourceList(t *testing.T) {
	a := apis()
	yamlStream := targettest.Streams(a)
	set, err := source.ReadStream(strings.NewReader(yamlStream), plan.Scope{})
	require.NoError(t, err)
	require.Len(t, set.APIs, 2)
	assert.Empty(t, set.Problems)
	for _, d := range set.APIs {
		assert.True(t, d.ID == a[0].ID() || d.ID == a[1].ID())
	}

	// The same as a ResourceList, with input items (which are not APIs) around it, as kpt or the function print.
	rl := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
	for _, doc := range strings.Split(targettest.Streams(a, map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute", "metadata": map[string]any{"name": "cart", "namespace": "shop"},
	}, map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "unrelated", "namespace": "shop"}, "data": map[string]any{"a": "b"},
	}), "---\n") {
		rl += "- " + strings.ReplaceAll(strings.TrimRight(doc, "\n"), "\n", "\n  ") + "\n"
	}
	set2, err := source.ReadStream(strings.NewReader(rl), plan.Scope{})
	require.NoError(t, err)
	assert.Equal(t, set.APIs, set2.APIs)

	scoped, err := source.ReadStream(strings.NewReader(yamlStream), plan.Scope{Namespaces: []string{"blog"}})
	require.NoError(t, err)
	require.Len(t, scoped.APIs, 1)
	assert.Equal(t, plan.Marker{ManagedBy: "gateway2tyk", Owner: "gateway2tyk", Route: "blog/posts", Gateway: "gateways/edge", Path: "/posts"}, scoped.APIs[0].Marker)

	_, err = source.ReadStream(strings.NewReader("a: [b"), plan.Scope{})
	assert.Error(t, err)
}

func TestReadStreamProblems(t *testing.T) {
	a := apis()
	wrongID := a[0].ConfigMap()
	wrongID.Labels["gateway2tyk.io/api-id"] = "gwapi-00000000000000000000"
	noRoute := a[1].ConfigMap()
	delete(noRoute.Annotations, "gateway2tyk.io/route")
	noDoc := a[1].ConfigMap()
	noDoc.Name = "other"
	noDoc.Data = nil
	dup := a[0]
	dup.Upstream = "http://elsewhere"
	dupCM := dup.ConfigMap()
	dupCM.Namespace = "shop"
	set, err := source.ReadStream(strings.NewReader(targettest.Stream(wrongID, noRoute, noDoc, a[0].ConfigMap(), dupCM, a[0].ConfigMap())), plan.Scope{})
	require.NoError(t, err)
	require.Len(t, set.APIs, 1, "the good one (twice the same is fine)")
	require.Len(t, set.Problems, 4)
	assert.Contains(t, set.Problems[0], `x-tyk-api-gateway.info.id "`+a[0].ID()+`" differs from the label`)
	assert.Contains(t, set.Problems[1], "annotation gateway2tyk.io/route must be NAMESPACE/NAME")
	assert.Contains(t, set.Problems[2], "ConfigMap blog/other: no data key tyk-oas.json")
	assert.Contains(t, set.Problems[3], "is rendered twice, differently")
}

func TestCertificatesFromStream(t *testing.T) {
	cert, key := targettest.NewCertificate(t, "shop.example.com")
	crtOnly, _ := targettest.NewCertificate(t, "other.example.com")
	a := apis()
	id := targettest.CertID(org, cert)
	missing := org + strings.Repeat("ab", 32)
	a[0].Certificates = []string{id, targettest.CertID(org, crtOnly), missing}
	stringData := map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
		"metadata":   map[string]any{"name": "plain", "namespace": "shop"},
		"stringData": map[string]any{"tls.crt": string(cert), "tls.key": string(key)}}
	set, err := source.ReadStream(strings.NewReader(targettest.Streams(a,
		targettest.TLSSecret("shop", "crt-only", crtOnly, nil), stringData)), plan.Scope{})
	require.NoError(t, err)
	certs := source.Certificates(set)
	require.Len(t, certs, 3)
	byID := map[string]source.Certificate{}
	for _, c := range certs {
		byID[c.ID] = c
	}
	assert.Equal(t, "shop/plain", byID[id].Secret)
	assert.Contains(t, string(byID[id].PEM), "BEGIN CERTIFICATE")
	assert.Contains(t, string(byID[id].PEM), "PRIVATE KEY")
	assert.Equal(t, "Secret shop/crt-only has no tls.key", byID[targettest.CertID(org, crtOnly)].Missing)
	assert.Equal(t, "no kubernetes.io/tls Secret, or ConfigMap with a ca.crt, given has this certificate", byID[missing].Missing)
	assert.Equal(t, org, source.Org(id))
}

// TestCACertificatesFromStream: the CA certificates an API's clientCertificates allowlist names come from the
// stream's ConfigMaps with a ca.crt, each certificate of a bundle on its own (Tyk checks a client certificate
// against the first certificate stored under an ID); a ConfigMap of rendered APIs is never one.
func TestCACertificatesFromStream(t *testing.T) {
	caA, caB := targettest.NewCA(t, "ca-a"), targettest.NewCA(t, "ca-b")
	a := apis()
	idA, idB := targettest.CertID(org, caA), targettest.CertID(org, caB)
	a[0].ClientCAs = []string{idA, idB}
	bundle := targettest.CAConfigMap("shop", "client-cas", append(append([]byte(nil), caA...), caB...))
	set, err := source.ReadStream(strings.NewReader(targettest.Streams(a, bundle)), plan.Scope{})
	require.NoError(t, err)
	require.Len(t, set.APIs, len(a))
	certs := source.Certificates(set)
	require.Len(t, certs, 2)
	byID := map[string]source.Certificate{}
	for _, c := range certs {
		byID[c.ID] = c
	}
	for id, want := range map[string][]byte{idA: caA, idB: caB} {
		assert.Equal(t, "shop/client-cas", byID[id].ConfigMap)
		assert.Empty(t, byID[id].Secret)
		assert.Equal(t, string(want), string(byID[id].PEM), "one certificate, without the rest of the bundle")
		assert.Empty(t, byID[id].Missing)
	}
}

func TestReadCluster(t *testing.T) {
	cert, key := targettest.NewCertificate(t, "shop.example.com")
	a := apis()
	a[0].Certificates = []string{targettest.CertID(org, cert)}
	unlabelled := a[1].ConfigMap()
	unlabelled.Name = "not-rendered"
	delete(unlabelled.Labels, "gateway2tyk.io/api-id")
	ca := targettest.NewCA(t, "clients")
	a[0].ClientCAs = []string{targettest.CertID(org, ca)}
	core := fake.NewSimpleClientset(a[0].ConfigMap(), a[1].ConfigMap(), unlabelled,
		targettest.TLSSecret("certs", "shop-tls", cert, key), targettest.CAConfigMap("gateways", "client-ca", ca))
	gw := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
		"metadata": map[string]any{"name": "edge", "namespace": "gateways"},
		"spec": map[string]any{"gatewayClassName": "tyk", "tls": map[string]any{"frontend": map[string]any{
			"default": map[string]any{"validation": map[string]any{"caCertificateRefs": []any{
				map[string]any{"group": "", "kind": "ConfigMap", "name": "client-ca"}}}},
			"perPort": []any{map[string]any{"port": int64(8443), "tls": map[string]any{"validation": map[string]any{
				"caCertificateRefs": []any{map[string]any{"group": "", "kind": "ConfigMap", "name": "gone-ca"}}}}}},
		}}, "listeners": []any{
			map[string]any{"name": "http", "protocol": "HTTP", "port": int64(80)},
			map[string]any{"name": "https", "protocol": "HTTPS", "port": int64(443), "tls": map[string]any{
				"certificateRefs": []any{
					map[string]any{"name": "shop-tls", "namespace": "certs"},
					map[string]any{"name": "gone"},
				}}},
		}},
	}}
	// The fake's guess of the resource of kind Gateway is "gatewaies": the object is added under the real one.
	dyn := dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())
	require.NoError(t, dyn.Tracker().Create(kube.Gateways, gw, "gateways"))
	c := &kube.Cluster{Core: core, Dynamic: dyn}

	set, err := source.ReadCluster(context.Background(), c, plan.Scope{})
	require.NoError(t, err)
	require.Len(t, set.APIs, 2)
	require.Len(t, set.TLS, 1, "%v", set.Notes)
	assert.Equal(t, "shop-tls", set.TLS[0].Name)
	require.Len(t, set.CAs, 1, "%v", set.Notes)
	require.Len(t, set.Notes, 2)
	assert.Contains(t, set.Notes[0], "reading ConfigMap gateways/gone-ca")
	assert.Contains(t, set.Notes[1], "reading Secret gateways/gone")
	certs := source.Certificates(set)
	require.Len(t, certs, 2)
	byID := map[string]source.Certificate{}
	for _, c := range certs {
		byID[c.ID] = c
	}
	assert.Equal(t, "certs/shop-tls", byID[targettest.CertID(org, cert)].Secret)
	assert.NotNil(t, byID[targettest.CertID(org, cert)].PEM)
	assert.Equal(t, "gateways/client-ca", byID[targettest.CertID(org, ca)].ConfigMap)
	assert.Equal(t, string(ca), string(byID[targettest.CertID(org, ca)].PEM))

	set, err = source.ReadCluster(context.Background(), c, plan.Scope{Namespaces: []string{"blog"}})
	require.NoError(t, err)
	require.Len(t, set.APIs, 1)
	assert.Equal(t, "blog/posts", set.APIs[0].Marker.Route)
	assert.Empty(t, set.TLS, "no certificate is needed, so no Gateway or Secret is read")
}

func TestReadClusterListFailure(t *testing.T) {
	core := fake.NewSimpleClientset()
	core.PrependReactor("list", "configmaps", func(_ k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errForbidden
	})
	_, err := source.ReadCluster(context.Background(), &kube.Cluster{Core: core}, plan.Scope{Namespaces: []string{"shop"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "listing the rendered ConfigMaps of namespace shop")
}

var errForbidden = apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "",
	errors.New("the service account may not list them"))
