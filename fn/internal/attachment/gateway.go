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
	condAccepted   = string(gwv1.GatewayConditionAccepted)
	condProgrammed = string(gwv1.GatewayConditionProgrammed)
)

func buildGateway(gw *gwv1.Gateway, class *Class, infra Infrastructure, inv *inventory.Inventory, frontend bool) *Gateway {
	g := &Gateway{Gateway: gw, Class: class, Infrastructure: infra}
	g.Usable = class.Accepted && infra.Invalid == ""
	g.Listeners = buildListeners(gw, infra.Service, inv, frontend)
	if !g.Usable {
		// Nothing is generated for the listeners of a Gateway that is not accepted.
		for _, l := range g.Listeners {
			l.Serving = false
			status.Set(&l.Conditions, status.Condition(lcProgrammed, false, string(gwv1.ListenerReasonInvalid),
				"the Gateway is not accepted", gw.Generation))
		}
	}
	if g.Usable && infra.Service != nil {
		g.Addresses, _ = serviceAddresses(infra.Service)
	}
	return g
}

// gatewayConditions decides the Gateway's Accepted and Programmed conditions, after its listeners are known.
//
//   - Accepted and Programmed False Invalid: the parameters of the class or the Gateway cannot be read (Accepted
//     False InvalidParameters for the Gateway's own where the environment says so).
//   - Accepted True Accepted: every listener is valid; True ListenersNotValid: some are; False
//     ListenersNotValid: none is.
//   - Programmed False UnsupportedAddress: no data-plane Service; False AddressNotAssigned: the Service has no
//     address yet.
func gatewayConditions(g *Gateway) []metav1.Condition {
	gen := g.Gateway.Generation
	var conds []metav1.Condition
	if !g.Usable {
		why := g.Infrastructure.Invalid
		if !g.Class.Accepted {
			why = fmt.Sprintf("the parameters of GatewayClass %s cannot be read: %s", g.Class.Class.Name,
				status.Find(g.Class.Conditions, condAccepted).Message)
		}
		reason := gwv1.GatewayReasonInvalid
		if g.Class.Accepted && g.Infrastructure.InvalidParameters {
			reason = gwv1.GatewayReasonInvalidParameters
		}
		status.Set(&conds, status.Condition(condAccepted, false, string(reason), why, gen))
		status.Set(&conds, status.Condition(condProgrammed, false, string(gwv1.GatewayReasonInvalid), why, gen))
		return conds
	}

	valid, invalid := validity(g.Listeners)
	switch {
	case len(invalid) == 0:
		status.Set(&conds, status.Condition(condAccepted, true, string(gwv1.GatewayReasonAccepted),
			"all listeners are valid", gen))
	case len(valid) > 0:
		status.Set(&conds, status.Condition(condAccepted, true, string(gwv1.GatewayReasonListenersNotValid),
			fmt.Sprintf("listeners not valid: %s; serving the valid listeners: %s",
				strings.Join(invalid, ", "), strings.Join(valid, ", ")), gen))
	default:
		status.Set(&conds, status.Condition(condAccepted, false, string(gwv1.GatewayReasonListenersNotValid),
			fmt.Sprintf("no listener is valid: %s", strings.Join(invalid, ", ")), gen))
	}

	svc := g.Infrastructure.Service
	var requested *addressProblem
	if svc != nil && len(g.Addresses) > 0 && g.Infrastructure.AddressesRequested {
		requested = requestedAddresses(g)
	}
	switch {
	case svc == nil:
		status.Set(&conds, status.Condition(condProgrammed, false, string(gwv1.GatewayReasonUnsupportedAddress),
			g.Infrastructure.NoService, gen))
	case len(g.Addresses) == 0:
		_, why := serviceAddresses(svc)
		status.Set(&conds, status.Condition(condProgrammed, false, string(gwv1.GatewayReasonAddressNotAssigned), why, gen))
	case requested != nil:
		status.Set(&conds, status.Condition(condProgrammed, false, requested.reason, requested.message, gen))
	case len(valid) == 0:
		status.Set(&conds, status.Condition(condProgrammed, false, string(gwv1.GatewayReasonInvalid),
			"no listener is valid", gen))
	default:
		msg := fmt.Sprintf("served by the data plane behind Service %s/%s", svc.Namespace, svc.Name)
		if dp := g.Infrastructure.DataPlane; dp != nil && dp != svc {
			msg = fmt.Sprintf("served through its own Service %s/%s (labelled %s) by the Tyk Pods of Service %s/%s",
				svc.Namespace, svc.Name, gwv1.GatewayNameLabelKey, dp.Namespace, dp.Name)
		}
		status.Set(&conds, status.Condition(condProgrammed, true, string(gwv1.GatewayReasonProgrammed), msg, gen))
	}
	return conds
}

// serviceAddresses reads the Gateway's addresses off the data-plane Service, per the reference's address table:
// a LoadBalancer's ingress hostnames or IPs (none yet: not assigned), an ExternalName's name, a headless
// Service's cluster DNS name, or the cluster IP. When it finds none it says why.
func serviceAddresses(svc *corev1.Service) ([]gwv1.GatewayStatusAddress, string) {
	ref := fmt.Sprintf("Service %s/%s", svc.Namespace, svc.Name)
	switch {
	case svc.Spec.Type == corev1.ServiceTypeLoadBalancer:
		var out []gwv1.GatewayStatusAddress
		for _, in := range svc.Status.LoadBalancer.Ingress {
			switch {
			case in.Hostname != "":
				out = append(out, address(gwv1.HostnameAddressType, in.Hostname))
			case in.IP != "":
				out = append(out, address(gwv1.IPAddressType, in.IP))
			}
		}
		if len(out) == 0 {
			return nil, ref + " of type LoadBalancer has no ingress address yet (status.loadBalancer.ingress is empty)"
		}
		return out, ""
	case svc.Spec.Type == corev1.ServiceTypeExternalName:
		if svc.Spec.ExternalName == "" {
			return nil, ref + " of type ExternalName has no spec.externalName"
		}
		return []gwv1.GatewayStatusAddress{address(gwv1.HostnameAddressType, svc.Spec.ExternalName)}, ""
	case svc.Spec.ClusterIP == corev1.ClusterIPNone:
		return []gwv1.GatewayStatusAddress{address(gwv1.HostnameAddressType,
			fmt.Sprintf("%s.%s.svc.cluster.local", svc.Name, svc.Namespace))}, ""
	case svc.Spec.ClusterIP != "":
		return []gwv1.GatewayStatusAddress{address(gwv1.IPAddressType, svc.Spec.ClusterIP)}, ""
	}
	return nil, ref + " has no spec.clusterIP in the input: the API server assigns it, so give the Service as it is " +
		"in the cluster (a config.kubernetes.io/local-config object) to report the address"
}

func address(t gwv1.AddressType, v string) gwv1.GatewayStatusAddress {
	return gwv1.GatewayStatusAddress{Type: &t, Value: v}
}
