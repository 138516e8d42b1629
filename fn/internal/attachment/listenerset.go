package attachment

import (
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
)

// ListenerSets (Gateway API v1.5 on) add listeners to a Gateway that allows them. The render does not serve them
// yet: no API is made for their listeners or for the routes attached to them, and no status is written for them.
// This file finds the ListenerSets of our Gateways and the route parentRefs to them, so that the results say so
// instead of passing over them in silence.

// ourListenerSets are the ListenerSets whose parentRef names one of our Gateways.
func ourListenerSets(inv *inventory.Inventory, gateways map[types.NamespacedName]*Gateway) []*gwv1.ListenerSet {
	var out []*gwv1.ListenerSet
	for _, ls := range inv.ListenerSetList {
		if gw, ok := ListenerSetGateway(ls); ok && gateways[gw] != nil {
			out = append(out, ls)
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

// listenerSetParents lists a route's parentRefs to a ListenerSet of one of our Gateways.
func listenerSetParents(hr *gwv1.HTTPRoute, inv *inventory.Inventory, gateways map[types.NamespacedName]*Gateway) []ListenerSetParent {
	var out []ListenerSetParent
	for i, ref := range hr.Spec.ParentRefs {
		nn, ok := parentRefTo(ref, hr.Namespace, inventory.KindListenerSet)
		ls := inv.ListenerSets[nn]
		if !ok || ls == nil {
			continue
		}
		if gw, ok := ListenerSetGateway(ls); ok && gateways[gw] != nil {
			out = append(out, ListenerSetParent{Route: hr, Index: i, ListenerSet: nn, Gateway: gw})
		}
	}
	return out
}
