package translate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
)

// certificates lists the Tyk certificate IDs an API on this hostname gets: the certificates of the HTTPS
// listeners of the parent that give the route this hostname. An API with no hostname gets none in the reference
// (it attaches certificates to APIs that have an effective hostname), and its listeners' with hostless: Tyk
// offers the certificates of every API on a TLS port whose custom domain is enabled, whatever the server name
// (its cert.go, getTLSConfigForClient), so an HTTPS listener without hostname has its certificate served though no
// API of the port has a hostname. The ID is what Tyk's Certificate Store computes: the organisation ID followed
// by the hex SHA-256 of the leaf certificate's DER bytes.
func certificates(p *attachment.Parent, host, org string, leaves *leafDigests, hostless bool) []string {
	if host == "" && !hostless {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, l := range p.Listeners {
		if l.Listener.Listener.Protocol != gwv1.HTTPSProtocolType || !contains(l.Hostnames, host) {
			continue
		}
		for _, s := range l.Listener.Certificates {
			if id := leaves.id(org, s); id != "" && !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	sort.Strings(out)
	return out
}

// CertificateID is the Tyk Certificate Store ID of a kubernetes.io/tls Secret's leaf certificate, "" when
// tls.crt holds no PEM certificate (attachment has already rejected such a Secret).
func CertificateID(org string, s *corev1.Secret) string {
	if d := leafDigest(s); d != "" {
		return org + d
	}
	return ""
}

// leafDigest is the hex SHA-256 of the DER bytes of the first PEM block of tls.crt, "" when there is none.
func leafDigest(s *corev1.Secret) string {
	block, _ := pem.Decode(s.Data[corev1.TLSCertKey])
	if block == nil {
		return ""
	}
	sum := sha256.Sum256(block.Bytes)
	return hex.EncodeToString(sum[:])
}

// leafDigests remembers each Secret's leaf digest during one translation: a Gateway's few certificates serve
// every API on its HTTPS listeners, and decoding the PEM for each was visible at fleet scale. Routes are
// translated concurrently, hence the sync.Map.
type leafDigests struct{ m sync.Map }

// id is CertificateID, remembered.
func (l *leafDigests) id(org string, s *corev1.Secret) string {
	d, ok := l.m.Load(s)
	if !ok {
		d, _ = l.m.LoadOrStore(s, leafDigest(s))
	}
	if d == "" {
		return ""
	}
	return org + d.(string)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// serverTLS is what an API's server section says of TLS: the certificates it offers (customDomain) and the CA
// certificates a client's certificate must chain to (clientCertificates), both as Tyk certificate IDs.
type serverTLS struct{ certs, clientCAs []string }

// clientCAs lists the Tyk certificate IDs of the CA certificates an API on Tyk port port for this hostname
// checks client certificates against: those of the parent's HTTPS listeners that give the route this hostname
// on that port (Gateway API sets them per port, so the listeners of one port agree). Tyk asks for a client
// certificate on the API's port when the TLS server name is the API's domain, or any name no API's domain is
// when the API has none, and lets through only one that a CA certificate of the allowlist signed (its
// getTLSConfigForClient and CertificateCheck middleware).
func clientCAs(p *attachment.Parent, host string, port int, pp *portPlan, org string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range p.Listeners {
		ln := l.Listener.Listener
		if ln.Protocol != gwv1.HTTPSProtocolType || !contains(l.Hostnames, host) || pp.listenerPort(p.Gateway, ln) != port {
			continue
		}
		for _, ca := range l.Listener.ClientCAs {
			if id := org + ca.Digest; !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	sort.Strings(out)
	return out
}

// clientCAUnderTemplate says that a hostname whose listener checks client certificates is served under a custom
// domain that is a template (a wildcard, or a domain that leaves out what more specific listeners claim): Tyk
// gathers the CA certificates of a TLS handshake from the APIs whose custom domain is the server name itself (or
// that have none, when none is), so it trusts no CA there and ends every client's handshake (seen on v5.14.0:
// "unknown certificate authority"). The API is kept: it fails closed.
func clientCAUnderTemplate(host, domain string) Drop {
	shown := host
	if shown == "" {
		shown = "(no hostname)"
	}
	return Drop{Rule: -1, Field: "spec.hostnames", Message: fmt.Sprintf("%s is served under the custom domain %s, "+
		"a template, and its listener checks client certificates: Tyk trusts a CA certificate in the TLS handshake "+
		"only for an API whose custom domain is the server name itself, so every client is refused there; give "+
		"the route the hostnames its clients use", shown, domain)}
}
