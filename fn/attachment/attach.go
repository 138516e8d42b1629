package attachment

import (
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
)

// Attach resolves the attachment of everything in the inventory that belongs to controllerName.
// The walk is one pass over classes, gateways and routes; every lookup is by key.
func Attach(inv *inventory.Inventory, controllerName string, env Environment) *Result {
	res := &Result{Classes: map[string]*Class{}, GatewaysByName: map[types.NamespacedName]*Gateway{}}
	for _, gc := range inv.ClassList {
		if string(gc.Spec.ControllerName) == controllerName {
			res.Classes[gc.Name] = acceptClass(gc, env)
		}
	}
	for _, gw := range inv.GatewayList {
		class := res.Classes[string(gw.Spec.GatewayClassName)]
		if class == nil {
			continue // another controller's Gateway, or one whose class does not exist: not ours to report on
		}
		g := buildGateway(gw, class, env.Infrastructure(gw), inv)
		// The Gateway's conditions depend on its listeners only, and route attachment reads them (the message of
		// NoMatchingParent for an unusable Gateway), so they are decided before any route is.
		g.Conditions = gatewayConditions(g)
		res.Gateways = append(res.Gateways, g)
		res.GatewaysByName[g.Key()] = g
	}
	for _, hr := range inv.RouteList {
		if r := attachRoute(hr, res.GatewaysByName, inv); r != nil {
			res.Routes = append(res.Routes, r)
		}
	}
	for _, g := range res.Gateways {
		countAttachedRoutes(g, res.Routes, inv)
	}
	return res
}

// countAttachedRoutes implements ListenerStatus.attachedRoutes: the number of routes whose parent status is
// Accepted True and that the listener admits by allowedRoutes, parentRef and hostname, "even if the Accepted
// condition of an individual Listener is set to False".
func countAttachedRoutes(g *Gateway, routes []*Route, inv *inventory.Inventory) {
	counted := map[*Listener]map[*gwv1.HTTPRoute]bool{}
	for _, r := range routes {
		for _, p := range r.Parents {
			if p.Gateway != g || p.Accepted.Status != "True" {
				continue
			}
			for _, l := range admittingListeners(r.Route, p.Ref, g, inv) {
				if counted[l] == nil {
					counted[l] = map[*gwv1.HTTPRoute]bool{}
				}
				if !counted[l][r.Route] {
					counted[l][r.Route] = true
					l.AttachedRoutes++
				}
			}
		}
	}
}
