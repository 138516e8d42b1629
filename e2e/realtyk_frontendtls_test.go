package e2e_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn/explain"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
	"github.com/gateway2tyk/gateway2tyk/sync/plan"
	"github.com/gateway2tyk/gateway2tyk/sync/source"
)

// TestRealTykFrontendValidation holds the gateway-api profile's client certificate validation (a Gateway's
// spec.tls.frontend) to a real Gateway: the story profile-gateway-api-frontend-validation, its HTTPS listeners'
// ports sent to the Gateway's two TLS ports, rendered, its certificates uploaded as sync uploads them (the
// listener's Secret and each CA certificate of the ConfigMaps, read by sync's own source from the rendered
// stream), its APIs loaded. The story's CA certificates are replaced by ones the test makes, whose keys sign the
// clients' certificates. From Tyk 5.8 (server.port) a client reaches the partners API only with a certificate
// the partners' CA signed, the operations API on the other port only with one of its two CAs', each port
// refusing the other's clients and clients without a certificate in the TLS handshake, and plain HTTP asks for
// none; explain says which CAs each listener asks for. The 5.4 line refuses an API with server.port.
func TestRealTykFrontendValidation(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	version, err := tykroute.ParseVersion(g.Version)
	require.NoError(t, err)
	const story = "profile-gateway-api-frontend-validation"
	input := storyInput(t, story, map[string]int{"targetPort: 8443}": g.TLSPort, "targetPort: 9443}": g.OtherTLSPort})
	input, cas := withOwnCAs(t, input)
	_, out := renderInput(t, forRelease(t, story, input, version))
	docs := unpreservedDocs(t, out) // the upstream URL then names the backend the recording proxy was asked for
	require.Len(t, docs, 3)
	if refusesOwnPorts(t, g, version, docs) {
		return
	}
	requireServed(t, out, nil)

	// What sync uploads, read from the rendered stream by its own source: the listener's certificate and key, and
	// each CA certificate the APIs' allowlists name.
	var stream strings.Builder
	require.NoError(t, kio.ByteWriter{Writer: &stream}.Write(out.Items))
	set, err := source.ReadStream(strings.NewReader(stream.String()), plan.Scope{})
	require.NoError(t, err)
	certs := source.Certificates(set)
	require.Len(t, certs, 4, "the listener's certificate and three CA certificates")
	var roots *x509.CertPool
	for _, c := range certs {
		require.NotNil(t, c.PEM, "%s: %s", c.ID, c.Missing)
		require.NoError(t, g.UploadCertificate(source.Org(c.ID), c.PEM), c.ID)
		if c.Secret != "" {
			roots = x509.NewCertPool()
			require.True(t, roots.AppendCertsFromPEM(c.PEM))
		}
	}
	require.NoError(t, g.Replace(docs))

	partner, ops25, ops26 := cas["partner-ca"].client(t), cas["ops-ca-2025"].client(t), cas["ops-ca-2026"].client(t)
	stranger := newTestCA(t, "stranger").client(t)
	both := cas["partner-ca"].client(t, x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth)
	clientOnly := cas["partner-ca"].client(t, x509.ExtKeyUsageClientAuth)
	clientOnlyChain := &tls.Certificate{Certificate: [][]byte{clientOnly.Certificate[0], cas["partner-ca"].cert.Raw},
		PrivateKey: clientOnly.PrivateKey}
	cases := []struct {
		url     string
		port    int
		cert    *tls.Certificate
		backend string // "": the TLS handshake fails
		status  int    // Tyk answers this itself after the handshake (0: none)
	}{
		{"https://partners.example.com/orders/7", g.TLSPort, partner, "orders", 0},
		{"https://partners.example.com/orders/8", g.TLSPort, both, "orders", 0},
		// Tyk's CertificateCheck middleware verifies the client's certificate against an allowlisted CA with Go's
		// default key usage, serverAuth: one issued for clientAuth alone passes the handshake and gets 403.
		{"https://partners.example.com/orders/9", g.TLSPort, clientOnly, "", http.StatusForbidden},
		// ... unless the client sends the CA certificate with it: the middleware finds the allowlisted CA itself.
		{"https://partners.example.com/orders/10", g.TLSPort, clientOnlyChain, "orders", 0},
		{"https://partners.example.com/orders/7", g.TLSPort, nil, "", 0},
		{"https://partners.example.com/orders/7", g.TLSPort, ops26, "", 0},
		{"https://partners.example.com/orders/7", g.TLSPort, stranger, "", 0},
		{"https://ops.example.com:8443/", g.OtherTLSPort, ops26, "ops-console", 0},
		{"https://ops.example.com:8443/jobs", g.OtherTLSPort, ops25, "ops-console", 0},
		{"https://ops.example.com:8443/", g.OtherTLSPort, partner, "", 0},
		{"https://ops.example.com:8443/", g.OtherTLSPort, nil, "", 0},
		{"http://www.example.com/", 0, nil, "www", 0},
	}
	for _, c := range cases {
		req, err := explain.ParseRequest("GET " + c.url)
		require.NoError(t, err)
		model, err := explain.Explain(out, req, explain.Options{Version: version})
		require.NoError(t, err)
		r := realtyk.Request{Method: "GET", Host: req.URL.Hostname(), Path: req.URL.EscapedPath()}
		var got *realtyk.Response
		if c.port == 0 {
			got, err = g.Send(r)
			assert.Empty(t, model.ClientCertificate, "%s: explain asks for no client certificate on plain HTTP", c.url)
		} else {
			got, err = g.SendTLSOn(c.port, r, roots, c.cert)
			assert.NotEmpty(t, model.ClientCertificate, "%s: explain says the listener asks for a client certificate", c.url)
		}
		if c.status != 0 {
			require.NoError(t, err, "%s: the handshake", c.url)
			assert.Equal(t, c.status, got.Status, "%s: Tyk %s", c.url, g.Version)
			assert.False(t, got.FromUpstream, c.url)
			continue
		}
		if c.backend == "" {
			require.Error(t, err, "%s: Tyk %s let the client through (status %v)", c.url, g.Version, got)
			continue
		}
		require.NoError(t, err, c.url)
		require.True(t, got.FromUpstream, "%s: Tyk %s answered %d itself", c.url, g.Version, got.Status)
		assert.Equal(t, http.StatusOK, got.Status, c.url)
		assert.Contains(t, got.Upstream.URL, "//"+c.backend+".partners.svc.cluster.local:8080", c.url)
		assert.Zero(t, model.Status, "%s: explain says Tyk proxies it; notes %v", c.url, model.Notes)
		assert.Contains(t, model.Upstream, "//"+c.backend+".partners.svc.cluster.local:8080", c.url)
	}
	t.Logf("Tyk %s: %d requests, each client let through or refused by the CA that signed its certificate, explain agreeing", g.Version, len(cases))
}

