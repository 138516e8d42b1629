// Package source reads what the sync pushes: the rendered APIs (the ConfigMaps the render emits, labelled
// app.kubernetes.io/managed-by: gateway2tyk, from a YAML stream or ResourceList, or from a cluster; with
// Scope.Owner, only those of that owner's label gateway2tyk.io/owner), and the listener certificates their
// documents name. A rendered ConfigMap without an owner (a release before owners rendered it) is a problem: its
// API cannot be told from another application's, so it is not synced, and nothing is deleted until the
// application is rendered again.
//
// Certificates: the render never writes a private key, only the certificate IDs (`orgId` followed by the hex
// SHA-256 of the leaf certificate's DER bytes) in x-tyk-api-gateway.server.customDomain.certificates. In a
// cluster the sync reads the Gateway of each rendered API (annotation gateway2tyk.io/gateway) and the
// kubernetes.io/tls Secrets its listeners name, and uploads the certificate and key of each Secret whose
// certificate an API names. From a stream (--from) it can only upload what the stream gives: the Secrets in it
// that carry tls.crt and tls.key. A certificate with no such Secret is not uploaded; the sync then checks that
// the target has it already, and fails that certificate when not.
//
// CA certificates (the IDs in x-tyk-api-gateway.server.clientCertificates.allowlist: a Gateway's
// spec.tls.frontend validation) come the same way from the ConfigMaps that hold them (key ca.crt): in a cluster
// those the Gateway's spec.tls.frontend names, from a stream every ConfigMap of it with a ca.crt. Each
// certificate of a bundle is uploaded on its own: Tyk checks a client certificate against the first certificate
// of what it stores under an ID.
package source

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
	"github.com/gateway2tyk/gateway2tyk/sync/kube"
	"github.com/gateway2tyk/gateway2tyk/sync/plan"
)

// Set is what a source gave.
type Set struct {
	APIs []plan.Desired
	// Problems are rendered ConfigMaps that could not be read. While there are any, the desired set may be
	// incomplete, so the sync deletes nothing.
	Problems []string
	// TLS are the certificate Secrets available for upload.
	TLS []TLSSecret
	// CAs are the CA certificate bundles (a ConfigMap's ca.crt) available for upload.
	CAs []CABundle
	// Notes say why some certificate Secrets could not be read (they matter only for a certificate left without
	// a Secret).
	Notes []string
}

// CABundle is the ca.crt of a ConfigMap.
type CABundle struct {
	Namespace, Name string
	PEM             []byte
}

// TLSSecret is a kubernetes.io/tls Secret.
type TLSSecret struct {
	Namespace, Name string
	Cert, Key       []byte
}

// ReadStream reads a YAML stream or a ResourceList: the rendered ConfigMaps of the scope, and the TLS Secrets.
func ReadStream(r io.Reader, scope plan.Scope) (*Set, error) {
	br := &kio.ByteReader{Reader: r, OmitReaderAnnotations: true}
	nodes, err := br.Read()
	if err != nil {
		return nil, fmt.Errorf("reading the rendered objects: %w", err)
	}
	if err := failedRender(br); err != nil {
		return nil, err
	}
	var b builder
	for _, n := range nodes {
		switch {
		case n.GetKind() == "ConfigMap" && n.GetApiVersion() == "v1":
			if !rendered(n.GetLabels(), scope) || !scope.Contains(n.GetNamespace()) {
				if data, err := stringMap(n, "data"); err == nil && emit.Ours(n.GetLabels()) != emit.OursAPI && data[inventory.CACertificateKey] != "" {
					b.set.CAs = append(b.set.CAs, CABundle{Namespace: n.GetNamespace(), Name: n.GetName(), PEM: []byte(data[inventory.CACertificateKey])})
				}
				continue
			}
			data, err := stringMap(n, "data")
			if err != nil {
				b.problem(n.GetNamespace(), n.GetName(), err.Error())
				continue
			}
			b.configMap(n.GetNamespace(), n.GetName(), n.GetLabels(), n.GetAnnotations(), data)
		case n.GetKind() == "Secret" && n.GetApiVersion() == "v1":
			if s, ok := streamSecret(n); ok {
				b.set.TLS = append(b.set.TLS, s)
			}
		}
	}
	return b.done(), nil
}

