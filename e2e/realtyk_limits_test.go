package e2e_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/explaincheck"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// The tests of this file show, on a real Gateway, the Tyk limits that keep Extended features of Gateway API
// unclaimed (the README's table of Extended features names each): what Tyk does where the feature needs
// something else. None of them asserts what the render serves beyond the route it patches.

// limitsInput is a gateway-api story of one Gateway (HTTP on port 80 for shop.example.com) and one route whose
// rules reach headless Services, each with one ready endpoint on loopback (Tyk dials loopback itself, past the
// recording proxy): app on APP_PORT, and spare on SPARE_PORT for the rule of path /spread, which balances load
// over both.
const limitsInput = inlineStoryHead + `  - apiVersion: v1
    kind: Service
    metadata: {name: tyk-gateway, namespace: tyk, annotations: {config.kubernetes.io/local-config: "true"}}
    spec: {type: ClusterIP, clusterIP: 10.96.0.45, ports: [{name: http, port: 80}]}
  - apiVersion: gateway.networking.k8s.io/v1
    kind: Gateway
    metadata: {name: edge, namespace: shop}
    spec:
      gatewayClassName: tyk
      listeners: [{name: http, protocol: HTTP, port: 80, hostname: shop.example.com}]
  - apiVersion: gateway.networking.k8s.io/v1
    kind: HTTPRoute
    metadata: {name: app, namespace: shop}
    spec:
      parentRefs: [{name: edge}]
      rules:
        - matches: [{path: {type: PathPrefix, value: /spread}}]
          backendRefs: [{name: app, port: 8443}, {name: spare, port: 8443}]
        - backendRefs: [{name: app, port: 8443}]
  - apiVersion: v1
    kind: Service
    metadata: {name: app, namespace: shop}
    spec: {clusterIP: None, ports: [{name: web, port: 8443}]}
  - apiVersion: discovery.k8s.io/v1
    kind: EndpointSlice
    metadata: {name: app-1, namespace: shop, labels: {kubernetes.io/service-name: app}}
    addressType: IPv4
    ports: [{name: web, port: APP_PORT}]
    endpoints: [{addresses: [127.0.0.1], conditions: {ready: true}}]
  - apiVersion: v1
    kind: Service
    metadata: {name: spare, namespace: shop}
    spec: {clusterIP: None, ports: [{name: web, port: 8443}]}
  - apiVersion: discovery.k8s.io/v1
    kind: EndpointSlice
    metadata: {name: spare-1, namespace: shop, labels: {kubernetes.io/service-name: spare}}
    addressType: IPv4
    ports: [{name: web, port: SPARE_PORT}]
    endpoints: [{addresses: [127.0.0.1], conditions: {ready: true}}]
` + inlineStoryTail

// renderLimits renders limitsInput for the release g runs, with its backends on appPort and sparePort, and gives
// the APIs' documents as JSON to patch, by ID (upstream.preserveHostHeader left out, which the 5.4 line refuses;
// the Host these tests send is never checked), and the ID of the API of the rule without a match (path /).
func renderLimits(t *testing.T, g *realtyk.Gateway, appPort, sparePort int) (map[string]map[string]any, string) {
	t.Helper()
	version, err := tykroute.ParseVersion(g.Version)
	require.NoError(t, err)
	input := strings.NewReplacer("APP_PORT", fmt.Sprint(appPort), "SPARE_PORT", fmt.Sprint(sparePort)).Replace(limitsInput)
	_, out := renderInput(t, forRelease(t, "limits", input, version))
	requireServed(t, out, nil)
	docs := map[string]map[string]any{}
	root := ""
	for id, b := range unpreservedDocs(t, out) {
		var doc map[string]any
		require.NoError(t, json.Unmarshal(b, &doc))
		docs[id] = doc
		if strings.Contains(string(b), `"value": "/"`) {
			root = id
		}
	}
	require.Len(t, docs, 2, "an API for /spread and one for /")
	require.NotEmpty(t, root, "the API of listen path /")
	return docs, root
}

