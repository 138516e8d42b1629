package upstream

import (
	"bufio"
	"context"
	"io"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
)

// Proxy is the SOCKS5 proxy Tyk's upstream connections go to (its HTTP_PROXY, a socks5:// URL), standing in for
// cluster DNS and kube-proxy (see standins.go): a connection to <service>.<namespace>.svc.cluster.local:<port> (or
// to a Service's cluster IP and port) is joined to one of the echo-basic processes behind that Service's port, in
// turn. A SOCKS proxy is given the address to dial apart from the request, so the request Tyk writes, its Host
// header included (upstream.preserveHostHeader), reaches the backend as Tyk wrote it.
type Proxy struct {
	Addr string
	// URL is the proxy URL for the Gateway's HTTP_PROXY and HTTPS_PROXY.
	URL string

	client   kubernetes.Interface
	backends *Backends

	mu   sync.Mutex
	next map[string]int // round robin, by service address
}

// StartProxy listens on a loopback port until t ends.
func StartProxy(t testing.TB, client kubernetes.Interface, backends *Backends) *Proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: l.Addr().String(), client: client, backends: backends, next: map[string]int{}}
	p.URL = "socks5://" + p.Addr
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); _ = l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go p.serve(ctx, conn)
		}
	}()
	return p
}

// serve joins one client connection to the process its CONNECT request names. A name that is no Service, or a
// Service with no process behind it, is answered "host unreachable" and the connection closed, as a failed
// lookup or a refused connection would end Tyk's dial.
func (p *Proxy) serve(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(conn)
	host, port, err := socksTarget(r, conn)
	if err != nil {
		return
	}
	upstream := p.dial(ctx, host, port)
	if upstream == nil {
		_ = socksReply(conn, socksHostUnreach)
		return
	}
	defer upstream.Close()
	if socksReply(conn, socksSucceeded) != nil {
		return
	}
	_ = conn.SetDeadline(time.Time{})
	pipe(conn, r, upstream)
}

// dial connects to the process a connection to host and port goes to (endpoint), nil when there is none or it
// refuses.
func (p *Proxy) dial(ctx context.Context, host string, port int) net.Conn {
	endpoint := p.endpoint(ctx, host, port)
	if endpoint == "" {
		return nil
	}
	upstream, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", endpoint)
	if err != nil {
		return nil
	}
	return upstream
}

// forward accepts connections on l until it is closed and joins each to what dial connects to, closing it when
// dial fails (as a refused connection would end the client's dial).
func forward(l net.Listener, dial func() (net.Conn, error)) {
	for {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			upstream, err := dial()
			if err != nil {
				return
			}
			defer upstream.Close()
			pipe(conn, conn, upstream)
		}()
	}
}

// pipe copies both ways between a client connection (read through r, which may hold what was buffered of it) and
// upstream until both sides have finished.
func pipe(conn net.Conn, r io.Reader, upstream net.Conn) {
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(upstream, r); closeWrite(upstream); done <- struct{}{} }()
	go func() { _, _ = io.Copy(conn, upstream); closeWrite(conn); done <- struct{}{} }()
	<-done
	<-done
}

// closeWrite passes an end of stream on (a half close), so that each side sees the other finish.
func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
}

// endpoint is the address of the process this connection to host (a cluster DNS name, a cluster IP or a pod IP)
// and port goes to, as cluster DNS and kube-proxy would send it, or "" when there is none:
//   - a pod IP (what the render writes for the ready endpoints of a headless Service's EndpointSlices): that Pod's
//     process, port being its container port;
//   - a Service: its endpoints for the port, in turn. A headless Service's name resolves to its pods, so port is
//     their container port; any other Service's port is mapped to its targetPort. The endpoints are the processes
//     of the Pods its selector selects, or, for a Service without selector, the ready endpoints of its
//     EndpointSlices (label kubernetes.io/service-name), whose addresses are pod IPs.
func (p *Proxy) endpoint(ctx context.Context, host string, port int) string {
	svc := p.service(ctx, host)
	if svc == nil {
		if net.ParseIP(host) != nil {
			return p.backends.PodEndpoint(host, int32(port))
		}
		return ""
	}
	name, namespace := svc.Name, svc.Namespace
	headless := svc.Spec.ClusterIP == corev1.ClusterIPNone
	var target *corev1.ServicePort
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		if int(sp.Port) == port || (headless && sp.TargetPort.IntValue() == port) {
			target = sp
		}
	}
	if target == nil || target.TargetPort.IntValue() == 0 {
		return "" // a named targetPort would need the containers' port names, which the echo-basic Deployments do not give
	}
	containerPort := int32(target.TargetPort.IntValue())
	var eps []string
	if len(svc.Spec.Selector) > 0 {
		eps = p.backends.Endpoints(namespace, labels.SelectorFromSet(svc.Spec.Selector), containerPort)
	} else {
		eps = p.sliceEndpoints(ctx, svc, target)
	}
	if len(eps) == 0 {
		return ""
	}
	key := namespace + "/" + name + ":" + strconv.Itoa(port)
	p.mu.Lock()
	defer p.mu.Unlock()
	i := p.next[key] % len(eps)
	p.next[key] = i + 1
	return eps[i]
}

// sliceEndpoints are the processes of the ready endpoints of a Service's EndpointSlices for the Service port
// (the slice port of the same name), sorted.
func (p *Proxy) sliceEndpoints(ctx context.Context, svc *corev1.Service, port *corev1.ServicePort) []string {
	list, err := p.client.DiscoveryV1().EndpointSlices(svc.Namespace).List(ctx, metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: svc.Name}).String()})
	if err != nil {
		return nil
	}
	var out []string
	for _, slice := range list.Items {
		for _, sp := range slice.Ports {
			if sp.Port == nil || (sp.Name != nil && *sp.Name != port.Name) {
				continue
			}
			for _, ep := range slice.Endpoints {
				if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
					continue
				}
				for _, addr := range ep.Addresses {
					if e := p.backends.PodEndpoint(addr, *sp.Port); e != "" {
						out = append(out, e)
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// service is the Service whose cluster DNS name or cluster IP host is, or nil.
func (p *Proxy) service(ctx context.Context, host string) *corev1.Service {
	if net.ParseIP(host) != nil {
		list, err := p.client.CoreV1().Services("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil
		}
		for i := range list.Items {
			if slices.Contains(list.Items[i].Spec.ClusterIPs, host) || list.Items[i].Spec.ClusterIP == host {
				return &list.Items[i]
			}
		}
		return nil
	}
	name, namespace, ok := serviceOf(host)
	if !ok {
		return nil
	}
	svc, err := p.client.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return svc
}

// serviceOf reads a Service's cluster DNS name: <service>.<namespace>.svc.cluster.local (or .svc).
func serviceOf(host string) (name, namespace string, ok bool) {
	host = strings.TrimSuffix(host, ".")
	rest, found := strings.CutSuffix(host, ".svc.cluster.local")
	if !found {
		rest, found = strings.CutSuffix(host, ".svc")
	}
	if !found {
		return "", "", false
	}
	name, namespace, ok = strings.Cut(rest, ".")
	return name, namespace, ok && !strings.Contains(namespace, ".")
}
