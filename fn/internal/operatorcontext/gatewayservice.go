package operatorcontext

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/emit"
)

// LabelGatewayNamespace names the namespace of the Gateway a Service in the Tyk Pods' namespace is the own
// Service of (gatewayService); gateway.networking.k8s.io/gateway-name names the Gateway.
const LabelGatewayNamespace = "gateway2tyk.io/gateway-namespace"

// gatewayService is a Gateway's own Service in the gateway-api profile, or nil: a Service labelled
// gateway.networking.k8s.io/gateway-name with the Gateway's name (the label Gateway API implementations put on
// what they run for one Gateway), in the namespace of the Tyk Pods' Service dp (a Service selects Pods of its own
// namespace only) and labelled LabelGatewayNamespace with the Gateway's namespace, or else in the Gateway's own
// namespace (where the Tyk Pods are too, or with endpoints of its own). It sends the Gateway's addresses to ports
// of the same Tyk Pods as dp, ports of their own: Tyk serves a Gateway there apart from the others (an API's
// server.port), which is how two Gateways without hostnames on port 80 are told apart, by the address a request
// is sent to, as Gateway API asks. It gives the Gateway its addresses and its listeners' ports; dp stays the data
// plane whose APIs must not share a custom domain and listen path. When several match, the first by namespace
// and name is taken, one the user gave before one an earlier render emitted. The reference knows no such Service.
func (e Environment) gatewayService(gw *gwv1.Gateway, dp *corev1.Service) *corev1.Service {
	if !e.gatewayAPI {
		return nil
	}
	var found []*corev1.Service
	for _, svc := range e.labelled[gw.Name] {
		if (svc.Namespace == dp.Namespace && svc.Labels[LabelGatewayNamespace] == gw.Namespace) ||
			(svc.Namespace == gw.Namespace && svc.Labels[LabelGatewayNamespace] == "") {
			found = append(found, svc)
		}
	}
	if len(found) == 0 {
		return nil
	}
	sort.Slice(found, func(i, j int) bool {
		// the user's own before the render's (emit.OursGatewayService), which it stands in for
		if oi, oj := emit.Ours(found[i].Labels) != emit.NotOurs, emit.Ours(found[j].Labels) != emit.NotOurs; oi != oj {
			return oj
		}
		if found[i].Namespace != found[j].Namespace {
			return found[i].Namespace < found[j].Namespace
		}
		return found[i].Name < found[j].Name
	})
	return found[0]
}