// upstreamOf is the x-tyk-api-gateway.upstream object of an API document.
func upstreamOf(t *testing.T, doc map[string]any) map[string]any {
	t.Helper()
	tyk, _ := doc["x-tyk-api-gateway"].(map[string]any)
	up, _ := tyk["upstream"].(map[string]any)
	require.NotNil(t, up, "x-tyk-api-gateway.upstream")
	return up
}

// refusesLoadBalancing reports whether g is older than the rendered APIs need (tykroute.MinVersion), after holding
// it to refuse docs, whose API of path /spread balances load (the 5.4 line's schema has no upstream.loadBalancing).
func refusesLoadBalancing(t *testing.T, g *realtyk.Gateway, docs map[string]map[string]any) bool {
	t.Helper()
	version, err := tykroute.ParseVersion(g.Version)
	require.NoError(t, err)
	if !version.Less(tykroute.MinVersion) {
		return false
	}
	out := map[string][]byte{}
	for id, doc := range docs {
		b, err := json.Marshal(doc)
		require.NoError(t, err)
		out[id] = b
	}
	err = g.Replace(out)
	require.Error(t, err, "Tyk %s loaded an API with upstream.loadBalancing", g.Version)
	assert.Contains(t, err.Error(), "x-tyk-api-gateway.upstream: Additional property loadBalancing is not allowed")
	t.Logf("Tyk %s refuses upstream.loadBalancing: %v", g.Version, err)
	return true
}

// replaceDocs loads docs as the Gateway's APIs.
func replaceDocs(t *testing.T, g *realtyk.Gateway, docs map[string]map[string]any) {
	t.Helper()
	out := map[string][]byte{}
	for id, doc := range docs {
		b, err := json.Marshal(doc)
		require.NoError(t, err)
		out[id] = b
	}
	require.NoError(t, g.Replace(out))
}

// TestRealTykNoRetries shows why HTTPRouteRetry and HTTPRouteRetryConnectionError are not claimed: Tyk's OAS
// schema has no retry field (x-tyk-api-gateway.json), and a real Gateway sends each request to a backend once.
// A backend that fails its first request with 500 has that 500 reach the client, after one attempt; a rule that
// balances load over a live backend and one whose port is closed answers the requests Tyk sends to the closed
// port with an error of its own, never trying the live one.
func TestRealTykNoRetries(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	var mu sync.Mutex
	attempts := map[string]int{}
	app := startLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		attempts[r.URL.Path]++
		n := attempts[r.URL.Path]
		mu.Unlock()
		if r.URL.Path == "/flaky" && n == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.Header().Set("X-Backend", "app")
	}), nil)
	closed := closedPort(t)
	docs, _ := renderLimits(t, g, app, closed)
	if refusesLoadBalancing(t, g, docs) {
		return
	}
	replaceDocs(t, g, docs)
	count := func(path string) int { mu.Lock(); defer mu.Unlock(); return attempts[path] }

	got, err := g.Send(realtyk.Request{Method: "GET", Host: "shop.example.com", Path: "/flaky"})
	require.NoError(t, err)
	assert.Equal(t, http.StatusInternalServerError, got.Status, "the backend's first answer reaches the client")
	assert.Equal(t, 1, count("/flaky"), "Tyk tried the backend once")
	got, err = g.Send(realtyk.Request{Method: "GET", Host: "shop.example.com", Path: "/flaky"})
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, got.Status, "the backend answers the next request")

	failed, served := 0, 0
	for range 8 {
		got, err := g.Send(realtyk.Request{Method: "GET", Host: "shop.example.com", Path: "/spread"})
		require.NoError(t, err)
		switch {
		case got.Status == http.StatusOK && got.Header.Get("X-Backend") == "app":
			served++
		case got.Status >= 500:
			failed++
		default:
			t.Errorf("GET /spread: %d", got.Status)
		}
	}
	assert.Positive(t, failed, "requests sent to the closed port fail")
	assert.Positive(t, served, "requests sent to the live backend are served")
	assert.Equal(t, served, count("/spread"), "no failed request was tried again on the live backend")
	t.Logf("Tyk %s: a 500 reached the client after 1 attempt; of 8 requests balanced over a live and a closed backend, %d failed and none was retried", g.Version, failed)
}

