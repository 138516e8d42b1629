package attachment

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/status"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
)

// ListenerSets (Gateway API v1.5 on) add listeners to a Gateway that allows them (spec.allowedListeners). Where
// the profile serves them (Environment.ListenerSets), a Gateway has the merged list of its own listeners and those
// of the ListenerSets it accepts, in Gateway API's precedence: its own first, then the ListenerSets by creation
// time and by namespace/name. A ListenerSet's listener that meets an earlier listener on its port with another
// protocol, or with the same protocol and hostname, is conflicted (the earlier one keeps the port); a route
// attaches to a ListenerSet's listeners through a parentRef of kind ListenerSet only, and to the Gateway's own
// through one of kind Gateway. Where the profile does not serve them, this file still finds the ListenerSets of
// our Gateways and the route parentRefs to them, so that the results say so instead of passing over them in
// silence.

// ListenerSet is a ListenerSet whose parentRef names one of our Gateways.
type ListenerSet struct {
	Set     *gwv1.ListenerSet
	Gateway *Gateway
	// Served says the profile serves ListenerSets; when it does not, nothing else is set.
	Served bool
	// Allowed says the Gateway accepts ListenerSets from the set's namespace (its listeners are then part of the
	// Gateway's), and Accepted that it is allowed, its Gateway usable and one of its listeners valid.
	Allowed, Accepted bool
	// Listeners are the set's listeners in spec order (each Listener.Set is the set), when it is allowed.
	Listeners  []*Listener
	Conditions []metav1.Condition
}

// Key is the ListenerSet's namespaced name.
func (s *ListenerSet) Key() types.NamespacedName {
	return types.NamespacedName{Namespace: s.Set.Namespace, Name: s.Set.Name}
}

// Description names the set in messages: "ListenerSet <namespace>/<name>".
func (s *ListenerSet) Description() string { return "ListenerSet " + s.Key().String() }

// ourListenerSets are the ListenerSets whose parentRef names one of our Gateways, sorted by namespace and name.
func ourListenerSets(inv *inventory.Inventory, gateways map[types.NamespacedName]*Gateway, served bool) []*ListenerSet {
	var out []*ListenerSet
	for _, ls := range inv.ListenerSetList {
		if gw, ok := ListenerSetGateway(ls); ok && gateways[gw] != nil {
			out = append(out, &ListenerSet{Set: ls, Gateway: gateways[gw], Served: served})
		}
	}
	return out
}

// ListenerSetGateway is the Gateway a ListenerSet's parentRef names (group and kind default to Gateway API's
// Gateway, the namespace to the ListenerSet's); false when it names another kind.
func ListenerSetGateway(ls *gwv1.ListenerSet) (types.NamespacedName, bool) {
	ref := ls.Spec.ParentRef
	if (ref.Group != nil && string(*ref.Group) != inventory.GatewayGroup) || (ref.Kind != nil && string(*ref.Kind) != inventory.KindGateway) {
		return types.NamespacedName{}, false
	}
	nn := types.NamespacedName{Namespace: ls.Namespace, Name: string(ref.Name)}
	if ref.Namespace != nil {
		nn.Namespace = string(*ref.Namespace)
	}
	return nn, true
}

// attachListenerSets decides each served ListenerSet of its Gateway, in precedence order, and gives the Gateway
// the listeners of those it allows (Gateway.Sets).
func attachListenerSets(sets []*ListenerSet, inv *inventory.Inventory, frontend bool) {
	byGateway := map[*Gateway][]*ListenerSet{}
	var gateways []*Gateway
	for _, s := range sets {
		if !s.Served {
			continue
		}
		if byGateway[s.Gateway] == nil {
			gateways = append(gateways, s.Gateway)
		}
		byGateway[s.Gateway] = append(byGateway[s.Gateway], s)
	}
	for _, g := range gateways {
		ordered := byGateway[g]
		sort.SliceStable(ordered, func(i, j int) bool {
			a, b := ordered[i].Set, ordered[j].Set
			if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
				return a.CreationTimestamp.Before(&b.CreationTimestamp)
			}
			return ordered[i].Key().String() < ordered[j].Key().String()
		})
		claimed := append([]*Listener(nil), g.Listeners...)
		for _, s := range ordered {
			s.decide(inv, frontend, claimed)
			g.Sets = append(g.Sets, s)
			for _, l := range s.Listeners {
				if l.Serving {
					claimed = append(claimed, l)
				}
			}
		}
	}
}

