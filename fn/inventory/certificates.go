package inventory

import (
	"encoding/pem"

	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// CACertificateKey is the ConfigMap key Gateway API names for a bundle of CA certificates (PEM).
const CACertificateKey = "ca.crt"

// PEMCertificates returns the DER bytes of each CERTIFICATE block of a PEM bundle, in order (other blocks are
// left out).
func PEMCertificates(bundle []byte) [][]byte {
	var out [][]byte
	for rest := bundle; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return out
		}
		if block.Type == "CERTIFICATE" {
			out = append(out, block.Bytes)
		}
	}
}

// refNamespace is the namespace of a reference from the Gateway: its own, or the Gateway's when it has none.
func refNamespace(gw *gwv1.Gateway, ns *gwv1.Namespace) string {
	if ns != nil && *ns != "" {
		return string(*ns)
	}
	return gw.Namespace
}

// CertificateSecrets lists the Secrets the listeners of a Gateway name in tls.certificateRefs (core Secrets only;
// a reference without namespace is in the Gateway's), in listener and reference order. Whether each may be used
// is attachment's business; this is what must be readable for it.
func CertificateSecrets(gw *gwv1.Gateway) []types.NamespacedName {
	var out []types.NamespacedName
	for _, l := range gw.Spec.Listeners {
		if l.TLS == nil {
			continue
		}
		for _, ref := range l.TLS.CertificateRefs {
			if (ref.Group != nil && *ref.Group != "") || (ref.Kind != nil && *ref.Kind != KindSecret) {
				continue
			}
			out = append(out, types.NamespacedName{Namespace: refNamespace(gw, ref.Namespace), Name: string(ref.Name)})
		}
	}
	return out
}

// CACertificateConfigMaps lists the ConfigMaps a Gateway's spec.tls.frontend names as CA certificates of client
// certificate validation (core ConfigMaps only; the render judges the references, this only finds them).
func CACertificateConfigMaps(gw *gwv1.Gateway) []types.NamespacedName {
	if gw.Spec.TLS == nil || gw.Spec.TLS.Frontend == nil {
		return nil
	}
	f := gw.Spec.TLS.Frontend
	configs := []gwv1.TLSConfig{f.Default}
	for _, pp := range f.PerPort {
		configs = append(configs, pp.TLS)
	}
	var out []types.NamespacedName
	for _, c := range configs {
		if c.Validation == nil {
			continue
		}
		for _, ref := range c.Validation.CACertificateRefs {
			if ref.Group != "" || ref.Kind != KindConfigMap {
				continue
			}
			out = append(out, types.NamespacedName{Namespace: refNamespace(gw, ref.Namespace), Name: string(ref.Name)})
		}
	}
	return out
}