// TestRealTykNoMirror shows why HTTPRouteRequestMirror (and its multiple and percentage forms) is not claimed:
// Tyk's OAS schema has no field that sends a copy of a request to another backend, and it refuses none it does not
// know (x-tyk-api-gateway.json sets no additionalProperties), so a document naming a mirror the way the render
// would (upstream.mirror, an operation's requestMirror, each with the mirror's URL) loads, and the mirror gets
// nothing: the client is answered by the rule's backend alone.
func TestRealTykNoMirror(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	var mu sync.Mutex
	hits := map[string]int{}
	serve := func(name string) int {
		return startLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			hits[name]++
			mu.Unlock()
			w.Header().Set("X-Backend", name)
		}), nil)
	}
	app, mirror := serve("app"), serve("mirror")
	docs, _ := renderLimits(t, g, app, closedPort(t))
	if refusesLoadBalancing(t, g, docs) {
		return
	}
	mirrorURL := fmt.Sprintf("http://127.0.0.1:%d", mirror)
	for _, doc := range docs {
		upstreamOf(t, doc)["mirror"] = map[string]any{"enabled": true, "url": mirrorURL, "percentage": 100}
		tyk := doc["x-tyk-api-gateway"].(map[string]any)
		mw, _ := tyk["middleware"].(map[string]any)
		if mw == nil {
			mw = map[string]any{}
			tyk["middleware"] = mw
		}
		mw["global"] = map[string]any{"requestMirror": map[string]any{"enabled": true, "url": mirrorURL}}
	}
	replaceDocs(t, g, docs)
	for range 4 {
		got, err := g.Send(realtyk.Request{Method: "GET", Host: "shop.example.com", Path: "/flaky"})
		require.NoError(t, err)
		assert.Equal(t, "app", got.Header.Get("X-Backend"), "the rule's backend answers")
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 4, hits["app"])
	assert.Zero(t, hits["mirror"], "no copy of a request reached the mirror")
	t.Logf("Tyk %s: an API naming a mirror loaded; of 4 requests the backend got %d, the mirror %d", g.Version, hits["app"], hits["mirror"])
}

// TestRealTykNoHeadersPerTarget shows why HTTPRouteBackendRequestHeaderModification is not claimed: a backendRef's
// own filters change the requests of that backend alone, and Tyk's load balancing targets are a URL and a weight
// (x-tyk-api-gateway.json): a header transform named on a target, as a render would write one, loads (a Gateway
// ignores the fields it does not know) and neither backend gets the header; only an operation's transform, the
// same for every target, reaches them.
func TestRealTykNoHeadersPerTarget(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	var mu sync.Mutex
	seen := map[string][]string{}
	serve := func(name string) int {
		return startLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen[name] = append(seen[name], r.Header.Get("X-Target"))
			mu.Unlock()
		}), nil)
	}
	app, spare := serve("app"), serve("spare")
	docs, _ := renderLimits(t, g, app, spare)
	if refusesLoadBalancing(t, g, docs) {
		return
	}
	balanced := 0
	for _, doc := range docs {
		lb, _ := upstreamOf(t, doc)["loadBalancing"].(map[string]any)
		if lb == nil {
			continue
		}
		balanced++
		targets, _ := lb["targets"].([]any)
		for _, target := range targets {
			tm := target.(map[string]any)
			tm["transformRequestHeaders"] = map[string]any{"enabled": true, "add": []any{
				map[string]any{"name": "X-Target", "value": fmt.Sprint(tm["url"])}}}
		}
	}
	require.Equal(t, 1, balanced, "the API of /spread balances load")
	replaceDocs(t, g, docs)
	for range 8 {
		got, err := g.Send(realtyk.Request{Method: "GET", Host: "shop.example.com", Path: "/spread"})
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, got.Status)
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 8, len(seen["app"])+len(seen["spare"]), "every request reached a target")
	for name, headers := range seen {
		for _, h := range headers {
			assert.Empty(t, h, "%s got a header of a transform named on its target", name)
		}
	}
	t.Logf("Tyk %s: 8 requests balanced over two targets (app %d, spare %d), none with the target's header", g.Version, len(seen["app"]), len(seen["spare"]))
}