// ReadCluster reads the rendered ConfigMaps of the scope from a cluster, and the certificate Secrets of the
// Gateways of their APIs.
func ReadCluster(ctx context.Context, c *kube.Cluster, scope plan.Scope) (*Set, error) {
	cms, err := c.ConfigMaps(ctx, scope.Namespaces, scope.Owner)
	if err != nil {
		return nil, err
	}
	var b builder
	for i := range cms {
		cm := &cms[i]
		if !rendered(cm.Labels, scope) || !scope.Contains(cm.Namespace) {
			continue
		}
		b.configMap(cm.Namespace, cm.Name, cm.Labels, cm.Annotations, cm.Data)
	}
	set := b.done()
	if len(Needed(set.APIs)) == 0 {
		return set, nil
	}
	gateways := map[string]bool{}
	for _, api := range set.APIs {
		if api.Marker.Gateway != "" && len(plan.CertificateIDs(api.Document)) > 0 {
			gateways[api.Marker.Gateway] = true
		}
	}
	secrets, configMaps := map[[2]string]bool{}, map[[2]string]bool{}
	for _, key := range sortedKeys(gateways) {
		ns, name, _ := strings.Cut(key, "/")
		gw, err := c.Gateway(ctx, ns, name)
		if err != nil {
			set.Notes = append(set.Notes, err.Error())
			continue
		}
		for _, secret := range inventory.CertificateSecrets(gw) {
			secrets[[2]string{secret.Namespace, secret.Name}] = true
		}
		for _, cm := range inventory.CACertificateConfigMaps(gw) {
			configMaps[[2]string{cm.Namespace, cm.Name}] = true
		}
	}
	for _, k := range sortedPairs(configMaps) {
		cm, err := c.ConfigMap(ctx, k[0], k[1])
		if err != nil {
			set.Notes = append(set.Notes, err.Error())
			continue
		}
		set.CAs = append(set.CAs, CABundle{Namespace: cm.Namespace, Name: cm.Name, PEM: []byte(cm.Data[inventory.CACertificateKey])})
	}
	for _, k := range sortedPairs(secrets) {
		s, err := c.Secret(ctx, k[0], k[1])
		if err != nil {
			set.Notes = append(set.Notes, err.Error())
			continue
		}
		set.TLS = append(set.TLS, TLSSecret{Namespace: s.Namespace, Name: s.Name,
			Cert: s.Data[corev1.TLSCertKey], Key: s.Data[corev1.TLSPrivateKeyKey]})
	}
	return set, nil
}

// rendered reports whether a ConfigMap holds a rendered API of the scope's owner (any owner without one).
func rendered(labels map[string]string, scope plan.Scope) bool {
	if emit.Ours(labels) != emit.OursAPI {
		return false
	}
	return scope.Owner == "" || emit.Owner(labels) == scope.Owner
}

// builder collects APIs and refuses two different documents for one API ID.
type builder struct {
	set  Set
	byID map[string]int
}

func (b *builder) problem(ns, name, msg string) {
	b.set.Problems = append(b.set.Problems, fmt.Sprintf("ConfigMap %s/%s: %s", ns, name, msg))
}

// configMap reads one rendered ConfigMap (see fn/emit for its shape).
func (b *builder) configMap(ns, name string, labels, annotations, data map[string]string) {
	id := labels[emit.LabelAPIID]
	doc, ok := data[emit.DocumentKey]
	switch {
	case !ok:
		b.problem(ns, name, "no data key "+emit.DocumentKey)
		return
	case !json.Valid([]byte(doc)) || !strings.HasPrefix(strings.TrimSpace(doc), "{"):
		b.problem(ns, name, "data."+emit.DocumentKey+" is not a JSON object")
		return
	case plan.DocumentID([]byte(doc)) != id:
		b.problem(ns, name, fmt.Sprintf("x-tyk-api-gateway.info.id %q differs from the label %s %q",
			plan.DocumentID([]byte(doc)), emit.LabelAPIID, id))
		return
	}
	route := annotations[emit.AnnotationRoute]
	if rns, rname, ok := strings.Cut(route, "/"); !ok || rns == "" || rname == "" {
		b.problem(ns, name, fmt.Sprintf("annotation %s must be NAMESPACE/NAME (got %q)", emit.AnnotationRoute, route))
		return
	}
	owner := emit.Owner(labels)
	if owner == "" {
		b.problem(ns, name, fmt.Sprintf("no label %s: a gateway2tyk release before owners rendered it, so its API "+
			"cannot be told from another application's; render the application again with this release", emit.LabelOwner))
		return
	}
	d := plan.Desired{ID: id, Document: []byte(doc), Marker: plan.Marker{
		ManagedBy: plan.ManagedBy, Owner: owner, Route: route, Gateway: annotations[emit.AnnotationGateway],
		Hostname: annotations[emit.AnnotationHostname], Path: annotations[emit.AnnotationPath],
	}}
	if b.byID == nil {
		b.byID = map[string]int{}
	}
	if i, dup := b.byID[id]; dup {
		if !bytes.Equal(b.set.APIs[i].Document, d.Document) || b.set.APIs[i].Marker != d.Marker {
			b.problem(ns, name, "API "+id+" is rendered twice, differently")
		}
		return
	}
	b.byID[id] = len(b.set.APIs)
	b.set.APIs = append(b.set.APIs, d)
}

func (b *builder) done() *Set {
	sort.Slice(b.set.APIs, func(i, j int) bool { return b.set.APIs[i].ID < b.set.APIs[j].ID })
	return &b.set
}

// stringMap reads a mapping of strings (a ConfigMap's data).
func stringMap(n *yaml.RNode, field string) (map[string]string, error) {
	f := n.Field(field)
	if f == nil || f.Value == nil || f.Value.IsNilOrEmpty() {
		return map[string]string{}, nil
	}
	if f.Value.YNode().Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s must be a mapping", field)
	}
	out := map[string]string{}
	content := f.Value.YNode().Content
	for i := 0; i+1 < len(content); i += 2 {
		if content[i+1].Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%s.%s must be a string", field, content[i].Value)
		}
		out[content[i].Value] = content[i+1].Value
	}
	return out, nil
}

