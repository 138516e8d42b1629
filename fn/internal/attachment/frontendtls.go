package attachment

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
)

// This file owns one question: which CA certificates an HTTPS listener checks client certificates against
// (the Gateway's spec.tls.frontend, Gateway API's frontend client certificate validation).

// CACertificate is one CA certificate a listener trusts for client certificates.
type CACertificate struct {
	// ConfigMap is the ConfigMap whose ca.crt holds it.
	ConfigMap types.NamespacedName
	// Digest is the hex SHA-256 of its DER bytes: with the organisation before it, the ID Tyk's Certificate
	// Store gives it.
	Digest string
}

// frontendValidation is the client certificate validation that applies to a listener on port: spec.tls.frontend's
// perPort entry of that port, else its default; nil when the Gateway asks for none.
func frontendValidation(gw *gwv1.Gateway, port gwv1.PortNumber) *gwv1.FrontendTLSValidation {
	if gw.Spec.TLS == nil || gw.Spec.TLS.Frontend == nil {
		return nil
	}
	f := gw.Spec.TLS.Frontend
	for _, pp := range f.PerPort {
		if pp.Port == port {
			return pp.TLS.Validation
		}
	}
	return f.Default.Validation
}

// ClientCAConfigMaps are the ConfigMaps the listener's ClientCAs come from, each once, in order (none when the
// listener does not validate clients): what explain and graph name.
func (l *Listener) ClientCAConfigMaps() []types.NamespacedName {
	var out []types.NamespacedName
	for _, ca := range l.ClientCAs {
		if !slices.Contains(out, ca.ConfigMap) {
			out = append(out, ca.ConfigMap)
		}
	}
	return out
}

// frontendField is the Gateway field client certificate validation is configured by: the field of the listener
// conditions it causes.
const frontendField = "spec.tls.frontend"

// resolveClientCAs checks the CA certificate references that apply to an HTTPS listener and returns the CA
// certificates it trusts (nil, not validating, when none apply). A reference must be a core ConfigMap (else
// InvalidCACertificateKind); in another namespace it needs a ReferenceGrant (else RefNotPermitted); the
// ConfigMap must exist and its ca.crt hold PEM certificates that parse as CA certificates (else
// InvalidCACertificateRef). Any such problem makes ResolvedRefs False; when no reference is usable the
// listener is not accepted (NoValidCACertificate), so nothing is served there without the validation asked
// for. AllowInsecureFallback is not served: Tyk turns away a request whose certificate no CA of the API signed
// (its CertificateCheck middleware answers 403), so the listener is not accepted (UnsupportedValue).
func resolveClientCAs(gw *gwv1.Gateway, ln gwv1.Listener, p *listenerProblems, inv *inventory.Inventory) []CACertificate {
	v := frontendValidation(gw, ln.Port)
	if v == nil {
		return nil
	}
	if v.Mode == gwv1.AllowInsecureFallback {
		p.accepted.addAt(frontendField, string(gwv1.ListenerReasonUnsupportedValue),
			"spec.tls.frontend: mode %s is not supported: Tyk answers 403 to a client certificate no CA certificate "+
				"of the API signed; use %s", v.Mode, gwv1.AllowValidOnly)
		return nil
	}
	var out []CACertificate
	for _, ref := range v.CACertificateRefs {
		ns := gw.Namespace
		if ref.Namespace != nil {
			ns = string(*ref.Namespace)
		}
		name := fmt.Sprintf("%s %s/%s", groupKind(string(ref.Group), string(ref.Kind)), ns, ref.Name)
		if ref.Group != "" || ref.Kind != inventory.KindConfigMap {
			p.resolvedRefs.addAt(frontendField, string(gwv1.ListenerReasonInvalidCACertificateKind),
				"spec.tls.frontend caCertificateRefs: %s: only core ConfigMaps (key %s) can hold CA certificates", name, inventory.CACertificateKey)
			continue
		}
		if !permitted(refFrom{inventory.GatewayGroup, inventory.KindGateway, gw.Namespace},
			refTo{"", inventory.KindConfigMap, ns, string(ref.Name)}, inv) {
			p.resolvedRefs.addAt(frontendField, string(gwv1.ListenerReasonRefNotPermitted),
				"spec.tls.frontend caCertificateRefs: %s is in another namespace and no ReferenceGrant in %s allows "+
					"Gateways from %s to refer to it", name, ns, gw.Namespace)
			continue
		}
		key := types.NamespacedName{Namespace: ns, Name: string(ref.Name)}
		certs, why := caCertificates(inv.ConfigMaps[key])
		if why != "" {
			p.resolvedRefs.addAt(frontendField, string(gwv1.ListenerReasonInvalidCACertificateRef),
				"spec.tls.frontend caCertificateRefs: %s %s", name, why)
			continue
		}
		for _, der := range certs {
			sum := sha256.Sum256(der)
			out = append(out, CACertificate{ConfigMap: key, Digest: hex.EncodeToString(sum[:])})
		}
	}
	if len(out) == 0 && len(v.CACertificateRefs) > 0 {
		p.accepted.addAt(frontendField, string(gwv1.ListenerReasonNoValidCACertificate),
			"spec.tls.frontend: no CA certificate reference of port %d is usable, so no client could be validated", ln.Port)
	}
	return out
}

// caCertificates returns the DER bytes of each certificate of a ConfigMap's ca.crt, or why it cannot serve.
func caCertificates(cm *corev1.ConfigMap) ([][]byte, string) {
	if cm == nil {
		return nil, "does not exist (give it as a config.kubernetes.io/local-config object if it is created outside the repository)"
	}
	data, ok := cm.Data[inventory.CACertificateKey]
	if !ok {
		return nil, "has no key " + inventory.CACertificateKey
	}
	out := inventory.PEMCertificates([]byte(data))
	for _, der := range out {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, fmt.Sprintf("%s holds a certificate that does not parse: %v", inventory.CACertificateKey, err)
		}
		if !c.IsCA {
			// Tyk checks a client certificate against an allowlisted certificate only when that one is a CA;
			// any other is matched byte for byte, which is not what caCertificateRefs asks.
			return nil, fmt.Sprintf("%s holds a certificate that is not a CA certificate (%s)", inventory.CACertificateKey, c.Subject)
		}
	}
	if len(out) == 0 {
		return nil, inventory.CACertificateKey + " holds no PEM CERTIFICATE block"
	}
	return out, ""
}
