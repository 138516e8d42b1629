package fn

import (
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/basedoc"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/status"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
	"github.com/gateway2tyk/gateway2tyk/fn/read"
	"github.com/gateway2tyk/gateway2tyk/fn/translate"
	"github.com/gateway2tyk/gateway2tyk/fn/tykapi"
)

// readResults reports the items that could not be read (errors) or were passed over (warnings), in the order in
// which the output lists the items (kind, namespace, name, apiVersion), so that the results do not depend on the
// order of the input: a second run, on the sorted output, reports them in the same order.
func readResults(in *read.Result) framework.Results {
	var out framework.Results
	for _, p := range inOutputOrder(in.Problems) {
		out = append(out, result(framework.Error, p.Node, p.Field, p.Message))
	}
	for _, p := range inOutputOrder(in.Ignored) {
		out = append(out, result(framework.Warning, p.Node, p.Field, p.Message))
	}
	return out
}

// inOutputOrder sorts problems as emit.Upsert sorts items; the problems of one item keep their order.
func inOutputOrder(problems []read.Problem) []read.Problem {
	out := append([]read.Problem(nil), problems...)
	key := func(p read.Problem) [4]string {
		return [4]string{p.Node.GetKind(), p.Node.GetNamespace(), p.Node.GetName(), p.Node.GetApiVersion()}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := key(out[i]), key(out[j])
		for k := range a {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return false
	})
	return out
}

