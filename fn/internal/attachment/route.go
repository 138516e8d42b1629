package attachment

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/status"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
)

const (
	rcAccepted     = string(gwv1.RouteConditionAccepted)
	rcResolvedRefs = string(gwv1.RouteConditionResolvedRefs)
)

// attachRoute resolves an HTTPRoute against our Gateways and the ListenerSets of them the profile serves; it
// returns nil when no parentRef points at one of them (the route is another controller's business, and gets no
// status from us).
func attachRoute(hr *gwv1.HTTPRoute, gateways map[types.NamespacedName]*Gateway, sets map[types.NamespacedName]*ListenerSet,
	inv *inventory.Inventory, env Environment) *Route {
	r := &Route{Route: hr}
	for i, ref := range hr.Spec.ParentRefs {
		if g := parentGateway(ref, hr.Namespace, gateways); g != nil {
			r.Parents = append(r.Parents, attachParent(hr, i, ref, g, nil, inv))
			continue
		}
		nn, ok := parentRefTo(ref, hr.Namespace, inventory.KindListenerSet)
		if s := sets[nn]; ok && s != nil && s.Served {
			r.Parents = append(r.Parents, attachParent(hr, i, ref, s.Gateway, s, inv))
		}
	}
	if len(r.Parents) == 0 {
		return nil
	}
	r.Backends, r.ResolvedRefs = resolveBackends(hr, inv, env)
	return r
}

// parentGateway returns our Gateway that a parentRef names, or nil. The reference's group and kind must be
// gateway.networking.k8s.io/Gateway (the CRD defaults), and its namespace defaults to the route's.
func parentGateway(ref gwv1.ParentReference, routeNamespace string, gateways map[types.NamespacedName]*Gateway) *Gateway {
	nn, ok := parentRefTo(ref, routeNamespace, inventory.KindGateway)
	if !ok {
		return nil
	}
	return gateways[nn]
}

// parentRefTo is the object a route's parentRef names when it is a Gateway API object of kind (group and kind
// as the CRD defaults them, the namespace the route's unless given); false for another group or kind.
func parentRefTo(ref gwv1.ParentReference, routeNamespace, kind string) (types.NamespacedName, bool) {
	if ref.Group == nil || string(*ref.Group) != inventory.GatewayGroup || ref.Kind == nil || string(*ref.Kind) != kind {
		return types.NamespacedName{}, false
	}
	nn := types.NamespacedName{Namespace: routeNamespace, Name: string(ref.Name)}
	if ref.Namespace != nil {
		nn.Namespace = string(*ref.Namespace)
	}
	return nn, true
}

