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
		g := buildGateway(gw, class, env.Infrastructure(gw), inv, env.FrontendValidation())
		// The Gateway's conditions depend on its listeners only, and route attachment reads them (the message of
		// NoMatchingParent for an unusable Gateway), so they are decided before any route is.
		g.Conditions = gatewayConditions(g)
		res.Gateways = append(res.Gateways, g)
		res.GatewaysByName[g.Key()] = g
	}
	res.ListenerSets = ourListenerSets(inv, res.GatewaysByName, env.ListenerSets())
	res.ListenerSetsByName = map[types.NamespacedName]*ListenerSet{}
	for _, ls := range res.ListenerSets {
		res.ListenerSetsByName[ls.Key()] = ls
	}
	attachListenerSets(res.ListenerSets, inv, env.FrontendValidation())
	for _, hr := range inv.RouteList {
		if r := attachRoute(hr, res.GatewaysByName, res.ListenerSetsByName, inv, env); r != nil {
			res.Routes = append(res.Routes, r)
		}
		res.MissingParents = append(res.MissingParents, missingParents(hr, inv)...)
		res.ListenerSetParents = append(res.ListenerSetParents, listenerSetParents(hr, res.ListenerSetsByName)...)
	}
	return res
}

// missingParents lists a route's parentRefs to a Gateway that is not in the inventory.
func missingParents(hr *gwv1.HTTPRoute, inv *inventory.Inventory) []MissingParent {
	var out []MissingParent
	for i, ref := range hr.Spec.ParentRefs {
		nn, ok := parentRefTo(ref, hr.Namespace, inventory.KindGateway)
		if ok && inv.Gateways[nn] == nil {
			out = append(out, MissingParent{Route: hr, Index: i, Gateway: nn})
		}
	}
	return out
}

// CountAttachedRoutes implements ListenerStatus.attachedRoutes: on each listener, the number of routes that
// it admits (allowedRoutes, parentRef and hostname) through a parent whose final Accepted condition is True,
// "even if the Accepted condition of an individual Listener is set to False". Whether a parent is finally
// accepted is known only after translation (a route can still be rejected as UnsupportedValue), so the caller
// says it; counting again starts from zero.
func CountAttachedRoutes(res *Result, accepted func(*Parent) bool) {
	for _, g := range res.Gateways {
		for _, l := range g.AllListeners() {
			l.AttachedRoutes = 0
		}
	}
	for _, r := range res.Routes {
		counted := map[*Listener]bool{} // two parentRefs to the same listener attach the route once
		for _, p := range r.Parents {
			if !accepted(p) {
				continue
			}
			for _, l := range p.Admitting {
				if !counted[l] {
					counted[l] = true
					l.AttachedRoutes++
				}
			}
		}
	}
}