// conditionResults turns every condition that is not as it should be into a warning on its object, naming the
// field at fault where there is one.
func conditionResults(in *read.Result, att *attachment.Result, tr *translate.Output) framework.Results {
	var out framework.Results
	warn := func(key inventory.Key, field string, c *metav1.Condition) {
		out = append(out, result(framework.Warning, in.Nodes[key], field,
			fmt.Sprintf("%s/%s: %s", c.Type, c.Reason, c.Message)))
	}
	for _, c := range sortedClasses(att) {
		for i := range c.Conditions {
			if cond := &c.Conditions[i]; cond.Status != metav1.ConditionTrue {
				warn(inventory.Key{Group: inventory.GatewayGroup, Kind: inventory.KindGatewayClass, Name: c.Class.Name},
					"spec.parametersRef", cond)
			}
		}
	}
	for _, g := range att.Gateways {
		key := gatewayKey(g)
		for i := range g.Conditions {
			if cond := &g.Conditions[i]; cond.Status != metav1.ConditionTrue {
				warn(key, gatewayField(g, cond.Reason), cond)
			}
		}
		listenerResults(key, g.Listeners, warn)
		if validatesClients(g) {
			out = append(out, result(framework.Warning, in.Nodes[key], "spec.tls.frontend", clientKeyUsageWarning))
		}
		if tls := g.Gateway.Spec.TLS; tls != nil && tls.Backend != nil && tls.Backend.ClientCertificateRef != nil {
			out = append(out, result(framework.Warning, in.Nodes[key], "spec.tls.backend.clientCertificateRef", backendClientCertificateWarning))
		}
	}
	for _, ls := range att.ListenerSets {
		key := inventory.Key{Group: inventory.GatewayGroup, Kind: inventory.KindListenerSet, Namespace: ls.Set.Namespace, Name: ls.Set.Name}
		if !ls.Served {
			out = append(out, result(framework.Warning, in.Nodes[key], "spec.parentRef", fmt.Sprintf(
				"ListenerSets are not served by this profile (Tyk Operator 1.6 has none): Gateway %s gets none of the "+
					"ListenerSet's %d listeners, no route attached to them gets an API, and no status is written for the "+
					"ListenerSet; give the listeners to the Gateway itself%s", ls.Gateway.Key(), len(ls.Set.Spec.Listeners),
				translate.GatewayAPIServes)))
			continue
		}
		for i := range ls.Conditions {
			if cond := &ls.Conditions[i]; cond.Status != metav1.ConditionTrue && cond.Type == string(gwv1.ListenerSetConditionAccepted) {
				field := "spec.listeners"
				if cond.Reason != string(gwv1.ListenerSetReasonListenersNotValid) {
					field = "spec.parentRef"
				}
				warn(key, field, cond)
			}
		}
		listenerResults(key, ls.Listeners, warn)
	}
	for _, p := range att.ListenerSetParents {
		key := inventory.Key{Group: inventory.GatewayGroup, Kind: inventory.KindHTTPRoute, Namespace: p.Route.Namespace, Name: p.Route.Name}
		out = append(out, result(framework.Warning, in.Nodes[key], fmt.Sprintf("spec.parentRefs[%d]", p.Index), fmt.Sprintf(
			"ListenerSet %s (of Gateway %s) is not served by this profile (Tyk Operator 1.6 has none), so the route is "+
				"attached to nothing through this parentRef; attach it to the Gateway's own listeners%s", p.ListenerSet, p.Gateway,
			translate.GatewayAPIServes)))
	}
	for _, m := range att.MissingParents {
		key := inventory.Key{Group: inventory.GatewayGroup, Kind: inventory.KindHTTPRoute, Namespace: m.Route.Namespace, Name: m.Route.Name}
		out = append(out, result(framework.Warning, in.Nodes[key], fmt.Sprintf("spec.parentRefs[%d]", m.Index),
			fmt.Sprintf("Gateway %s is not in the input (or cannot be read), so the route is attached to nothing through "+
				"this parentRef; give the Gateway as an input object if it exists", m.Gateway)))
	}
	for _, r := range tr.Routes {
		hr := r.Route.Route
		key := inventory.Key{Group: inventory.GatewayGroup, Kind: inventory.KindHTTPRoute, Namespace: hr.Namespace, Name: hr.Name}
		for i, p := range r.Route.Parents {
			for _, cond := range r.Conditions[i] {
				if cond.Type != string(gwv1.RouteConditionAccepted) || cond.Status != metav1.ConditionFalse ||
					cond.Reason == string(gwv1.RouteReasonUnsupportedValue) {
					continue
				}
				field, severity := fmt.Sprintf("spec.parentRefs[%d]", p.Index), framework.Warning
				if rej, ok := r.Rejected[i]; ok && rej.Reason == cond.Reason {
					field = rej.Field
					if rej.Error {
						// Failing closed: the route's APIs are not emitted, so the render must fail whatever
						// failOn says, and what is deployed stays.
						severity = framework.Error
					}
				}
				out = append(out, result(severity, in.Nodes[key], field,
					fmt.Sprintf("%s/%s: %s", cond.Type, cond.Reason, cond.Message)))
			}
		}
		out = append(out, dropResults(in, key, r)...)
		out = append(out, approximationResults(in, key, r)...)
		out = append(out, lossResults(in, key, r)...)
		out = append(out, noBackendResults(in, key, r)...)
		if rr := r.Route.ResolvedRefs; rr.Status == metav1.ConditionFalse {
			for ri, rule := range r.Route.Backends {
				for bi, b := range rule {
					if !b.Resolved() {
						out = append(out, result(framework.Warning, in.Nodes[key],
							fmt.Sprintf("spec.rules[%d].backendRefs[%d]", ri, bi),
							fmt.Sprintf("%s/%s: %s", rr.Type, b.Reason, b.Message)))
					}
				}
			}
		}
	}
	return out
}

// dropResults reports each dropped part of a route once, under the condition that carries it: Accepted
// UnsupportedValue when nothing is served, PartiallyInvalid otherwise.
func dropResults(in *read.Result, key inventory.Key, r *translate.Route) framework.Results {
	prefix := "PartiallyInvalid/UnsupportedValue"
	for _, conds := range r.Conditions {
		for _, c := range conds {
			if c.Type == string(gwv1.RouteConditionAccepted) && c.Reason == string(gwv1.RouteReasonUnsupportedValue) {
				prefix = "Accepted/UnsupportedValue"
			}
		}
	}
	var out framework.Results
	for _, d := range r.Drops {
		out = append(out, result(framework.Warning, in.Nodes[key], d.Field, prefix+": "+d.String()))
	}
	return out
}

// approximationResults warns about each part of a route that Tyk serves only approximately (a timeout rounded up
// to whole seconds); the Accepted condition's message says the same.
func approximationResults(in *read.Result, key inventory.Key, r *translate.Route) framework.Results {
	var out framework.Results
	for _, a := range r.Approximations {
		out = append(out, result(framework.Warning, in.Nodes[key], a.Field, "Accepted/Approximated: "+a.String()))
	}
	return out
}

