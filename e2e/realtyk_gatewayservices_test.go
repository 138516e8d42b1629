package e2e_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// TestRealTykGatewayServices holds fn/testdata/profile-gateway-api-gateway-services to a real Gateway: two
// Gateways without hostnames on port 80, one behind the class's data-plane Service (Tyk's listen_port), one
// behind a Service of its own that sends its address to another port of the same Tyk (a port ports_whitelist
// allows). Each Gateway's requests reach its own routes only, a route on both is served on both, no listen path is
// renamed, and explain, told the Gateway, agrees on every request.
func TestRealTykGatewayServices(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	version, err := tykroute.ParseVersion(g.Version)
	require.NoError(t, err)
	const story = "profile-gateway-api-gateway-services"
	input := forRelease(t, story, storyInput(t, story, map[string]int{"targetPort: 8080}": g.Port,
		"targetPort: 8081}": g.HTTPPorts[0]}), version)
	_, out := renderInput(t, input)

	docs := unpreservedDocs(t, out)
	if refusesOwnPorts(t, g, version, docs) {
		return
	}
	requireServed(t, out, nil)
	require.NoError(t, g.Replace(docs))
	assert.NotContains(t, g.Log(), "Listen path collision", "Tyk renamed a listen path")

	public := func(url, backend string) schemeCase {
		return schemeCase{method: "GET", url: url, backend: backend, gateway: "shop/public", tykPort: g.Port}
	}
	internal := func(url, backend string) schemeCase {
		return schemeCase{method: "GET", url: url, backend: backend, gateway: "shop/internal", tykPort: g.HTTPPorts[0]}
	}
	cases := []schemeCase{
		public("http://shop.example.com/", "web"),
		public("http://shop.example.com/cart/1", "web"),
		public("http://203.0.113.10/shared", "status"),
		public("http://shop.example.com/shared/x", "status"),
		public("http://shop.example.com/sharedx", "web"),
		internal("http://shop.example.com/", "admin"),
		internal("http://203.0.113.20/users/7", "admin"),
		internal("http://shop.example.com/shared", "status"),
		internal("http://shop.example.com/sharedx", "admin"),
	}
	for _, c := range cases {
		checkSchemeCase(t, g, out, version, nil, c)
	}
	t.Logf("Tyk %s: %d requests to two Gateways without hostnames on one port, told apart by their Services' ports, "+
		"explain agreeing on each", g.Version, len(cases))
}

// TestRealTykGatewayPorts holds fn/testdata/profile-gateway-api-gateway-ports to a real Gateway: the render emits a
// Service for each of two Gateways without hostnames on port 80, from the ports of the Tyk Gateway the
// RenderConfig gives it (gatewayPorts: the two HTTP ports the Gateway may open). The public Gateway keeps the port
// its Service has in the cluster, the internal one gets the other; each Gateway's requests reach its own route
// on its port, and explain, told the Gateway, agrees.
func TestRealTykGatewayPorts(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	version, err := tykroute.ParseVersion(g.Version)
	require.NoError(t, err)
	const story = "profile-gateway-api-gateway-ports"
	input := forRelease(t, story, storyInput(t, story, map[string]int{"targetPort: 8080}": g.Port,
		"targetPort: 8083}": g.HTTPPorts[1]}), version)
	pool := fmt.Sprintf(`gatewayPorts: "%d,%d"`, g.HTTPPorts[0], g.HTTPPorts[1])
	for from, to := range map[string]string{`gatewayPorts: "8081-8089"`: pool,
		"        - {name: admin, protocol: HTTP, port: 8080}\n": ""} { // one listener: two ports for two Gateways
		require.Contains(t, input, from, "story %s changed shape", story)
		input = strings.Replace(input, from, to, 1)
	}
	_, out := renderInput(t, input)
	ports := map[string]int{}
	for _, gw := range out.Attachment.Gateways {
		require.NotNil(t, gw.Infrastructure.Service, gw.Gateway.Name)
		ports[gw.Gateway.Name] = gw.Infrastructure.Service.Spec.Ports[0].TargetPort.IntValue()
	}
	require.Equal(t, map[string]int{"public": g.HTTPPorts[1], "internal": g.HTTPPorts[0]}, ports,
		"the public Gateway keeps its port, the internal one gets the other")

	docs := unpreservedDocs(t, out)
	if refusesOwnPorts(t, g, version, docs) {
		return
	}
	require.NoError(t, g.Replace(docs))
	assert.NotContains(t, g.Log(), "Listen path collision", "Tyk renamed a listen path")
	cases := []schemeCase{
		{method: "GET", url: "http://shop.example.com/", backend: "web", gateway: "shop/public", tykPort: g.HTTPPorts[1]},
		{method: "GET", url: "http://203.0.113.30/cart", backend: "web", gateway: "shop/public", tykPort: g.HTTPPorts[1]},
		{method: "GET", url: "http://shop.example.com/", backend: "admin", gateway: "shop/internal", tykPort: g.HTTPPorts[0]},
		{method: "GET", url: "http://shop.example.com/users/7", backend: "admin", gateway: "shop/internal", tykPort: g.HTTPPorts[0]},
	}
	for _, c := range cases {
		checkSchemeCase(t, g, out, version, nil, c)
	}
	t.Logf("Tyk %s: %d requests to two Gateways on ports the render gave their Services, explain agreeing on each",
		g.Version, len(cases))
}
