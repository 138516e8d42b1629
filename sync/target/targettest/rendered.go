package targettest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// API is one rendered API, as the render's ConfigMap holds it (see the contract's "What it emits").
type API struct {
	Route, Gateway, Hostname, Path string
	// Upstream is the upstream URL; tests change it to edit a route.
	Upstream string
	// Certificates are the certificate IDs of server.customDomain.certificates.
	Certificates []string
	// ClientCAs are the CA certificate IDs of server.clientCertificates.allowlist.
	ClientCAs []string
	// Owner is the application that rendered it (label gateway2tyk.io/owner); "" is the render's fallback owner,
	// gateway2tyk.
	Owner string
}

// OwnerOf is the API's owner as its ConfigMap's label says it.
func (a API) OwnerOf() string {
	if a.Owner == "" {
		return "gateway2tyk"
	}
	return a.Owner
}

// ID is the contract's API ID.
func (a API) ID() string {
	sum := sha256.Sum256([]byte(a.Route + "\n" + a.Path + "\n" + a.Gateway + "\n" + a.Hostname))
	return "gwapi-" + hex.EncodeToString(sum[:])[:20]
}

// Namespace is the route's namespace, where the ConfigMap lives.
func (a API) Namespace() string { ns, _, _ := strings.Cut(a.Route, "/"); return ns }

// Document is the Tyk OAS document, shaped like the render's.
func (a API) Document() string {
	id := a.ID()
	server := map[string]any{"listenPath": map[string]any{"strip": true, "value": a.Path}}
	if a.Hostname != "" {
		cd := map[string]any{"enabled": true, "name": a.Hostname}
		if len(a.Certificates) > 0 {
			cd["certificates"] = a.Certificates
		}
		server["customDomain"] = cd
	}
	if len(a.ClientCAs) > 0 {
		server["clientCertificates"] = map[string]any{"enabled": true, "allowlist": a.ClientCAs}
	}
	doc := map[string]any{
		"info":    map[string]any{"title": id, "version": "1.0.0"},
		"openapi": "3.0.3",
		"paths":   map[string]any{},
		"x-tyk-api-gateway": map[string]any{
			"info":     map[string]any{"id": id, "name": id, "state": map[string]any{"active": true}},
			"server":   server,
			"upstream": map[string]any{"url": a.Upstream, "preserveHostHeader": map[string]any{"enabled": true}},
		},
	}
	b, _ := json.MarshalIndent(doc, "", "  ")
	return string(b) + "\n"
}

// ConfigMap is the render's ConfigMap of the API.
func (a API) ConfigMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{
			Name: a.ID(), Namespace: a.Namespace(),
			Labels: map[string]string{"app.kubernetes.io/managed-by": "gateway2tyk", "gateway2tyk.io/api-id": a.ID(),
				"gateway2tyk.io/owner": a.OwnerOf()},
			Annotations: map[string]string{
				"gateway2tyk.io/route": a.Route, "gateway2tyk.io/gateway": a.Gateway, "gateway2tyk.io/hostname": a.Hostname,
				"gateway2tyk.io/path": a.Path, "gateway2tyk.io/conditions": "[]",
			},
		},
		Data: map[string]string{"tyk-oas.json": a.Document()},
	}
}

// TLSSecret is a kubernetes.io/tls Secret; key may be nil (a Secret with the certificate only).
func TLSSecret(namespace, name string, cert, key []byte) *corev1.Secret {
	s := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: cert},
	}
	if key != nil {
		s.Data[corev1.TLSPrivateKeyKey] = key
	}
	return s
}

// CAConfigMap is a ConfigMap whose ca.crt is caPEM, as a Gateway's spec.tls.frontend names one.
func CAConfigMap(namespace, name string, caPEM []byte) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Data:       map[string]string{"ca.crt": string(caPEM)},
	}
}

// Stream writes the objects as a multi-document YAML stream, like `gateway2tyk render` prints.
func Stream(objects ...any) string {
	var docs []string
	for _, o := range objects {
		b, err := yaml.Marshal(o)
		if err != nil {
			panic(err)
		}
		docs = append(docs, string(b))
	}
	return strings.Join(docs, "---\n")
}

// Streams renders APIs (sorted by ID, as the render sorts them) and extra objects.
func Streams(apis []API, extra ...any) string {
	sorted := append([]API(nil), apis...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID() < sorted[j].ID() })
	var objs []any
	for _, a := range sorted {
		objs = append(objs, a.ConfigMap())
	}
	return Stream(append(objs, extra...)...)
}

// CertID is the Tyk ID of a certificate for an organisation.
func CertID(org string, certPEM []byte) string {
	id, ok := CertificateID(org, certPEM)
	if !ok {
		panic(fmt.Sprintf("no certificate in %q", base64.StdEncoding.EncodeToString(certPEM)))
	}
	return id
}
