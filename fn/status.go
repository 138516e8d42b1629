package fn

import (
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/kustomize/kyaml/kio/filters"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/basedoc"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/meta"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/parallel"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/status"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/supported"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
	"github.com/gateway2tyk/gateway2tyk/fn/read"
	"github.com/gateway2tyk/gateway2tyk/fn/translate"
	"github.com/gateway2tyk/gateway2tyk/fn/tykapi"
)

// writeStatus writes the would-be status of every GatewayClass, Gateway and HTTPRoute of ours onto its item,
// with its health (status.Health). Each object's status is encoded and set on its own item, on every core. It
// returns the Gateway API objects it wrote a status on (those whose status the sync hook may write), sorted.
func writeStatus(in *read.Result, att *attachment.Result, tr *translate.Output, bases *basedoc.Result, cfg config.Spec) ([]inventory.Key, error) {
	controller := cfg.ControllerName
	classFeatures := supported.Features(cfg)
	type job struct {
		key    inventory.Key
		status func() any
		health func() string
	}
	var jobs []job
	for name, c := range att.Classes {
		jobs = append(jobs, job{inventory.Key{Group: inventory.GatewayGroup, Kind: inventory.KindGatewayClass, Name: name},
			func() any { return status.ClassStatus{Conditions: c.Conditions, SupportedFeatures: classFeatures} },
			func() string { return status.Health(status.Scope{Conditions: c.Conditions}) }})
	}
	for _, g := range att.Gateways {
		jobs = append(jobs, job{gatewayKey(g), func() any { return gatewayStatus(g) }, func() string { return gatewayHealth(g) }})
	}
	for _, ls := range att.ListenerSets {
		if !ls.Served {
			continue
		}
		key := inventory.Key{Group: inventory.GatewayGroup, Kind: inventory.KindListenerSet, Namespace: ls.Set.Namespace, Name: ls.Set.Name}
		jobs = append(jobs, job{key, func() any { return listenerSetStatus(ls) }, func() string { return listenerSetHealth(ls) }})
	}
	for _, r := range tr.Routes {
		key := inventory.Key{Group: inventory.GatewayGroup, Kind: inventory.KindHTTPRoute,
			Namespace: r.Route.Route.Namespace, Name: r.Route.Route.Name}
		jobs = append(jobs, job{key, func() any { return routeStatus(r, controller) }, func() string { return routeHealth(r) }})
	}
	for _, d := range bases.Definitions {
		key := inventory.Key{Group: tykapi.Group, Kind: tykapi.KindTykOasApiDefinition, Namespace: d.Def.Namespace, Name: d.Def.Name}
		jobs = append(jobs, job{key, func() any { return status.ConditionsStatus{Conditions: []metav1.Condition{d.Accepted}} },
			func() string { return status.Health(status.Scope{Conditions: []metav1.Condition{d.Accepted}}) }})
	}
	// Each job writes its own item (kyaml's setter parses the value to choose its style, which at fleet scale is
	// worth the second core); the first error in job order is returned.
	errs := parallel.Map(len(jobs), func(i int) error {
		node := in.Nodes[jobs[i].key]
		if node == nil {
			return nil
		}
		js, err := status.Encode(jobs[i].status())
		if err != nil {
			return err
		}
		return emit.SetStatus(node, js, jobs[i].health())
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	var written []inventory.Key
	for _, j := range jobs {
		// A local-config object is a fact of the cluster that another application applies: not this one's.
		if n := in.Nodes[j.key]; j.key.Group == inventory.GatewayGroup && n != nil && !isLocalConfig(n) {
			written = append(written, j.key)
		}
	}
	sort.Slice(written, func(a, b int) bool { return written[a].String() < written[b].String() })
	return written, nil
}

func isLocalConfig(n *yaml.RNode) bool {
	_, ok := meta.Annotations(n)[filters.LocalConfigAnnotation]
	return ok
}

func gatewayKey(g *attachment.Gateway) inventory.Key {
	return inventory.Key{Group: inventory.GatewayGroup, Kind: inventory.KindGateway,
		Namespace: g.Gateway.Namespace, Name: g.Gateway.Name}
}

func gatewayStatus(g *attachment.Gateway) gwv1.GatewayStatus {
	st := gwv1.GatewayStatus{Addresses: g.Addresses, Conditions: g.Conditions}
	if len(g.Sets) > 0 {
		n := g.AttachedListenerSets()
		st.AttachedListenerSets = &n
	}
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

// listenerSetStatus is a served ListenerSet's status: its conditions and, when its Gateway allows it, its
// listeners'.
func listenerSetStatus(ls *attachment.ListenerSet) gwv1.ListenerSetStatus {
	st := gwv1.ListenerSetStatus{Conditions: ls.Conditions}
	for _, l := range ls.Listeners {
		st.Listeners = append(st.Listeners, gwv1.ListenerEntryStatus{
			Name:           l.Listener.Name,
			SupportedKinds: l.SupportedKinds,
			AttachedRoutes: l.AttachedRoutes,
			Conditions:     l.Conditions,
		})
	}
	return st
}

// listenerSetHealth is the ListenerSet's own conditions, then each listener's.
func listenerSetHealth(ls *attachment.ListenerSet) string {
	return healthWithListeners(ls.Conditions, ls.Listeners)
}

// gatewayHealth is the Gateway's own conditions, then each listener's.
func gatewayHealth(g *attachment.Gateway) string {
	return healthWithListeners(g.Conditions, g.Listeners)
}

// healthWithListeners is an object's own conditions, then each of its listeners'.
func healthWithListeners(conds []metav1.Condition, listeners []*attachment.Listener) string {
	scopes := []status.Scope{{Conditions: conds}}
	for _, l := range listeners {
		scopes = append(scopes, status.Scope{Name: "listener " + string(l.Listener.Name), Conditions: l.Conditions})
	}
	return status.Health(scopes...)
}

// routeHealth is each parent's conditions, in parentRef order.
func routeHealth(r *translate.Route) string {
	var scopes []status.Scope
	for i, p := range r.Route.Parents {
		scopes = append(scopes, status.Scope{Name: "parent " + parentName(p.Ref, r.Route.Route.Namespace), Conditions: r.Conditions[i]})
	}
	return status.Health(scopes...)
}

// parentName is a parentRef as <namespace>/<name> (the route's namespace when the ref names none).
func parentName(ref gwv1.ParentReference, routeNamespace string) string {
	ns := routeNamespace
	if ref.Namespace != nil {
		ns = string(*ref.Namespace)
	}
	return ns + "/" + string(ref.Name)
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
