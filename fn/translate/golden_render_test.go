package translate_test

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn"
)

// These tests read the golden stories of fn/testdata and check properties that a golden file alone cannot show:
// that reordering rules changes no API, that certificate IDs are what Tyk computes from the PEM, and that no
// private key reaches an emitted object.

const testdata = "../testdata"

// render runs the function on a ResourceList and returns the items it wrote.
func render(t *testing.T, input []byte) []*yaml.RNode {
	t.Helper()
	var out bytes.Buffer
	if err := framework.Execute(fn.Processor{}, &kio.ByteReadWriter{Reader: bytes.NewReader(input), Writer: &out}); err != nil {
		t.Fatalf("render: %v", err)
	}
	return items(t, out.Bytes())
}

// items are the items of a ResourceList.
func items(t *testing.T, rl []byte) []*yaml.RNode {
	t.Helper()
	node, err := yaml.Parse(string(rl))
	if err != nil {
		t.Fatalf("parse ResourceList: %v", err)
	}
	list, err := node.Pipe(yaml.Lookup("items"))
	if err != nil || list == nil {
		return nil
	}
	els, err := list.Elements()
	if err != nil {
		t.Fatal(err)
	}
	return els
}

// emitted are the objects the function made (label app.kubernetes.io/managed-by: gateway2tyk).
func emitted(nodes []*yaml.RNode) []*yaml.RNode {
	var out []*yaml.RNode
	for _, n := range nodes {
		if n.GetLabels()["app.kubernetes.io/managed-by"] == "gateway2tyk" {
			out = append(out, n)
		}
	}
	return out
}

