package operatorcontext

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/translate"
	"github.com/gateway2tyk/gateway2tyk/fn/tykapi"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// GatewayAPIProfile is the environment of the gateway-api profile. A Gateway without
// infrastructure.parametersRef is served by the data plane of its GatewayClass's OperatorContext (its
// dataPlane.serviceRef gives the address and ports, its dataPlane.tags the gateway tags): Gateway API makes
// infrastructure.parametersRef optional, so a Gateway written for any implementation (the upstream conformance
// suite's have none) is served; the reference instead leaves such a Gateway without a data plane. And a route
// whose parent Gateways share a data plane is served on each of them by one API (SharedDataPlaneServes), and an
// HTTPS listener is served on a TLS port of its own (ListenersOwnPorts), and rules' timeouts and Exact paths
// are served as the Tyk release the APIs are for can (Timeouts, ExactPaths; tyk is spec.tykVersion, the zero
// Version for the newest).
// headerNamesKept is the RenderConfig's ignoreCanonicalMIMEHeaderKey: the Tyk Gateways keep header names as
// written (HeaderNamesKept).
func (e Environment) GatewayAPIProfile(tyk tykroute.Version, headerNamesKept bool) Environment {
	e.gatewayAPI, e.tyk, e.headerNamesKept = true, tyk, headerNamesKept
	e.labelled = map[string][]*corev1.Service{}
	for _, svc := range e.inv.Services {
		if name, ok := svc.Labels[gwv1.GatewayNameLabelKey]; ok {
			e.labelled[name] = append(e.labelled[name], svc)
		}
	}
	return e
}

// HeaderNames implements translate.DataPlanes: the gateway-api profile serves a ResponseHeaderModifier's add
// where the Tyk Gateways keep header names as written (the RenderConfig says so), and otherwise says which
// setting would serve it; the reference rejects it.
func (e Environment) HeaderNames() translate.HeaderNames {
	switch {
	case !e.gatewayAPI:
		return translate.HeaderNamesAsGiven
	case e.headerNamesKept:
		return translate.HeaderNamesKept
	}
	return translate.HeaderNamesCanonicalized
}

// Timeouts implements translate.DataPlanes: the reference rejects timeouts; the gateway-api profile serves them
// exactly for Tyk 5.14 and later (the default), in whole seconds for an older release.
func (e Environment) Timeouts() translate.Timeouts {
	switch {
	case !e.gatewayAPI:
		return translate.TimeoutsRejected
	case !e.tyk.IsZero() && e.tyk.Less(tykroute.TimeoutDurations):
		return translate.TimeoutsWholeSeconds
	}
	return translate.TimeoutsDurations
}

// ExactPaths implements translate.DataPlanes: the reference rejects Exact paths; the gateway-api profile serves
// them, every rule for a Tyk that matches mock responses the classic way (the default, 5.14), and only the rules
// Tyk proxies for an older release.
func (e Environment) ExactPaths() translate.ExactPaths {
	switch {
	case !e.gatewayAPI:
		return translate.ExactRejected
	case !e.tyk.IsZero() && !tykroute.MockMatchedClassically(e.tyk):
		return translate.ExactProxiedOnly
	}
	return translate.ExactServed
}

// RedirectsKeepPath implements translate.DataPlanes: in the gateway-api profile, for a Tyk that finds mock
// responses the classic way (the default, 5.14), a RequestRedirect without path keeps the request's path.
func (e Environment) RedirectsKeepPath() bool { return e.ExactPaths() == translate.ExactServed }

// RedirectsKeepHost implements translate.DataPlanes: in the gateway-api profile a RequestRedirect without
// hostname keeps the request's host where the route's hostnames are exact (each API's one custom domain).
func (e Environment) RedirectsKeepHost() bool { return e.gatewayAPI }

// HeaderAndQueryMatches implements translate.DataPlanes: the gateway-api profile serves header and query
// parameter matches through router APIs (translate's router.go); the reference rejects them.
func (e Environment) HeaderAndQueryMatches() bool { return e.gatewayAPI }

// ListenerIsolation implements translate.DataPlanes: in the gateway-api profile a wildcard hostname's custom
// domain leaves out the exact hostnames of the Gateway's other listeners on its port (translate's
// isolation.go), as Gateway API gives a request to the most specific listener; the reference writes "{h:.+}".
func (e Environment) ListenerIsolation() bool { return e.gatewayAPI }

