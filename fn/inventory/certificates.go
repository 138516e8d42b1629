package inventory

import (
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

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
			ns := gw.Namespace
			if ref.Namespace != nil && *ref.Namespace != "" {
				ns = string(*ref.Namespace)
			}
			out = append(out, types.NamespacedName{Namespace: ns, Name: string(ref.Name)})
		}
	}
	return out
}
