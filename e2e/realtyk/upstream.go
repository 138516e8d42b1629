package realtyk

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	// requestIDHeader tags each request the tests send, so the upstream request it caused can be found.
	requestIDHeader = "X-Realtyk-Request"
	// echoHeaders asks the upstream to answer with these headers ("Name: value" pairs separated by "; "), so
	// that a transformResponseHeaders that removes one can be seen to remove it.
	echoHeaders = "X-Realtyk-Echo-Headers"
	// upstreamMark is set on every upstream answer: a response without it was made by Tyk itself.
	upstreamMark = "X-Realtyk-Upstream"
	// DelayHeader asks the upstream to answer only after this long (a Go duration, "1500ms"), as a slow backend
	// does (echo-basic's ?delay=), so that a timeout Tyk enforces can be seen; the upstream stops waiting when the
	// Gateway gives up on it.
	DelayHeader = "X-Realtyk-Delay"
)

// UpstreamRequest is a request as it reached the upstream.
type UpstreamRequest struct {
	Method string
	// URL is the absolute URL the Gateway proxied to (scheme, host and port of the upstream, path, query).
	URL string
	// Host is the Host header the upstream got.
	Host   string
	Header http.Header
}

// upstreamProxy is a forward proxy that never forwards: it records each request and answers it itself, as
// the upstream would (200 and the requested echo headers). A host under the .invalid top-level domain, which
// can never resolve (RFC 2606), gets its connection closed, as a dial error would end it.
type upstreamProxy struct {
	addr string

	mu   sync.Mutex
	byID map[string]UpstreamRequest
}

func startUpstreamProxy(t testing.TB) *upstreamProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &upstreamProxy{addr: l.Addr().String(), byID: map[string]UpstreamRequest{}}
	srv := &http.Server{Handler: p}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return p
}

func (p *upstreamProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := UpstreamRequest{Method: r.Method, URL: r.RequestURI, Host: r.Host, Header: r.Header.Clone()}
	if id := r.Header.Get(requestIDHeader); id != "" {
		p.mu.Lock()
		p.byID[id] = rec
		p.mu.Unlock()
	}
	if strings.HasSuffix(r.URL.Hostname(), ".invalid") {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	if isWebSocket(r) {
		echoWebSocket.ServeHTTP(w, r)
		return
	}
	if d, err := time.ParseDuration(r.Header.Get(DelayHeader)); err == nil {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	}
	for _, kv := range strings.Split(r.Header.Get(echoHeaders), "; ") {
		if name, value, ok := strings.Cut(kv, ": "); ok {
			w.Header().Set(name, value)
		}
	}
	w.Header().Set(upstreamMark, "1")
	w.WriteHeader(http.StatusOK)
}

// take returns and forgets the upstream request caused by the test request id.
func (p *upstreamProxy) take(id string) (UpstreamRequest, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	rec, ok := p.byID[id]
	delete(p.byID, id)
	return rec, ok
}
