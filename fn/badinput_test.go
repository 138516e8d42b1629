package fn_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/emit"
)

// TestBadInput is the bad-input table: each row adds bad items to a valid ResourceList (badInputBase), or
// breaks the list itself, and runs the function as the binary does. Every row asserts:
//   - no panic;
//   - the results it names: severity, object (resourceRef), exact field path and the gist of the message;
//   - every item of the valid list still comes out exactly as it does when the function runs on the valid list
//     alone (status annotations and emitted APIs included), except the items a row says it touches, which still
//     come out unchanged but for their gateway2tyk.io/status and health annotations;
//   - the added items come out unchanged but for their gateway2tyk.io/status and health annotations, and any other output
//     item is an API the render emitted.
//
// Rows whose input kyaml cannot read at all (the function never runs) assert the error instead.
func TestBadInput(t *testing.T) {
	baseOut, err := execute([]byte(badInputBase))
	require.NoError(t, err, "the valid list renders without failing")
	baseItems, baseResults := readOutput(t, baseOut)
	require.Empty(t, baseResults, "the valid list has no results")
	require.GreaterOrEqual(t, len(badInputRows), 25)

	for _, row := range badInputRows {
		t.Run(row.name, func(t *testing.T) {
			if row.skip != "" {
				t.Skip(row.skip)
			}
			input := badInputBase + row.extra
			if row.input != nil {
				input = row.input(badInputBase)
			}
			var out []byte
			require.NotPanics(t, func() { out, err = execute([]byte(input)) })
			if row.fails != "" {
				require.Error(t, err)
				require.Contains(t, err.Error(), row.fails)
				require.NotContains(t, err.Error(), "goroutine ", "no stack trace")
				return
			}
			items, results := readOutput(t, out)
			require.NotEmpty(t, row.want, "a row names the results it expects")
			for _, w := range row.want {
				require.True(t, hasResult(results, w), "want %s\ngot:\n%s", w, describeResults(results))
			}
			if err != nil {
				require.Contains(t, err.Error(), "gateway2tyk: ", "a failing render says so, without a stack trace")
				require.NotContains(t, err.Error(), "goroutine ")
			}
			checkOthersUnchanged(t, row, baseItems, items, input)
		})
	}
}

// checkOthersUnchanged compares the output items with the valid list's output and the row's own input.
func checkOthersUnchanged(t *testing.T, row badInputRow, baseItems, items []*yaml.RNode, input string) {
	t.Helper()
	exact := map[string]int{}
	loose := map[string]int{}
	for _, it := range items {
		exact[str(t, it)]++
		loose[normalized(t, it)]++
	}
	take := func(m map[string]int, s string) bool {
		if m[s] == 0 {
			return false
		}
		m[s]--
		return true
	}
	touched := map[string]bool{}
	for _, k := range row.touches {
		touched[k] = true
	}
	for _, it := range baseItems {
		s := str(t, it)
		if touched[objectName(it)] {
			require.True(t, take(loose, normalized(t, it)), "%s must come out unchanged but for its status:\n%s", objectName(it), s)
			exact[s]-- // may go negative when its status changed: it is accounted for in loose
			continue
		}
		require.True(t, take(exact, s), "%s must come out exactly as without the bad items:\n%s", objectName(it), s)
		take(loose, normalized(t, it))
	}
	// The row's own items: unchanged but for the status annotation.
	inItems, _ := readInput(t, input)
	nBase := len(baseItems) - countEmitted(baseItems)
	for _, it := range inItems[min(nBase, len(inItems)):] {
		require.True(t, take(loose, normalized(t, it)), "an added item must come out unchanged but for its status:\n%s", str(t, it))
	}
	// Whatever is left is an API the render emitted.
	for _, it := range items {
		s := normalized(t, it)
		if loose[s] > 0 {
			loose[s]--
			require.True(t, emit.Replaced(it), "an output item that is neither an input item nor an emitted API:\n%s", str(t, it))
		}
	}
}

func countEmitted(items []*yaml.RNode) int {
	n := 0
	for _, it := range items {
		if emit.Replaced(it) {
			n++
		}
	}
	return n
}

type badInputRow struct {
	name string
	// extra is appended to the items of badInputBase (list entries, indented like its items).
	extra string
	// input, when set, makes the whole input from badInputBase instead.
	input func(base string) string
	// want are the results the row must produce (among others).
	want []wantResult
	// touches lists the items of the valid list ("Gateway shop/edge") whose status the bad items may change.
	touches []string
	// fails, when set, is part of the error of an input that kyaml cannot read: the function never runs.
	fails string
	// skip, when set, says why the row cannot pass yet.
	skip string
}

