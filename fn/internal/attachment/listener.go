package attachment

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/status"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
)

const (
	lcAccepted     = string(gwv1.ListenerConditionAccepted)
	lcConflicted   = string(gwv1.ListenerConditionConflicted)
	lcResolvedRefs = string(gwv1.ListenerConditionResolvedRefs)
	lcProgrammed   = string(gwv1.ListenerConditionProgrammed)
)

// listenerProblems collects what is wrong with one listener, per condition type, before the conditions are
// written: the first reason found for a type wins and every message is kept.
type listenerProblems struct {
	accepted, conflicted, resolvedRefs problem
}

type problem struct {
	reason   string
	messages []string
	// field is the Gateway field the first reason is about when it is not the listener's own (addAt).
	field string
}

func (p *problem) add(reason, format string, args ...any) {
	if p.reason == "" {
		p.reason = reason
	}
	p.messages = append(p.messages, fmt.Sprintf(format, args...))
}

// addAt is add for a reason about a field of the Gateway outside the listener (spec.tls.frontend).
func (p *problem) addAt(field, reason, format string, args ...any) {
	if p.reason == "" {
		p.field = field
	}
	p.add(reason, format, args...)
}

func (p *problem) message() string { return strings.Join(p.messages, "; ") }

// buildListeners decides the status of every listener of a Gateway: protocol, port, conflicts, route kinds and
// certificates (and, with frontend, the CA certificates client certificates are checked against).
func buildListeners(gw *gwv1.Gateway, svc *corev1.Service, inv *inventory.Inventory, frontend bool) []*Listener {
	problems := make([]listenerProblems, len(gw.Spec.Listeners))
	conflicts := listenerConflicts(gw.Spec.Listeners)
	out := make([]*Listener, len(gw.Spec.Listeners))
	for i, ln := range gw.Spec.Listeners {
		l := &Listener{Listener: ln}
		p := &problems[i]
		if !supportedProtocol(ln.Protocol) {
			p.accepted.add(string(gwv1.ListenerReasonUnsupportedProtocol),
				"protocol %s is not supported: use HTTP or HTTPS", ln.Protocol)
		} else if why := portUnavailable(ln.Port, svc); why != "" {
			p.accepted.add(string(gwv1.ListenerReasonPortUnavailable), "%s", why)
		}
		if c, ok := conflicts[i]; ok {
			p.conflicted.add(c.reason, "%s", c.message)
		}
		l.resolveRefs(refFrom{inventory.GatewayGroup, inventory.KindGateway, gw.Namespace}, gw, p, inv, frontend)
		l.decide(p, gw.Generation)
		out[i] = l
	}
	return out
}

// resolveRefs checks what the listener refers to: its route kinds, and an HTTPS listener's certificates (refs of
// owner, the Gateway or ListenerSet whose namespace they default to) and the CA certificates client certificates
// are checked against (the Gateway's spec.tls.frontend, with frontend).
func (l *Listener) resolveRefs(owner refFrom, gw *gwv1.Gateway, p *listenerProblems, inv *inventory.Inventory, frontend bool) {
	ln := l.Listener
	var invalidKinds []string
	l.SupportedKinds, invalidKinds = supportedKinds(ln)
	if len(invalidKinds) > 0 {
		p.resolvedRefs.add(string(gwv1.ListenerReasonInvalidRouteKinds),
			"route kinds not supported on a %s listener: %s", ln.Protocol, strings.Join(invalidKinds, ", "))
	}
	if ln.Protocol == gwv1.HTTPSProtocolType {
		l.Certificates = resolveCertificates(owner, ln, &p.resolvedRefs, inv)
		if frontend {
			l.ClientCAs = resolveClientCAs(gw, ln, p, inv)
		}
	}
}

// decide writes the listener's conditions from its problems, and whether it serves routes and is valid.
func (l *Listener) decide(p *listenerProblems, gen int64) {
	l.Conditions = listenerConditions(p, gen)
	l.Fields = problemFields(p)
	l.Serving = p.accepted.reason == "" && p.conflicted.reason == ""
	l.Valid = l.Serving && p.resolvedRefs.reason == ""
}

// validity lists the names of the valid and of the other listeners.
func validity(listeners []*Listener) (valid, invalid []string) {
	for _, l := range listeners {
		if l.Valid {
			valid = append(valid, string(l.Listener.Name))
		} else {
			invalid = append(invalid, string(l.Listener.Name))
		}
	}
	return valid, invalid
}

// problemFields are the Gateway fields outside the listener that its conditions are about, by condition type.
func problemFields(p *listenerProblems) map[string]string {
	out := map[string]string{}
	if p.accepted.field != "" {
		out[lcAccepted] = p.accepted.field
	}
	if p.resolvedRefs.field != "" {
		out[lcResolvedRefs] = p.resolvedRefs.field
	}
	return out
}

