package fn_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/status"
)

// TestGatewayPortsRunOut renders the story profile-gateway-api-gateway-ports with a pool of one port: the public
// Gateway keeps the port its Service has in the cluster only while it is in the pool, so with "8081" it takes
// 8081 (the lowest free, which the internal Gateway, first by name, took for its port 80 and gave back when it found
// none for its port 8080): the internal Gateway, which needs two, gets no Service: it is not Programmed, and says
// why; its routes' APIs are still rendered as for a Gateway without an address.
func TestGatewayPortsRunOut(t *testing.T) {
	out := renderEditedStory(t, "profile-gateway-api-gateway-ports", `gatewayPorts: "8081-8089"`, `gatewayPorts: "8081"`)

	programmed := map[string]string{}
	for _, g := range out.Attachment.Gateways {
		c := status.Find(g.Conditions, "Programmed")
		programmed[g.Gateway.Name] = string(c.Status) + " " + c.Reason + ": " + c.Message
		if g.Gateway.Name == "public" {
			require.NotNil(t, g.Infrastructure.Service)
			assert.Equal(t, "gw-shop-public", g.Infrastructure.Service.Name)
			assert.Equal(t, 8081, g.Infrastructure.Service.Spec.Ports[0].TargetPort.IntValue(), "8083 is not in the pool any more")
		}
	}
	assert.Equal(t, "True Programmed: served through its own Service tyk/gw-shop-public (labelled "+
		"gateway.networking.k8s.io/gateway-name) by the Tyk Pods of Service tyk/tyk-gateway", programmed["public"])
	assert.Equal(t, "False UnsupportedAddress: the RenderConfig's gatewayPorts has no port left for listener port 8080 "+
		"(every one is another Gateway's): give it more ports of the Tyk Pods", programmed["internal"])
}

// TestGatewayPortsNoServedListener: a Gateway whose listeners Tyk serves none of (a TCP listener) gets no
// Service, since a Service without ports is refused by the API server; it is served through the data plane's.
func TestGatewayPortsNoServedListener(t *testing.T) {
	extra := `  - apiVersion: gateway.networking.k8s.io/v1
    kind: Gateway
    metadata: {name: tcp-only, namespace: shop}
    spec:
      gatewayClassName: tyk
      listeners: [{name: tcp, protocol: TCP, port: 9000}]
  # the backends
`
	out := renderEditedStory(t, "profile-gateway-api-gateway-ports", "  # the backends\n", extra)
	var services []string
	for _, it := range out.Items {
		if it.GetKind() == "Service" && it.GetLabels()["app.kubernetes.io/component"] == "gateway-service" {
			services = append(services, it.GetName())
		}
	}
	assert.Equal(t, []string{"gw-shop-internal", "gw-shop-public"}, services)
	for _, g := range out.Attachment.Gateways {
		if g.Gateway.Name == "tcp-only" {
			require.NotNil(t, g.Infrastructure.Service)
			assert.Equal(t, "tyk-gateway", g.Infrastructure.Service.Name)
		}
	}
}

// renderEditedStory renders a story of testdata with the first from of its input.yaml made to.
func renderEditedStory(t *testing.T, story, from, to string) *fn.Output {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", story, "input.yaml"))
	require.NoError(t, err)
	input := strings.Replace(string(data), from, to, 1)
	require.NotEqual(t, string(data), input, "story %s changed shape", story)
	path := filepath.Join(t.TempDir(), "input.yaml")
	require.NoError(t, os.WriteFile(path, []byte(input), 0o600))
	return renderStoryFile(t, path)
}

// TestRequestedAddresses holds a Gateway's spec.addresses to what its Service gives (gateway-api profile): an
// address of a type without value is the Service's (the suite's GatewayOptionalAddressValue), a type it has
// none of is not assigned, and a value asked for is not served.
func TestRequestedAddresses(t *testing.T) {
	for addresses, want := range map[string]string{
		"[{type: IPAddress}]": "True Programmed",
		"[{value: \"\"}]":     "True Programmed",
		"[{type: Hostname}]":  "False AddressNotAssigned: spec.addresses[0] asks for an address of type Hostname, and Service tyk/gw-shop-public has none",
		"[{type: IPAddress, value: 203.0.113.99}]": "False AddressNotUsable: spec.addresses[0]: a requested address (203.0.113.99) " +
			"is not supported: the Gateway's address is the one the cluster gives its Service",
		"[{type: example.com/vip}]": "False AddressNotUsable: spec.addresses[0]: addresses of type example.com/vip are not " +
			"supported (IPAddress and Hostname are)",
	} {
		out := renderEditedStory(t, "profile-gateway-api-gateway-ports", "    metadata: {name: public, namespace: shop}\n    spec:\n",
			"    metadata: {name: public, namespace: shop}\n    spec:\n      addresses: "+addresses+"\n")
		for _, g := range out.Attachment.Gateways {
			if g.Gateway.Name != "public" {
				continue
			}
			c := status.Find(g.Conditions, "Programmed")
			got := string(c.Status) + " " + c.Reason
			if c.Status != "True" {
				got += ": " + c.Message
			}
			assert.Equal(t, want, got, addresses)
		}
	}
}