type wantResult struct {
	severity framework.Severity
	object   string // "HTTPRoute shop/bad": kind, then namespace/name (or name, for a cluster-scoped object)
	field    string // exact field path
	message  string // part of the message
}

func (w wantResult) String() string {
	return fmt.Sprintf("[%s] %s %s: ...%s...", w.severity, w.object, w.field, w.message)
}

func errorAt(object, field, message string) []wantResult {
	return []wantResult{{framework.Error, object, field, message}}
}

func warningAt(object, field, message string) []wantResult {
	return []wantResult{{framework.Warning, object, field, message}}
}

func hasResult(results framework.Results, w wantResult) bool {
	for _, r := range results {
		if r.Severity != w.severity || r.ResourceRef == nil || r.Field == nil {
			continue
		}
		if refName(r.ResourceRef) == w.object && r.Field.Path == w.field && strings.Contains(r.Message, w.message) {
			return true
		}
	}
	return false
}

func refName(ref *yaml.ResourceIdentifier) string {
	if ref.Namespace == "" {
		return ref.Kind + " " + ref.Name
	}
	return ref.Kind + " " + ref.Namespace + "/" + ref.Name
}

func objectName(it *yaml.RNode) string {
	if it.GetNamespace() == "" {
		return it.GetKind() + " " + it.GetName()
	}
	return it.GetKind() + " " + it.GetNamespace() + "/" + it.GetName()
}

func describeResults(results framework.Results) string {
	var b strings.Builder
	for _, r := range results {
		b.WriteString("  " + r.String() + "\n")
	}
	return b.String()
}

func str(t *testing.T, it *yaml.RNode) string {
	t.Helper()
	s, err := it.String()
	require.NoError(t, err)
	return s
}

// readOutput reads the items and results of a ResourceList the function wrote.
func readOutput(t *testing.T, out []byte) ([]*yaml.RNode, framework.Results) {
	t.Helper()
	items, rl := readInput(t, string(out))
	var results framework.Results
	if r := rl.Field("results"); r != nil {
		s, err := r.Value.String()
		require.NoError(t, err)
		require.NoError(t, yaml.Unmarshal([]byte(s), &results))
	}
	return items, results
}

func readInput(t *testing.T, in string) ([]*yaml.RNode, *yaml.RNode) {
	t.Helper()
	rl, err := yaml.Parse(in)
	require.NoError(t, err)
	list := rl.Field("items")
	require.NotNil(t, list, "a ResourceList with items")
	items, err := list.Value.Elements()
	require.NoError(t, err)
	return items, rl
}

// badInputBase is a valid ResourceList: a GatewayClass of ours, a Gateway with a data plane, a route to a
// Service, and items the render does not read. Rows add to its items.
const badInputBase = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
functionConfig:
  apiVersion: gateway2tyk.io/v1alpha1
  kind: RenderConfig
  metadata: {name: gateway2tyk}
items:
- apiVersion: gateway.networking.k8s.io/v1
  kind: GatewayClass
  metadata: {name: tyk}
  spec: {controllerName: tyk.tyk.io/gateway-controller}
# The data plane of the edge Gateway.
- apiVersion: tyk.tyk.io/v1alpha1
  kind: OperatorContext
  metadata: {name: edge, namespace: shop}
  spec: {dataPlane: {serviceRef: {name: tyk-gateway}, tags: [edge]}}
- apiVersion: v1
  kind: Service
  metadata: {name: tyk-gateway, namespace: shop, annotations: {config.kubernetes.io/local-config: "true"}}
  spec: {type: LoadBalancer, ports: [{name: http, port: 8080}]}
  status: {loadBalancer: {ingress: [{hostname: edge.lb.example.net}]}}
- apiVersion: gateway.networking.k8s.io/v1
  kind: Gateway
  metadata: {name: edge, namespace: shop}
  spec:
    gatewayClassName: tyk
    infrastructure: {parametersRef: {group: tyk.tyk.io, kind: OperatorContext, name: edge}}
    listeners:
    - {name: http, protocol: HTTP, port: 8080, hostname: "*.shop.example.com"}
- apiVersion: gateway.networking.k8s.io/v1
  kind: HTTPRoute
  metadata: {name: orders, namespace: shop}
  spec:
    parentRefs: [{name: edge}]
    hostnames: [orders.shop.example.com]
    rules:
    - matches: [{path: {type: PathPrefix, value: /orders}}]
      backendRefs: [{name: orders, port: 8080}]
- apiVersion: v1
  kind: Service
  metadata: {name: orders, namespace: shop}
  spec: {selector: {app: orders}, ports: [{port: 8080}]}