// TestRealTykBackendTLS shows why BackendTLSPolicy (and BackendTLSPolicySANValidation, and
// GatewayBackendClientCertificate, whose test needs a BackendTLSPolicy) is not claimed. A policy names the CA
// certificates (a ConfigMap) that sign the backend's certificate and the hostname to send as server name and
// verify. Tyk's upstream has no field for either (tlsTransport: insecureSkipVerify, ciphers, versions,
// forceCommonNameCheck): it verifies a TLS backend against its host's system roots only and sends the upstream
// URL's host as server name. A backend whose certificate a private CA signed is refused (Tyk answers with an
// error of its own, the backend sees the handshake and no request), and the server name the backend sees is the
// URL's host, whatever the policy says. What Tyk does have is shown too: with verification turned off (which no
// policy asks for) the backend is reached, and upstream.mutualTLS presents a client certificate.
func TestRealTykBackendTLS(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	ca := newTestCA(t, "backend CA")
	serverCert := ca.server(t, "localhost", "abc.example.com")

	var mu sync.Mutex
	var serverNames, clientNames []string
	requests := 0
	cfg := &tls.Config{
		MinVersion: tls.VersionTLS12,
		ClientAuth: tls.RequestClientCert,
		GetConfigForClient: func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
			mu.Lock()
			serverNames = append(serverNames, hello.ServerName)
			mu.Unlock()
			return nil, nil
		},
		Certificates: []tls.Certificate{*serverCert},
	}
	port := startLoopbackServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		requests++
		client := ""
		if len(r.TLS.PeerCertificates) > 0 {
			client = r.TLS.PeerCertificates[0].Subject.CommonName
		}
		clientNames = append(clientNames, client)
		w.Header().Set("X-Backend", "tls")
	}), cfg)
	seen := func() (names, clients []string, n int) {
		mu.Lock()
		defer mu.Unlock()
		names, clients, n = serverNames, clientNames, requests
		serverNames, clientNames, requests = nil, nil, 0
		return names, clients, n
	}
	docs, root := renderLimits(t, g, port, closedPort(t))
	if refusesLoadBalancing(t, g, docs) {
		return
	}
	up := upstreamOf(t, docs[root])
	up["url"] = fmt.Sprintf("https://localhost:%d", port)

	// As a BackendTLSPolicy of the private CA would be served, if Tyk could be given the CA: it cannot.
	replaceDocs(t, g, docs)
	got, err := g.Send(realtyk.Request{Method: "GET", Host: "shop.example.com", Path: "/"})
	require.NoError(t, err)
	names, _, n := seen()
	assert.GreaterOrEqual(t, got.Status, 500, "Tyk refuses the backend's certificate")
	assert.Zero(t, n, "no request reached the backend")
	assert.Contains(t, names, "localhost", "Tyk sent the URL's host as server name")
	assert.NotContains(t, names, "abc.example.com")
	assert.Contains(t, g.Log(), "certificate signed by unknown authority")
	refused := got.Status

	// Verification off, which no BackendTLSPolicy asks for: the backend is reached, under the URL's host.
	up["tlsTransport"] = map[string]any{"insecureSkipVerify": true}
	replaceDocs(t, g, docs)
	got, err = g.Send(realtyk.Request{Method: "GET", Host: "shop.example.com", Path: "/"})
	require.NoError(t, err)
	names, clients, n := seen()
	assert.Equal(t, http.StatusOK, got.Status)
	assert.Equal(t, "tls", got.Header.Get("X-Backend"))
	assert.Equal(t, 1, n)
	assert.Equal(t, []string{""}, clients, "no client certificate without upstream.mutualTLS")
	assert.Equal(t, []string{"localhost"}, names)

	// upstream.mutualTLS: Tyk presents a client certificate of its store (what spec.tls.backend would need).
	const org = "5e9d9544a1dcd60001d0ed20"
	clientCert, clientPEM := ca.clientPEM(t, "gateway client")
	require.NoError(t, g.UploadCertificate(org, clientPEM))
	sum := sha256.Sum256(clientCert.Certificate[0])
	up["mutualTLS"] = map[string]any{"enabled": true,
		"domainToCertificateMapping": []any{map[string]any{"domain": "*", "certificate": org + hex.EncodeToString(sum[:])}}}
	replaceDocs(t, g, docs)
	got, err = g.Send(realtyk.Request{Method: "GET", Host: "shop.example.com", Path: "/"})
	require.NoError(t, err)
	_, clients, _ = seen()
	assert.Equal(t, http.StatusOK, got.Status)
	assert.Equal(t, []string{"gateway client"}, clients, "Tyk presented the client certificate")
	t.Logf("Tyk %s: a backend certificate of a private CA answered %d (unknown authority), server name always the URL's host; "+
		"verification off reached it, upstream.mutualTLS presented a client certificate", g.Version, refused)
}

