package conformance

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/translate"
)

// gatewayAPIRequestTables are the request tables that differ on the gateway-api profile, where every Gateway of
// the suite is served by the one data plane of the GatewayClass's OperatorContext.
var gatewayAPIRequestTables = []requestTable{
	{
		ShortName: "HTTPRouteMultipleGateways",
		Source:    "tests/httproute-multiple-gateways.go",
		Manifests: []string{"tests/httproute-multiple-gateways.yaml"},
		Gateway:   nsName(infraNamespace, "same-namespace"),
		Cases: []requestCase{
			{name: "Gateway same-namespace: shared route is accessible and routed to infra-backend-v1", path: "/shared",
				want: backend("infra-backend-v1", infraNamespace)},
			{name: "Gateway same-namespace: dedicated route is accessible and routed to infra-backend-v2", path: "/",
				want: backend("infra-backend-v2", infraNamespace),
				tyk:  ptrTo(backend("infra-backend-v3", infraNamespace)), strict: ptrTo(backend("infra-backend-v3", infraNamespace)),
				why: "the two Gateways share the class's data plane, so the same Tyk Gateways answer both addresses and " +
					"cannot tell them apart: both dedicated routes claim / on any host, all-namespaces-dedicated-route " +
					"takes precedence (the render's PathConflict), and / reaches infra-backend-v3 through either Gateway"},
			{name: "Gateway all-namespaces: shared route is accessible and routed to infra-backend-v1", path: "/shared",
				gateway: new(nsName(infraNamespace, "all-namespaces")), want: backend("infra-backend-v1", infraNamespace)},
			{name: "Gateway all-namespaces: dedicated route is accessible and routed to infra-backend-v3", path: "/",
				gateway: new(nsName(infraNamespace, "all-namespaces")), want: backend("infra-backend-v3", infraNamespace)},
		},
	},
}

// TestConformanceRequestsGatewayAPIProfile runs every request table on the gateway-api profile, over the APIs of
// the Gateway's data plane (the Tyk Gateways behind its address load every API of every Gateway they serve): the
// profile must route as the reference does wherever the tables agree, and gatewayAPIRequestTables says where not.
func TestConformanceRequestsGatewayAPIProfile(t *testing.T) {
	tables := append(append([]requestTable{}, requestTables...), gatewayAPIRequestTables...)
	runRequestTables(t, tables, func(t *testing.T, base, secrets, extra []*yaml.RNode) (*fn.Output, *world) {
		return renderPlatform(t, gatewayAPIPlatform, withGeneration(t, base), secrets, withGeneration(t, extra))
	}, dataPlaneAPIs)
}

// dataPlaneAPIs are the APIs that the Tyk Gateways behind a Gateway's address load: those of every Gateway with
// the same data plane (those of the Gateway alone when it has none).
func dataPlaneAPIs(out *fn.Output, gwNN types.NamespacedName) []*translate.API {
	g := out.Attachment.GatewaysByName[gwNN]
	if g == nil || g.Infrastructure.Service == nil {
		return gatewayAPIs(out.Translation, gwNN)
	}
	dataPlane := g.Infrastructure.Service.Namespace + "/" + g.Infrastructure.Service.Name
	var apis []*translate.API
	for _, a := range out.Translation.APIs {
		if a.DataPlane() == dataPlane {
			apis = append(apis, a)
		}
	}
	return apis
}