# Items the render does not read pass through.
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: orders, namespace: shop}
  spec: {replicas: 2, selector: {matchLabels: {app: orders}}, template: {metadata: {labels: {app: orders}}, spec: {containers: [{name: orders, image: "orders:1"}]}}}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: orders-settings, namespace: shop}
  data: {LOG_LEVEL: debug}
`

// route is an HTTPRoute shop/<name> on the edge Gateway, for bad.shop.example.com, with one rule made of the
// given lines (continuation lines indented by six spaces); rows change one thing in it.
func route(name, ruleLines string) string {
	return `- apiVersion: gateway.networking.k8s.io/v1
  kind: HTTPRoute
  metadata: {name: ` + name + `, namespace: shop}
  spec:
    parentRefs: [{name: edge}]
    hostnames: [bad.shop.example.com]
    rules:
    - ` + strings.TrimLeft(ruleLines, " ") + "\n"
}

// rule is a valid rule body to which rows add or change one field.
const rule = `matches: [{path: {type: PathPrefix, value: /bad}}]
      backendRefs: [{name: orders, port: 8080}]`

// headerHeavyRules are rules lines of a valid route whose Tyk OAS document is large: each rule sets 16 request and
// 16 response headers of valueLen bytes (the CRD's bounds: 16 per filter, values of at most 4096 bytes).
func headerHeavyRules(rules, valueLen int) string {
	var b strings.Builder
	for r := range rules {
		if r > 0 {
			b.WriteString("\n    - ")
		}
		fmt.Fprintf(&b, "matches: [{path: {type: PathPrefix, value: /big%d}}]\n      filters:\n", r)
		for _, f := range []string{"requestHeaderModifier", "responseHeaderModifier"} {
			fmt.Fprintf(&b, "      - type: %s%s\n        %s:\n          set:\n", strings.ToUpper(f[:1]), f[1:], f)
			for h := range 16 {
				fmt.Fprintf(&b, "          - {name: X-%d, value: %s}\n", h, strings.Repeat("v", valueLen))
			}
		}
		b.WriteString("      backendRefs: [{name: orders, port: 8080}]")
	}
	return b.String()
}

func hugeHostnames(n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "host-%05d.a-rather-long-subdomain-of-the-shop.shop.example.com", i)
	}
	b.WriteString("]")
	return b.String()
}

var badInputRows = []badInputRow{
	// Truncated YAML.
	{
		name: "truncated YAML: the list ends inside a flow mapping",
		input: func(base string) string {
			return base[:strings.Index(base, "backendRefs: [{name: orders, port: 8080}]")+25]
		},
		fails: "MalformedYAMLError",
	},
	{
		name: "truncated YAML: the last item ends at a line boundary, without its backend port",
		extra: `- apiVersion: gateway.networking.k8s.io/v1
  kind: HTTPRoute
  metadata: {name: cut, namespace: shop}
  spec:
    parentRefs: [{name: edge}]
    rules:
    - backendRefs:
      - name: orders
`,
		want: errorAt("HTTPRoute shop/cut", "spec.rules[0].backendRefs[0]", "Must have port for Service reference"),
	},

	// Wrong field types, at several depths and in lists.
	{
		name:  "wrong type: hostnames is a string, not a list",
		extra: strings.Replace(route("bad", rule), "hostnames: [bad.shop.example.com]", "hostnames: bad.shop.example.com", 1),
		want:  errorAt("HTTPRoute shop/bad", "spec.hostnames", "must be of type array"),
	},
	{
		name: "wrong type: a backend port is a string, second rule, second backend",
		extra: route("bad", rule+`
    - matches: [{path: {type: PathPrefix, value: /bad2}}]
      backendRefs: [{name: orders, port: 8080}, {name: orders, port: eighty}]`),
		want: errorAt("HTTPRoute shop/bad", "spec.rules[1].backendRefs[1].port", "must be of type integer"),
	},
	{
		name:  "wrong type: a header match value is a number",
		extra: route("bad", `matches: [{path: {type: PathPrefix, value: /bad}, headers: [{name: X-Tenant, value: 42}]}]`),
		want:  errorAt("HTTPRoute shop/bad", "spec.rules[0].matches[0].headers[0].value", "must be of type string"),
	},
	{
		name: "wrong type: a listener port is a quoted string",
		extra: `- apiVersion: gateway.networking.k8s.io/v1
  kind: Gateway
  metadata: {name: side, namespace: side}
  spec:
    gatewayClassName: tyk
    listeners:
    - {name: http, protocol: HTTP, port: 8080}
    - {name: other, protocol: HTTP, port: "8081"}
`,
		want: errorAt("Gateway side/side", "spec.listeners[1].port", "must be of type integer"),
	},
	{
		name: "wrong type: a Service port is a boolean",
		extra: `- apiVersion: v1
  kind: Service
  metadata: {name: flag, namespace: shop}
  spec: {ports: [{port: 80}, {port: true}]}