// TestRealTykBackendTLSPolicyRefused holds the story profile-gateway-api-backend-tls-policy to a real Gateway:
// the backend a BackendTLSPolicy targets is refused (UnsupportedProtocol, as TestRealTykBackendTLS shows Tyk
// cannot reach it as the policy asks), so its rule's requests get Tyk's own 500 and never reach it; the Service
// whose other port alone has a policy, and the web app, are proxied; explain agrees on every generated request.
func TestRealTykBackendTLSPolicyRefused(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	_, out := renderStoryFor(t, "profile-gateway-api-backend-tls-policy", g)
	var extra []explaincheck.Request
	for _, p := range []string{"/payments/charge", "/reports/daily", "/cart"} {
		extra = append(extra, explaincheck.Request{Method: "GET", Host: "shop.example.com", Path: p})
	}
	tally := explaincheck.Check(t, g, out, explaincheck.Options{Extra: extra})
	require.NotZero(t, tally.Compared)
	// explain named each upstream URL above; here, what reached an upstream at all.
	for _, c := range []struct {
		path    string
		proxied bool
	}{{"/payments/charge", false}, {"/reports/daily", true}, {"/cart", true}} {
		got, err := g.Send(realtyk.Request{Method: "GET", Host: "shop.example.com", Path: c.path})
		require.NoError(t, err)
		assert.Equal(t, c.proxied, got.FromUpstream, c.path)
		if !c.proxied {
			assert.Equal(t, http.StatusInternalServerError, got.Status, "%s: Tyk's own answer", c.path)
		}
	}
	t.Logf("Tyk %s: %d requests, explain agreeing on each; the backend of a BackendTLSPolicy answered 500 by Tyk", g.Version, tally.Compared)
}

// TestRealTykMisdirectedRequests shows why GatewayHTTPSListenerDetectMisdirectedRequests is not claimed: two
// HTTPS listeners of one port, example.org and second-example.org, whose certificate names both. A client that
// made its TLS connection for one host and sends a request for the other (as an HTTP/2 client reusing a
// connection does) must get 421 Misdirected Request; Tyk picks the API by the Host header alone and serves the
// other listener's route. Nothing of an API can see the server name, so no render can tell the two apart.
func TestRealTykMisdirectedRequests(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	version, err := tykroute.ParseVersion(g.Version)
	require.NoError(t, err)
	ca := newTestCA(t, "listener CA")
	_, certPEM, keyPEM := ca.serverPEM(t, "example.org", "second-example.org")
	b64 := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	input := fmt.Sprintf(misdirectedInput, g.TLSPort, b64(certPEM), b64(keyPEM))
	items, out := renderInput(t, forRelease(t, "misdirected", input, version))
	docs := unpreservedDocs(t, out)
	if refusesOwnPorts(t, g, version, docs) {
		return
	}
	requireServed(t, out, nil)
	uploadTLSSecret(t, g, items, "example-tls", "")
	require.NoError(t, g.Replace(docs))
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)

	for _, c := range []struct {
		serverName, host string
		status           int
		backend          string // the Service reached; "" for Tyk's own answer
		want             int    // what Gateway API asks for
	}{
		{"example.org", "example.org", 200, "v1", 200},
		{"second-example.org", "second-example.org", 200, "v2", 200},
		{"example.org", "second-example.org", 200, "v2", 421},
		{"second-example.org", "example.org", 200, "v1", 421},
		{"example.org", "unknown-example.org", 404, "", 404},
	} {
		got, err := g.SendTLS(realtyk.Request{Method: "GET", Host: c.host, ServerName: c.serverName, Path: "/detect"}, roots)
		require.NoError(t, err)
		what := fmt.Sprintf("server name %s, Host %s (Gateway API: %d)", c.serverName, c.host, c.want)
		assert.Equal(t, c.status, got.Status, what)
		if c.backend == "" {
			assert.Nil(t, got.Upstream, what)
			continue
		}
		if assert.NotNil(t, got.Upstream, what) {
			assert.Contains(t, got.Upstream.URL, "//"+c.backend+".shop.svc", what)
		}
	}
	t.Logf("Tyk %s: a request whose Host is another listener's than its connection's server name is served by that listener's route, not answered 421", g.Version)
}

