// Package inventory owns the typed view of the input: every object the render reads, decoded into its Go type,
// with the defaults the API server's CRD schemas would apply, indexed once by key so that later stages look up
// instead of scanning. It knows nothing of YAML (the read package fills it) nor of what the objects mean.
package inventory

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/tykapi"
)

// Key identifies one input object. Group is empty for the core API group.
type Key struct {
	Group     string
	Kind      string
	Namespace string
	Name      string
}

// String renders the key as users write it in messages: "HTTPRoute apps/shop".
func (k Key) String() string {
	if k.Namespace == "" {
		return k.Kind + " " + k.Name
	}
	return k.Kind + " " + k.Namespace + "/" + k.Name
}

// NN is the namespaced name of a Key.
func (k Key) NN() types.NamespacedName {
	return types.NamespacedName{Namespace: k.Namespace, Name: k.Name}
}

// Well-known group and kind names.
const (
	GatewayGroup = gwv1.GroupName

	KindGatewayClass   = "GatewayClass"
	KindGateway        = "Gateway"
	KindHTTPRoute      = "HTTPRoute"
	KindReferenceGrant = "ReferenceGrant"
	KindService        = "Service"
	KindSecret         = "Secret"
	KindNamespace      = "Namespace"
	KindConfigMap      = "ConfigMap"
	KindEndpointSlice  = "EndpointSlice"
	// KindBackendTLSPolicy is read for the Services it targets, which the gateway-api profile cannot reach as
	// the policy asks (attachment's backend resolution says so).
	KindBackendTLSPolicy = "BackendTLSPolicy"
	// KindListenerSet is read so that a ListenerSet of one of our Gateways, which the render does not serve
	// yet, and the routes attached to it are told so rather than passed over.
	KindListenerSet = "ListenerSet"
)

// Inventory holds the decoded, defaulted input objects. Maps are keyed by namespaced name (GatewayClasses and
// Namespaces by name); the slices hold the same objects sorted by namespace and name, for deterministic walks.
type Inventory struct {
	GatewayClasses map[string]*gwv1.GatewayClass
	Gateways       map[types.NamespacedName]*gwv1.Gateway
	HTTPRoutes     map[types.NamespacedName]*gwv1.HTTPRoute
	// ReferenceGrants are indexed by their own namespace: a grant only ever permits references into it.
	ReferenceGrants map[string][]*gwv1.ReferenceGrant
	// GrantsFrom indexes the same grants by what they permit references from: the grant's namespace and one of
	// its spec.from entries. A lookup for one reference finds the few grants that can permit it, however many
	// grants a shared namespace holds.
	GrantsFrom map[GrantFrom][]*gwv1.ReferenceGrant
	Services   map[types.NamespacedName]*corev1.Service
	Secrets    map[types.NamespacedName]*corev1.Secret
	Namespaces map[string]*corev1.Namespace
	ConfigMaps map[types.NamespacedName]*corev1.ConfigMap
	// EndpointSlices are indexed by the Service they belong to (label kubernetes.io/service-name).
	EndpointSlices       map[types.NamespacedName][]*discoveryv1.EndpointSlice
	OperatorContexts     map[types.NamespacedName]*tykapi.OperatorContext
	TykOasApiDefinitions map[types.NamespacedName]*tykapi.TykOasApiDefinition
	// BackendTLSPolicies are indexed by the Service each of their targetRefs names (a policy targets Services of
	// its own namespace), sorted by name.
	BackendTLSPolicies map[types.NamespacedName][]*gwv1.BackendTLSPolicy
	ListenerSets       map[types.NamespacedName]*gwv1.ListenerSet

	ClassList       []*gwv1.GatewayClass
	GatewayList     []*gwv1.Gateway
	RouteList       []*gwv1.HTTPRoute
	DefinitionList  []*tykapi.TykOasApiDefinition
	ListenerSetList []*gwv1.ListenerSet

	// grantSeen and sliceSeen hold the keys of the objects filed in lists, so that a duplicate is found by key.
	grantSeen  map[types.NamespacedName]bool
	sliceSeen  map[sliceKey]bool
	policySeen map[types.NamespacedName]bool
}

// sliceKey identifies an EndpointSlice among its Service's slices.
type sliceKey struct {
	service types.NamespacedName
	name    string
}

// GrantFrom is the key of Inventory.GrantsFrom: references from objects of Group and Kind in Namespace into
// the grant's own namespace, To.
type GrantFrom struct {
	To, Group, Kind, Namespace string
}

// New returns an empty inventory.
func New() *Inventory {
	return &Inventory{
		GatewayClasses:       map[string]*gwv1.GatewayClass{},
		Gateways:             map[types.NamespacedName]*gwv1.Gateway{},
		HTTPRoutes:           map[types.NamespacedName]*gwv1.HTTPRoute{},
		ReferenceGrants:      map[string][]*gwv1.ReferenceGrant{},
		GrantsFrom:           map[GrantFrom][]*gwv1.ReferenceGrant{},
		grantSeen:            map[types.NamespacedName]bool{},
		sliceSeen:            map[sliceKey]bool{},
		Services:             map[types.NamespacedName]*corev1.Service{},
		Secrets:              map[types.NamespacedName]*corev1.Secret{},
		Namespaces:           map[string]*corev1.Namespace{},
		ConfigMaps:           map[types.NamespacedName]*corev1.ConfigMap{},
		EndpointSlices:       map[types.NamespacedName][]*discoveryv1.EndpointSlice{},
		OperatorContexts:     map[types.NamespacedName]*tykapi.OperatorContext{},
		TykOasApiDefinitions: map[types.NamespacedName]*tykapi.TykOasApiDefinition{},
		BackendTLSPolicies:   map[types.NamespacedName][]*gwv1.BackendTLSPolicy{},
		ListenerSets:         map[types.NamespacedName]*gwv1.ListenerSet{},
		policySeen:           map[types.NamespacedName]bool{},
	}
}