// decide writes the set's listeners and conditions: not allowed by the Gateway (NotAllowed), a Gateway that is
// not usable (ParentNotAccepted), no valid listener (ListenersNotValid), else accepted and programmed.
func (s *ListenerSet) decide(inv *inventory.Inventory, frontend bool, claimed []*Listener) {
	g, gen := s.Gateway, s.Set.Generation
	gwName := g.Gateway.Namespace + "/" + g.Gateway.Name
	both := func(ok bool, reason gwv1.ListenerSetConditionReason, accepted, programmed string) {
		r := string(reason)
		status.Set(&s.Conditions, status.Condition(string(gwv1.ListenerSetConditionAccepted), ok, r, accepted, gen))
		if ok {
			r = string(gwv1.ListenerSetReasonProgrammed)
		}
		status.Set(&s.Conditions, status.Condition(string(gwv1.ListenerSetConditionProgrammed), ok, r, programmed, gen))
	}
	if why := listenerSetNotAllowed(g.Gateway, s.Set, inv); why != "" {
		both(false, gwv1.ListenerSetReasonNotAllowed, why, why)
		return
	}
	s.Allowed = true
	s.Listeners = buildSetListeners(s, g.Infrastructure.Service, inv, frontend, claimed)
	if !g.Usable {
		why := fmt.Sprintf("Gateway %s is not accepted", gwName)
		for _, l := range s.Listeners {
			l.Serving, l.Valid = false, false
		}
		both(false, gwv1.ListenerSetReasonParentNotAccepted, why, why)
		return
	}
	valid, invalid := validity(s.Listeners)
	switch {
	case len(valid) == 0:
		why := "no listener is valid: " + strings.Join(invalid, ", ")
		both(false, gwv1.ListenerSetReasonListenersNotValid, why, why)
	case len(invalid) > 0:
		s.Accepted = true
		both(true, gwv1.ListenerSetReasonListenersNotValid, fmt.Sprintf("listeners not valid: %s; serving the valid listeners: %s",
			strings.Join(invalid, ", "), strings.Join(valid, ", ")), "served with Gateway "+gwName)
	default:
		s.Accepted = true
		both(true, gwv1.ListenerSetReasonAccepted, "all listeners are valid", "served with Gateway "+gwName)
	}
}

// listenerSetNotAllowed says why a Gateway does not accept a ListenerSet (spec.allowedListeners.namespaces.from:
// None, the default; Same, the Gateway's namespace; Selector, a namespace whose labels match; All), or "".
func listenerSetNotAllowed(gw *gwv1.Gateway, ls *gwv1.ListenerSet, inv *inventory.Inventory) string {
	from := gwv1.NamespacesFromNone
	var selector *metav1.LabelSelector
	if a := gw.Spec.AllowedListeners; a != nil && a.Namespaces != nil && a.Namespaces.From != nil {
		from, selector = *a.Namespaces.From, a.Namespaces.Selector
	}
	gwName := gw.Namespace + "/" + gw.Name
	switch from {
	case gwv1.NamespacesFromAll:
		return ""
	case gwv1.NamespacesFromSame:
		if ls.Namespace == gw.Namespace {
			return ""
		}
		return fmt.Sprintf("Gateway %s accepts ListenerSets of its own namespace only (spec.allowedListeners.namespaces.from: Same)", gwName)
	case gwv1.NamespacesFromSelector:
		if selector != nil {
			if sel, err := metav1.LabelSelectorAsSelector(selector); err == nil && sel.Matches(labels.Set(inv.NamespaceLabels(ls.Namespace))) {
				return ""
			}
		}
		return fmt.Sprintf("the labels of namespace %s do not match the selector of Gateway %s's spec.allowedListeners.namespaces", ls.Namespace, gwName)
	}
	return fmt.Sprintf("Gateway %s accepts no ListenerSet (spec.allowedListeners.namespaces.from: None, the default)", gwName)
}

