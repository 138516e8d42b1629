package realtyk

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// Request is a request a client sends to the Gateway.
type Request struct {
	Method string
	Host   string // the Host header (the Gateway itself is always reached on loopback)
	// ServerName is the TLS server name (SNI) a TLS request sends, when it is not Host (a client that reuses a
	// connection made for another host, as HTTP/2 clients do).
	ServerName string
	Path       string // escaped path, as on the wire
	RawQuery   string
	// Header is sent as is; EchoHeaders are headers the upstream must answer with.
	Header      http.Header
	EchoHeaders http.Header
}

func (r Request) String() string {
	q := ""
	if r.RawQuery != "" {
		q = "?" + r.RawQuery
	}
	return fmt.Sprintf("%s http://%s%s%s", r.Method, r.Host, r.Path, q)
}

// Response is what the client got, and what reached the upstream on the way.
type Response struct {
	Status int
	Header http.Header
	// FromUpstream says the answer came from the upstream (Tyk proxied it), not from Tyk itself.
	FromUpstream bool
	// Upstream is the request the upstream got, nil when the Gateway sent none.
	Upstream *UpstreamRequest
}

var requestSeq atomic.Int64

// Send sends req through the Gateway and reports the answer and the upstream request it caused.
func (g *Gateway) Send(req Request) (*Response, error) { return g.send(g.URL, g.client, req) }

// SendTo sends req over plain HTTP to another loopback port of the Gateway (one of HTTPPorts).
func (g *Gateway) SendTo(port int, req Request) (*Response, error) {
	return g.send("http://127.0.0.1:"+strconv.Itoa(port), g.client, req)
}

// SendTLS sends req over TLS to the Gateway's TLSPort, with req.Host as the server name (SNI) and roots as the
// only certificates the client trusts: the handshake fails unless Tyk presents a certificate for the host.
func (g *Gateway) SendTLS(req Request, roots *x509.CertPool) (*Response, error) {
	return g.SendTLSOn(g.TLSPort, req, roots, nil)
}

// SendTLSOn is SendTLS to a TLS port of the Gateway (TLSPort or OtherTLSPort), presenting clientCert when Tyk asks
// for a client certificate (nil: none), whichever CAs Tyk says it accepts, as a client that has one certificate does.
func (g *Gateway) SendTLSOn(port int, req Request, roots *x509.CertPool, clientCert *tls.Certificate) (*Response, error) {
	serverName := req.Host
	if req.ServerName != "" {
		serverName = req.ServerName
	}
	cfg := &tls.Config{ServerName: serverName, RootCAs: roots, MinVersion: tls.VersionTLS12}
	if clientCert != nil {
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return clientCert, nil }
	}
	client := &http.Client{
		Transport:     &http.Transport{Proxy: nil, DisableKeepAlives: true, TLSClientConfig: cfg},
		CheckRedirect: g.client.CheckRedirect,
		Timeout:       g.client.Timeout,
	}
	return g.send("https://127.0.0.1:"+strconv.Itoa(port), client, req)
}

func (g *Gateway) send(base string, client *http.Client, req Request) (*Response, error) {
	target := base + req.Path
	if req.RawQuery != "" {
		target += "?" + req.RawQuery
	}
	hr, err := http.NewRequest(req.Method, target, nil)
	if err != nil {
		return nil, err
	}
	hr.Host = req.Host
	for name, values := range req.Header {
		hr.Header[name] = append([]string(nil), values...)
	}
	id := strconv.FormatInt(requestSeq.Add(1), 10)
	hr.Header.Set(requestIDHeader, id)
	var echo []string
	for name := range req.EchoHeaders {
		echo = append(echo, name+": "+req.EchoHeaders.Get(name))
	}
	if len(echo) > 0 {
		hr.Header.Set(echoHeaders, strings.Join(echo, "; "))
	}
	resp, err := client.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", req, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	out := &Response{Status: resp.StatusCode, Header: resp.Header, FromUpstream: resp.Header.Get(upstreamMark) != ""}
	if up, ok := g.upstreams.take(id); ok {
		out.Upstream = &up
	}
	return out, nil
}
