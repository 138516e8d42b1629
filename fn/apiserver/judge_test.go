package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	syaml "sigs.k8s.io/yaml"
)

func decoded(t *testing.T, src string) map[string]any {
	t.Helper()
	j, err := syaml.YAMLToJSON([]byte(src))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, utiljson.Unmarshal(j, &m))
	return m
}

func fields(v Verdict) []string {
	var out []string
	for _, p := range v.Problems {
		out = append(out, p.Field)
	}
	return out
}

func TestAdmitCustomResource(t *testing.T) {
	t.Run("unknown fields at every depth are named, with the schema's own errors", func(t *testing.T) {
		v, served, err := AdmitCustomResource(Standard, "HTTPRoute", "v1", decoded(t, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: orders}
spec:
  hostname: [a.example.com]
  rules:
  - matches: [{pathh: {value: /orders}}]
    backendRefs: [{name: orders, port: 99999}]
`))
		require.NoError(t, err)
		require.True(t, served)
		assert.Equal(t, []string{"spec.hostname", "spec.rules[0].backendRefs[0].port", "spec.rules[0].matches[0].pathh"}, fields(v))
		assert.Nil(t, v.Object, "a refused object is not stored")
	})
	t.Run("the stored object has the CRD's defaults and keeps the object's own namespace and generation", func(t *testing.T) {
		v, _, err := AdmitCustomResource(Standard, "HTTPRoute", "v1", decoded(t, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: orders}
spec:
  parentRefs: [{name: edge}]
`))
		require.NoError(t, err)
		require.Empty(t, v.Problems)
		meta := v.Object["metadata"].(map[string]any)
		assert.NotContains(t, meta, "namespace", "the placeholder namespace is not left behind")
		assert.NotContains(t, meta, "generation", "PrepareForCreate's generation is not left behind")
		spec := v.Object["spec"].(map[string]any)
		ref := spec["parentRefs"].([]any)[0].(map[string]any)
		assert.Equal(t, "gateway.networking.k8s.io", ref["group"])
		assert.Equal(t, "Gateway", ref["kind"])
		rule := spec["rules"].([]any)[0].(map[string]any)
		path := rule["matches"].([]any)[0].(map[string]any)["path"].(map[string]any)
		assert.Equal(t, map[string]any{"type": "PathPrefix", "value": "/"}, path)
	})
	t.Run("a cluster-scoped kind is judged without its namespace, which is given back", func(t *testing.T) {
		obj := decoded(t, `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: tyk, namespace: shop}
spec: {controllerName: tyk.tyk.io/gateway-controller}
`)
		v, _, err := AdmitCustomResource(Standard, "GatewayClass", "v1", obj)
		require.NoError(t, err)
		assert.Empty(t, v.Problems)
		assert.Equal(t, "shop", obj["metadata"].(map[string]any)["namespace"])
	})
	t.Run("the experimental channel admits what the standard one refuses", func(t *testing.T) {
		src := `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: orders, namespace: shop}
spec:
  rules: [{retry: {attempts: 2}}]
`
		std, _, err := AdmitCustomResource(Standard, "HTTPRoute", "v1", decoded(t, src))
		require.NoError(t, err)
		assert.Equal(t, []string{"spec.rules[0].retry"}, fields(std))
		exp, _, err := AdmitCustomResource(Experimental, "HTTPRoute", "v1", decoded(t, src))
		require.NoError(t, err)
		assert.Empty(t, exp.Problems)
	})
	t.Run("a version the CRD does not serve", func(t *testing.T) {
		_, served, err := AdmitCustomResource(Standard, "HTTPRoute", "v2", decoded(t, `{apiVersion: gateway.networking.k8s.io/v2, kind: HTTPRoute}`))
		require.NoError(t, err)
		assert.False(t, served)
	})
	t.Run("problems are in field order, whatever order the validator found them in", func(t *testing.T) {
		for range 20 {
			v, _, err := AdmitCustomResource(Standard, "HTTPRoute", "v1", decoded(t, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: orders, namespace: shop}
spec:
  hostnames: {a: 1}
  rules: [{filters: [{type: RequestRedirect, requestRedirect: {statusCode: 200}}]}]
`))
			require.NoError(t, err)
			// hostnames: a mapping where a list belongs; pruning also names its key as unknown, as the API server does.
			require.Equal(t, []string{"spec.hostnames", "spec.hostnames.a", "spec.rules[0].filters[0].requestRedirect.statusCode"}, fields(v))
		}
	})
}

func TestDecodeStrictAndValidateBuiltin(t *testing.T) {
	var svc corev1.Service
	problems, err := DecodeStrict([]byte(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"orders"},"spec":{"port":80,"ports":[{"port":80,"portt":1}]}}`), &svc)
	require.NoError(t, err)
	var got []string
	for _, p := range problems {
		got = append(got, p.Field)
	}
	assert.ElementsMatch(t, []string{"spec.port", "spec.ports[0].portt"}, got)

	bad := corev1.Service{}
	bad.Name = "Orders_V2"
	bad.Spec.Ports = []corev1.ServicePort{{Port: 0}}
	var names []string
	for _, p := range ValidateBuiltin(&bad) {
		names = append(names, p.Field)
	}
	assert.Equal(t, []string{"metadata.name", "spec.ports[0].port"}, names)
	assert.Equal(t, "", bad.Namespace, "the placeholder namespace is not left behind")
}
