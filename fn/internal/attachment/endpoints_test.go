package attachment

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
)

// A headless Service whose EndpointSlices have no ready endpoint: BackendNotFound in the operator profile's
// reading, a resolved backend without targets (Unready, with a note) when the environment says so.
func TestHeadlessEndpointsUnready(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "headless", Namespace: "ns"},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Ports: []corev1.ServicePort{{Name: "http", Port: 8080}}}}
	name, port, notReady := "http", int32(8080), false
	inv := &inventory.Inventory{EndpointSlices: map[types.NamespacedName][]*discoveryv1.EndpointSlice{
		{Namespace: "ns", Name: "headless"}: {{
			Ports:     []discoveryv1.EndpointPort{{Name: &name, Port: &port}},
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}, Conditions: discoveryv1.EndpointConditions{Ready: &notReady}}},
		}},
	}}
	ref := gwv1.HTTPBackendRef{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Port: &port}}}

	b := Backend{Ref: ref, Namespace: "ns", Service: svc}
	headlessEndpoints(&b, inv, false)
	assert.Equal(t, gwv1.RouteReasonBackendNotFound, b.Reason)
	assert.False(t, b.Unready)

	b = Backend{Ref: ref, Namespace: "ns", Service: svc}
	headlessEndpoints(&b, inv, true)
	assert.True(t, b.Resolved())
	assert.True(t, b.Unready)
	assert.Empty(t, b.Endpoints)
	assert.Equal(t, "headless Service ns/headless has no ready endpoint for port 8080 in its EndpointSlices: the requests it "+
		"would take get 500 until one is ready", b.Note)
}