// noBackendResults warns about each rule of an accepted route that has no backend to send requests to and no
// RequestRedirect to answer them: no backendRefs, or every weight 0. Gateway API asks for 500 on every request
// such a rule matches (as for backends that do not resolve; v1.6's HTTPRoute documentation and its conformance
// test HTTPRouteNoBackendRefs say 500 where earlier releases said 404), and so the API does; ResolvedRefs stays
// True, since no reference fails to resolve, so without this nothing would say it.
func noBackendResults(in *read.Result, key inventory.Key, r *translate.Route) framework.Results {
	accepted := false
	for _, conds := range r.Conditions {
		accepted = accepted || status.IsTrue(conds, string(gwv1.RouteConditionAccepted))
	}
	if !accepted {
		return nil
	}
	dropped := map[int]bool{}
	for _, d := range r.Drops {
		dropped[d.Rule] = true
	}
	var out framework.Results
	for i, rule := range r.Route.Route.Spec.Rules {
		if dropped[i] {
			continue
		}
		redirects := false
		for _, f := range rule.Filters {
			redirects = redirects || f.Type == gwv1.HTTPRouteFilterRequestRedirect
		}
		if redirects {
			continue
		}
		why := ""
		switch zero := len(rule.BackendRefs) > 0; {
		case len(rule.BackendRefs) == 0:
			why = "the rule has no backendRefs and no RequestRedirect"
		default:
			for _, b := range rule.BackendRefs {
				zero = zero && b.Weight != nil && *b.Weight == 0
			}
			if zero {
				why = "every backendRef of the rule has weight 0, and the rule has no RequestRedirect"
			}
		}
		if why != "" {
			out = append(out, result(framework.Warning, in.Nodes[key], fmt.Sprintf("spec.rules[%d].backendRefs", i),
				why+": Tyk answers 500 to every request it matches, as Gateway API asks for a rule without a valid backend"))
		}
	}
	return out
}

// lossResults reports the APIs a route loses to an older route (DataPlaneShared is its parent's Accepted
// condition, reported with the others).
func lossResults(in *read.Result, key inventory.Key, r *translate.Route) framework.Results {
	var out framework.Results
	for i := range r.Route.Parents {
		for _, l := range r.Lost[i] {
			if l.Reason == status.ReasonPathConflict {
				out = append(out, result(framework.Warning, in.Nodes[key], l.Field,
					fmt.Sprintf("%s/%s: %s", gwv1.RouteConditionPartiallyInvalid, l.Reason, l.Message)))
			}
		}
	}
	return out
}

// gatewayField names the field behind a Gateway condition. Invalid has two causes: parameters that cannot be
// read (the class's, or the Gateway's own), or no valid listener.
func gatewayField(g *attachment.Gateway, reason string) string {
	switch {
	case !g.Class.Accepted:
		return "spec.gatewayClassName"
	case !g.Usable:
		return "spec.infrastructure.parametersRef"
	case reason == string(gwv1.GatewayReasonListenersNotValid), reason == string(gwv1.GatewayReasonInvalid):
		return "spec.listeners"
	case reason == string(gwv1.GatewayReasonUnsupportedAddress):
		return "spec.infrastructure.parametersRef"
	}
	return ""
}

// clientKeyUsageWarning is what a Gateway that validates client certificates is told of Tyk's middleware.
const clientKeyUsageWarning = "Approximated: Tyk lets a client certificate through only when the CA's " +
	"verification allows serverAuth: one whose extended key usage is clientAuth alone (as most CAs issue client " +
	"certificates) is answered 403 after the TLS handshake unless the client sends the CA certificate with it " +
	"(its chain); one without extended key usage, or that allows serverAuth, passes (Tyk's CertificateCheck " +
	"middleware verifies with Go's default usage; seen on v5.14.0 and v5.8.11)"

// backendClientCertificateWarning is the result of a Gateway's spec.tls.backend.clientCertificateRef: Gateway API
// presents it on the TLS connections a BackendTLSPolicy asks for, and the render makes none (Tyk cannot verify a
// backend as a policy asks, so such backends are refused: attachment's backendtls.go).
const backendClientCertificateWarning = "not served: the certificate is presented on connections to backends " +
	"reached over TLS, as a BackendTLSPolicy asks, and Tyk reaches none so (it verifies a TLS backend against its own " +
	"system roots only, under the upstream URL's host), so no backend gets it"