`,
		want: errorAt("Service shop/flag", "spec.ports[1].port", "must be an integer, not bool"),
	},
	{
		name:  "a list where a map belongs: a match's path",
		extra: route("bad", `matches: [{path: [/bad]}]`),
		want:  errorAt("HTTPRoute shop/bad", "spec.rules[0].matches[0].path", "must be of type object"),
	},
	// Objects that would vanish (issue 45 finding 7): a kind of a group the render reads, misspelt only in case,
	// or a list kind of one, passed through unrendered with exit 0 and no word.
	{
		name:  "a kind misspelt in case: HttpRoute",
		extra: strings.Replace(route("bad", rule), "kind: HTTPRoute", "kind: HttpRoute", 1),
		want:  errorAt("HttpRoute shop/bad", "kind", "HttpRoute is not a kind of gateway.networking.k8s.io (kinds are case-sensitive): write HTTPRoute"),
	},
	{
		name: "a list kind of a kind the render reads: HTTPRouteList",
		extra: `- apiVersion: gateway.networking.k8s.io/v1
  kind: HTTPRouteList
  metadata: {name: routes, namespace: shop}
  items:
  - ` + strings.TrimPrefix(strings.ReplaceAll(route("bad", rule), "\n", "\n  "), "- "),
		want: errorAt("HTTPRouteList shop/routes", "kind", "write each of its items as an object of its own (kind HTTPRoute)"),
	},
	{
		name:  "a kind misspelt in case in the core group: service",
		extra: "- {apiVersion: v1, kind: service, metadata: {name: odd, namespace: shop}, spec: {ports: [{port: 80}]}}\n",
		want:  errorAt("service shop/odd", "kind", "write Service"),
	},
	// Metadata of the wrong shape (issue 45 finding 8, found by FuzzPipelineMutated): kyaml's GetLabels walked a
	// list as a mapping and ended the render with "index out of range" (exit 2, as if the user were at fault).
	{
		name:  "a list where a map belongs: metadata.labels (a common slip)",
		extra: strings.Replace(route("bad", rule), "metadata: {name: bad, namespace: shop}", "metadata: {name: bad, namespace: shop, labels: [{app: shop}]}", 1),
		want:  errorAt("HTTPRoute shop/bad", "metadata.labels", "must be an object, not array"),
	},
	{
		name:  "a list where a map belongs: metadata.annotations",
		extra: strings.Replace(route("bad", rule), "metadata: {name: bad, namespace: shop}", "metadata: {name: bad, namespace: shop, annotations: [{a: b}, {c: d}, {e: f}]}", 1),
		// The framework records each item's index in its annotations before the function runs, which this item
		// cannot carry: the run stops, naming the item and the field (kyaml's own error said only "wrong node
		// kind").
		fails: "failed to read ResourceList input: items[8] (HTTPRoute shop/bad, line 52): metadata.annotations: must be an object, not array",
	},
	{
		name:  "a list where a map belongs: the whole metadata",
		extra: "- {apiVersion: v1, kind: Service, metadata: [odd], spec: {ports: [{port: 80}]}}\n",
		fails: "failed to read ResourceList input: items[8] (Service, line 52): metadata: must be an object, not array",
	},
	{
		// Was "missing: the object is namespaced, and nothing gives it a namespace".
		name:  "a map where a string belongs: metadata.namespace of an HTTPRoute",
		extra: strings.Replace(route("bad", rule), "metadata: {name: bad, namespace: shop}", "metadata: {name: bad, namespace: {shop: true}}", 1),
		want:  errorAt("HTTPRoute bad", "metadata.namespace", "must be a string, not object"),
	},
	{
		name:  "a list where a string belongs: metadata.namespace of a Service",
		extra: "- {apiVersion: v1, kind: Service, metadata: {name: odd, namespace: [shop]}, spec: {ports: [{port: 80}]}}\n",
		want:  errorAt("Service odd", "metadata.namespace", "must be a string, not array"),
	},
	{
		name:  "a list where a map belongs: metadata.labels of a Service",
		extra: "- {apiVersion: v1, kind: Service, metadata: {name: odd, namespace: shop, labels: [app]}, spec: {ports: [{port: 80}]}}\n",
		want:  errorAt("Service shop/odd", "metadata.labels", "must be an object, not array"),
	},
	{
		name:  "a map where a list belongs: parentRefs",
		extra: strings.Replace(route("bad", rule), "parentRefs: [{name: edge}]", "parentRefs: {name: edge}", 1),
		want:  errorAt("HTTPRoute shop/bad", "spec.parentRefs", "must be of type array"),
	},
	{
		name: "a list where a map belongs: the whole spec",
		extra: `- apiVersion: gateway.networking.k8s.io/v1
  kind: HTTPRoute
  metadata: {name: listspec, namespace: shop}
  spec: [{parentRefs: [{name: edge}]}]
