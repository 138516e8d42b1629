package translate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
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