// misdirectedInput is the suite's HTTPRouteHTTPSListenerDetectMisdirectedRequests in the shape of a story: two
// HTTPS listeners of port 443 (the Gateway's TLS port %d) whose one certificate (%s, key %s) names both hosts.
const misdirectedInput = inlineStoryHead + `  - apiVersion: v1
    kind: Service
    metadata: {name: tyk-gateway, namespace: tyk, annotations: {config.kubernetes.io/local-config: "true"}}
    spec: {type: ClusterIP, clusterIP: 10.96.0.46, ports: [{name: https, port: 443, targetPort: %d}]}
  - apiVersion: gateway.networking.k8s.io/v1
    kind: Gateway
    metadata: {name: edge, namespace: shop}
    spec:
      gatewayClassName: tyk
      listeners:
        - {name: first, protocol: HTTPS, port: 443, hostname: example.org, tls: {certificateRefs: [{name: example-tls}]}}
        - {name: second, protocol: HTTPS, port: 443, hostname: second-example.org, tls: {certificateRefs: [{name: example-tls}]}}
  - apiVersion: v1
    kind: Secret
    metadata: {name: example-tls, namespace: shop}
    type: kubernetes.io/tls
    data: {tls.crt: %s, tls.key: %s}
  - apiVersion: gateway.networking.k8s.io/v1
    kind: HTTPRoute
    metadata: {name: first, namespace: shop}
    spec:
      parentRefs: [{name: edge, sectionName: first}]
      rules: [{backendRefs: [{name: v1, port: 8080}]}]
  - apiVersion: gateway.networking.k8s.io/v1
    kind: HTTPRoute
    metadata: {name: second, namespace: shop}
    spec:
      parentRefs: [{name: edge, sectionName: second}]
      rules: [{backendRefs: [{name: v2, port: 8080}]}]
  - {apiVersion: v1, kind: Service, metadata: {name: v1, namespace: shop}, spec: {ports: [{port: 8080}]}}
  - {apiVersion: v1, kind: Service, metadata: {name: v2, namespace: shop}, spec: {ports: [{port: 8080}]}}
` + inlineStoryTail

// startLoopbackServer serves h on a loopback port, over TLS when cfg is set, and gives the port.
func startLoopbackServer(t *testing.T, h http.Handler, cfg *tls.Config) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	if cfg != nil {
		l = tls.NewListener(l, cfg)
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return l.Addr().(*net.TCPAddr).Port
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}

// leaf is a certificate the CA signed for a key of its own, with its PEM forms.
func (ca *testCA) leaf(t *testing.T, tmpl *x509.Certificate) (*tls.Certificate, []byte, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl.SerialNumber = big.NewInt(time.Now().UnixNano())
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}

// serverPEM is a server certificate the CA signed for these names, and its PEM certificate and key.
func (ca *testCA) serverPEM(t *testing.T, names ...string) (*tls.Certificate, []byte, []byte) {
	t.Helper()
	return ca.leaf(t, &x509.Certificate{Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
}

// server is serverPEM's certificate alone.
func (ca *testCA) server(t *testing.T, names ...string) *tls.Certificate {
	t.Helper()
	c, _, _ := ca.serverPEM(t, names...)
	return c
}

// clientPEM is a client certificate the CA signed, of common name cn, and its certificate and key in one PEM (as
// Tyk's certificate store takes them).
func (ca *testCA) clientPEM(t *testing.T, cn string) (*tls.Certificate, []byte) {
	t.Helper()
	c, certPEM, keyPEM := ca.leaf(t, &x509.Certificate{Subject: pkix.Name{CommonName: cn},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	return c, append(certPEM, keyPEM...)
}