`,
		want: errorAt("HTTPRoute shop/listspec", "spec", "must be of type object"),
	},
	{
		name: "wrong type: labels are a list",
		extra: `- apiVersion: v1
  kind: Service
  metadata: {name: labelled, namespace: shop, labels: [app, orders]}
  spec: {ports: [{port: 80}]}
`,
		want: errorAt("Service shop/labelled", "metadata.labels", "must be an object, not array"),
	},
	{
		name: "empty spec: a Gateway",
		extra: `- apiVersion: gateway.networking.k8s.io/v1
  kind: Gateway
  metadata: {name: emptyspec, namespace: shop}
  spec: {}
`,
		want: append(errorAt("Gateway shop/emptyspec", "spec.gatewayClassName", "Required value"),
			errorAt("Gateway shop/emptyspec", "spec.listeners", "Required value")...),
	},
	{
		name: "null spec: an HTTPRoute (the CRD requires spec)",
		extra: `- apiVersion: gateway.networking.k8s.io/v1
  kind: HTTPRoute
  metadata: {name: nullspec, namespace: shop}
  spec: null
`,
		want: errorAt("HTTPRoute shop/nullspec", "spec", "Required value"),
	},

	// Missing names.
	{
		name: "missing name: an HTTPRoute without metadata.name",
		extra: `- apiVersion: gateway.networking.k8s.io/v1
  kind: HTTPRoute
  metadata: {namespace: shop}
  spec: {parentRefs: [{name: edge}]}
`,
		want: errorAt("HTTPRoute shop/", "metadata.name", "required"),
	},
	{
		name: "missing name: a backendRef without a name",
		extra: route("bad", `matches: [{path: {type: PathPrefix, value: /bad}}]
      backendRefs: [{port: 8080}]`),
		want: errorAt("HTTPRoute shop/bad", "spec.rules[0].backendRefs[0].name", "Required value"),
	},
	{
		name: "missing name: a listener without a name",
		extra: `- apiVersion: gateway.networking.k8s.io/v1
  kind: Gateway
  metadata: {name: side, namespace: side}
  spec: {gatewayClassName: tyk, listeners: [{protocol: HTTP, port: 8080}]}
`,
		want: errorAt("Gateway side/side", "spec.listeners[0].name", "Required value"),
	},
	{
		name: "invalid name: a Service name that is not a DNS label",
		extra: `- apiVersion: v1
  kind: Service
  metadata: {name: Orders_V2, namespace: shop}
  spec: {ports: [{port: 80}]}
`,
		want: errorAt("Service shop/Orders_V2", "metadata.name", "a DNS-1035 label must consist of lower case alphanumeric characters"),
	},

	// Duplicate objects and names.
	{
		name: "duplicate object: a second Service shop/orders",
		extra: `- apiVersion: v1
  kind: Service
  metadata: {name: orders, namespace: shop}
  spec: {ports: [{port: 9090}]}
`,
		want: errorAt("Service shop/orders", "metadata.name", "duplicate object"),
	},
	{
		name: "duplicate names: two listeners named http",
		extra: `- apiVersion: gateway.networking.k8s.io/v1
  kind: Gateway
  metadata: {name: side, namespace: side}
  spec:
    gatewayClassName: tyk
    listeners: [{name: http, protocol: HTTP, port: 8080}, {name: http, protocol: HTTP, port: 8081}]
