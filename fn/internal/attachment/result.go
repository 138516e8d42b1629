package attachment

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Result is the attachment of every object of ours.
type Result struct {
	// Classes are our GatewayClasses, by name.
	Classes map[string]*Class
	// Gateways are the Gateways of our classes, sorted by namespace and name.
	Gateways []*Gateway
	// GatewaysByName indexes Gateways.
	GatewaysByName map[types.NamespacedName]*Gateway
	// Routes are the HTTPRoutes with at least one parentRef to one of our Gateways, sorted by namespace and name.
	Routes []*Route
	// MissingParents are the parentRefs, of any route, to a Gateway that is not in the input (or could not be
	// read): the route is attached to nothing through them, which is worth a warning (a typo in the name or
	// namespace, or a Gateway left out of the input). Sorted by route, then parentRef.
	MissingParents []MissingParent
	// ListenerSets are the ListenerSets whose parentRef names one of our Gateways, sorted by namespace and name
	// (listenerset.go), and ListenerSetsByName indexes them. ListenerSetParents are the parentRefs, of any route,
	// to one of them where the profile does not serve ListenerSets, which both are told.
	ListenerSets       []*ListenerSet
	ListenerSetsByName map[types.NamespacedName]*ListenerSet
	ListenerSetParents []ListenerSetParent
}

// ListenerSetParent is a route's parentRef to a ListenerSet of one of our Gateways.
type ListenerSetParent struct {
	Route       *gwv1.HTTPRoute
	Index       int // in spec.parentRefs
	ListenerSet types.NamespacedName
	Gateway     types.NamespacedName
}

// MissingParent is a parentRef to a Gateway that is not in the input.
type MissingParent struct {
	Route   *gwv1.HTTPRoute
	Index   int // in spec.parentRefs
	Gateway types.NamespacedName
}

// Class is one of our GatewayClasses.
type Class struct {
	Class      *gwv1.GatewayClass
	Accepted   bool
	Conditions []metav1.Condition
}

// Gateway is a Gateway of one of our classes.
type Gateway struct {
	Gateway *gwv1.Gateway
	Class   *Class
	// Infrastructure is what the Environment said about the Gateway's data plane.
	Infrastructure Infrastructure
	// Usable is false when routes cannot attach at all: the class is not accepted or the Gateway's parameters
	// cannot be read.
	Usable    bool
	Addresses []gwv1.GatewayStatusAddress
	// Listeners are the Gateway's own listeners, in spec order; Sets the ListenerSets of the Gateway that the
	// profile serves, in Gateway API's precedence, whose allowed ones add their listeners (AllListeners).
	Listeners  []*Listener
	Sets       []*ListenerSet
	Conditions []metav1.Condition
}

// AllListeners is the merged list of the Gateway's listeners, its own and those of the ListenerSets it allows,
// in Gateway API's precedence.
func (g *Gateway) AllListeners() []*Listener {
	if len(g.Sets) == 0 {
		return g.Listeners
	}
	out := append([]*Listener(nil), g.Listeners...)
	for _, s := range g.Sets {
		out = append(out, s.Listeners...)
	}
	return out
}

// AttachedListenerSets is how many ListenerSets the Gateway accepts (status.attachedListenerSets).
func (g *Gateway) AttachedListenerSets() int32 {
	var n int32
	for _, s := range g.Sets {
		if s.Accepted {
			n++
		}
	}
	return n
}

// Key is the Gateway's namespaced name.
func (g *Gateway) Key() types.NamespacedName {
	return types.NamespacedName{Namespace: g.Gateway.Namespace, Name: g.Gateway.Name}
}