func listenerConditions(p *listenerProblems, gen int64) []metav1.Condition {
	var conds []metav1.Condition
	switch {
	case p.accepted.reason != "":
		status.Set(&conds, status.Condition(lcAccepted, false, p.accepted.reason, p.accepted.message(), gen))
	case p.conflicted.reason != "":
		// A conflicted listener must not be accepted for processing; the conflict is its reason.
		status.Set(&conds, status.Condition(lcAccepted, false, p.conflicted.reason, p.conflicted.message(), gen))
	default:
		status.Set(&conds, status.Condition(lcAccepted, true, string(gwv1.ListenerReasonAccepted), "listener is accepted", gen))
	}
	if p.conflicted.reason != "" {
		status.Set(&conds, status.Condition(lcConflicted, true, p.conflicted.reason, p.conflicted.message(), gen))
	} else {
		status.Set(&conds, status.Condition(lcConflicted, false, string(gwv1.ListenerReasonNoConflicts), "no conflicts", gen))
	}
	if p.resolvedRefs.reason != "" {
		status.Set(&conds, status.Condition(lcResolvedRefs, false, p.resolvedRefs.reason, p.resolvedRefs.message(), gen))
	} else {
		status.Set(&conds, status.Condition(lcResolvedRefs, true, string(gwv1.ListenerReasonResolvedRefs), "all references are resolved", gen))
	}
	if p.accepted.reason == "" && p.conflicted.reason == "" && p.resolvedRefs.reason == "" {
		status.Set(&conds, status.Condition(lcProgrammed, true, string(gwv1.ListenerReasonProgrammed), "listener is programmed", gen))
	} else {
		status.Set(&conds, status.Condition(lcProgrammed, false, string(gwv1.ListenerReasonInvalid), "listener is not valid", gen))
	}
	return conds
}

// supportedProtocol: Tyk Gateway serves HTTP and HTTPS only.
func supportedProtocol(p gwv1.ProtocolType) bool {
	return p == gwv1.HTTPProtocolType || p == gwv1.HTTPSProtocolType
}

// portUnavailable checks the listener port against the data-plane Service: the port must be one the Service
// exposes, unless the Service has no ports (ExternalName) or there is no Service to check against.
func portUnavailable(port gwv1.PortNumber, svc *corev1.Service) string {
	if svc == nil || len(svc.Spec.Ports) == 0 {
		return ""
	}
	var ports []string
	for _, p := range svc.Spec.Ports {
		if p.Port == port {
			return ""
		}
		ports = append(ports, fmt.Sprint(p.Port))
	}
	return fmt.Sprintf("port %d is not exposed by the data-plane Service %s/%s (ports: %s)",
		port, svc.Namespace, svc.Name, strings.Join(ports, ", "))
}

// supportedKinds computes a listener's status.supportedKinds: HTTPRoute for HTTP and HTTPS listeners, limited
// to allowedRoutes.kinds when the listener sets it. Kinds it names that the protocol cannot carry are returned
// as invalid (ResolvedRefs False InvalidRouteKinds); when all of them are invalid the list is empty, not nil,
// as the conformance suite expects.
func supportedKinds(ln gwv1.Listener) (supported []gwv1.RouteGroupKind, invalid []string) {
	supported = []gwv1.RouteGroupKind{}
	httpRoute := gwv1.RouteGroupKind{Group: ptr(gwv1.Group(inventory.GatewayGroup)), Kind: inventory.KindHTTPRoute}
	if !supportedProtocol(ln.Protocol) {
		return supported, nil
	}
	if ln.AllowedRoutes == nil || len(ln.AllowedRoutes.Kinds) == 0 {
		return append(supported, httpRoute), nil
	}
	for _, k := range ln.AllowedRoutes.Kinds {
		group := inventory.GatewayGroup
		if k.Group != nil {
			group = string(*k.Group)
		}
		if group == inventory.GatewayGroup && k.Kind == inventory.KindHTTPRoute {
			if len(supported) == 0 {
				supported = append(supported, httpRoute)
			}
			continue
		}
		invalid = append(invalid, groupKind(group, string(k.Kind)))
	}
	return supported, invalid
}

func groupKind(group, kind string) string {
	if group == "" {
		return kind
	}
	return kind + "." + group
}

// allowsKind reports whether the listener's supported kinds include HTTPRoute.
func (l *Listener) allowsHTTPRoute() bool {
	for _, k := range l.SupportedKinds {
		if k.Kind == inventory.KindHTTPRoute && k.Group != nil && string(*k.Group) == inventory.GatewayGroup {
			return true
		}
	}
	return false
}

func ptr[T any](v T) *T { return &v }
