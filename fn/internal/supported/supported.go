// Package supported owns what each render profile tells Gateway API it implements: the features a GatewayClass
// of ours lists in status.supportedFeatures, which the upstream conformance suite reads to decide what to test.
// A feature is listed only when the profile implements every test the suite runs for it; a feature the render
// only partly serves is left out, since listing it would claim what is not served.
package supported

import (
	"cmp"
	"slices"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/gateway-api/pkg/features"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// gatewayAPI are the features of the gateway-api profile: the Core features of the GATEWAY-HTTP conformance
// profile, and the Extended ones it serves on every Tyk release. An Extended feature is listed only once its
// tests pass against a real Tyk.
var gatewayAPI = []features.FeatureName{
	features.SupportGateway,
	features.SupportHTTPRoute,
	features.SupportReferenceGrant,
	// served by router APIs' triggers (translate's router.go) on every release that loads the rendered APIs
	// (tykroute.MinVersion on; config refuses an older spec.tykVersion)
	features.SupportHTTPRouteQueryParamMatching,
	features.SupportHTTPRouteMethodMatching,
	// a rule's name is read and kept, never served (Gateway API gives it no behaviour); the standard-channel CRD
	// takes it (HTTPRouteNamedRule passes on v5.14.0)
	features.SupportHTTPRouteNamedRouteRule,
	// once a data plane's HTTP listeners are sent to more than one port of the Tyk Pods each is served on its own
	// (translate's ports.go), on every release that loads the rendered APIs (server.port):
	// HTTPRouteListenerPortMatching passes on v5.14.0 and v5.8.11. Listeners without hostname on several ports
	// share no listen path string (translate's listenPathVariant), so HTTPRouteRedirectPortAndScheme's routes on
	// ports 80, 8080 and 443 are each served: GatewayPort8080.
	features.SupportGatewayPort8080,
	features.SupportHTTPRouteParentRefPort,
	// a parentRef's port that no listener of the Gateway has is refused (Accepted False, NoMatchingParent: the
	// status package), which HTTPRouteInvalidParentRefNotMatchingListenerPort checks
	features.SupportHTTPRouteDestinationPortMatching,
	// Tyk proxies an Upgrade: websocket request when its tyk.conf enables it (http_server_options.enable_websockets,
	// as examples/tyk-gateway/tyk.conf does), whatever the API: the render has nothing to write, and a backend's
	// appProtocol kubernetes.io/ws needs nothing more (HTTPRouteBackendProtocolWebSocket passes on v5.14.0)
	features.SupportHTTPRouteBackendProtocolWebSocket,
	// a Service port of appProtocol kubernetes.io/h2c, its rule's one target, gets an h2c:// upstream, which Tyk
	// reaches over HTTP/2 without TLS on every release that loads the rendered APIs (attachment's H2C)
	features.SupportHTTPRouteBackendProtocolH2C,
	// a URLRewrite of the path, beside a requestHeaderModifier's add too (each internal API of the routed path
	// rewrites as a plain API does: translate's appends.go)
	features.SupportHTTPRoutePathRewrite,
	// the listeners of one Gateway on a port are isolated: a wildcard or hostless listener's APIs get a custom
	// domain that leaves out the hostnames of the more specific listeners (translate's isolation.go);
	// GatewayHTTPListenerIsolation passes on v5.14.0 and v5.8.11
	features.SupportGatewayHTTPListenerIsolation,
	// a Gateway's spec.addresses asks for an address of a type and leaves the value to the implementation: the
	// Gateway's address is its Service's, which the load balancer gives (GatewayOptionalAddressValue). A value
	// asked for is not served (GatewayStaticAddresses is not claimed)
	features.SupportGatewayAddressEmpty,
	// a CORS filter is served by router APIs' triggers on the Origin and a preflight's headers, a mock response
	// for an allowed origin's preflight and response header transforms that echo it (translate's cors.go), on every
	// release that loads the rendered APIs (e2e TestRealTykCORS: the 5.4 line, v5.8.11, v5.14.0)
	features.SupportHTTPRouteCORS,
	// a ListenerSet's listeners are its Gateway's (attachment's listenerset.go), which are custom domains (and
	// ports) of the APIs to Tyk, on every release that loads the rendered APIs; the 12 ListenerSet tests of the
	// suite that need no TLSRoute pass on v5.14.0
	features.SupportListenerSet,
}

// timeouts are listed when the APIs are for Tyk 5.14 or later (spec.tykVersion not older), which takes the
// conformance tests' 500ms exactly (enforceTimeout.duration); in whole seconds 500ms would be 1s, against a
// backend that answers after 1s.
var timeouts = []features.FeatureName{
	features.SupportHTTPRouteRequestTimeout,
	features.SupportHTTPRouteBackendTimeout,
}

// redirectCodes are listed when the APIs are for a Tyk that finds mock responses the classic way (5.8.12 on the
// 5.8 line, 5.12.0 on; spec.tykVersion not older): the suite's 303, 307 and 308 redirects, and its scheme and port
// redirects, have no hostname on a route of any host, so the Location names the request's Host header (or its
// host part, which an urlRewrite trigger keeps, where the scheme or port changes), written by the response header
// transform (translate's redirect.go), which only such a Tyk runs where the mock is found. A ReplacePrefixMatch
// path is written the same way, with the rest of the request's path an urlRewrite trigger keeps
// (translate's redirectprefix.go).
var redirectCodes = []features.FeatureName{
	features.SupportHTTPRoute303RedirectStatusCode,
	features.SupportHTTPRoute307RedirectStatusCode,
	features.SupportHTTPRoute308RedirectStatusCode,
	features.SupportHTTPRouteSchemeRedirect,
	features.SupportHTTPRoutePortRedirect,
	features.SupportHTTPRoutePathRedirect,
}

// headerNamesKept are listed when the Tyk Gateways keep header names as written (the RenderConfig's
// ignoreCanonicalMIMEHeaderKey): a response header is then added beside the backend's value by a name in another
// case (translate's headernames.go), as HTTPRouteResponseHeaderModifier's add asks.
var headerNamesKept = []features.FeatureName{
	features.SupportHTTPRouteResponseHeaderModification,
}

// Features is status.supportedFeatures of a GatewayClass under the function config, sorted by name as the field
// requires, or nil: the operator profile writes no supportedFeatures, as Tyk Operator 1.6 does not.
func Features(cfg config.Spec) []gwv1.SupportedFeature {
	if !cfg.Profile.GatewayAPI() {
		return nil
	}
	listed := slices.Clone(gatewayAPI)
	tyk := cfg.TykRelease()
	if tyk.IsZero() || !tyk.Less(tykroute.TimeoutDurations) {
		listed = append(listed, timeouts...)
	}
	if tyk.IsZero() || tykroute.MockMatchedClassically(tyk) {
		listed = append(listed, redirectCodes...)
	}
	if cfg.HeaderNamesKept {
		listed = append(listed, headerNamesKept...)
	}
	out := make([]gwv1.SupportedFeature, 0, len(listed))
	for _, f := range listed {
		out = append(out, gwv1.SupportedFeature{Name: gwv1.FeatureName(f)})
	}
	slices.SortFunc(out, func(a, b gwv1.SupportedFeature) int { return cmp.Compare(a.Name, b.Name) })
	return out
}
