package read

import (
	"bytes"
	"github.com/gateway2tyk/gateway2tyk/fn/apiserver"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// FuzzItems feeds arbitrary bytes to the reader the way the function and `gateway2tyk render` get them: parsed
// as a ResourceList (or a plain YAML stream) by kyaml, then read.Items. Whatever the bytes, the reader must not
// panic, must change no item, must report every problem on an item with a message, and must read the same
// objects when it reads the same bytes again.
//
// The seed corpus is every golden input (../testdata/**/input.yaml) plus the edge cases below; `go test` runs
// only the seeds and testdata/fuzz/FuzzItems, `make fuzz` mutates them.
func FuzzItems(f *testing.F) {
	for _, in := range goldenInputs(f, filepath.Join("..", "testdata")) {
		f.Add(in)
	}
	for _, s := range readerEdgeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkItems(t, data, false) // as the KRM function reads stdin
		checkItems(t, data, true)  // as `gateway2tyk render` reads a file
	})
}

func checkItems(t *testing.T, data []byte, omitReaderAnnotations bool) {
	parse := func() []*yaml.RNode {
		nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(data), OmitReaderAnnotations: omitReaderAnnotations}).Read()
		if err != nil {
			return nil
		}
		return nodes
	}
	nodes := parse()
	if nodes == nil {
		return // not YAML that kyaml reads: the function fails before the reader runs
	}
	before := encodeAll(t, nodes)
	res := Items(nodes, apiserver.Standard)
	if after := encodeAll(t, nodes); after != before {
		t.Fatalf("read.Items changed the items:\n--- before\n%s\n--- after\n%s", before, after)
	}
	items := map[*yaml.RNode]bool{}
	for _, n := range nodes {
		items[n] = true
	}
	for key, n := range res.Nodes {
		if !items[n] {
			t.Fatalf("%s: read.Result.Nodes holds a node that is not an input item", key)
		}
	}
	for _, p := range append(append([]Problem(nil), res.Problems...), res.Ignored...) {
		if p.Node == nil || !items[p.Node] {
			t.Fatalf("%s: a problem must point at its input item", p.Error())
		}
		if p.Message == "" || p.Key.Kind == "" {
			t.Fatalf("%+v: a problem must name the kind and say what is wrong", p)
		}
	}
	// Reading the same bytes again gives the same problems and the same objects.
	again := Items(parse(), apiserver.Standard)
	if problems(res) != problems(again) {
		t.Fatalf("read.Items is not deterministic:\n%s\n---\n%s", problems(res), problems(again))
	}
	if len(res.Nodes) != len(again.Nodes) {
		t.Fatalf("read.Items read %d objects, then %d", len(res.Nodes), len(again.Nodes))
	}
}

func encodeAll(t *testing.T, nodes []*yaml.RNode) string {
	var b bytes.Buffer
	for _, n := range nodes {
		s, err := n.String()
		if err != nil {
			// An item kyaml cannot encode cannot be written by the function either; compare what is there.
			s = "<" + err.Error() + ">"
		}
		b.WriteString(s + "---\n")
	}
	return b.String()
}

func problems(res *Result) string {
	var b bytes.Buffer
	for _, p := range res.Problems {
		b.WriteString("error " + p.Error() + "\n")
	}
	for _, p := range res.Ignored {
		b.WriteString("warning " + p.Error() + "\n")
	}
	return b.String()
}

// goldenInputs reads every input.yaml under root, in a stable order.
func goldenInputs(tb testing.TB, root string) [][]byte {
	tb.Helper()
	var out [][]byte
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "input.yaml" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out = append(out, data)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(out) == 0 {
		tb.Fatalf("no golden input.yaml under %s", root)
	}
	return out
}

