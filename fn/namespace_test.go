package fn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

// basicWithoutNamespaces is examples/basic with every "namespace: shop" line removed, as an Argo CD application
// that relies on its destination namespace writes it.
func basicWithoutNamespaces(t *testing.T) []*yaml.RNode {
	t.Helper()
	var items []*yaml.RNode
	for _, f := range []string{"gateway.yaml", "routes.yaml", "services.yaml", "cluster-facts.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "examples", "basic", f))
		require.NoError(t, err)
		var kept []string
		for _, line := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(line) != "namespace: shop" {
				kept = append(kept, line)
			}
		}
		nodes, err := (&kio.ByteReader{Reader: strings.NewReader(strings.Join(kept, "\n")), OmitReaderAnnotations: true}).Read()
		require.NoError(t, err)
		items = append(items, nodes...)
	}
	return items
}

func TestObjectsWithoutNamespaceGetTheDefaultOrAnError(t *testing.T) {
	out, err := Render(basicWithoutNamespaces(t), config.Default())
	require.NoError(t, err)
	var missing []string
	for _, r := range out.Results {
		if r.Field != nil && r.Field.Path == "metadata.namespace" {
			missing = append(missing, r.ResourceRef.Kind+" "+r.ResourceRef.Name)
		}
	}
	assert.Contains(t, missing, "HTTPRoute orders")
	assert.Contains(t, missing, "Service orders")
	var b strings.Builder
	require.NoError(t, kio.ByteWriter{Writer: &b}.Write(out.Items))
	assert.NotContains(t, b.String(), "..svc")

	cfg := config.Default()
	cfg.DefaultNamespace = "shop"
	out, err = Render(basicWithoutNamespaces(t), cfg)
	require.NoError(t, err)
	for _, r := range out.Results {
		assert.NotEqual(t, "error", string(r.Severity), r.String())
	}
	require.Len(t, out.Translation.APIs, 2)
	b.Reset()
	require.NoError(t, kio.ByteWriter{Writer: &b}.Write(out.Items))
	assert.Contains(t, b.String(), `http://orders.shop.svc.cluster.local:8080/orders`)
	assert.NotContains(t, b.String(), "..svc")
}

// A controllerName that no GatewayClass has renders nothing: a warning names it and the classes' (issue 30,
// finding 4). One class of ours, and there is no warning.
func TestControllerNameNoClassHasIsAWarning(t *testing.T) {
	cfg := config.Default()
	cfg.DefaultNamespace = "shop"
	cfg.ControllerName = "tyk.tyk.io/gateway-controler"
	out, err := Render(basicWithoutNamespaces(t), cfg)
	require.NoError(t, err)
	var msgs []string
	for _, r := range out.Results {
		msgs = append(msgs, r.String())
	}
	assert.Contains(t, msgs, "[warning] spec.controllerName: no GatewayClass has controllerName tyk.tyk.io/gateway-controler, "+
		"the function config's spec.controllerName, so no Gateway or route of the input is rendered; the input's "+
		"GatewayClasses: tyk (tyk.tyk.io/gateway-controller)")

	cfg.ControllerName = config.Default().ControllerName
	out, err = Render(basicWithoutNamespaces(t), cfg)
	require.NoError(t, err)
	assert.Empty(t, out.Results)
}
