package fn

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/attachment"
	"github.com/gateway2tyk/gateway2tyk/fn/basedoc"
	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
	"github.com/gateway2tyk/gateway2tyk/fn/read"
	"github.com/gateway2tyk/gateway2tyk/fn/status"
	"github.com/gateway2tyk/gateway2tyk/fn/translate"
	"github.com/gateway2tyk/gateway2tyk/fn/tykapi"
)

// writeStatus writes the would-be status of every GatewayClass, Gateway and HTTPRoute of ours onto its item.
func writeStatus(in *read.Result, att *attachment.Result, tr *translate.Output, bases *basedoc.Result, controller string) error {
	for name, c := range att.Classes {
		if err := annotate(in, inventory.Key{Group: inventory.GatewayGroup, Kind: inventory.KindGatewayClass, Name: name},
			status.ConditionsStatus{Conditions: c.Conditions}); err != nil {
			return err
		}
	}
	for _, g := range att.Gateways {
		if err := annotate(in, gatewayKey(g), gatewayStatus(g)); err != nil {
			return err
		}
	}
	for _, r := range tr.Routes {
		key := inventory.Key{Group: inventory.GatewayGroup, Kind: inventory.KindHTTPRoute,
			Namespace: r.Route.Route.Namespace, Name: r.Route.Route.Name}
		if err := annotate(in, key, routeStatus(r, controller)); err != nil {
			return err
		}
	}
	for _, d := range bases.Definitions {
		key := inventory.Key{Group: tykapi.Group, Kind: tykapi.KindTykOasApiDefinition, Namespace: d.Def.Namespace, Name: d.Def.Name}
		if err := annotate(in, key, status.ConditionsStatus{Conditions: []metav1.Condition{d.Accepted}}); err != nil {
			return err
		}
	}
	return nil
}

func annotate(in *read.Result, key inventory.Key, v any) error {
	node := in.Nodes[key]
	if node == nil {
		return nil
	}
	js, err := status.Encode(v)
	if err != nil {
		return err
	}
	return emit.SetStatus(node, js)
}

func gatewayKey(g *attachment.Gateway) inventory.Key {
	return inventory.Key{Group: inventory.GatewayGroup, Kind: inventory.KindGateway,
		Namespace: g.Gateway.Namespace, Name: g.Gateway.Name}
}

func gatewayStatus(g *attachment.Gateway) gwv1.GatewayStatus {
	st := gwv1.GatewayStatus{Addresses: g.Addresses, Conditions: g.Conditions}
	for _, l := range g.Listeners {
		st.Listeners = append(st.Listeners, gwv1.ListenerStatus{
			Name:           l.Listener.Name,
			SupportedKinds: l.SupportedKinds,
			AttachedRoutes: l.AttachedRoutes,
			Conditions:     l.Conditions,
		})
	}
	return st
}

func routeStatus(r *translate.Route, controller string) gwv1.HTTPRouteStatus {
	var st gwv1.HTTPRouteStatus
	for i, p := range r.Route.Parents {
		st.Parents = append(st.Parents, gwv1.RouteParentStatus{
			ParentRef:      p.Ref,
			ControllerName: gwv1.GatewayController(controller),
			Conditions:     r.Conditions[i],
		})
	}
	return st
}

// parentConditions indexes the final conditions of every parent, for the annotation on emitted objects.
func parentConditions(tr *translate.Output) map[*attachment.Parent][]metav1.Condition {
	out := map[*attachment.Parent][]metav1.Condition{}
	for _, r := range tr.Routes {
		for i, p := range r.Route.Parents {
			out[p] = r.Conditions[i]
		}
	}
	return out
}