// streamSecret reads a Secret of the stream that has a certificate (data is base64, stringData plain).
func streamSecret(n *yaml.RNode) (TLSSecret, bool) {
	s := TLSSecret{Namespace: n.GetNamespace(), Name: n.GetName()}
	if data, err := stringMap(n, "data"); err == nil {
		s.Cert, _ = base64.StdEncoding.DecodeString(data[corev1.TLSCertKey])
		s.Key, _ = base64.StdEncoding.DecodeString(data[corev1.TLSPrivateKeyKey])
	}
	if sd, err := stringMap(n, "stringData"); err == nil {
		if v, ok := sd[corev1.TLSCertKey]; ok {
			s.Cert = []byte(v)
		}
		if v, ok := sd[corev1.TLSPrivateKeyKey]; ok {
			s.Key = []byte(v)
		}
	}
	return s, len(s.Cert) > 0
}

// sortedPairs are the namespace/name pairs of m in order.
func sortedPairs(m map[[2]string]bool) [][2]string {
	keys := make([][2]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+"/"+keys[i][1] < keys[j][0]+"/"+keys[j][1] })
	return keys
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Certificate is one certificate the rendered APIs name.
type Certificate struct {
	// ID is the certificate ID as the APIs name it.
	ID string
	// Secret is the namespace/name of the Secret that has it, "" when none was given.
	Secret string
	// ConfigMap is the namespace/name of the ConfigMap whose ca.crt has it (a CA certificate), "" when none.
	ConfigMap string
	// PEM is the certificate and key to upload (a CA certificate alone); nil when no Secret with a key, or
	// ConfigMap, has the certificate.
	PEM []byte
	// Missing says why PEM is nil.
	Missing string
}

// Fingerprint is the hex SHA-256 of the DER bytes of a PEM bundle's first certificate.
func Fingerprint(certPEM []byte) (string, bool) {
	for rest := certPEM; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return "", false
		}
		if block.Type == "CERTIFICATE" {
			sum := sha256.Sum256(block.Bytes)
			return hex.EncodeToString(sum[:]), true
		}
	}
}

// Needed returns the certificate IDs the APIs name, sorted and unique.
func Needed(apis []plan.Desired) []string {
	ids := map[string]bool{}
	for _, api := range apis {
		for _, id := range plan.CertificateIDs(api.Document) {
			ids[id] = true
		}
	}
	return sortedKeys(ids)
}

// Certificates matches the certificates the APIs name with the Secrets of the set.
func Certificates(set *Set) []Certificate {
	byPrint := map[string]TLSSecret{}
	for _, s := range set.TLS {
		fp, ok := Fingerprint(s.Cert)
		if !ok {
			continue
		}
		// A Secret with the key wins over one without (a render's local-config Secret has only tls.crt).
		if old, seen := byPrint[fp]; !seen || (len(old.Key) == 0 && len(s.Key) > 0) {
			byPrint[fp] = s
		}
	}
	cas := caPrints(set.CAs)
	var out []Certificate
	for _, id := range Needed(set.APIs) {
		c := Certificate{ID: id}
		fp := ""
		if len(id) >= 64 {
			fp = strings.ToLower(id[len(id)-64:])
		}
		s, ok := byPrint[fp]
		ca, isCA := cas[fp]
		switch {
		case !ok && isCA:
			c.ConfigMap, c.PEM = ca.from, ca.pem
		case !ok:
			c.Missing = "no kubernetes.io/tls Secret, or ConfigMap with a ca.crt, given has this certificate"
			if len(set.Notes) > 0 {
				c.Missing += " (" + strings.Join(set.Notes, "; ") + ")"
			}
		case len(s.Key) == 0:
			c.Secret = s.Namespace + "/" + s.Name
			c.Missing = "Secret " + c.Secret + " has no tls.key"
		default:
			c.Secret = s.Namespace + "/" + s.Name
			c.PEM = append(append(bytes.TrimRight(append([]byte(nil), s.Cert...), "\n"), '\n'), s.Key...)
		}
		out = append(out, c)
	}
	return out
}

// caCertificate is one certificate of a CA bundle, PEM, and the ConfigMap it came from.
type caCertificate struct {
	from string
	pem  []byte
}

// caPrints indexes each certificate of the CA bundles by its fingerprint.
func caPrints(bundles []CABundle) map[string]caCertificate {
	out := map[string]caCertificate{}
	for _, b := range bundles {
		for _, der := range inventory.PEMCertificates(b.PEM) {
			sum := sha256.Sum256(der)
			fp := hex.EncodeToString(sum[:])
			if _, seen := out[fp]; !seen {
				out[fp] = caCertificate{from: b.Namespace + "/" + b.Name, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
			}
		}
	}
	return out
}

// Org is the organisation part of a certificate ID (the ID without its 64 hex digits).
func Org(certID string) string {
	if len(certID) < 64 {
		return ""
	}
	return certID[:len(certID)-64]
}
