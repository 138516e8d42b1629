package operatorcontext

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// gatewayService is a Gateway's own Service in the gateway-api profile: a Service in the Gateway's namespace
// labelled gateway.networking.k8s.io/gateway-name with the Gateway's name (the label Gateway API implementations
// put on what they run for one Gateway), or nil. It sends the Gateway's addresses to ports of the same Tyk Pods as
// its OperatorContext's dataPlane.serviceRef, ports of their own: Tyk serves a Gateway there apart from the
// others (an API's server.port), which is how two Gateways without hostnames on port 80 are told apart, by the
// address a request is sent to, as Gateway API asks. It gives the Gateway its addresses and its listeners'
// ports; the Pods' Service stays the data plane whose APIs must not share a custom domain and listen path.
// When several are labelled so, the first by name is taken. The reference knows no such Service.
func (e Environment) gatewayService(gw *gwv1.Gateway) *corev1.Service {
	if !e.gatewayAPI {
		return nil
	}
	var found []*corev1.Service
	for key, svc := range e.inv.Services {
		if key.Namespace == gw.Namespace && svc.Labels[gwv1.GatewayNameLabelKey] == gw.Name {
			found = append(found, svc)
		}
	}
	if len(found) == 0 {
		return nil
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Name < found[j].Name })
	return found[0]
}
