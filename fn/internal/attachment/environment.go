package attachment

import (
	corev1 "k8s.io/api/core/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Environment answers the questions whose answers depend on the implementation rather than on Gateway API.
type Environment interface {
	// ClassParameters judges the parametersRef of one of our GatewayClasses: "" when the class can be
	// accepted, otherwise why its parameters are invalid (the message of Accepted False InvalidParameters).
	ClassParameters(gc *gwv1.GatewayClass) string
	// Infrastructure resolves the data plane of one of our Gateways.
	Infrastructure(gw *gwv1.Gateway) Infrastructure
	// UnreadyBackendsResolve says whether a headless Service whose EndpointSlices list no ready endpoint is a
	// resolved reference (Gateway API: the Service exists, and the requests it would take get 500 until an
	// endpoint is ready, as the upstream conformance suite's HTTPRouteServiceTypes expects) rather than
	// BackendNotFound (this project's reading of the reference, kept in its profile).
	UnreadyBackendsResolve() bool
	// H2CBackends says whether a Service port of appProtocol kubernetes.io/h2c is reached over HTTP/2 without TLS
	// (Backend.H2C; the gateway-api profile), rather than as any other port (the reference reads no appProtocol).
	H2CBackends() bool
	// FrontendValidation says whether a Gateway's spec.tls.frontend is read (Listener.ClientCAs; the gateway-api
	// profile), rather than left out as the reference leaves it.
	FrontendValidation() bool
	// BackendTLSPolicies says whether a backend whose Service port a BackendTLSPolicy targets is refused
	// (UnsupportedProtocol; the gateway-api profile: Tyk cannot verify a backend as a policy asks), rather than
	// reached as any other (the reference reads no BackendTLSPolicy).
	BackendTLSPolicies() bool
	// ListenerSets says whether the ListenerSets of our Gateways are served (listenerset.go; the gateway-api
	// profile), rather than warned about (the reference knows none).
	ListenerSets() bool
}

// Infrastructure is what the implementation knows about a Gateway's data plane.
type Infrastructure struct {
	// Invalid, when set, says why the Gateway's parameters cannot be read: the Gateway is neither accepted nor
	// programmed, and no route attaches to it.
	Invalid string
	// InvalidParameters says Invalid is about the Gateway's own spec.infrastructure.parametersRef and is
	// reported with Gateway API's reason for it, Accepted False InvalidParameters (the gateway-api profile; the
	// reference says Invalid).
	InvalidParameters bool
	// Service fronts the data plane. It gives the Gateway its addresses and the ports listeners may use.
	Service *corev1.Service
	// DataPlane, when set, is the Service of the Tyk Pods the Gateway shares with the other Gateways of its
	// OperatorContext (dataPlane.serviceRef), where Service is the Gateway's own (the gateway-api profile: a
	// Service labelled gateway.networking.k8s.io/gateway-name). Tyk keeps one API per custom domain and listen
	// path on those Pods whatever the Service, so it is what APIs' claims are shared on. Nil: Service is.
	DataPlane *corev1.Service
	// NoService says why there is no Service (the Gateway is then not programmed: UnsupportedAddress).
	NoService string
	// AddressesRequested says the Gateway's spec.addresses are held to what the Service gives (requested.go):
	// the gateway-api profile; the reference does not read them.
	AddressesRequested bool
}
