package upstream

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/gateway2tyk/gateway2tyk/fn/emit"
)

// gatewayPoolSize is how many ports of the Tyk Gateway the gateway-api profile's Services may send Gateways'
// listener ports to (the RenderConfig's gatewayPorts): more than the suite's Gateways have listener ports at once.
const gatewayPoolSize = 96

// gatewayPool is a range of gatewayPoolSize loopback ports free now, below the ephemeral ports (where an outgoing
// connection of Tyk's could take one before Tyk listens on it), as "from-to".
func gatewayPool(t testing.TB) (from, to int) {
	t.Helper()
	for try := 0; try < 50; try++ {
		from = 20000 + rand.IntN(10000)
		ok := true
		for p := from; p < from+gatewayPoolSize && ok; p++ {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				ok = false
				continue
			}
			_ = l.Close()
		}
		if ok {
			return from, from + gatewayPoolSize - 1
		}
	}
	t.Fatalf("no %d free loopback ports in a row below 30000", gatewayPoolSize)
	return 0, 0
}

// LoadBalancers stands in for a LoadBalancer controller for the Services the render emits for Gateways
// (standins.go): each of type LoadBalancer gets an address of its own, 127.0.0.<n> from 2 on, written to its
// status.loadBalancer.ingress as a cloud controller would, and Dial sends a connection to one of those
// addresses and a Service port to the Service's targetPort on loopback, where the Tyk Gateway listens, as the
// load balancer forwards to the Pods' port. Any other address goes to fallback (the data-plane Service's).
type LoadBalancers struct {
	client   kubernetes.Interface
	fallback func(ctx context.Context, network, addr string) (net.Conn, error)

	mu    sync.Mutex
	next  int
	byIP  map[string]*corev1.Service
	ipOf  map[string]string // by namespace/name: a deleted and recreated Service keeps its address
	dials net.Dialer
	// listening are the address:ports listened on (tried once each), for the clients that dial an address
	// themselves rather than through Dial (the suite's h2c prior-knowledge transport).
	listening map[string]bool
	listeners []net.Listener
}

// StartLoadBalancers runs the stand-in until t ends, polling the Services every poll.
func StartLoadBalancers(t testing.TB, client kubernetes.Interface, poll time.Duration,
	fallback func(ctx context.Context, network, addr string) (net.Conn, error)) *LoadBalancers {
	lb := &LoadBalancers{client: client, fallback: fallback, next: 2, byIP: map[string]*corev1.Service{}, ipOf: map[string]string{},
		listening: map[string]bool{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if err := lb.assign(ctx, t); err != nil && ctx.Err() == nil {
				t.Logf("load balancers: %v", err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(poll):
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		lb.mu.Lock()
		defer lb.mu.Unlock()
		for _, l := range lb.listeners {
			_ = l.Close()
		}
	})
	return lb
}

// listen listens on each port of a Service at its address, as the load balancer does, and joins each connection
// to where Dial sends it, for the clients that dial the address themselves (the suite's h2c prior-knowledge
// transport ignores the RoundTripper's dialer). A port that cannot be listened on (below 1024 without root) is
// logged once: those clients then find nothing there.
func (lb *LoadBalancers) listen(ctx context.Context, t testing.TB, ip string, svc *corev1.Service) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	for _, sp := range svc.Spec.Ports {
		addr := net.JoinHostPort(ip, strconv.Itoa(int(sp.Port)))
		if lb.listening[addr] {
			continue
		}
		lb.listening[addr] = true
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Logf("load balancers: %v (a client that dials it itself finds nothing there)", err)
			continue
		}
		lb.listeners = append(lb.listeners, l)
		go forward(l, func() (net.Conn, error) { return lb.Dial(ctx, "tcp", addr) })
	}
}

// assign gives every Service the render emitted for a Gateway of type LoadBalancer its address, and records
// where each address leads.
func (lb *LoadBalancers) assign(ctx context.Context, t testing.TB) error {
	list, err := lb.client.CoreV1().Services("").List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{
		emit.LabelManagedBy: emit.ManagedBy, emit.LabelComponent: emit.ComponentGatewayService}).String()})
	if err != nil {
		return err
	}
	byIP := map[string]*corev1.Service{}
	for i := range list.Items {
		svc := &list.Items[i]
		if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
			continue
		}
		key := svc.Namespace + "/" + svc.Name
		lb.mu.Lock()
		ip, ok := lb.ipOf[key]
		if !ok {
			ip = fmt.Sprintf("127.0.0.%d", lb.next)
			lb.next++
			lb.ipOf[key] = ip
		}
		lb.mu.Unlock()
		if in := svc.Status.LoadBalancer.Ingress; len(in) != 1 || in[0].IP != ip {
			svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
			if _, err := lb.client.CoreV1().Services(svc.Namespace).UpdateStatus(ctx, svc, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("Service %s: writing its load balancer's address: %v", key, err)
			}
		}
		byIP[ip] = svc
		lb.listen(ctx, t, ip, svc)
	}
	lb.mu.Lock()
	lb.byIP = byIP
	lb.mu.Unlock()
	return nil
}

// Dial connects to where the load balancer of addr's host sends addr's port.
func (lb *LoadBalancers) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return lb.fallback(ctx, network, addr)
	}
	lb.mu.Lock()
	svc := lb.byIP[host]
	lb.mu.Unlock()
	if svc == nil {
		return lb.fallback(ctx, network, addr)
	}
	for _, sp := range svc.Spec.Ports {
		if strconv.Itoa(int(sp.Port)) == port {
			return lb.dials.DialContext(ctx, network, net.JoinHostPort("127.0.0.1", strconv.Itoa(sp.TargetPort.IntValue())))
		}
	}
	return nil, fmt.Errorf("the load balancer of Service %s/%s has no port %s", svc.Namespace, svc.Name, port)
}
