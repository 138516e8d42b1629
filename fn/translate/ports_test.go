package translate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
)

func TestTLSPort(t *testing.T) {
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{
		{Port: 80, TargetPort: intstr.FromInt32(8080)},
		{Port: 443, TargetPort: intstr.FromInt32(8443)},
		{Port: 8444}, // targetPort not set: the port itself
		{Port: 9443, TargetPort: intstr.FromString("tls")}, // named: the Pods' container ports say, not the input
	}}}
	https := func(port gwv1.PortNumber) gwv1.Listener {
		return gwv1.Listener{Protocol: gwv1.HTTPSProtocolType, Port: port}
	}
	assert.Equal(t, 8443, TLSPort(https(443), svc))
	assert.Equal(t, 8444, TLSPort(https(8444), svc))
	assert.Zero(t, TLSPort(https(9443), svc), "a named targetPort cannot be known offline")
	assert.Zero(t, TLSPort(https(8000), svc), "no Service port for the listener")
	assert.Zero(t, TLSPort(gwv1.Listener{Protocol: gwv1.HTTPProtocolType, Port: 80}, svc), "HTTP stays on listen_port")
	assert.Zero(t, TLSPort(https(443), nil), "no data-plane Service")
}

func TestListenerPort(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "tyk", Name: "tyk-gateway"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{
			{Port: 80, TargetPort: intstr.FromInt32(8080)},
			{Port: 8080, TargetPort: intstr.FromInt32(8081)},
			{Port: 8090, TargetPort: intstr.FromInt32(8080)}, // the listen_port again
			{Port: 9000, TargetPort: intstr.FromString("admin")},
			{Port: 443, TargetPort: intstr.FromInt32(8443)},
		}}}
	http := func(port gwv1.PortNumber) gwv1.Listener {
		return gwv1.Listener{Protocol: gwv1.HTTPProtocolType, Port: port}
	}
	https := gwv1.Listener{Protocol: gwv1.HTTPSProtocolType, Port: 443}
	gw := func(svc *corev1.Service, ls ...gwv1.Listener) *attachment.Gateway {
		return &attachment.Gateway{Gateway: &gwv1.Gateway{Spec: gwv1.GatewaySpec{Listeners: ls}},
			Infrastructure: attachment.Infrastructure{Service: svc}}
	}
	result := func(gs ...*attachment.Gateway) *attachment.Result { return &attachment.Result{Gateways: gs} }

	one := gw(svc, http(80), https)
	assert.Zero(t, ListenerPort(result(one), one, http(80)), "one HTTP port: the listen_port, as in the reference")
	assert.Equal(t, 8443, ListenerPort(result(one), one, https), "HTTPS: its TLS port")

	two := gw(svc, http(80), http(8080), https)
	assert.Equal(t, 8080, ListenerPort(result(two), two, http(80)), "two HTTP ports of the Pods: each listener on its own")
	assert.Equal(t, 8081, ListenerPort(result(two), two, http(8080)))

	// The data plane's question: a Gateway with one HTTP listener on port 8080 beside another's on port 80.
	other := gw(svc, http(8080))
	assert.Equal(t, 8081, ListenerPort(result(one, other), other, http(8080)))
	assert.Equal(t, 8080, ListenerPort(result(one, other), one, http(80)))
	elsewhere := gw(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "tyk", Name: "other"}, Spec: svc.Spec}, http(8080))
	assert.Zero(t, ListenerPort(result(one, elsewhere), one, http(80)), "another data plane's listeners do not count")

	same := gw(svc, http(80), http(8090))
	assert.Zero(t, ListenerPort(result(same), same, http(8090)), "two Gateway ports sent to one port of the Pods")
	named := gw(svc, http(80), http(8080), http(9000))
	assert.Zero(t, ListenerPort(result(named), named, http(8080)), "a named targetPort: not known offline")
	none := gw(nil, http(80), http(8080))
	assert.Zero(t, ListenerPort(result(none), none, http(8080)), "no data-plane Service")
}

// A hostname served on an HTTP listener's own port and on a lower TLS port: the HTTP port's API keeps the
// reference's ID, so the IDs do not change when the data plane's HTTP listeners get ports of their own.
func TestPrimaryPort(t *testing.T) {
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{
		{Port: 80, TargetPort: intstr.FromInt32(9080)},
		{Port: 443, TargetPort: intstr.FromInt32(8443)},
	}}}
	g := &attachment.Gateway{Gateway: &gwv1.Gateway{}, Infrastructure: attachment.Infrastructure{Service: svc}}
	listener := func(p gwv1.ProtocolType, port gwv1.PortNumber) attachment.AttachedListener {
		return attachment.AttachedListener{Listener: &attachment.Listener{Listener: gwv1.Listener{Protocol: p, Port: port}},
			Hostnames: []string{"shop.com"}}
	}
	p := &attachment.Parent{Gateway: g, Listeners: []attachment.AttachedListener{
		listener(gwv1.HTTPSProtocolType, 443), listener(gwv1.HTTPProtocolType, 80)}}
	assert.Equal(t, 9080, primaryPort(p, "shop.com", []int{8443, 9080}))
	assert.Equal(t, 0, primaryPort(p, "shop.com", []int{0, 8443}), "the listen_port")
	tlsOnly := &attachment.Parent{Gateway: g, Listeners: []attachment.AttachedListener{listener(gwv1.HTTPSProtocolType, 443)}}
	assert.Equal(t, 8443, primaryPort(tlsOnly, "shop.com", []int{8443}))
}
