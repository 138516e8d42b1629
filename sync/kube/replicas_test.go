package kube

import (
	"context"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func slice(name string, portName *string, port int32, ready *bool, addrs ...string) *discoveryv1.EndpointSlice {
	var eps []discoveryv1.Endpoint
	for _, a := range addrs {
		eps = append(eps, discoveryv1.Endpoint{Addresses: []string{a}, Conditions: discoveryv1.EndpointConditions{Ready: ready}})
	}
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "tyk", Labels: map[string]string{discoveryv1.LabelServiceName: "gw"}},
		Endpoints:  eps, Ports: []discoveryv1.EndpointPort{{Name: portName, Port: &port}},
	}
}

// TestReplicas: an unnamed single port, IPv6 addresses, an unset ready condition (ready), an endpoint listed in
// two slices (once), another Service's slices (left out), and a URL without a port (the scheme's).
func TestReplicas(t *testing.T) {
	empty, no := "", false
	other := slice("other", &empty, 9, nil, "10.0.0.9")
	other.Labels[discoveryv1.LabelServiceName] = "other"
	c := &Cluster{Core: fake.NewSimpleClientset(
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "gw", Namespace: "tyk"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}},
		slice("a", &empty, 8080, nil, "10.0.0.1", "fd00::2"),
		slice("b", &empty, 8080, nil, "10.0.0.1"),
		slice("c", &empty, 8080, &no, "10.0.0.3"),
		other,
	)}
	base, err := url.Parse("http://gw.tyk.svc/")
	require.NoError(t, err)
	ready, notReady, err := c.Replicas(context.Background(), "tyk", "gw", base)
	require.NoError(t, err)
	var urls []string
	for _, e := range ready {
		urls = append(urls, e.URL)
	}
	assert.Equal(t, []string{"http://10.0.0.1:8080/", "http://[fd00::2]:8080/"}, urls)
	assert.Equal(t, []string{"10.0.0.3 (EndpointSlice c)"}, notReady)

	base, _ = url.Parse("https://gw.tyk.svc/")
	_, _, err = c.Replicas(context.Background(), "tyk", "gw", base)
	assert.ErrorContains(t, err, "names port 443, which Service tyk/gw does not have (its ports: 80)")
	_, _, err = c.Replicas(context.Background(), "tyk", "missing", base)
	assert.ErrorContains(t, err, "reading the data plane's Service tyk/missing")
}
