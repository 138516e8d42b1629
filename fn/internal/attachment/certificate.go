package attachment

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"sigs.k8s.io/kustomize/kyaml/kio/filters"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
)

// resolveCertificates checks each tls.certificateRefs entry of an HTTPS listener and returns the Secrets that
// are usable. An entry must be a core Secret (else InvalidCertificateRef); in another namespace it needs a
// ReferenceGrant (else RefNotPermitted, checked first, since without the grant the Secret may not even be
// looked at); the Secret must exist, be of type kubernetes.io/tls, and hold a certificate and key that parse
// and match (else InvalidCertificateRef).
func resolveCertificates(owner refFrom, ln gwv1.Listener, p *problem, inv *inventory.Inventory) []*corev1.Secret {
	if ln.TLS == nil || len(ln.TLS.CertificateRefs) == 0 {
		p.add(string(gwv1.ListenerReasonInvalidCertificateRef), "an HTTPS listener needs tls.certificateRefs")
		return nil
	}
	var out []*corev1.Secret
	for _, ref := range ln.TLS.CertificateRefs {
		group, kind := "", inventory.KindSecret
		if ref.Group != nil {
			group = string(*ref.Group)
		}
		if ref.Kind != nil {
			kind = string(*ref.Kind)
		}
		ns := owner.namespace
		if ref.Namespace != nil {
			ns = string(*ref.Namespace)
		}
		name := fmt.Sprintf("%s %s/%s", groupKind(group, kind), ns, ref.Name)
		if group != "" || kind != inventory.KindSecret {
			p.add(string(gwv1.ListenerReasonInvalidCertificateRef), "%s: only core Secrets can hold certificates", name)
			continue
		}
		if !permitted(owner, refTo{"", inventory.KindSecret, ns, string(ref.Name)}, inv) {
			p.add(string(gwv1.ListenerReasonRefNotPermitted),
				"%s is in another namespace and no ReferenceGrant in %s allows %ss from %s to refer to it",
				name, ns, owner.kind, owner.namespace)
			continue
		}
		secret := inv.Secrets[types.NamespacedName{Namespace: ns, Name: string(ref.Name)}]
		if why := certificateProblem(secret); why != "" {
			p.add(string(gwv1.ListenerReasonInvalidCertificateRef), "%s %s", name, why)
			continue
		}
		out = append(out, secret)
	}
	return out
}

// certificateProblem says what keeps a Secret from serving as a listener certificate, or "".
func certificateProblem(s *corev1.Secret) string {
	switch {
	case s == nil:
		return "does not exist (give it as a config.kubernetes.io/local-config object if it is created outside the repository)"
	case s.Type != corev1.SecretTypeTLS:
		return fmt.Sprintf("is of type %q, not %s", s.Type, corev1.SecretTypeTLS)
	}
	if _, hasKey := s.Data[corev1.TLSPrivateKeyKey]; !hasKey && s.Annotations[localConfigAnnotation] == "true" {
		// A private key has no place in a repository. A local-config stand-in for a Secret that lives only in
		// the cluster may carry just the certificate, which is all the render needs of it.
		if _, err := parseCertificate(s.Data[corev1.TLSCertKey]); err != nil {
			return fmt.Sprintf("does not hold a valid certificate: %v", err)
		}
		return ""
	}
	if _, err := tls.X509KeyPair(s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey]); err != nil {
		return fmt.Sprintf("does not hold a valid certificate and matching key: %v", err)
	}
	return ""
}

// localConfigAnnotation marks objects that describe the cluster for the render and are not deployed.
const localConfigAnnotation = filters.LocalConfigAnnotation

// parseCertificate parses the leaf (first) certificate of a PEM bundle.
func parseCertificate(pemBytes []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, fmt.Errorf("tls.crt holds no PEM CERTIFICATE block")
	}
	return x509.ParseCertificate(block.Bytes)
}