`,
		want: errorAt("Gateway side/side", "spec.listeners", "Listener name must be unique within the Gateway"),
	},
	{
		name: "duplicate names: a header set twice by a RequestHeaderModifier",
		extra: route("bad", rule+`
      filters:
      - type: RequestHeaderModifier
        requestHeaderModifier: {set: [{name: X-Tenant, value: a}, {name: X-Tenant, value: b}]}`),
		want: errorAt("HTTPRoute shop/bad", "spec.rules[0].filters[0].requestHeaderModifier.set[1]", `Duplicate value: {"name":"X-Tenant"}`),
	},

	// Invalid hostnames.
	{
		name:  "invalid hostname: a route hostname with an underscore and capitals",
		extra: strings.Replace(route("bad", rule), "hostnames: [bad.shop.example.com]", "hostnames: [bad.shop.example.com, Bad_Host.example.com]", 1),
		want:  errorAt("HTTPRoute shop/bad", "spec.hostnames[1]", "should match"),
	},
	// A listener hostname that is an IP address is no row: the Gateway API spec forbids it, but the CRD's
	// pattern admits it and so does the API server (the parity corpus of e2e/realkube holds it), so the render
	// reads it as any other hostname.
	{
		name: "invalid hostname: a wildcard in a redirect hostname",
		extra: route("bad", `matches: [{path: {type: PathPrefix, value: /bad}}]
      filters:
      - type: RequestRedirect
        requestRedirect: {hostname: "*.shop.example.com", path: {type: ReplaceFullPath, replaceFullPath: /new}}`),
		want: errorAt("HTTPRoute shop/bad", "spec.rules[0].filters[0].requestRedirect.hostname", "should match"),
	},
	{
		name: "invalid hostname: a URL rewrite hostname with a space",
		extra: route("bad", rule+`
      filters:
      - type: URLRewrite
        urlRewrite: {hostname: "orders internal"}`),
		want: errorAt("HTTPRoute shop/bad", "spec.rules[0].filters[0].urlRewrite.hostname", "should match"),
	},

	// Invalid paths.
	{
		name:  "invalid path: a PathPrefix value without a leading slash",
		extra: route("bad", `matches: [{path: {type: PathPrefix, value: bad}}]`),
		want:  errorAt("HTTPRoute shop/bad", "spec.rules[0].matches[0].path", "value must be an absolute path and start with '/'"),
	},
	{
		name:  "invalid path: a dot-dot segment",
		extra: route("bad", `matches: [{path: {type: Exact, value: /bad/../admin}}]`),
		want:  errorAt("HTTPRoute shop/bad", "spec.rules[0].matches[0].path", "must not contain '/../'"),
	},
	{
		name:  "invalid path: a query string in a path value",
		extra: route("bad", `matches: [{path: {type: PathPrefix, value: "/bad?debug=1"}}]`),
		want:  errorAt("HTTPRoute shop/bad", "spec.rules[0].matches[0].path", "must only contain valid characters"),
	},
	{
		name:  "invalid path: an unknown path match type",
		extra: route("bad", `matches: [{path: {type: Prefix, value: /bad}}]`),
		want:  errorAt("HTTPRoute shop/bad", "spec.rules[0].matches[0].path.type", `Unsupported value: "Prefix"`),
	},
	{
		name: "invalid path: ReplaceFullPath without replaceFullPath",
		extra: route("bad", rule+`
      filters:
      - type: URLRewrite
        urlRewrite: {path: {type: ReplaceFullPath, replacePrefixMatch: /x}}`),
		want: errorAt("HTTPRoute shop/bad", "spec.rules[0].filters[0].urlRewrite.path", "replaceFullPath must be specified when type is set to 'ReplaceFullPath'"),
	},

	// Ports and weights out of range.
	{
		name:  "port out of range: a backend port 0",
		extra: route("bad", `backendRefs: [{name: orders, port: 0}]`),
		want:  errorAt("HTTPRoute shop/bad", "spec.rules[0].backendRefs[0].port", "should be greater than or equal to 1"),
	},
	{
		name: "port out of range: a listener port 70000",
		extra: `- apiVersion: gateway.networking.k8s.io/v1
  kind: Gateway
  metadata: {name: side, namespace: side}
  spec: {gatewayClassName: tyk, listeners: [{name: http, protocol: HTTP, port: 70000}]}