// validatesClients says whether a listener of the Gateway checks client certificates (spec.tls.frontend).
func validatesClients(g *attachment.Gateway) bool {
	for _, l := range g.Listeners {
		if len(l.ClientCAs) > 0 {
			return true
		}
	}
	return false
}

// listenerResults warns of each listener condition that is not as it should be (Programmed follows the others),
// naming the listener and the field at fault.
func listenerResults(key inventory.Key, listeners []*attachment.Listener, warn func(inventory.Key, string, *metav1.Condition)) {
	for li, l := range listeners {
		for i := range l.Conditions {
			cond := &l.Conditions[i]
			bad := cond.Status == metav1.ConditionFalse
			if cond.Type == string(gwv1.ListenerConditionConflicted) {
				bad = cond.Status == metav1.ConditionTrue
			}
			if bad && cond.Type != string(gwv1.ListenerConditionProgrammed) {
				c := *cond
				c.Message = fmt.Sprintf("listener %s: %s", l.Listener.Name, c.Message)
				field := listenerField(li, cond.Reason)
				if f := l.Fields[cond.Type]; f != "" {
					field = f
				}
				warn(key, field, &c)
			}
		}
	}
}

// listenerField is the field of listener i that a listener condition's reason is about (attachment's
// Listener.Fields names those outside the listener).
func listenerField(i int, reason string) string {
	f := fmt.Sprintf("spec.listeners[%d]", i)
	switch reason {
	case string(gwv1.ListenerReasonUnsupportedProtocol), string(gwv1.ListenerReasonProtocolConflict):
		return f + ".protocol"
	case string(gwv1.ListenerReasonPortUnavailable):
		return f + ".port"
	case string(gwv1.ListenerReasonHostnameConflict):
		return f + ".hostname"
	case string(gwv1.ListenerReasonInvalidCertificateRef), string(gwv1.ListenerReasonRefNotPermitted):
		return f + ".tls.certificateRefs"
	case string(gwv1.ListenerReasonInvalidRouteKinds):
		return f + ".allowedRoutes.kinds"
	}
	return f
}

func result(sev framework.Severity, node *yaml.RNode, field, message string) *framework.Result {
	r := &framework.Result{Severity: sev, Message: shorten(message)}
	if node != nil {
		r.ResourceRef = &yaml.ResourceIdentifier{
			TypeMeta: yaml.TypeMeta{APIVersion: node.GetApiVersion(), Kind: node.GetKind()},
			NameMeta: yaml.NameMeta{Name: node.GetName(), Namespace: node.GetNamespace()},
		}
	}
	if field != "" {
		r.Field = &framework.Field{Path: field}
	}
	return r
}

func sortedClasses(att *attachment.Result) []*attachment.Class {
	var out []*attachment.Class
	for _, c := range att.Classes {
		out = append(out, c)
	}
	sortClasses(out)
	return out
}

func sortClasses(cs []*attachment.Class) {
	sort.Slice(cs, func(i, j int) bool { return cs[i].Class.Name < cs[j].Class.Name })
}

// definitionResults reports each attached TykOasApiDefinition that does not apply as a warning on it.
func definitionResults(in *read.Result, bases *basedoc.Result) framework.Results {
	var out framework.Results
	for _, d := range bases.Definitions {
		if d.Accepted.Status == metav1.ConditionTrue {
			continue
		}
		field := "spec.targetRefs"
		if d.Problem != nil && d.Accepted.Reason == d.Problem.Reason {
			field = d.Problem.Field
			if !strings.HasPrefix(field, "spec.") {
				// A field of the base document: the definition's field at fault is the key that holds it.
				field = "spec.tykOAS.configmapRef.keyName"
			}
		}
		key := inventory.Key{Group: tykapi.Group, Kind: tykapi.KindTykOasApiDefinition, Namespace: d.Def.Namespace, Name: d.Def.Name}
		out = append(out, result(framework.Warning, in.Nodes[key], field,
			fmt.Sprintf("%s/%s: %s", d.Accepted.Type, d.Accepted.Reason, d.Accepted.Message)))
	}
	return out
}