// HostlessCertificates implements translate.DataPlanes: in the gateway-api profile an API without hostname on an
// HTTPS listener's TLS port gets the listener's certificates (in a custom domain enabled with no name), so Tyk
// serves them for any server name, as Gateway API asks of a listener without hostname; the reference gives none.
func (e Environment) HostlessCertificates() bool { return e.gatewayAPI }

// UnreadyBackendsResolve implements attachment.Environment: in the gateway-api profile a headless Service whose
// EndpointSlices list no ready endpoint is resolved, its requests answered 500 until one is (Gateway API, and the
// upstream suite's HTTPRouteServiceTypes); the operator profile keeps BackendNotFound.
func (e Environment) UnreadyBackendsResolve() bool { return e.gatewayAPI }

// H2CBackends implements attachment.Environment: in the gateway-api profile a Service port of appProtocol
// kubernetes.io/h2c is reached over HTTP/2 without TLS (Gateway API's HTTPRouteBackendProtocolH2C); the
// reference reads no appProtocol.
func (e Environment) H2CBackends() bool { return e.gatewayAPI }

// FrontendValidation implements attachment.Environment: the gateway-api profile checks client certificates
// against the CA certificates of a Gateway's spec.tls.frontend; the reference reads no spec.tls.
func (e Environment) FrontendValidation() bool { return e.gatewayAPI }

// BackendTLSPolicies implements attachment.Environment: the gateway-api profile refuses a backend a
// BackendTLSPolicy targets, which Tyk cannot reach as the policy asks; the reference reads no BackendTLSPolicy.
func (e Environment) BackendTLSPolicies() bool { return e.gatewayAPI }

// ListenerSets implements attachment.Environment: the gateway-api profile serves the ListenerSets of our Gateways
// (their listeners are the Gateway's, routes attach to them, and they get a status); Tyk Operator 1.6 knows none.
func (e Environment) ListenerSets() bool { return e.gatewayAPI }

// SharedDataPlaneServes implements translate.DataPlanes: in the gateway-api profile, when two parents of a route
// share a data plane, the API rendered for one serves the other too (the same Tyk Gateways answer both
// Gateways' addresses, and Tyk cannot tell them apart), so both are accepted; the reference accepts only one
// and reports the other DataPlaneShared.
func (e Environment) SharedDataPlaneServes() bool { return e.gatewayAPI }

// ListenersOwnPorts implements translate.DataPlanes: in the gateway-api profile an HTTPS listener is served on
// a TLS port of its own, so that one Gateway serves HTTP and HTTPS as Gateway API asks; the reference puts
// every API on the Gateway's listen_port.
func (e Environment) ListenersOwnPorts() bool { return e.gatewayAPI }

// classContext is the OperatorContext of the parametersRef of a Gateway's class, nil when the class has none or
// it cannot be read (the class is then not accepted, ClassParameters says why, and so neither is the Gateway).
func (e Environment) classContext(gw *gwv1.Gateway) *tykapi.OperatorContext {
	gc := e.inv.GatewayClasses[string(gw.Spec.GatewayClassName)]
	if gc == nil || gc.Spec.ParametersRef == nil || e.ClassParameters(gc) != "" {
		return nil
	}
	ref := gc.Spec.ParametersRef
	return e.inv.OperatorContexts[types.NamespacedName{Namespace: string(*ref.Namespace), Name: ref.Name}]
}

// contextOrigin names where a Gateway's OperatorContext came from when it is its class's (the gateway-api
// profile), for the messages about it; "" when it is the Gateway's own.
func (e Environment) contextOrigin(gw *gwv1.Gateway) string {
	if !e.gatewayAPI || (gw.Spec.Infrastructure != nil && gw.Spec.Infrastructure.ParametersRef != nil) {
		return ""
	}
	return fmt.Sprintf(" (spec.parametersRef of GatewayClass %s, which serves its Gateways without "+
		"infrastructure.parametersRef)", gw.Spec.GatewayClassName)
}

// noContext says why a Gateway has no OperatorContext, so no data plane.
func (e Environment) noContext(gw *gwv1.Gateway) string {
	if !e.gatewayAPI {
		return "the Gateway has no infrastructure.parametersRef, so it has no " +
			"data plane: its APIs get no gateway tags and every Tyk Gateway that is not segmented loads them"
	}
	return fmt.Sprintf("neither the Gateway sets infrastructure.parametersRef nor its GatewayClass %s sets "+
		"spec.parametersRef, so it has no data plane: its APIs get no gateway tags and every Tyk Gateway that is not "+
		"segmented loads them", gw.Spec.GatewayClassName)
}