`,
		want: errorAt("Gateway side/side", "spec.listeners[0].port", "should be less than or equal to 65535"),
	},
	{
		name:  "port out of range: a parentRef port -1",
		extra: strings.Replace(route("bad", rule), "parentRefs: [{name: edge}]", "parentRefs: [{name: edge, port: -1}]", 1),
		want:  errorAt("HTTPRoute shop/bad", "spec.parentRefs[0].port", "should be greater than or equal to 1"),
	},
	{
		name: "port out of range: a redirect port 65536",
		extra: route("bad", `matches: [{path: {type: PathPrefix, value: /bad}}]
      filters:
      - type: RequestRedirect
        requestRedirect: {hostname: www.shop.example.com, port: 65536}`),
		want: errorAt("HTTPRoute shop/bad", "spec.rules[0].filters[0].requestRedirect.port", "should be less than or equal to 65535"),
	},
	{
		name:  "port out of range: larger than an int32",
		extra: route("bad", `backendRefs: [{name: orders, port: 4294967376}]`),
		want:  errorAt("HTTPRoute shop/bad", "spec.rules[0].backendRefs[0].port", "should be less than or equal to 65535"),
	},
	{
		name:  "invalid weight: -1",
		extra: route("bad", `backendRefs: [{name: orders, port: 8080, weight: -1}]`),
		want:  errorAt("HTTPRoute shop/bad", "spec.rules[0].backendRefs[0].weight", "should be greater than or equal to 0"),
	},
	{
		name:  "invalid weight: a fraction",
		extra: route("bad", `backendRefs: [{name: orders, port: 8080, weight: 0.5}]`),
		want:  errorAt("HTTPRoute shop/bad", "spec.rules[0].backendRefs[0].weight", "must be of type int32"),
	},

	// Header names that are not HTTP tokens.
	{
		name:  "header name not a token: a header match with a colon",
		extra: route("bad", `matches: [{path: {type: PathPrefix, value: /bad}, headers: [{name: "X-Tenant:", value: a}]}]`),
		want:  errorAt("HTTPRoute shop/bad", "spec.rules[0].matches[0].headers[0].name", "should match"),
	},
	{
		name: "header name not a token: a RequestHeaderModifier set name with a space",
		extra: route("bad", rule+`
      filters:
      - type: RequestHeaderModifier
        requestHeaderModifier: {set: [{name: X-Ok, value: a}, {name: "X Forwarded", value: b}]}`),
		want: errorAt("HTTPRoute shop/bad", "spec.rules[0].filters[0].requestHeaderModifier.set[1].name", "should match"),
	},
	{
		name: "header name not a token: a ResponseHeaderModifier add name that is empty, in a backendRef's filters",
		extra: route("bad", `matches: [{path: {type: PathPrefix, value: /bad}}]
      backendRefs:
      - name: orders
        port: 8080
        filters:
        - type: ResponseHeaderModifier
          responseHeaderModifier: {add: [{name: "", value: b}]}`),
		want: errorAt("HTTPRoute shop/bad", "spec.rules[0].backendRefs[0].filters[0].responseHeaderModifier.add[0].name", "should be at least 1 chars long"),
	},
	{
		name:  "header name not a token: a query parameter name with a slash",
		extra: route("bad", `matches: [{path: {type: PathPrefix, value: /bad}, queryParams: [{name: "a/b", value: c}]}]`),
		want:  errorAt("HTTPRoute shop/bad", "spec.rules[0].matches[0].queryParams[0].name", "should match"),
	},

	// Other rules of the CRD schemas.
	{
		name: "CRD rule: a RequestRedirect together with backendRefs",
		extra: route("bad", rule+`
      filters:
      - type: RequestRedirect
        requestRedirect: {hostname: www.shop.example.com}`),
		want: errorAt("HTTPRoute shop/bad", "spec.rules[0]", "RequestRedirect filter must not be used together with backendRefs"),
	},
	{
		name: "CRD rule: a repeated RequestHeaderModifier",
		extra: route("bad", rule+`
      filters:
      - {type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: X-A, value: a}]}}
      - {type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: X-B, value: b}]}}`),
		want: errorAt("HTTPRoute shop/bad", "spec.rules[0].filters", "RequestHeaderModifier filter cannot be repeated"),
	},
	{
		name: "CRD rule: ReplacePrefixMatch with two matches",
		extra: route("bad", `matches: [{path: {type: PathPrefix, value: /bad}}, {path: {type: PathPrefix, value: /worse}}]
      backendRefs: [{name: orders, port: 8080}]
      filters:
      - type: URLRewrite
        urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /}}`),
		want: errorAt("HTTPRoute shop/bad", "spec.rules[0]", "exactly one PathPrefix match must be specified"),
	},
	{
		name: "CRD rule: tls on an HTTP listener",
		extra: `- apiVersion: gateway.networking.k8s.io/v1
  kind: Gateway
  metadata: {name: side, namespace: side}
  spec: {gatewayClassName: tyk, listeners: [{name: http, protocol: HTTP, port: 8080, tls: {certificateRefs: [{name: cert}]}}]}
`,
		want: errorAt("Gateway side/side", "spec.listeners", "tls must not be specified for protocols"),
	},

	// Dangling references: the object referred to is not in the input.
	{
		name: "dangling reference: a parentRef to a missing Gateway",
		extra: strings.Replace(route("bad", rule), "parentRefs: [{name: edge}]",
			"parentRefs: [{name: edge-typo}]", 1),
		want: warningAt("HTTPRoute shop/bad", "spec.parentRefs[0]", "Gateway shop/edge-typo is not in the input"),
	},
	{
		name:    "dangling reference: a backendRef to a missing Service",
		extra:   route("bad", `backendRefs: [{name: orders, port: 8080}, {name: payments, port: 8080}]`),
		touches: []string{"Gateway shop/edge"}, // the route attaches to its listener
		want:    warningAt("HTTPRoute shop/bad", "spec.rules[0].backendRefs[1]", "ResolvedRefs/BackendNotFound: Service shop/payments does not exist"),
	},
	{
		name: "dangling reference: a certificateRef to a missing Secret",
		extra: `- apiVersion: gateway.networking.k8s.io/v1
  kind: Gateway
  metadata: {name: side, namespace: side}
  spec:
    gatewayClassName: tyk
    listeners: [{name: https, protocol: HTTPS, port: 8443, tls: {certificateRefs: [{name: side-tls}]}}]
