package attachment

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/status"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
)

// resolveBackends resolves every backendRef of every rule and derives the route's ResolvedRefs condition:
// True when all resolve, otherwise False with the reason of the first that does not (in rule and reference
// order) and a message naming each one by its field path.
func resolveBackends(hr *gwv1.HTTPRoute, inv *inventory.Inventory, env Environment) ([][]Backend, metav1.Condition) {
	out := make([][]Backend, len(hr.Spec.Rules))
	var reason gwv1.RouteConditionReason
	var messages []string
	unreadyResolve, h2c, tlsPolicies := env.UnreadyBackendsResolve(), env.H2CBackends(), env.BackendTLSPolicies()
	for i, rule := range hr.Spec.Rules {
		out[i] = make([]Backend, len(rule.BackendRefs))
		for j, ref := range rule.BackendRefs {
			out[i][j] = resolveBackend(hr, ref, inv, unreadyResolve)
			if tlsPolicies {
				tlsPolicyRefused(&out[i][j], inv)
			}
			if h2c {
				out[i][j].H2C = appProtocol(out[i][j]) == appProtocolH2C
			}
		}
		h2cOnlyAlone(out[i])
		for j, b := range out[i] {
			if !b.Resolved() {
				if reason == "" {
					reason = b.Reason
				}
				messages = append(messages, fmt.Sprintf("spec.rules[%d].backendRefs[%d]: %s", i, j, b.Message))
			}
		}
	}
	if reason == "" {
		msg := "all backend references are resolved"
		for _, rule := range out {
			for _, b := range rule {
				if b.Note != "" {
					msg += "; " + b.Note
				}
			}
		}
		return out, status.Condition(rcResolvedRefs, true, string(gwv1.RouteReasonResolvedRefs), msg, hr.Generation)
	}
	return out, status.Condition(rcResolvedRefs, false, string(reason), strings.Join(messages, "; "), hr.Generation)
}

// resolveBackend implements the Backends table of the reference for one backendRef: a core Service with a port
// (else InvalidKind), in the route's namespace or one whose ReferenceGrant allows it (else RefNotPermitted),
// that exists (else BackendNotFound).
func resolveBackend(hr *gwv1.HTTPRoute, ref gwv1.HTTPBackendRef, inv *inventory.Inventory, unreadyResolve bool) Backend {
	b := Backend{Ref: ref, Namespace: hr.Namespace}
	if ref.Namespace != nil {
		b.Namespace = string(*ref.Namespace)
	}
	group, kind := string(*ref.Group), string(*ref.Kind)
	name := fmt.Sprintf("%s %s/%s", groupKind(group, kind), b.Namespace, ref.Name)
	switch {
	case group != "" || kind != inventory.KindService:
		b.Reason, b.Message = gwv1.RouteReasonInvalidKind, name+": only core Services are supported as backends"
	case ref.Port == nil:
		b.Reason, b.Message = gwv1.RouteReasonInvalidKind, name+": port is required"
	case !permitted(refFrom{inventory.GatewayGroup, inventory.KindHTTPRoute, hr.Namespace},
		refTo{"", inventory.KindService, b.Namespace, string(ref.Name)}, inv):
		b.Reason, b.Message = gwv1.RouteReasonRefNotPermitted, fmt.Sprintf(
			"%s is in another namespace and no ReferenceGrant in %s allows HTTPRoutes from %s to refer to it",
			name, b.Namespace, hr.Namespace)
	default:
		b.Service = inv.Services[types.NamespacedName{Namespace: b.Namespace, Name: string(ref.Name)}]
		switch {
		case b.Service == nil:
			b.Reason, b.Message = gwv1.RouteReasonBackendNotFound, name+" does not exist"
		case b.Service.Spec.Type != corev1.ServiceTypeExternalName && len(b.Service.Spec.Ports) > 0 &&
			servicePort(b.Service, *ref.Port) == nil:
			b.Reason, b.Message = gwv1.RouteReasonBackendNotFound, fmt.Sprintf("%s has no port %d", name, *ref.Port)
		case headless(b.Service):
			headlessEndpoints(&b, inv, unreadyResolve)
		}
	}
	return b
}

// appProtocolH2C is the appProtocol of a Service port that speaks HTTP/2 without TLS (Kubernetes' standard
// name, which Gateway API's HTTPRouteBackendProtocolH2C reads).
const appProtocolH2C = "kubernetes.io/h2c"

// appProtocol is the appProtocol of the Service port a resolved backend names ("" when unset or unresolved).
func appProtocol(b Backend) string {
	if !b.Resolved() || b.Service == nil {
		return ""
	}
	if p := servicePort(b.Service, *b.Ref.Port); p != nil && p.AppProtocol != nil {
		return *p.AppProtocol
	}
	return ""
}

// h2cOnlyAlone refuses an h2c backend of a rule that balances load over more than one target (the backends of
// positive weight, a headless Service's each ready pod): Tyk's load balancer turns every target URL's h2c://
// into http:// (EnsureTransport) and so speaks HTTP/1.1 to it, which an HTTP/2-only backend (gRPC) does not
// answer. Gateway API's reason for a backend protocol the implementation cannot speak is UnsupportedProtocol;
// the backend's share of the requests then gets 500, as any invalid backend's does.
func h2cOnlyAlone(rule []Backend) {
	targets := 0
	for _, b := range rule {
		if b.Ref.Weight == nil || *b.Ref.Weight > 0 {
			targets += max(1, len(b.Endpoints))
		}
	}
	if targets < 2 {
		return
	}
	for i, b := range rule {
		if b.H2C {
			rule[i].H2C = false
			rule[i].Reason, rule[i].Message = gwv1.RouteReasonUnsupportedProtocol, fmt.Sprintf(
				"port %d of Service %s/%s has appProtocol %s, and the rule balances load over more than one target, "+
					"to each of which Tyk speaks HTTP/1.1: an h2c backend is served as its rule's only target",
				*b.Ref.Port, b.Namespace, b.Ref.Name, appProtocolH2C)
		}
	}
}