// Listener is one listener of a Gateway, with its status.
type Listener struct {
	Listener gwv1.Listener
	// Set is the ListenerSet the listener is of, nil for the Gateway's own.
	Set            *ListenerSet
	SupportedKinds []gwv1.RouteGroupKind
	// Serving is true when the listener is accepted and not conflicted: routes attached to it are served.
	Serving bool
	// Valid is true when every condition of the listener is as it should be.
	Valid bool
	// Certificates are the Secrets of tls.certificateRefs that resolved to a valid key pair, in order.
	Certificates []*corev1.Secret
	// ClientCAs are the CA certificates client certificates must chain to (spec.tls.frontend for the listener's
	// port), in order; nil when the listener does not validate clients.
	ClientCAs      []CACertificate
	AttachedRoutes int32
	Conditions     []metav1.Condition
	// Fields are the Gateway fields outside the listener that conditions of it are about, by condition type
	// (spec.tls.frontend for the CA certificates client certificates are checked against); a condition type
	// not here is about the listener's own fields.
	Fields map[string]string
}

// Hostname is the listener's hostname, "" when it has none.
func (l *Listener) Hostname() string {
	if l.Listener.Hostname == nil {
		return ""
	}
	return string(*l.Listener.Hostname)
}

// Route is an HTTPRoute with at least one parentRef to one of our Gateways.
type Route struct {
	Route *gwv1.HTTPRoute
	// Parents has one entry per parentRef to one of our Gateways, in parentRef order.
	Parents []*Parent
	// Backends has, for each rule, the resolution of each of its backendRefs.
	Backends [][]Backend
	// ResolvedRefs is the route's ResolvedRefs condition, the same for every parent.
	ResolvedRefs metav1.Condition
}

// Parent is the attachment of a route to one of our Gateways through one parentRef.
type Parent struct {
	// Index is the position of the parentRef in spec.parentRefs.
	Index int
	// Ref is the parentRef with its CRD defaults.
	Ref     gwv1.ParentReference
	Gateway *Gateway
	// ListenerSet is the ListenerSet the parentRef names (kind ListenerSet), nil for a Gateway.
	ListenerSet *ListenerSet
	// Accepted is the route's Accepted condition for this parent, as attachment decides it.
	Accepted metav1.Condition
	// Admitting are the listeners that admit the route through this parentRef (allowedRoutes, sectionName and
	// port, hostname), whatever their own status: attachedRoutes counts on them.
	Admitting []*Listener
	// Listeners are the serving listeners the route attaches to, each with the effective hostnames it
	// gives the route ("" when neither the route nor the listener names a hostname).
	Listeners []AttachedListener
}

// AttachedListener is a serving listener that admits the route, and the hostnames it serves the route on.
type AttachedListener struct {
	Listener  *Listener
	Hostnames []string
}

// Backend is the resolution of one backendRef.
type Backend struct {
	Ref gwv1.HTTPBackendRef
	// Namespace is the backend's namespace (the route's when the reference leaves it out).
	Namespace string
	// Service is the referenced Service, nil when the reference does not resolve.
	Service *corev1.Service
	// Reason and Message say why it does not resolve ("" when it does).
	Reason  gwv1.RouteConditionReason
	Message string
	// Endpoints are the pod addresses of a headless Service, read from its EndpointSlices; empty for other
	// Services, and for a headless Service without EndpointSlices in the input (then Note says so).
	Endpoints []Endpoint
	// TargetPort is the port the pods of a headless Service listen on, when the Service says it as a number.
	TargetPort int32
	// Note is a remark on how the backend is reached that belongs in the ResolvedRefs message.
	Note string
	// Unready says the backend is resolved but has no ready endpoint (a headless Service, see
	// Environment.UnreadyBackendsResolve): nothing can take its requests.
	Unready bool
	// H2C says the Service port's appProtocol is kubernetes.io/h2c and the profile serves it (see
	// Environment.H2CBackends): Tyk reaches the backend over HTTP/2 without TLS (an h2c:// upstream URL).
	H2C bool
}

// Endpoint is one ready pod address of a headless Service and the port it serves the backend's port on.
type Endpoint struct {
	Address string
	Port    int32
}

// Resolved reports whether the backendRef points at an existing, permitted Service with a port.
func (b Backend) Resolved() bool { return b.Reason == "" }