// buildSetListeners decides the listeners of an allowed ListenerSet as a Gateway's are (protocol, port, route
// kinds, certificates under the set's namespace and kind), with conflicts against the claimed listeners: the
// Gateway's own and those of the sets before it, which keep their port and hostname.
func buildSetListeners(s *ListenerSet, svc *corev1.Service, inv *inventory.Inventory, frontend bool, claimed []*Listener) []*Listener {
	owner := refFrom{inventory.GatewayGroup, inventory.KindListenerSet, s.Set.Namespace}
	var out []*Listener
	for _, e := range s.Set.Spec.Listeners {
		ln := gwv1.Listener{Name: e.Name, Hostname: e.Hostname, Port: e.Port, Protocol: e.Protocol, TLS: e.TLS, AllowedRoutes: e.AllowedRoutes}
		l := &Listener{Listener: ln, Set: s}
		var p listenerProblems
		// A conflict with an earlier listener comes first, whatever the protocol: a TCP listener on an HTTP
		// listener's port is ProtocolConflict (the upstream suite's ListenerSetProtocolConflict), not merely
		// a protocol Tyk does not serve.
		if c, ok := setListenerConflict(ln, claimed, s.Gateway); ok {
			p.conflicted.add(c.reason, "%s", c.message)
		} else if !supportedProtocol(ln.Protocol) {
			p.accepted.add(string(gwv1.ListenerReasonUnsupportedProtocol), "protocol %s is not supported: use HTTP or HTTPS", ln.Protocol)
		} else if why := portUnavailable(ln.Port, svc); why != "" {
			p.accepted.add(string(gwv1.ListenerReasonPortUnavailable), "%s", why)
		}
		l.resolveRefs(owner, s.Gateway.Gateway, &p, inv, frontend)
		l.decide(&p, s.Set.Generation)
		if p.conflicted.reason != "" {
			// Gateway API asks a ListenerSet's conflicted listener for the conflict's reason here too.
			status.Set(&l.Conditions, status.Condition(lcProgrammed, false, p.conflicted.reason, p.conflicted.message(), s.Set.Generation))
		}
		out = append(out, l)
	}
	return out
}

// setListenerConflict is the conflict of a ListenerSet's listener with the first claimed listener on its port
// that has another protocol (ProtocolConflict) or the same protocol and hostname (HostnameConflict).
func setListenerConflict(ln gwv1.Listener, claimed []*Listener, g *Gateway) (conflict, bool) {
	for _, c := range claimed {
		cl := c.Listener
		if cl.Port != ln.Port || !supportedProtocol(cl.Protocol) {
			continue
		}
		switch {
		case cl.Protocol != ln.Protocol:
			return conflict{string(gwv1.ListenerReasonProtocolConflict), fmt.Sprintf("port %d is taken by %s, with protocol %s",
				ln.Port, c.describe(g), cl.Protocol)}, true
		case hostnameOf(cl) == hostnameOf(ln):
			shown := hostnameOf(ln)
			if shown == "" {
				shown = "no hostname"
			}
			return conflict{string(gwv1.ListenerReasonHostnameConflict), fmt.Sprintf("port %d and hostname (%s) are taken by %s",
				ln.Port, shown, c.describe(g))}, true
		}
	}
	return conflict{}, false
}

// describe names a listener of g in messages: "listener <name> of Gateway <ns>/<name>", or of its ListenerSet.
func (l *Listener) describe(g *Gateway) string {
	if l.Set != nil {
		return fmt.Sprintf("listener %s of %s", l.Listener.Name, l.Set.Description())
	}
	return fmt.Sprintf("listener %s of Gateway %s", l.Listener.Name, g.Key())
}

// listenerSetParents lists a route's parentRefs to a ListenerSet of one of our Gateways that the profile does
// not serve.
func listenerSetParents(hr *gwv1.HTTPRoute, sets map[types.NamespacedName]*ListenerSet) []ListenerSetParent {
	var out []ListenerSetParent
	for i, ref := range hr.Spec.ParentRefs {
		nn, ok := parentRefTo(ref, hr.Namespace, inventory.KindListenerSet)
		if s := sets[nn]; ok && s != nil && !s.Served {
			out = append(out, ListenerSetParent{Route: hr, Index: i, ListenerSet: nn, Gateway: s.Gateway.Key()})
		}
	}
	return out
}
