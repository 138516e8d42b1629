package conformance

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// suiteSecrets builds the Secrets that the suite creates in Go code before any test runs
// (utils/suite/suite.go, Setup, "Applying programmatic resources"): real key pairs of type kubernetes.io/tls,
// self-signed or signed by a CA as there. The suite's keys are RSA; ECDSA keys are used here because they
// are quicker to generate and the render treats both alike. The CA ConfigMaps the suite also creates are not
// read by the render and are left out.
func suiteSecrets(t *testing.T) []*yaml.RNode {
	t.Helper()
	serverAuth := []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	clientAuth := []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	var out []*yaml.RNode
	add := func(namespace, name string, hosts []string, usage []x509.ExtKeyUsage, ca *x509.Certificate, caKey crypto.Signer) {
		certPEM, keyPEM := keyPair(t, hosts, usage, ca, caKey)
		out = append(out, tlsSecret(t, namespace, name, certPEM, keyPEM))
	}

	add(webBackendNamespace, "certificate", []string{"*"}, serverAuth, nil, nil)
	add(infraNamespace, "tls-validity-checks-certificate", []string{"*", "*.org", "*.wildcard.org"}, serverAuth, nil, nil)

	ca, caKey := certificateAuthority(t) // tls-validity-checks-ca-certificate
	add(infraNamespace, "tls-validity-checks-client-certificate", nil, clientAuth, ca, caKey)
	ca, caKey = certificateAuthority(t) // tls-validity-checks-per-port-ca-certificate
	add(infraNamespace, "tls-validity-checks-per-port-client-certificate", nil, clientAuth, ca, caKey)

	ca, caKey = certificateAuthority(t) // tls-checks-ca-certificate
	add(infraNamespace, "tls-checks-certificate",
		[]string{"abc.example.com", "spiffe://abc.example.com/test-identity", "other.example.com"}, serverAuth, ca, caKey)
	add(infraNamespace, "tls-checks-client-certificate", nil, clientAuth, ca, caKey)
	add(infraNamespace, "tls-passthrough-checks-certificate", []string{"abc.example.com"}, serverAuth, ca, caKey)
	add(appBackendNamespace, "tls-passthrough-checks-certificate", []string{"abc.example.com"}, serverAuth, ca, caKey)
	add(infraNamespace, "tls-terminate-checks-certificate", []string{"tls.example.com"}, serverAuth, ca, caKey)
	return out
}

func certificateAuthority(t *testing.T) (*x509.Certificate, crypto.Signer) {
	t.Helper()
	key := newKey(t)
	tmpl := certTemplate(t, "gateway2tyk conformance CA")
	tmpl.IsCA = true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatalf("creating a CA certificate: %v", err)
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatalf("parsing the CA certificate: %v", err)
	}
	return ca, key
}

// keyPair makes a certificate for hosts (self-signed when ca is nil) and its key, PEM-encoded.
func keyPair(t *testing.T, hosts []string, usage []x509.ExtKeyUsage, ca *x509.Certificate, caKey crypto.Signer) (certPEM, keyPEM []byte) {
	t.Helper()
	key := newKey(t)
	tmpl := certTemplate(t, "default")
	tmpl.KeyUsage = x509.KeyUsageKeyEncipherment | x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = usage
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if u, err := url.Parse(h); err == nil && strings.Contains(h, "://") {
			tmpl.URIs = append(tmpl.URIs, u)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	parent, signer := tmpl, crypto.Signer(key)
	if ca != nil {
		parent, signer = ca, caKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), signer)
	if err != nil {
		t.Fatalf("creating a certificate for %v: %v", hosts, err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatalf("encoding a private key: %v", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("generating a key: %v", err)
	}
	return key
}

func certTemplate(t *testing.T, commonName string) *x509.Certificate {
	t.Helper()
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		t.Fatalf("generating a serial number: %v", err)
	}
	now := time.Now()
	return &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName, Organization: []string{"Acme Co"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(365 * 24 * time.Hour),
		BasicConstraintsValid: true,
	}
}

// tlsSecret builds a kubernetes.io/tls Secret as kyaml would read it from a manifest.
func tlsSecret(t *testing.T, namespace, name string, certPEM, keyPEM []byte) *yaml.RNode {
	t.Helper()
	n, err := yaml.FromMap(map[string]any{
		"apiVersion": "v1",
		"kind":       "Secret",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"type":       "kubernetes.io/tls",
		"data": map[string]any{
			"tls.crt": base64.StdEncoding.EncodeToString(certPEM),
			"tls.key": base64.StdEncoding.EncodeToString(keyPEM),
		},
	})
	if err != nil {
		t.Fatalf("building Secret %s/%s: %v", namespace, name, err)
	}
	return n
}
