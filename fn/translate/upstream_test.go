package translate

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// service is a resolved backendRef to Service ns/name on port, with its CRD defaults filled in.
func service(ns, name string, port, weight int32) attachment.Backend {
	return attachment.Backend{
		Ref: gwv1.HTTPBackendRef{BackendRef: gwv1.BackendRef{
			BackendObjectReference: gwv1.BackendObjectReference{Group: ptr(gwv1.Group("")), Kind: ptr(gwv1.Kind("Service")),
				Name: gwv1.ObjectName(name), Namespace: ptr(gwv1.Namespace(ns)), Port: ptr(gwv1.PortNumber(port))},
			Weight: ptr(weight)}},
		Namespace: ns,
		Service:   &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}},
	}
}

// headlessPods is a headless Service whose ready pods are addrs, listening on podPort.
func headlessPods(ns, name string, weight int32, podPort int32, addrs ...string) attachment.Backend {
	b := service(ns, name, 8080, weight)
	b.Service.Spec.ClusterIP = corev1.ClusterIPNone
	for _, a := range addrs {
		b.Endpoints = append(b.Endpoints, attachment.Endpoint{Address: a, Port: podPort})
	}
	return b
}

func unresolved(b attachment.Backend, reason gwv1.RouteConditionReason) attachment.Backend {
	b.Service, b.Reason, b.Message = nil, reason, "test"
	return b
}

type target = tykoas.LoadBalancingTarget

// TestUpstreamTargets is the Backends table and the upstream rows of the settings table: weights by backendRef
// (the default weight 1 is filled in by the inventory before translation), weight 0 left out, the pods of a headless
// Service sharing its weight in whole numbers (lcm of the pod counts, then divided by the gcd), targets sorted by
// URL, and the unresolved URL for a backend that does not resolve.
func TestUpstreamTargets(t *testing.T) {
	for _, c := range []struct {
		name     string
		backends []attachment.Backend
		want     []target
	}{
		{"70/30/0: divided by the common divisor, weight 0 left out", []attachment.Backend{
			service("shop", "checkout-v1", 8080, 70), service("shop", "checkout-v2", 8080, 30),
			service("shop", "checkout-v3", 8080, 0)},
			[]target{{URL: "http://checkout-v1.shop.svc.cluster.local:8080/checkout", Weight: 7},
				{URL: "http://checkout-v2.shop.svc.cluster.local:8080/checkout", Weight: 3}}},
		{"sorted by URL whatever the order of backendRefs", []attachment.Backend{
			service("shop", "search-green", 8080, 1), service("shop", "search-blue", 8080, 1)},
			[]target{{URL: "http://search-blue.shop.svc.cluster.local:8080/checkout", Weight: 1},
				{URL: "http://search-green.shop.svc.cluster.local:8080/checkout", Weight: 1}}},
		{"weights with no common divisor stay", []attachment.Backend{
			service("shop", "a", 8080, 2), service("shop", "b", 8080, 3)},
			[]target{{URL: "http://a.shop.svc.cluster.local:8080/checkout", Weight: 2},
				{URL: "http://b.shop.svc.cluster.local:8080/checkout", Weight: 3}}},
		{"headless 2 pods and 3 pods, equal weights: lcm 6 keeps both halves equal", []attachment.Backend{
			headlessPods("shop", "inventory", 1, 9090, "10.0.0.1", "10.0.0.2"),
			headlessPods("shop", "inventory-eu", 1, 9090, "10.1.0.1", "10.1.0.2", "10.1.0.3")},
			[]target{{URL: "http://10.0.0.1:9090/checkout", Weight: 3}, {URL: "http://10.0.0.2:9090/checkout", Weight: 3},
				{URL: "http://10.1.0.1:9090/checkout", Weight: 2}, {URL: "http://10.1.0.2:9090/checkout", Weight: 2},
				{URL: "http://10.1.0.3:9090/checkout", Weight: 2}}},
		{"headless weight 2 over 2 pods against a Service of weight 1", []attachment.Backend{
			headlessPods("shop", "inventory", 2, 9090, "10.0.0.1", "10.0.0.2"), service("shop", "inventory-cache", 8080, 1)},
			[]target{{URL: "http://10.0.0.1:9090/checkout", Weight: 1}, {URL: "http://10.0.0.2:9090/checkout", Weight: 1},
				{URL: "http://inventory-cache.shop.svc.cluster.local:8080/checkout", Weight: 1}}},
		{"headless weight 3 over 2 pods against weight 1 over 4 pods", []attachment.Backend{
			headlessPods("shop", "a", 3, 80, "10.0.0.1", "10.0.0.2"),
			headlessPods("shop", "b", 1, 80, "10.0.1.1", "10.0.1.2", "10.0.1.3", "10.0.1.4")},
			// L = lcm(2,4) = 4: a's pods 3*4/2 = 6 each, b's 1*4/4 = 1 each; 12:4 = 3:1 as asked.
			[]target{{URL: "http://10.0.0.1:80/checkout", Weight: 6}, {URL: "http://10.0.0.2:80/checkout", Weight: 6},
				{URL: "http://10.0.1.1:80/checkout", Weight: 1}, {URL: "http://10.0.1.2:80/checkout", Weight: 1},
				{URL: "http://10.0.1.3:80/checkout", Weight: 1}, {URL: "http://10.0.1.4:80/checkout", Weight: 1}}},
		{"a headless Service of weight 0 is left out with its pods", []attachment.Backend{
			headlessPods("shop", "a", 0, 80, "10.0.0.1", "10.0.0.2", "10.0.0.3"), service("shop", "b", 8080, 5)},
			[]target{{URL: "http://b.shop.svc.cluster.local:8080/checkout", Weight: 1}}},
		{"IPv6 pod addresses are bracketed", []attachment.Backend{
			headlessPods("shop", "a", 1, 9090, "fd00::1")},
			[]target{{URL: "http://[fd00::1]:9090/checkout", Weight: 1}}},
		{"headless without EndpointSlices: DNS name on the target port", []attachment.Backend{
			func() attachment.Backend {
				b := headlessPods("shop", "reviews", 1, 0)
				b.TargetPort = 9090
				return b
			}()},
			[]target{{URL: "http://reviews.shop.svc.cluster.local:9090/checkout", Weight: 1}}},
		{"an unresolved backend keeps its share, on the unresolved URL", []attachment.Backend{
			service("shop", "orders", 8080, 3), unresolved(service("shop", "orders-next", 8080, 1), gwv1.RouteReasonBackendNotFound)},
			[]target{{URL: "http://orders.shop.svc.cluster.local:8080/checkout", Weight: 3},
				{URL: "http://unresolved.backend.invalid/checkout", Weight: 1}}},
		{"every weight 0: nothing serves", []attachment.Backend{service("shop", "a", 8080, 0)}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := (&upstreamSpec{backends: c.backends}).targets("/checkout")
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("targets:\n got  %+v\n want %+v", got, c.want)
			}
		})
	}
}

