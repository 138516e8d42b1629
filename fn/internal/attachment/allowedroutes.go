package attachment

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
)

// admits implements a listener's allowedRoutes for an HTTPRoute: the kind must be among the listener's
// supported kinds, and the route's namespace must be allowed by namespaces.from:
//
//   - Same (the default): the Gateway's own namespace (a ListenerSet's listener: the set's);
//   - All: any namespace;
//   - Selector: a namespace whose labels match the selector. A namespace's labels are those of the Namespace
//     object in the input plus kubernetes.io/metadata.name, which the API server sets on every namespace.
//
// A selector that does not parse admits nothing.
func admits(l *Listener, hr *gwv1.HTTPRoute, g *Gateway, inv *inventory.Inventory) bool {
	if !l.allowsHTTPRoute() {
		return false
	}
	ns := l.Listener.AllowedRoutes.Namespaces
	switch *ns.From {
	case gwv1.NamespacesFromAll:
		return true
	case gwv1.NamespacesFromSame:
		if l.Set != nil {
			return hr.Namespace == l.Set.Set.Namespace // a ListenerSet's listener: the set's namespace
		}
		return hr.Namespace == g.Gateway.Namespace
	case gwv1.NamespacesFromSelector:
		if ns.Selector == nil {
			return false
		}
		sel, err := metav1.LabelSelectorAsSelector(ns.Selector)
		if err != nil {
			return false
		}
		return sel.Matches(labels.Set(inv.NamespaceLabels(hr.Namespace)))
	}
	return false
}
