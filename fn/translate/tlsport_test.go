package translate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
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