func TestUpstream(t *testing.T) {
	one := (&upstreamSpec{backends: []attachment.Backend{service("shop", "orders", 8080, 1)}}).upstream("/orders")
	if one.URL != "http://orders.shop.svc.cluster.local:8080/orders" || one.LoadBalancing != nil {
		t.Errorf("one backend: %+v, want the URL and no load balancing", one)
	}
	if one.PreserveHostHeader == nil || !one.PreserveHostHeader.Enabled {
		t.Errorf("preserveHostHeader must be enabled: %+v", one)
	}

	// Weight 0 leaves a single target: no load balancing.
	single := (&upstreamSpec{backends: []attachment.Backend{service("shop", "a", 8080, 0), service("shop", "b", 8080, 4)}}).
		upstream("/orders")
	if single.URL != "http://b.shop.svc.cluster.local:8080/orders" || single.LoadBalancing != nil {
		t.Errorf("weight 0 and one other: %+v", single)
	}

	lb := (&upstreamSpec{backends: []attachment.Backend{service("shop", "b", 8080, 1), service("shop", "a", 8080, 1)}}).
		upstream("/orders")
	if lb.LoadBalancing == nil || !lb.LoadBalancing.Enabled || len(lb.LoadBalancing.Targets) != 2 {
		t.Fatalf("two backends: want load balancing over 2 targets, got %+v", lb)
	}
	if lb.URL != lb.LoadBalancing.Targets[0].URL {
		t.Errorf("url = %s, want the first target %s", lb.URL, lb.LoadBalancing.Targets[0].URL)
	}

	none := (&upstreamSpec{}).upstream("/orders")
	if none.URL != "http://unresolved.backend.invalid/orders" {
		t.Errorf("no backend: url = %s, want the unresolved URL with the path", none.URL)
	}

	// ReplacePrefixMatch: the replacement takes the place of the path value.
	for prefix, want := range map[string]string{"/v2": "http://orders.shop.svc.cluster.local:8080/v2",
		"/": "http://orders.shop.svc.cluster.local:8080/"} {
		got := (&upstreamSpec{backends: []attachment.Backend{service("shop", "orders", 8080, 1)}, prefix: ptr(prefix)}).
			upstream("/api/orders")
		if got.URL != want {
			t.Errorf("replacePrefixMatch %s: url = %s, want %s", prefix, got.URL, want)
		}
	}
}

// The key rules on one path must agree on ignores the order of backendRefs but not their weights, ports or the
// ReplacePrefixMatch replacement.
func TestUpstreamKey(t *testing.T) {
	key := func(prefix *string, bs ...attachment.Backend) string {
		return (&upstreamSpec{backends: bs, prefix: prefix}).key()
	}
	a, b := service("shop", "a", 8080, 1), service("shop", "b", 8080, 1)
	if key(nil, a, b) != key(nil, b, a) {
		t.Error("the order of backendRefs changes the key")
	}
	for name, other := range map[string]string{
		"weight":     key(nil, a, service("shop", "b", 8080, 2)),
		"port":       key(nil, a, service("shop", "b", 9090, 1)),
		"namespace":  key(nil, a, service("payments", "b", 8080, 1)),
		"missing":    key(nil, a),
		"prefix":     key(ptr("/v2"), a, b),
		"prefix `/`": key(ptr("/"), a, b),
	} {
		if other == key(nil, a, b) {
			t.Errorf("a different %s keeps the key", name)
		}
	}
}
