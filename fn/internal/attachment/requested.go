package attachment

import (
	"fmt"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// addressProblem is why a Gateway's spec.addresses are not met: the reason and message of Programmed False.
type addressProblem struct{ reason, message string }

// requestedAddresses holds a Gateway's spec.addresses to the addresses its Service gives (Gateway API: an address
// without value asks the implementation for one of that type; one with a value asks for that address):
//   - a value is not served: the Gateway's address is its Service's, which the cluster gives (AddressNotUsable);
//   - a type other than IPAddress and Hostname is not served (AddressNotUsable);
//   - a type the Service has no address of is not assigned (AddressNotAssigned).
//
// nil when every request is met.
func requestedAddresses(g *Gateway) *addressProblem {
	for i, a := range g.Gateway.Spec.Addresses {
		t := gwv1.IPAddressType
		if a.Type != nil {
			t = *a.Type
		}
		switch {
		case a.Value != "":
			return &addressProblem{string(gwv1.GatewayReasonAddressNotUsable), fmt.Sprintf("spec.addresses[%d]: a "+
				"requested address (%s) is not supported: the Gateway's address is the one the cluster gives its "+
				"Service", i, a.Value)}
		case t != gwv1.IPAddressType && t != gwv1.HostnameAddressType:
			return &addressProblem{string(gwv1.GatewayReasonAddressNotUsable), fmt.Sprintf("spec.addresses[%d]: "+
				"addresses of type %s are not supported (IPAddress and Hostname are)", i, t)}
		}
		has := false
		for _, got := range g.Addresses {
			has = has || (got.Type != nil && *got.Type == t)
		}
		if !has {
			return &addressProblem{string(gwv1.GatewayReasonAddressNotAssigned), fmt.Sprintf("spec.addresses[%d] "+
				"asks for an address of type %s, and Service %s/%s has none", i, t, g.Infrastructure.Service.Namespace,
				g.Infrastructure.Service.Name)}
		}
	}
	return nil
}
