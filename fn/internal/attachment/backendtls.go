package attachment

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
)

// tlsPolicyRefused refuses a resolved backend whose Service port a BackendTLSPolicy targets (the whole Service,
// or the port by name): the backend asks for TLS verified against the policy's CA certificates under its
// hostname, and Tyk has no field for either. It verifies a TLS backend against its host's system roots only and
// sends the upstream URL's host as server name (e2e TestRealTykBackendTLS showed both), so no API can reach the
// backend as the policy asks, and plain HTTP is not what the backend speaks. Gateway API's reason for a backend
// protocol the implementation cannot speak is UnsupportedProtocol; the backend's share of the requests then gets
// 500, as any invalid backend's does.
func tlsPolicyRefused(b *Backend, inv *inventory.Inventory) {
	if !b.Resolved() || b.Service == nil {
		return
	}
	policies := inv.BackendTLSPolicies[types.NamespacedName{Namespace: b.Namespace, Name: string(b.Ref.Name)}]
	if len(policies) == 0 {
		return
	}
	portName := ""
	if p := servicePort(b.Service, *b.Ref.Port); p != nil {
		portName = p.Name
	}
	var names []string
	for _, p := range policies {
		if targetsPort(p, string(b.Ref.Name), portName) {
			names = append(names, p.Namespace+"/"+p.Name)
		}
	}
	if len(names) == 0 {
		return
	}
	b.Reason, b.Message = gwv1.RouteReasonUnsupportedProtocol, fmt.Sprintf(
		"port %d of Service %s/%s is the target of BackendTLSPolicy %s, and Tyk cannot reach a backend as one asks: "+
			"it verifies a TLS backend against its own system roots only, under the upstream URL's host, with no field "+
			"for a policy's CA certificates or hostname",
		*b.Ref.Port, b.Namespace, b.Ref.Name, strings.Join(names, ", "))
}

// targetsPort says whether policy p targets the port named portName of its Service service: a targetRef of that
// Service without sectionName, or with the port's name.
func targetsPort(p *gwv1.BackendTLSPolicy, service, portName string) bool {
	for _, ref := range p.Spec.TargetRefs {
		if ref.Group != "" || ref.Kind != inventory.KindService || string(ref.Name) != service {
			continue
		}
		if ref.SectionName == nil || (portName != "" && string(*ref.SectionName) == portName) {
			return true
		}
	}
	return false
}
