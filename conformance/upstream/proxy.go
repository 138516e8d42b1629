package upstream

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
)

// Proxy is the forward proxy Tyk's upstream requests go to (its HTTP_PROXY), standing in for cluster DNS and
// kube-proxy (see standins.go): a request for http://<service>.<namespace>.svc.cluster.local:<port>/... goes to one
// of the echo-basic processes behind that Service's port, in turn.
type Proxy struct {
	Addr string

	client    kubernetes.Interface
	backends  *Backends
	transport *http.Transport

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
	p.transport = &http.Transport{Proxy: nil, DisableKeepAlives: true, ResponseHeaderTimeout: 30 * time.Second}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return p
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect || r.URL.Host == "" {
		http.Error(w, "the stand-in for cluster networking forwards plain HTTP requests only", http.StatusBadGateway)
		return
	}
	endpoint := p.endpoint(r.Context(), r.URL)
	if endpoint == "" {
		// No such Service, or no process behind it: the connection ends, as a failed lookup or a refused
		// connection would end Tyk's dial.
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	forward := &httputil.ReverseProxy{
		// The request keeps its Host header (Tyk's preserveHostHeader) and its path and query as Tyk sent them;
		// only the address it is sent to changes, as kube-proxy changes only the destination.
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme = "http"
			pr.Out.URL.Host = endpoint
			pr.Out.Host = pr.In.Host
		},
		Transport:     p.transport,
		FlushInterval: -1,
	}
	forward.ServeHTTP(w, r)
}

// endpoint is the address of the process that the Service of the URL's cluster DNS name and port sends this
// request to, or "" when there is none.
func (p *Proxy) endpoint(ctx context.Context, u *url.URL) string {
	name, namespace, ok := serviceOf(u.Hostname())
	if !ok {
		return ""
	}
	port := 80
	if s := u.Port(); s != "" {
		port, _ = strconv.Atoi(s)
	}
	svc, err := p.client.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return ""
	}
	var target *corev1.ServicePort
	for i := range svc.Spec.Ports {
		if int(svc.Spec.Ports[i].Port) == port {
			target = &svc.Spec.Ports[i]
		}
	}
	if target == nil || len(svc.Spec.Selector) == 0 || target.TargetPort.IntValue() == 0 {
		return "" // a named targetPort would need the containers' port names, which the echo-basic Deployments do not give
	}
	eps := p.backends.Endpoints(namespace, labels.SelectorFromSet(svc.Spec.Selector), int32(target.TargetPort.IntValue()))
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
