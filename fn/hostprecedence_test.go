package fn

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

// A wildcard route whose path is the exact-host route's path or below it may take the exact host's requests on
// Tyk (no listener isolation): both routes are warned, naming each other. A wildcard path beside the exact one,
// or the same pair on another hostname, is not.
func TestExactHostUnderAWildcardsPathIsAWarning(t *testing.T) {
	render := func(hostname, path string) []string {
		t.Helper()
		promo, err := yaml.Parse(`
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: promo, namespace: shop}
spec:
  parentRefs: [{name: edge}]
  hostnames: ["` + hostname + `"]
  rules:
    - matches: [{path: {type: PathPrefix, value: ` + path + `}}]
      backendRefs: [{name: catalog, port: 80}]
`)
		require.NoError(t, err)
		cfg := config.Default()
		cfg.DefaultNamespace = "shop"
		out, err := Render(append(basicWithoutNamespaces(t), promo), cfg)
		require.NoError(t, err)
		var warned []string
		for _, r := range out.Results {
			if strings.Contains(r.Message, "no listener isolation") {
				require.Equal(t, "spec.hostnames", r.Field.Path)
				assert.Contains(t, r.Message, "HTTPRoute shop/orders serves the exact hostname orders.shop.example.com (path /orders) "+
					"and HTTPRoute shop/promo the wildcard "+hostname+" (path "+path+")")
				warned = append(warned, r.ResourceRef.Name)
			}
		}
		return warned
	}
	assert.Equal(t, []string{"orders", "promo"}, render("*.shop.example.com", "/orders/promo"))
	assert.Equal(t, []string{"orders", "promo"}, render("*.shop.example.com", "/orders"))
	assert.Empty(t, render("*.shop.example.com", "/ordersx"))
	assert.Empty(t, render("*.other.example.com", "/orders/promo"))
}
