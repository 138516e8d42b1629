package read

import (
	"github.com/gateway2tyk/gateway2tyk/fn/apiserver"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func items(t *testing.T, src string) []*yaml.RNode {
	t.Helper()
	nodes, err := (&kio.ByteReader{Reader: stringReader(src), OmitReaderAnnotations: true}).Read()
	require.NoError(t, err)
	return nodes
}

func TestItemsAppliesCRDDefaults(t *testing.T) {
	res := Items(items(t, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: apps}
spec:
  parentRefs: [{name: edge}]
  rules:
  - backendRefs: [{name: web, port: 80}]
`), apiserver.Standard)
	require.Empty(t, res.Problems)
	hr := res.Inventory.HTTPRoutes[types.NamespacedName{Namespace: "apps", Name: "shop"}]
	require.NotNil(t, hr)
	assert.Equal(t, "gateway.networking.k8s.io", string(*hr.Spec.ParentRefs[0].Group))
	assert.Equal(t, "Gateway", string(*hr.Spec.ParentRefs[0].Kind))
	m := hr.Spec.Rules[0].Matches[0]
	assert.Equal(t, "PathPrefix", string(*m.Path.Type))
	assert.Equal(t, "/", *m.Path.Value)
	b := hr.Spec.Rules[0].BackendRefs[0]
	assert.Equal(t, "", string(*b.Group))
	assert.Equal(t, "Service", string(*b.Kind))
	assert.Equal(t, int32(1), *b.Weight)
}

func TestItemsReportsTheFieldOfATypeError(t *testing.T) {
	res := Items(items(t, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: apps}
spec:
  rules:
  - backendRefs: [{name: web, port: 80}]
  - backendRefs: [{name: api, port: 80}, {name: api2, port: eighty}]
`), apiserver.Standard)
	// The API server's schema validation names the field (its note that it left the CEL rules unchecked is left
	// out: it comes with every such error).
	require.Len(t, res.Problems, 1)
	p := res.Problems[0]
	assert.Equal(t, "HTTPRoute apps/shop", p.Key.String())
	assert.Equal(t, "spec.rules[1].backendRefs[1].port", p.Field)
	assert.Contains(t, p.Message, "must be of type integer")
	assert.Empty(t, res.Inventory.HTTPRoutes, "an object that cannot be read is treated as absent")
}

func TestItemsValidatesWhatTheSchemaForbids(t *testing.T) {
	res := Items(items(t, `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: apps}
spec:
  gatewayClassName: tyk
  listeners:
  - {name: http, protocol: HTTP, port: 70000, hostname: "Not_A_Host"}
`), apiserver.Standard)
	fields := map[string]string{}
	for _, p := range res.Problems {
		fields[p.Field] = p.Message
	}
	assert.Contains(t, fields, "spec.listeners[0].port")
	assert.Contains(t, fields, "spec.listeners[0].hostname")
	assert.Empty(t, res.Inventory.Gateways)
}

func TestItemsSkipsItsOwnOutputAndUnknownVersions(t *testing.T) {
	res := Items(items(t, `
apiVersion: v1
kind: ConfigMap
metadata:
  name: gwapi-0123456789abcdef0123
  namespace: apps
  labels: {app.kubernetes.io/managed-by: gateway2tyk, gateway2tyk.io/api-id: gwapi-0123456789abcdef0123}
---
apiVersion: gateway.networking.k8s.io/v9
kind: HTTPRoute
metadata: {name: future, namespace: apps}
`), apiserver.Standard)
	assert.Empty(t, res.Inventory.ConfigMaps)
	require.Len(t, res.Ignored, 1)
	assert.Equal(t, "apiVersion", res.Ignored[0].Field)
}

func TestItemsReportsDuplicates(t *testing.T) {
	res := Items(items(t, `
apiVersion: v1
kind: Service
metadata: {name: web, namespace: apps}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: apps}
`), apiserver.Standard)
	require.Len(t, res.Problems, 1)
	assert.Equal(t, "metadata.name", res.Problems[0].Field)
	assert.Contains(t, res.Problems[0].Message, "duplicate")
}

func TestStringDataIsMergedIntoData(t *testing.T) {
	res := Items(items(t, `
apiVersion: v1
kind: Secret
metadata: {name: s, namespace: apps}
stringData: {tls.crt: abc}
`), apiserver.Standard)
	s := res.Inventory.Secrets[types.NamespacedName{Namespace: "apps", Name: "s"}]
	require.NotNil(t, s)
	assert.Equal(t, []byte("abc"), s.Data["tls.crt"])
}
