package attachment

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
)

// headlessEndpoints resolves a headless Service's port to its pods: a headless Service has no cluster IP to
// proxy through, so a client reaches the pods themselves, on the target port. The pod addresses come from the
// Service's EndpointSlices in the input (ready endpoints, the slice port named like the Service port); without
// any, the cluster DNS name of the Service still resolves to the pods, which works when the target port is a
// number, and the note says so. EndpointSlices without a ready endpoint leave no target: BackendNotFound, or, when
// unreadyResolve (see Environment.UnreadyBackendsResolve), a resolved backend marked Unready, whose requests get
// 500, with a note.
func headlessEndpoints(b *Backend, inv *inventory.Inventory, unreadyResolve bool) {
	svc := b.Service
	port := servicePort(svc, *b.Ref.Port)
	if port == nil {
		return // resolveBackend reports it
	}
	slices := inv.EndpointSlices[types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}]
	if len(slices) == 0 {
		switch {
		case port.TargetPort.Type == intstr.Int && port.TargetPort.IntVal != 0:
			b.TargetPort = port.TargetPort.IntVal
		case port.TargetPort.Type == intstr.String && port.TargetPort.StrVal != "":
			b.Reason, b.Message = gwv1.RouteReasonBackendNotFound, fmt.Sprintf(
				"headless Service %s/%s names its target port %q and no EndpointSlice of it is in the input to give "+
					"the number: give its EndpointSlices as config.kubernetes.io/local-config objects", svc.Namespace, svc.Name,
				port.TargetPort.StrVal)
			return
		default:
			b.TargetPort = port.Port
		}
		b.Note = fmt.Sprintf("headless Service %s/%s has no EndpointSlice in the input: Tyk reaches its pods through "+
			"the cluster DNS name, which resolves to their addresses", svc.Namespace, svc.Name)
		return
	}
	for _, slice := range slices {
		var number int32
		for _, p := range slice.Ports {
			if p.Port != nil && p.Name != nil && *p.Name == port.Name {
				number = *p.Port
			}
		}
		if number == 0 {
			continue
		}
		for _, ep := range slice.Endpoints {
			if !ready(ep) {
				continue
			}
			for _, addr := range ep.Addresses {
				b.Endpoints = append(b.Endpoints, Endpoint{Address: addr, Port: number})
			}
		}
	}
	sort.Slice(b.Endpoints, func(i, j int) bool {
		if b.Endpoints[i].Address != b.Endpoints[j].Address {
			return b.Endpoints[i].Address < b.Endpoints[j].Address
		}
		return b.Endpoints[i].Port < b.Endpoints[j].Port
	})
	if len(b.Endpoints) == 0 {
		what := fmt.Sprintf("headless Service %s/%s has no ready endpoint for port %d in its EndpointSlices", svc.Namespace, svc.Name, port.Port)
		if unreadyResolve {
			b.Unready = true
			b.Note = what + ": the requests it would take get 500 until one is ready"
			return
		}
		b.Reason, b.Message = gwv1.RouteReasonBackendNotFound, what
	}
}

// ready follows EndpointConditions: a nil Ready means ready.
func ready(ep discoveryv1.Endpoint) bool {
	return ep.Conditions.Ready == nil || *ep.Conditions.Ready
}

func servicePort(svc *corev1.Service, port int32) *corev1.ServicePort {
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Port == port {
			return &svc.Spec.Ports[i]
		}
	}
	return nil
}

func headless(svc *corev1.Service) bool { return svc.Spec.ClusterIP == corev1.ClusterIPNone }