// attachParent decides the route's Accepted condition for one parentRef (to Gateway g, or to its ListenerSet set,
// whose listeners alone it reaches), in the order the checks narrow the listeners down: a usable Gateway (and a
// ListenerSet the Gateway allows), listeners selected by sectionName and port (NoMatchingParent), listeners
// whose allowedRoutes admit the route (NotAllowedByListeners), listeners sharing a hostname with the route
// (NoMatchingListenerHostname), and at least one of those serving.
func attachParent(hr *gwv1.HTTPRoute, index int, ref gwv1.ParentReference, g *Gateway, set *ListenerSet, inv *inventory.Inventory) *Parent {
	p := &Parent{Index: index, Ref: ref, Gateway: g, ListenerSet: set}
	gen := hr.Generation
	reject := func(reason gwv1.RouteConditionReason, format string, args ...any) *Parent {
		p.Accepted = status.Condition(rcAccepted, false, string(reason), fmt.Sprintf(format, args...), gen)
		return p
	}
	parent, listeners := "Gateway "+g.Gateway.Namespace+"/"+g.Gateway.Name, g.Listeners
	if set != nil {
		parent, listeners = set.Description(), set.Listeners
	}
	if !g.Usable {
		return reject(gwv1.RouteReasonNoMatchingParent, "Gateway %s/%s cannot be used: %s", g.Gateway.Namespace, g.Gateway.Name,
			status.Find(g.Conditions, condAccepted).Message)
	}
	if set != nil && !set.Allowed {
		return reject(gwv1.RouteReasonNoMatchingParent, "%s is not accepted: %s", parent,
			status.Find(set.Conditions, string(gwv1.ListenerSetConditionAccepted)).Message)
	}
	selected := selectedListeners(ref, listeners)
	if len(selected) == 0 {
		return reject(gwv1.RouteReasonNoMatchingParent, "%s has no listener that matches %s", parent, describeSection(ref))
	}
	admitting := filterListeners(selected, func(l *Listener) bool { return admits(l, hr, g, inv) })
	if len(admitting) == 0 {
		return reject(gwv1.RouteReasonNotAllowedByListeners,
			"the allowedRoutes of the listeners of %s (%s) do not admit HTTPRoutes from namespace %s",
			parent, listenerNames(selected), hr.Namespace)
	}
	routeHosts := routeHostnames(hr)
	var matched []*Listener
	for _, l := range admitting {
		hosts := intersectHostnames(l.Hostname(), routeHosts)
		if len(hosts) == 0 {
			continue
		}
		matched = append(matched, l)
		if l.Serving {
			p.Listeners = append(p.Listeners, AttachedListener{Listener: l, Hostnames: hosts})
		}
	}
	p.Admitting = matched
	if len(matched) == 0 {
		return reject(gwv1.RouteReasonNoMatchingListenerHostname,
			"no hostname of the route (%s) matches the hostname of a listener of %s (%s)",
			strings.Join(routeHosts, ", "), parent, listenerHostnames(admitting))
	}
	if len(p.Listeners) == 0 {
		return reject(gwv1.RouteReasonNoMatchingParent,
			"the listeners of %s that admit the route (%s) are not accepted", parent, listenerNames(matched))
	}
	p.Accepted = status.Condition(rcAccepted, true, string(gwv1.RouteReasonAccepted),
		fmt.Sprintf("attached to %s through %s", parent, listenerNames(attachedListeners(p.Listeners))), gen)
	return p
}

// selectedListeners applies a parentRef's sectionName and port: each, when set, must match the listener.
func selectedListeners(ref gwv1.ParentReference, listeners []*Listener) []*Listener {
	return filterListeners(listeners, func(l *Listener) bool {
		if ref.SectionName != nil && *ref.SectionName != l.Listener.Name {
			return false
		}
		if ref.Port != nil && *ref.Port != l.Listener.Port {
			return false
		}
		return true
	})
}

func filterListeners(in []*Listener, keep func(*Listener) bool) []*Listener {
	var out []*Listener
	for _, l := range in {
		if keep(l) {
			out = append(out, l)
		}
	}
	return out
}

func routeHostnames(hr *gwv1.HTTPRoute) []string {
	out := make([]string, len(hr.Spec.Hostnames))
	for i, h := range hr.Spec.Hostnames {
		out[i] = string(h)
	}
	return out
}

func describeSection(ref gwv1.ParentReference) string {
	var parts []string
	if ref.SectionName != nil {
		parts = append(parts, fmt.Sprintf("sectionName %q", *ref.SectionName))
	}
	if ref.Port != nil {
		parts = append(parts, fmt.Sprintf("port %d", *ref.Port))
	}
	return strings.Join(parts, " and ")
}

func listenerNames(ls []*Listener) string {
	names := make([]string, len(ls))
	for i, l := range ls {
		names[i] = string(l.Listener.Name)
	}
	return strings.Join(names, ", ")
}

func listenerHostnames(ls []*Listener) string {
	names := make([]string, len(ls))
	for i, l := range ls {
		h := l.Hostname()
		if h == "" {
			h = "any"
		}
		names[i] = string(l.Listener.Name) + ": " + h
	}
	return strings.Join(names, ", ")
}

func attachedListeners(as []AttachedListener) []*Listener {
	out := make([]*Listener, len(as))
	for i, a := range as {
		out[i] = a.Listener
	}
	return out
}