`,
		want: warningAt("Gateway side/side", "spec.listeners[0].tls.certificateRefs", "Secret side/side-tls does not exist"),
	},
	{
		name: "dangling reference: a configmapRef to a missing ConfigMap",
		extra: `- apiVersion: tyk.tyk.io/v1alpha1
  kind: TykOasApiDefinition
  metadata: {name: orders-base, namespace: shop}
  spec:
    tykOAS: {configmapRef: {name: orders-base, keyName: tyk-oas.json}}
    targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: unattached}]
`,
		want: warningAt("TykOasApiDefinition shop/orders-base", "spec.tykOAS.configmapRef", "ConfigMap shop/orders-base does not exist"),
	},

	// Size.
	{
		name:  "a 1 MiB+ route: 18,000 hostnames",
		extra: strings.Replace(route("huge", rule), "hostnames: [bad.shop.example.com]", "hostnames: "+hugeHostnames(18000), 1),
		want:  errorAt("HTTPRoute shop/huge", "spec.hostnames", "Too many: 18000: must have at most 16 items"),
	},
	{
		name: "a 1 MiB+ route: an annotation of 1 MiB",
		extra: strings.Replace(route("huge", rule), "metadata: {name: huge, namespace: shop}",
			"metadata: {name: huge, namespace: shop, annotations: {notes: "+strings.Repeat("x", 1<<20)+"}}", 1),
		want: errorAt("HTTPRoute shop/huge", "metadata.annotations", "may not be more than 262144 bytes"),
	},
	{
		name:    "an API document over 1 MiB: the API server refuses the ConfigMap",
		extra:   route("huge", headerHeavyRules(1, 4096)),
		want:    errorAt("HTTPRoute shop/huge", "spec.rules", "the API server refuses a ConfigMap whose data is over 1 MiB"),
		touches: []string{"Gateway shop/edge"}, // the route attaches to its listener
	},
	{
		name:    "an API object over 256 KiB as JSON: a client-side apply would fail",
		extra:   route("big", headerHeavyRules(1, 1024)),
		want:    warningAt("HTTPRoute shop/big", "spec.rules", "ServerSideApply=true"),
		touches: []string{"Gateway shop/edge"}, // the route attaches to its listener
	},
	{
		name: "too many matches: 130 in all rules together",
		extra: route("bad", `matches: [`+strings.Repeat(`{path: {type: PathPrefix, value: /a}}, `, 64)+`]
      backendRefs: [{name: orders, port: 8080}]
    - matches: [`+strings.Repeat(`{path: {type: PathPrefix, value: /b}}, `, 64)+`]
    - matches: [{path: {type: PathPrefix, value: /c}}, {path: {type: PathPrefix, value: /d}}]`),
		want: errorAt("HTTPRoute shop/bad", "spec.rules", "the total number of matches across all rules in a route must be less than 128"),
	},

	// Unknown apiVersions.
	{
		name: "unknown apiVersion: an HTTPRoute of gateway.networking.k8s.io/v2",
		extra: `- apiVersion: gateway.networking.k8s.io/v2
  kind: HTTPRoute
  metadata: {name: future, namespace: shop}
  spec: {parentRefs: [{name: edge}]}
`,
		want: warningAt("HTTPRoute shop/future", "apiVersion", "is not a version gateway2tyk reads"),
	},
	{
		name: "unknown apiVersion: a TykOasApiDefinition of tyk.tyk.io/v1beta9",
		extra: `- apiVersion: tyk.tyk.io/v1beta9
  kind: TykOasApiDefinition
  metadata: {name: future, namespace: shop}
`,
		want: warningAt("TykOasApiDefinition shop/future", "apiVersion", "is not a version gateway2tyk reads"),
	},

	// Items that are not objects.
	{
		name:  "a non-object item: a number among the items",
		extra: "- 42\n",
		fails: "expected MappingNode but got ScalarNode",
	},
}

// TestBadInputRowsAreDistinct keeps the table honest: every row has its own name and its own bad items.
func TestBadInputRowsAreDistinct(t *testing.T) {
	names := map[string]bool{}
	inputs := map[string]string{}
	for _, r := range badInputRows {
		require.False(t, names[r.name], "row %q twice", r.name)
		names[r.name] = true
		key := r.extra
		if r.input != nil {
			key = r.input(badInputBase)
		}
		if other, dup := inputs[key]; dup {
			t.Fatalf("rows %q and %q have the same input", other, r.name)
		}
		inputs[key] = r.name
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	t.Logf("%d rows", len(sorted))
}
