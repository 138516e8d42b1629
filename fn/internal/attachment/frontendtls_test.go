package attachment

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
)

// TestAttachFrontendValidation: an HTTPS listener checks client certificates against the CA certificates of
// spec.tls.frontend for its port (perPort over default), as Gateway API's listener conditions say, and only
// where the environment reads spec.tls.
func TestAttachFrontendValidation(t *testing.T) {
	server := newKeyPair(t, "a.example.com")
	caA, caB := newCA(t, "ca-a"), newCA(t, "ca-b")
	leaf := newKeyPair(t, "not-a-ca")
	const certNS = "certs"
	resolved := cond{lcResolvedRefs, ctTrue, string(gwv1.ListenerReasonResolvedRefs), nil}
	accepted := cond{lcAccepted, ctTrue, string(gwv1.ListenerReasonAccepted), nil}
	noValid := cond{lcAccepted, ctFalse, string(gwv1.ListenerReasonNoValidCACertificate), []string{"port 443"}}
	invalidRef := string(gwv1.ListenerReasonInvalidCACertificateRef)
	cmRef := func(namespace, name string) gwv1.ObjectReference {
		r := gwv1.ObjectReference{Kind: "ConfigMap", Name: gwv1.ObjectName(name)}
		if namespace != "" {
			r.Namespace = ptr(gwv1.Namespace(namespace))
		}
		return r
	}
	validation := func(refs ...gwv1.ObjectReference) gwv1.TLSConfig {
		return gwv1.TLSConfig{Validation: &gwv1.FrontendTLSValidation{CACertificateRefs: refs}}
	}
	frontend := func(def gwv1.TLSConfig, perPort ...gwv1.TLSPortConfig) *gwv1.GatewayTLSConfig {
		return &gwv1.GatewayTLSConfig{Frontend: &gwv1.FrontendTLSConfig{Default: def, PerPort: perPort}}
	}
	both := caConfigMap(gwNS, "both", append(append([]byte(nil), caA.certPEM...), caB.certPEM...))

	tests := []struct {
		name     string
		env      fakeEnv
		tls      *gwv1.GatewayTLSConfig
		objs     []any
		want     []cond
		wantCAs  []string // digests
		wantServ bool
	}{
		{name: "the default's ConfigMap: its CA certificate", env: fakeEnv{frontend: true},
			tls: frontend(validation(cmRef("", "ca"))), objs: []any{caConfigMap(gwNS, "ca", caA.certPEM)},
			want: []cond{resolved, accepted}, wantCAs: []string{caA.digest}, wantServ: true},
		{name: "a bundle of two CA certificates: both, each with its own ID", env: fakeEnv{frontend: true},
			tls: frontend(validation(cmRef("", "both"))), objs: []any{both},
			want: []cond{resolved, accepted}, wantCAs: []string{caA.digest, caB.digest}, wantServ: true},
		{name: "perPort for the listener's port wins over the default", env: fakeEnv{frontend: true},
			tls:  frontend(validation(cmRef("", "ca")), gwv1.TLSPortConfig{Port: 443, TLS: validation(cmRef("", "other"))}),
			objs: []any{caConfigMap(gwNS, "ca", caA.certPEM), caConfigMap(gwNS, "other", caB.certPEM)},
			want: []cond{resolved, accepted}, wantCAs: []string{caB.digest}, wantServ: true},
		{name: "perPort for another port leaves the default", env: fakeEnv{frontend: true},
			tls:  frontend(validation(cmRef("", "ca")), gwv1.TLSPortConfig{Port: 8443, TLS: validation(cmRef("", "other"))}),
			objs: []any{caConfigMap(gwNS, "ca", caA.certPEM), caConfigMap(gwNS, "other", caB.certPEM)},
			want: []cond{resolved, accepted}, wantCAs: []string{caA.digest}, wantServ: true},
		{name: "perPort without validation turns it off for the port", env: fakeEnv{frontend: true},
			tls:  frontend(validation(cmRef("", "ca")), gwv1.TLSPortConfig{Port: 443}),
			objs: []any{caConfigMap(gwNS, "ca", caA.certPEM)}, want: []cond{resolved, accepted}, wantServ: true},
		{name: "the reference's environment reads no spec.tls", env: fakeEnv{},
			tls: frontend(validation(cmRef("", "missing"))), want: []cond{resolved, accepted}, wantServ: true},
		{name: "missing ConfigMap: InvalidCACertificateRef, not accepted", env: fakeEnv{frontend: true},
			tls:  frontend(validation(cmRef("", "missing"))),
			want: []cond{{lcResolvedRefs, ctFalse, invalidRef, []string{"ConfigMap " + gwNS + "/missing", "does not exist"}}, noValid}},
		{name: "ConfigMap without ca.crt: InvalidCACertificateRef", env: fakeEnv{frontend: true},
			tls: frontend(validation(cmRef("", "ca"))),
			objs: []any{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: gwNS, Name: "ca"},
				Data: map[string]string{"tls.crt": string(caA.certPEM)}}},
			want: []cond{{lcResolvedRefs, ctFalse, invalidRef, []string{"no key ca.crt"}}, noValid}},
		{name: "a certificate that is no CA: InvalidCACertificateRef", env: fakeEnv{frontend: true},
			tls: frontend(validation(cmRef("", "ca"))), objs: []any{caConfigMap(gwNS, "ca", leaf.certPEM)},
			want: []cond{{lcResolvedRefs, ctFalse, invalidRef, []string{"not a CA certificate"}}, noValid}},
		{name: "a kind other than ConfigMap: InvalidCACertificateKind", env: fakeEnv{frontend: true},
			tls:  frontend(validation(gwv1.ObjectReference{Kind: "Service", Name: "ca"})),
			want: []cond{{lcResolvedRefs, ctFalse, string(gwv1.ListenerReasonInvalidCACertificateKind), []string{"Service " + gwNS + "/ca"}}, noValid}},
		{name: "another namespace without ReferenceGrant: RefNotPermitted", env: fakeEnv{frontend: true},
			tls: frontend(validation(cmRef(certNS, "ca"))), objs: []any{caConfigMap(certNS, "ca", caA.certPEM)},
			want: []cond{{lcResolvedRefs, ctFalse, string(gwv1.ListenerReasonRefNotPermitted), []string{"ReferenceGrant"}}, noValid}},
		{name: "another namespace with a ReferenceGrant: resolved", env: fakeEnv{frontend: true},
			tls: frontend(validation(cmRef(certNS, "ca"))),
			objs: []any{caConfigMap(certNS, "ca", caA.certPEM), referenceGrant(certNS, "cas",
				grantFrom(inventory.GatewayGroup, inventory.KindGateway, gwNS), grantTo("", inventory.KindConfigMap, ""))},
			want: []cond{resolved, accepted}, wantCAs: []string{caA.digest}, wantServ: true},
		{name: "one usable reference of two: served with it, ResolvedRefs False", env: fakeEnv{frontend: true},
			tls: frontend(validation(cmRef("", "missing"), cmRef("", "ca"))), objs: []any{caConfigMap(gwNS, "ca", caA.certPEM)},
			want: []cond{{lcResolvedRefs, ctFalse, invalidRef, []string{"missing"}}, accepted}, wantCAs: []string{caA.digest}, wantServ: true},
		{name: "AllowInsecureFallback: UnsupportedValue, not accepted", env: fakeEnv{frontend: true},
			tls: &gwv1.GatewayTLSConfig{Frontend: &gwv1.FrontendTLSConfig{Default: gwv1.TLSConfig{Validation: &gwv1.FrontendTLSValidation{
				CACertificateRefs: []gwv1.ObjectReference{cmRef("", "ca")}, Mode: gwv1.AllowInsecureFallback}}}},
			objs: []any{caConfigMap(gwNS, "ca", caA.certPEM)},
			want: []cond{{lcAccepted, ctFalse, string(gwv1.ListenerReasonUnsupportedValue), []string{"AllowInsecureFallback"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gw := gateway(httpsListener("secure", secretRef("", "tls")))
			gw.Spec.Listeners[0].Port = 443
			gw.Spec.TLS = tc.tls
			objs := append([]any{gatewayClass(), gw, tlsSecret(gwNS, "tls", server.certPEM, server.keyPEM)}, tc.objs...)
			l := listenerOf(t, edgeOf(t, attach(t, tc.env, objs...)), "secure")
			for _, w := range tc.want {
				assertCondition(t, l.Conditions, w)
			}
			var got []string
			for _, ca := range l.ClientCAs {
				got = append(got, ca.Digest)
			}
			assert.Equal(t, tc.wantCAs, got, "CA certificates")
			assert.Equal(t, tc.wantServ, l.Serving, "serving")
		})
	}
}

// ca is a self-signed CA certificate, PEM, and the hex SHA-256 of its DER bytes.
type ca struct {
	certPEM []byte
	digest  string
}

func newCA(t *testing.T, name string) ca {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	sum := sha256.Sum256(der)
	return ca{certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), digest: hex.EncodeToString(sum[:])}
}

func caConfigMap(namespace, name string, pemBytes []byte) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Data: map[string]string{"ca.crt": string(pemBytes)}}
}