// readerEdgeSeeds are inputs the golden stories do not have: every kind the reader reads, with the values at
// the edges of their types, plus YAML that is odd but valid.
var readerEdgeSeeds = []string{
	"",
	"---\n---\n",
	"null\n",
	"[]\n",
	"42\n",
	"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n",
	"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: {}\n",
	"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {}\n- {kind: HTTPRoute}\n- {apiVersion: gateway.networking.k8s.io/v1, kind: HTTPRoute, metadata: null, spec: null}\n",
	`apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: gateway.networking.k8s.io/v1
  kind: HTTPRoute
  metadata: {name: r, namespace: ns, labels: {a: b}, annotations: {gateway2tyk.io/status: "{}"}}
  spec:
    parentRefs: [{name: g, port: 65535, sectionName: http}]
    hostnames: ["*.example.com", a.example.com]
    rules:
    - matches:
      - path: {type: RegularExpression, value: "^/a(.*)$"}
        headers: [{name: X-A, value: b, type: RegularExpression}]
        queryParams: [{name: q, value: v}]
        method: GET
      filters:
      - type: RequestHeaderModifier
        requestHeaderModifier: {set: [{name: X-B, value: c}], add: [{name: X-C, value: d}], remove: [X-D]}
      - type: RequestRedirect
        requestRedirect: {scheme: https, hostname: b.example.com, port: 443, statusCode: 301, path: {type: ReplaceFullPath, replaceFullPath: /x}}
      - type: URLRewrite
        urlRewrite: {hostname: c.example.com, path: {type: ReplacePrefixMatch, replacePrefixMatch: /y}}
      backendRefs:
      - {name: s, port: 1, weight: 0}
      - {name: t, port: 65535, weight: 1000000, kind: Service, group: ""}
      timeouts: {request: 10s, backendRequest: 1s}
- apiVersion: gateway.networking.k8s.io/v1beta1
  kind: Gateway
  metadata: {name: g, namespace: ns}
  spec:
    gatewayClassName: tyk
    listeners:
    - name: https
      protocol: HTTPS
      port: 443
      hostname: "*.example.com"
      tls: {mode: Terminate, certificateRefs: [{name: cert}]}
      allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {a: b}}}, kinds: [{kind: HTTPRoute}]}
- apiVersion: gateway.networking.k8s.io/v1
  kind: GatewayClass
  metadata: {name: tyk}
  spec: {controllerName: tyk.tyk.io/gateway-controller, parametersRef: {group: tyk.tyk.io, kind: OperatorContext, name: c, namespace: ns}}
- apiVersion: gateway.networking.k8s.io/v1beta1
  kind: ReferenceGrant
  metadata: {name: rg, namespace: other}
  spec: {from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: ns}], to: [{group: "", kind: Service, name: s}]}
- apiVersion: v1
  kind: Service
  metadata: {name: s, namespace: ns}
  spec: {clusterIP: None, ports: [{name: http, port: 80, targetPort: 8080, protocol: TCP}]}
- apiVersion: v1
  kind: Secret
  metadata: {name: cert, namespace: ns}
  type: kubernetes.io/tls
  stringData: {tls.crt: x, tls.key: y}
  data: {ca.crt: eA==}
- apiVersion: v1
  kind: Namespace
  metadata: {name: ns, labels: {a: b}}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: base, namespace: ns}
  data: {tyk-oas.json: "{}"}
  binaryData: {x: eA==}
- apiVersion: discovery.k8s.io/v1
  kind: EndpointSlice
  metadata: {name: s-1, namespace: ns, labels: {kubernetes.io/service-name: s}}
  addressType: IPv4
  endpoints: [{addresses: [10.0.0.1], conditions: {ready: true}}]
  ports: [{name: http, port: 8080}]
- apiVersion: tyk.tyk.io/v1alpha1
  kind: OperatorContext
  metadata: {name: c, namespace: ns}
  spec: {secretRef: {name: s, namespace: ns}, env: {mode: pro, url: "http://x"}, dataPlane: {serviceRef: {name: s}, tags: [a]}}
- apiVersion: tyk.tyk.io/v1alpha1
  kind: TykOasApiDefinition
  metadata: {name: d, namespace: ns}
  spec: {tykOAS: {configmapRef: {name: base, namespace: ns, keyName: tyk-oas.json}}, targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]}
`,
	// Anchors, aliases, merge keys, tags, multi-line strings and odd scalars.
	`apiVersion: v1
kind: Service
metadata: &m {name: s, namespace: ns}
spec:
  ports: [{port: 0x50}, {port: 1e3}, {port: !!str 80}, {port: 8_0}, {port: .inf}, {port: ~}]
---
apiVersion: v1
kind: Service
metadata: *m
---
apiVersion: v1
kind: Service
metadata:
  <<: *m
  name: t
spec: {ports: [{port: 2147483648}, {port: -1}]}
`,
	"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r}\nspec: {rules: [{backendRefs: [{name: s, port: 1.5}]}]}\n",
	"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: [r]}\nspec: {parentRefs: {name: g}}\n",
	"apiVersion: gateway.networking.k8s.io/v9\nkind: HTTPRoute\nmetadata: {name: r}\n",
	"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, labels: {app.kubernetes.io/managed-by: gateway2tyk}}\n",
}