// testCA is a CA certificate the test made and its key.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// client is a client certificate the CA signed, of these extended key usages (none: the extension left out).
func (ca *testCA) client(t *testing.T, usages ...x509.ExtKeyUsage) *tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "client of " + ca.cert.Subject.CommonName},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: usages}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// withOwnCAs replaces each CA certificate of the story's ConfigMaps (as written: a ca.crt block indented ten
// spaces) by one the test makes, of the same common name, whose key it keeps: the story holds no CA key.
func withOwnCAs(t *testing.T, input string) (string, map[string]*testCA) {
	t.Helper()
	const indent = "          "
	cas := map[string]*testCA{}
	for rest := []byte(input); ; {
		start := strings.Index(string(rest), indent+"-----BEGIN CERTIFICATE-----")
		if start < 0 {
			break
		}
		end := strings.Index(string(rest[start:]), "-----END CERTIFICATE-----")
		require.Positive(t, end)
		block := string(rest[start : start+end+len("-----END CERTIFICATE-----")])
		rest = rest[start+end:]
		p, _ := pem.Decode([]byte(strings.ReplaceAll(block, indent, "")))
		require.NotNil(t, p, "a CA certificate of the story")
		old, err := x509.ParseCertificate(p.Bytes)
		require.NoError(t, err)
		ca := newTestCA(t, old.Subject.CommonName)
		cas[old.Subject.CommonName] = ca
		input = strings.Replace(input, block, indent+strings.ReplaceAll(strings.TrimSuffix(string(ca.pem), "\n"), "\n", "\n"+indent), 1)
	}
	require.Len(t, cas, 3, "the story's CA certificates")
	return input, cas
}