// documents maps the name of each emitted ConfigMap to its tyk-oas.json.
func documents(t *testing.T, nodes []*yaml.RNode) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range emitted(nodes) {
		if n.GetKind() == "ConfigMap" {
			doc, ok := n.GetDataMap()["tyk-oas.json"]
			if !ok {
				t.Fatalf("ConfigMap %s has no tyk-oas.json", n.GetName())
			}
			out[n.GetNamespace()+"/"+n.GetName()] = doc
		}
	}
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sameDocuments(t *testing.T, what string, a, b map[string]string) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d APIs against %d: %v / %v", what, len(a), len(b), keys(a), keys(b))
	}
	for id, doc := range a {
		other, ok := b[id]
		if !ok {
			t.Fatalf("%s: API %s is missing after reordering (%v)", what, id, keys(b))
		}
		if doc != other {
			t.Errorf("%s: tyk-oas.json of %s differs:\n%s\n---\n%s", what, id, doc, other)
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestReorderedRulesRenderTheSameAPIs is the API Identity section: "The ID doesn't depend on the order of the
// rules, so you can reorder rules without changing it." The two identity-rules-order stories hold the same rules in
// reverse order; their renders have the same API IDs and byte-identical documents.
func TestReorderedRulesRenderTheSameAPIs(t *testing.T) {
	a := documents(t, render(t, readFile(t, filepath.Join(testdata, "identity-rules-order-a", "input.yaml"))))
	b := documents(t, render(t, readFile(t, filepath.Join(testdata, "identity-rules-order-b", "input.yaml"))))
	if len(a) != 3 {
		t.Fatalf("identity-rules-order-a: want 3 APIs (/help, /invoices, /orders), got %v", keys(a))
	}
	sameDocuments(t, "identity-rules-order a/b", a, b)
}

// TestReversedRulesSweep reverses the rules of every HTTPRoute of every succeeding story and renders again: the
// emitted documents must not change.
func TestReversedRulesSweep(t *testing.T) {
	entries, err := os.ReadDir(testdata)
	if err != nil {
		t.Fatal(err)
	}
	swept := 0
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "failing" || e.Name() == "fuzz" { // fuzz: the fuzz targets' corpus
			continue
		}
		input := readFile(t, filepath.Join(testdata, e.Name(), "input.yaml"))
		reversed, n := reverseRules(t, input)
		if n == 0 {
			continue
		}
		swept++
		t.Run(e.Name(), func(t *testing.T) {
			sameDocuments(t, e.Name(), documents(t, render(t, input)), documents(t, render(t, reversed)))
		})
	}
	if swept < 5 {
		t.Fatalf("only %d stories have a route with several rules", swept)
	}
	t.Logf("%d stories rendered with their rules reversed", swept)
}

// reverseRules reverses spec.rules of every HTTPRoute with more than one rule, and says how many it reversed.
func reverseRules(t *testing.T, input []byte) ([]byte, int) {
	t.Helper()
	rl, err := yaml.Parse(string(input))
	if err != nil {
		t.Fatal(err)
	}
	list, err := rl.Pipe(yaml.Lookup("items"))
	if err != nil {
		t.Fatal(err)
	}
	els, err := list.Elements()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, item := range els {
		if item.GetKind() != "HTTPRoute" {
			continue
		}
		rules, err := item.Pipe(yaml.Lookup("spec", "rules"))
		if err != nil || rules == nil || len(rules.YNode().Content) < 2 {
			continue
		}
		c := rules.YNode().Content
		for i, j := 0, len(c)-1; i < j; i, j = i+1, j-1 {
			c[i], c[j] = c[j], c[i]
		}
		n++
	}
	out, err := rl.String()
	if err != nil {
		t.Fatal(err)
	}
	return []byte(out), n
}

// secretData reads a key of a Secret item, from data (base64) or stringData.
func secretData(t *testing.T, s *yaml.RNode, key string) []byte {
	t.Helper()
	if v, err := s.Pipe(yaml.Lookup("data", key)); err == nil && v != nil {
		b, err := base64.StdEncoding.DecodeString(yaml.GetValue(v))
		if err != nil {
			t.Fatalf("Secret %s data.%s: %v", s.GetName(), key, err)
		}
		return b
	}
	if v, err := s.Pipe(yaml.Lookup("stringData", key)); err == nil && v != nil {
		return []byte(yaml.GetValue(v))
	}
	return nil
}

// TestCertificateIDsFromPEM: "A certificate ID in the Tyk Certificate Store is orgId followed by the hex SHA-256 of
// the leaf certificate's DER bytes". The ID is computed here from the story's Secret, with the org of its
// OperatorContext, and must be the only certificate of the API on that hostname.
func TestCertificateIDsFromPEM(t *testing.T) {
	for _, c := range []struct {
		story, secret, org, hostname string
	}{
		{"https-certificate-attached", "checkout-tls", "5e9d9544a1dcd60001d0ed20", "checkout.shop.example.com"},
		{"https-certificate-crt-only", "status-tls", "64a1f0c2e4b0b2000123abcd", "status.shop.example.com"},
	} {
		t.Run(c.story, func(t *testing.T) {
			in := items(t, readFile(t, filepath.Join(testdata, c.story, "input.yaml")))
			var crt []byte
			orgs := map[string]bool{}
			for _, n := range in {
				switch {
				case n.GetKind() == "Secret" && n.GetName() == c.secret:
					crt = secretData(t, n, "tls.crt")
				case n.GetKind() == "OperatorContext":
					if v, _ := n.Pipe(yaml.Lookup("spec", "env", "org")); v != nil {
						orgs[yaml.GetValue(v)] = true
					}
				}
			}
			if !orgs[c.org] {
				t.Fatalf("no OperatorContext of the story has env.org %s (%v)", c.org, orgs)
			}
			block, _ := pem.Decode(crt)
			if block == nil || block.Type != "CERTIFICATE" {
				t.Fatalf("Secret %s: tls.crt holds no PEM certificate", c.secret)
			}
			cert, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			if err := cert.VerifyHostname(c.hostname); err != nil {
				t.Fatalf("the story's certificate does not cover %s: %v", c.hostname, err)
			}
			sum := sha256.Sum256(cert.Raw)
			want := c.org + hex.EncodeToString(sum[:])

			for _, source := range []struct {
				name  string
				nodes []*yaml.RNode
			}{
				{"expected.yaml", items(t, readFile(t, filepath.Join(testdata, c.story, "expected.yaml")))},
				{"a fresh render", render(t, readFile(t, filepath.Join(testdata, c.story, "input.yaml")))},
			} {
				docs := documents(t, source.nodes)
				if len(docs) != 1 {
					t.Fatalf("%s: want one API, got %v", source.name, keys(docs))
				}
				for id, doc := range docs {
					var d struct {
						Tyk struct {
							Server struct {
								CustomDomain *struct {
									Name         string   `json:"name"`
									Certificates []string `json:"certificates"`
								} `json:"customDomain"`
							} `json:"server"`
						} `json:"x-tyk-api-gateway"`
					}
					if err := json.Unmarshal([]byte(doc), &d); err != nil {
						t.Fatal(err)
					}
					cd := d.Tyk.Server.CustomDomain
					if cd == nil || cd.Name != c.hostname {
						t.Fatalf("%s: API %s has customDomain %+v, want %s", source.name, id, cd, c.hostname)
					}
					if len(cd.Certificates) != 1 || cd.Certificates[0] != want {
						t.Errorf("%s: API %s certificates = %v, want [%s]", source.name, id, cd.Certificates, want)
					}
				}
			}
		})
	}
}

// TestAPIWithoutHostnameHasNoCertificates: the reference attaches certificates only "to the APIs of routes that
// have an effective hostname".
func TestAPIWithoutHostnameHasNoCertificates(t *testing.T) {
	docs := documents(t, items(t, readFile(t, filepath.Join(testdata, "https-no-hostname-no-certificates", "expected.yaml"))))
	if len(docs) != 1 {
		t.Fatalf("want one API, got %v", keys(docs))
	}
	for id, doc := range docs {
		if strings.Contains(doc, "customDomain") || strings.Contains(doc, "certificates") {
			t.Errorf("API %s has no hostname but a custom domain or certificates:\n%s", id, doc)
		}
	}
}

// TestNoPrivateKeyInEmittedObjects is the contract's "no private key material ... is ever written into the
// output", over every story: no emitted ConfigMap or TykOasApiDefinition holds a PEM private key, nor any tls.key
// of the story's Secrets (as PEM, its base64 body or its base64 encoding). The Secrets themselves are input items,
// which the function passes through unchanged.
func TestNoPrivateKeyInEmittedObjects(t *testing.T) {
	var expected []string
	err := filepath.WalkDir(testdata, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "expected.yaml" {
			expected = append(expected, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	keysSeen, objects := 0, 0
	for _, path := range expected {
		var secrets []string
		for _, n := range items(t, readFile(t, filepath.Join(filepath.Dir(path), "input.yaml"))) {
			if n.GetKind() != "Secret" {
				continue
			}
			if key := secretData(t, n, "tls.key"); len(key) > 0 {
				keysSeen++
				secrets = append(secrets, string(key), base64.StdEncoding.EncodeToString(key))
				if block, _ := pem.Decode(key); block != nil {
					body := base64.StdEncoding.EncodeToString(block.Bytes)
					secrets = append(secrets, body[:40])
				}
			}
		}
		for _, n := range emitted(items(t, readFile(t, path))) {
			objects++
			s, err := n.String()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(s, "PRIVATE KEY") {
				t.Errorf("%s: %s %s holds a PEM private key", path, n.GetKind(), n.GetName())
			}
			for _, k := range secrets {
				if strings.Contains(s, k) {
					t.Errorf("%s: %s %s holds the tls.key of an input Secret", path, n.GetKind(), n.GetName())
				}
			}
		}
	}
	if keysSeen == 0 || objects == 0 {
		t.Fatalf("vacuous: %d private keys in the inputs, %d emitted objects", keysSeen, objects)
	}
	t.Logf("%d emitted objects of %d stories checked against %d private keys", objects, len(expected), keysSeen)
}
