package e2e_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/gateway2tyk/gateway2tyk/e2e/realkube"
)

// podNetwork stands in for the cluster's pod network: the sync reaches a pod IP through it (HTTP_PROXY of the
// sync's process), and it forwards to the loopback port of the replica of that pod. The real API server refuses
// a loopback address in an EndpointSlice ("may not be in the loopback range (127.0.0.0/8, ::1/128)"), and the
// tests talk only to loopback. Requests to loopback (the API server's) are never proxied. A pod whose Gateway
// is down drops the connection, as a pod that is gone does.
type podNetwork struct {
	srv  *httptest.Server
	mu   sync.Mutex
	pods map[string]int // pod IP → loopback port
}

func startPodNetwork(t *testing.T) *podNetwork {
	t.Helper()
	n := &podNetwork{pods: map[string]int{}}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			n.mu.Lock()
			port := n.pods[r.In.URL.Hostname()]
			n.mu.Unlock()
			r.Out.URL.Scheme, r.Out.URL.Host = "http", fmt.Sprintf("127.0.0.1:%d", port)
		},
		Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					conn.Close()
					return
				}
			}
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	n.srv = httptest.NewServer(rp)
	t.Cleanup(n.srv.Close)
	return n
}

func (n *podNetwork) route(ip string, port int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.pods[ip] = port
}

// kubeProxy stands between the sync and the API server, so that a test can stop the API server at a given
// request of a run. It is a TLS server of its own: the service account's bearer token passes through it.
type kubeProxy struct {
	srv *httptest.Server
	c   *realkube.Cluster

	mu        sync.Mutex
	at        string // a path fragment; "" when disarmed
	reqs      int
	forbidden []string // "METHOD path" of the requests the API server refused with 403
}

func startKubeProxy(t *testing.T, c *realkube.Cluster) *kubeProxy {
	t.Helper()
	up, err := url.Parse(c.Config.Host)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(c.CAData())
	rp := httputil.NewSingleHostReverseProxy(up)
	rp.Transport = &http.Transport{Proxy: nil, TLSClientConfig: &tls.Config{RootCAs: pool}}
	p := &kubeProxy{c: c}
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.StatusCode == http.StatusForbidden {
			p.mu.Lock()
			p.forbidden = append(p.forbidden, resp.Request.Method+" "+resp.Request.URL.RequestURI())
			p.mu.Unlock()
		}
		return nil
	}
	p.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.reqs++
		stop := p.at != "" && strings.Contains(r.URL.Path, p.at)
		if stop {
			p.at = ""
		}
		p.mu.Unlock()
		if stop {
			p.c.StopAPIServer()
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *kubeProxy) stopAt(fragment string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.at = fragment
}

func (p *kubeProxy) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reqs, p.forbidden = 0, nil
}

func (p *kubeProxy) counts() (reqs int, forbidden []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reqs, p.forbidden
}

// kubeconfig is the service account's kubeconfig pointed at the proxy.
func (p *kubeProxy) kubeconfig(t *testing.T, direct string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(direct)
	if err != nil {
		t.Fatal(err)
	}
	for _, cl := range cfg.Clusters {
		cl.Server = p.srv.URL
		cl.CertificateAuthorityData = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.srv.Certificate().Raw})
	}
	path := direct + "-proxied"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}