func nn(namespace, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: namespace, Name: name}
}

// Add files one decoded object under its key; it reports false when an object with the same key is already
// there (the first one read stays).
func (inv *Inventory) Add(obj any) bool {
	switch o := obj.(type) {
	case *gwv1.GatewayClass:
		return put(inv.GatewayClasses, o.Name, o)
	case *gwv1.Gateway:
		return put(inv.Gateways, nn(o.Namespace, o.Name), o)
	case *gwv1.HTTPRoute:
		return put(inv.HTTPRoutes, nn(o.Namespace, o.Name), o)
	case *gwv1.ReferenceGrant:
		if !first(inv.grantSeen, nn(o.Namespace, o.Name)) {
			return false
		}
		inv.ReferenceGrants[o.Namespace] = append(inv.ReferenceGrants[o.Namespace], o)
		return true
	case *corev1.Service:
		return put(inv.Services, nn(o.Namespace, o.Name), o)
	case *corev1.Secret:
		return put(inv.Secrets, nn(o.Namespace, o.Name), o)
	case *corev1.Namespace:
		return put(inv.Namespaces, o.Name, o)
	case *corev1.ConfigMap:
		return put(inv.ConfigMaps, nn(o.Namespace, o.Name), o)
	case *discoveryv1.EndpointSlice:
		svc := nn(o.Namespace, o.Labels[discoveryv1.LabelServiceName])
		if !first(inv.sliceSeen, sliceKey{svc, o.Name}) {
			return false
		}
		inv.EndpointSlices[svc] = append(inv.EndpointSlices[svc], o)
		return true
	case *gwv1.BackendTLSPolicy:
		if !first(inv.policySeen, nn(o.Namespace, o.Name)) {
			return false
		}
		seen := map[string]bool{}
		for _, ref := range o.Spec.TargetRefs {
			if ref.Group == "" && ref.Kind == KindService && first(seen, string(ref.Name)) {
				svc := nn(o.Namespace, string(ref.Name))
				inv.BackendTLSPolicies[svc] = append(inv.BackendTLSPolicies[svc], o)
			}
		}
		return true
	case *gwv1.ListenerSet:
		return put(inv.ListenerSets, nn(o.Namespace, o.Name), o)
	case *tykapi.OperatorContext:
		return put(inv.OperatorContexts, nn(o.Namespace, o.Name), o)
	case *tykapi.TykOasApiDefinition:
		return put(inv.TykOasApiDefinitions, nn(o.Namespace, o.Name), o)
	}
	return false
}

// first records a key in a set, and reports whether it is new.
func first[K comparable](set map[K]bool, k K) bool {
	if set[k] {
		return false
	}
	set[k] = true
	return true
}

func put[K comparable, V any](m map[K]V, k K, v V) bool {
	if _, dup := m[k]; dup {
		return false
	}
	m[k] = v
	return true
}

// Seal builds the sorted lists and GrantsFrom. Call it once, after the last Add.
func (inv *Inventory) Seal() {
	inv.ClassList = sortedValues(inv.GatewayClasses, func(a, b string) bool { return a < b })
	inv.GatewayList = sortedValues(inv.Gateways, lessNN)
	inv.RouteList = sortedValues(inv.HTTPRoutes, lessNN)
	inv.DefinitionList = sortedValues(inv.TykOasApiDefinitions, lessNN)
	inv.ListenerSetList = sortedValues(inv.ListenerSets, lessNN)
	inv.GrantsFrom = map[GrantFrom][]*gwv1.ReferenceGrant{}
	for _, grants := range inv.ReferenceGrants {
		sort.Slice(grants, func(i, j int) bool { return grants[i].Name < grants[j].Name })
		for _, g := range grants {
			seen := map[GrantFrom]bool{}
			for _, f := range g.Spec.From {
				k := GrantFrom{To: g.Namespace, Group: string(f.Group), Kind: string(f.Kind), Namespace: string(f.Namespace)}
				if !seen[k] {
					seen[k] = true
					inv.GrantsFrom[k] = append(inv.GrantsFrom[k], g)
				}
			}
		}
	}
	for _, slices := range inv.EndpointSlices {
		sort.Slice(slices, func(i, j int) bool { return slices[i].Name < slices[j].Name })
	}
	for _, policies := range inv.BackendTLSPolicies {
		sort.Slice(policies, func(i, j int) bool { return policies[i].Name < policies[j].Name })
	}
}

func lessNN(a, b types.NamespacedName) bool {
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

func sortedValues[K comparable, V any](m map[K]V, less func(a, b K) bool) []V {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return less(keys[i], keys[j]) })
	out := make([]V, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

// NamespaceLabels returns the labels of a namespace as the API server would show them: the labels given in the
// input, plus the kubernetes.io/metadata.name label that the API server sets on every Namespace. A namespace
// that is not in the input still has that one label, since it is immutable and known without reading the object.
func (inv *Inventory) NamespaceLabels(name string) map[string]string {
	labels := map[string]string{}
	if ns := inv.Namespaces[name]; ns != nil {
		for k, v := range ns.Labels {
			labels[k] = v
		}
	}
	labels[corev1.LabelMetadataName] = name
	return labels
}
