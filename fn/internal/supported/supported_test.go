package supported

import (
	"testing"

	"github.com/stretchr/testify/assert"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

func TestFeatures(t *testing.T) {
	// Tyk Operator 1.6 writes no supportedFeatures: the operator profile adds none.
	assert.Nil(t, Features(config.Spec{Profile: config.ProfileOperator}))
	assert.Nil(t, Features(config.Spec{Profile: config.ProfileOperator, TykVersion: "5.14"}))
	// The Core features of GATEWAY-HTTP, method and query matching (routers, every release), named rules, listeners
	// on ports of their own (parentRef port, a port no listener has refused), listeners isolated, WebSocket backends (tyk.conf), CORS filters, ListenerSets, the
	// timeouts Tyk 5.14 serves exactly and the redirect codes, scheme, port and path (a Location with the
	// request's host and path), sorted by name
	// as the field requires, and nothing else.
	all := []gwv1.SupportedFeature{{Name: "Gateway"}, {Name: "GatewayAddressEmpty"}, {Name: "GatewayHTTPListenerIsolation"}, {Name: "GatewayPort8080"}, {Name: "HTTPRoute"},
		{Name: "HTTPRoute303RedirectStatusCode"}, {Name: "HTTPRoute307RedirectStatusCode"}, {Name: "HTTPRoute308RedirectStatusCode"},
		{Name: "HTTPRouteBackendProtocolH2C"}, {Name: "HTTPRouteBackendProtocolWebSocket"}, {Name: "HTTPRouteBackendTimeout"},
		{Name: "HTTPRouteCORS"}, {Name: "HTTPRouteDestinationPortMatching"}, {Name: "HTTPRouteMethodMatching"}, {Name: "HTTPRouteNamedRouteRule"},
		{Name: "HTTPRouteParentRefPort"}, {Name: "HTTPRoutePathRedirect"}, {Name: "HTTPRoutePathRewrite"}, {Name: "HTTPRoutePortRedirect"},
		{Name: "HTTPRouteQueryParamMatching"}, {Name: "HTTPRouteRequestTimeout"}, {Name: "HTTPRouteSchemeRedirect"},
		{Name: "ListenerSet"}, {Name: "ReferenceGrant"}}
	assert.Equal(t, all, Features(config.Spec{Profile: config.ProfileGatewayAPI}))
	assert.Equal(t, all, Features(config.Spec{Profile: config.ProfileGatewayAPI, TykVersion: "v5.14.0"}))
	// For an older Tyk, whole seconds: the suite's 500ms would be 1s, so the timeouts are not claimed; and mock
	// responses found only by the OpenAPI router, so no redirect keeps the request's host.
	assert.Equal(t, []gwv1.SupportedFeature{{Name: "Gateway"}, {Name: "GatewayAddressEmpty"}, {Name: "GatewayHTTPListenerIsolation"}, {Name: "GatewayPort8080"}, {Name: "HTTPRoute"},
		{Name: "HTTPRouteBackendProtocolH2C"}, {Name: "HTTPRouteBackendProtocolWebSocket"}, {Name: "HTTPRouteCORS"}, {Name: "HTTPRouteDestinationPortMatching"},
		{Name: "HTTPRouteMethodMatching"}, {Name: "HTTPRouteNamedRouteRule"}, {Name: "HTTPRouteParentRefPort"},
		{Name: "HTTPRoutePathRewrite"}, {Name: "HTTPRouteQueryParamMatching"}, {Name: "ListenerSet"}, {Name: "ReferenceGrant"}},
		Features(config.Spec{Profile: config.ProfileGatewayAPI, TykVersion: "5.8"}))
	// 5.8.12 finds mocks the classic way but rounds timeouts to whole seconds.
	got := Features(config.Spec{Profile: config.ProfileGatewayAPI, TykVersion: "5.8.12"})
	assert.Contains(t, got, gwv1.SupportedFeature{Name: "HTTPRoute308RedirectStatusCode"})
	assert.NotContains(t, got, gwv1.SupportedFeature{Name: "HTTPRouteRequestTimeout"})
}
