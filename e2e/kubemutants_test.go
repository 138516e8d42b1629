package e2e_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
	syaml "sigs.k8s.io/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/apiserver"
)

// The mutants: valid seed objects, each broken (or stretched to a bound) in one place, so that the parity test
// holds the render's verdict to the API server's on every kind of rule: unknown fields at several depths, wrong
// types, each CEL rule the render meets, list and string bounds, hostnames, ports, paths and header names.

const seedRoute = `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: orders, namespace: shop}
spec:
  parentRefs: [{name: edge, sectionName: http, port: 80}]
  hostnames: [orders.shop.example.com, "*.orders.example.com"]
  rules:
  - matches:
    - path: {type: PathPrefix, value: /orders}
      headers: [{name: X-Tenant, value: acme}]
      queryParams: [{name: page, value: "1"}]
      method: GET
    filters:
    - type: RequestHeaderModifier
      requestHeaderModifier: {set: [{name: X-Env, value: prod}], remove: [X-Debug]}
    - type: URLRewrite
      urlRewrite: {hostname: orders.internal, path: {type: ReplacePrefixMatch, replacePrefixMatch: /v2}}
    backendRefs: [{name: orders, port: 8080, weight: 3}, {name: orders-canary, port: 8080, weight: 1}]
  - matches: [{path: {type: Exact, value: /old}}]
    filters:
    - type: RequestRedirect
      requestRedirect: {scheme: https, hostname: shop.example.com, port: 443, statusCode: 301}
`

const seedGateway = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: shop}
spec:
  gatewayClassName: tyk
  listeners:
  - {name: http, protocol: HTTP, port: 80, hostname: "*.shop.example.com", allowedRoutes: {namespaces: {from: Same}}}
  - name: https
    protocol: HTTPS
    port: 443
    tls: {mode: Terminate, certificateRefs: [{name: shop-tls}]}
`

const seedClass = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: tyk}
spec: {controllerName: tyk.tyk.io/gateway-controller}
`

const seedGrant = `
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: from-shop, namespace: search}
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop}]
  to: [{group: "", kind: Service, name: search}]
`

const seedService = `
apiVersion: v1
kind: Service
metadata: {name: orders, namespace: shop, labels: {app: orders}}
spec:
  selector: {app: orders}
  ports: [{name: http, port: 8080, targetPort: 8080}]
`

const seedTLSSecret = `
apiVersion: v1
kind: Secret
metadata: {name: shop-tls, namespace: shop}
type: kubernetes.io/tls
stringData: {tls.crt: a certificate, tls.key: a key}
`

// mutation is one change to a seed: set path to value (nil deletes).
type mutation struct {
	name  string
	seed  string
	edits map[string]any
}

type del struct{}

func mutations() []mutation {
	long := func(n int) string { return strings.Repeat("a", n) }
	list := func(n int, f func(i int) any) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	match := func(i int) any {
		return map[string]any{"path": map[string]any{"type": "PathPrefix", "value": fmt.Sprintf("/m%d", i)}}
	}
	m := []mutation{
		// Unknown fields, at several depths (strict field validation).
		{"unknown top-level field", seedRoute, map[string]any{"extra": 1}},
		{"unknown metadata field", seedRoute, map[string]any{"metadata.nmae": "x"}},
		{"unknown spec field (hostname for hostnames)", seedRoute, map[string]any{"spec.hostname": "a.example.com"}},
		{"unknown rule field (rulez)", seedRoute, map[string]any{"spec.rulez": []any{}}},
		{"unknown match field (pathh)", seedRoute, map[string]any{"spec.rules[0].matches[0].pathh": map[string]any{"value": "/x"}}},
		{"unknown path field", seedRoute, map[string]any{"spec.rules[0].matches[0].path.prefix": "/x"}},
		{"unknown backendRef field", seedRoute, map[string]any{"spec.rules[0].backendRefs[0].namespacee": "x"}},
		{"unknown field in a header set", seedRoute, map[string]any{"spec.rules[0].filters[0].requestHeaderModifier.set[0].val": "x"}},
		{"unknown listener field", seedGateway, map[string]any{"spec.listeners[0].hostnames": []any{"a.example.com"}}},
		{"unknown allowedRoutes field", seedGateway, map[string]any{"spec.listeners[0].allowedRoutes.namespace": "x"}},
		{"unknown GatewayClass field", seedClass, map[string]any{"spec.controller": "x"}},
		{"unknown ReferenceGrant field", seedGrant, map[string]any{"spec.from[0].name": "x"}},
		{"unknown Service field", seedService, map[string]any{"spec.port": 80}},
		{"unknown Service port field", seedService, map[string]any{"spec.ports[0].portt": 80}},
		{"experimental field on the standard channel (retry)", seedRoute, map[string]any{"spec.rules[0].retry": map[string]any{"attempts": 2}}},
		// Wrong types.
		{"hostnames a string", seedRoute, map[string]any{"spec.hostnames": "a.example.com"}},
		{"rules a mapping", seedRoute, map[string]any{"spec.rules": map[string]any{"a": 1}}},
		{"backend port a string", seedRoute, map[string]any{"spec.rules[0].backendRefs[0].port": "8080"}},
		{"weight a string", seedRoute, map[string]any{"spec.rules[0].backendRefs[0].weight": "3"}},
		{"weight a fraction", seedRoute, map[string]any{"spec.rules[0].backendRefs[0].weight": 1.5}},
		{"header value a number", seedRoute, map[string]any{"spec.rules[0].matches[0].headers[0].value": 5}},
		{"path a list", seedRoute, map[string]any{"spec.rules[0].matches[0].path": []any{"/x"}}},
		{"parentRef name a number", seedRoute, map[string]any{"spec.parentRefs[0].name": 5}},
		{"listener port a string", seedGateway, map[string]any{"spec.listeners[0].port": "80"}},
		{"Service port a string", seedService, map[string]any{"spec.ports[0].port": "8080"}},
		{"labels a list", seedService, map[string]any{"metadata.labels": []any{"app"}}},
		{"spec a list", seedRoute, map[string]any{"spec": []any{1}}},
		{"spec missing", seedRoute, map[string]any{"spec": del{}}},
		// CEL rules and other schema rules of the HTTPRoute CRD.
		{"PathPrefix without a leading slash", seedRoute, map[string]any{"spec.rules[0].matches[0].path.value": "orders"}},
		{"path with //", seedRoute, map[string]any{"spec.rules[0].matches[0].path.value": "/a//b"}},
		{"path with /../", seedRoute, map[string]any{"spec.rules[0].matches[0].path.value": "/a/../b"}},
		{"path with /./", seedRoute, map[string]any{"spec.rules[0].matches[0].path.value": "/a/./b"}},
		{"path with %2f", seedRoute, map[string]any{"spec.rules[0].matches[0].path.value": "/a%2fb"}},
		{"path with a query", seedRoute, map[string]any{"spec.rules[0].matches[0].path.value": "/a?b=1"}},
		{"path with a fragment", seedRoute, map[string]any{"spec.rules[0].matches[0].path.value": "/a#b"}},
		{"regular expression path", seedRoute, map[string]any{"spec.rules[0].matches[0].path.type": "RegularExpression", "spec.rules[0].matches[0].path.value": "/a.*"}},
		{"unknown path type", seedRoute, map[string]any{"spec.rules[0].matches[0].path.type": "Prefix"}},
		{"unknown method", seedRoute, map[string]any{"spec.rules[0].matches[0].method": "FETCH"}},
		{"header match name repeated", seedRoute, map[string]any{"spec.rules[0].matches[0].headers[1]": map[string]any{"name": "X-Tenant", "value": "b"}}},
		{"query param name repeated", seedRoute, map[string]any{"spec.rules[0].matches[0].queryParams[1]": map[string]any{"name": "page", "value": "2"}}},
		{"RequestRedirect with backendRefs", seedRoute, map[string]any{"spec.rules[1].backendRefs": []any{map[string]any{"name": "orders", "port": 8080}}}},
		{"RequestRedirect and URLRewrite together", seedRoute, map[string]any{"spec.rules[1].filters[1]": map[string]any{"type": "URLRewrite", "urlRewrite": map[string]any{"hostname": "a.example.com"}}}},
		{"RequestHeaderModifier repeated", seedRoute, map[string]any{"spec.rules[0].filters[2]": map[string]any{"type": "RequestHeaderModifier", "requestHeaderModifier": map[string]any{"remove": []any{"X-A"}}}}},
		{"URLRewrite repeated", seedRoute, map[string]any{"spec.rules[0].filters[2]": map[string]any{"type": "URLRewrite", "urlRewrite": map[string]any{"hostname": "a.example.com"}}}},
		{"ReplacePrefixMatch with two matches", seedRoute, map[string]any{"spec.rules[0].matches[1]": map[string]any{"path": map[string]any{"type": "PathPrefix", "value": "/b"}}}},
		{"ReplacePrefixMatch with an Exact match", seedRoute, map[string]any{"spec.rules[0].matches[0].path.type": "Exact"}},
		{"ReplaceFullPath without replaceFullPath", seedRoute, map[string]any{"spec.rules[0].filters[1].urlRewrite.path.type": "ReplaceFullPath"}},
		{"filter type without its field", seedRoute, map[string]any{"spec.rules[0].filters[0].requestHeaderModifier": del{}}},
		{"filter with another type's field", seedRoute, map[string]any{"spec.rules[0].filters[0].requestRedirect": map[string]any{"scheme": "https"}}},
		{"header modifier name repeated", seedRoute, map[string]any{"spec.rules[0].filters[0].requestHeaderModifier.set[1]": map[string]any{"name": "X-Env", "value": "b"}}},
		{"backendRef to a Service without a port", seedRoute, map[string]any{"spec.rules[0].backendRefs[0].port": del{}}},
		{"backendRef to another kind without a port", seedRoute, map[string]any{"spec.rules[0].backendRefs[0].port": del{}, "spec.rules[0].backendRefs[0].kind": "Bucket", "spec.rules[0].backendRefs[0].group": "example.com"}},
		{"redirect status code 200", seedRoute, map[string]any{"spec.rules[1].filters[0].requestRedirect.statusCode": 200}},
		{"redirect scheme ftp", seedRoute, map[string]any{"spec.rules[1].filters[0].requestRedirect.scheme": "ftp"}},
		{"timeouts: backendRequest longer than request", seedRoute, map[string]any{"spec.rules[0].timeouts": map[string]any{"request": "1s", "backendRequest": "2s"}}},
		{"timeouts: a bad duration", seedRoute, map[string]any{"spec.rules[0].timeouts": map[string]any{"request": "1 minute"}}},
		{"no rules at all", seedRoute, map[string]any{"spec.rules": del{}}},
		{"an empty rule list", seedRoute, map[string]any{"spec.rules": []any{}}},
		// Bounds.
		{"17 hostnames", seedRoute, map[string]any{"spec.hostnames": list(17, func(i int) any { return fmt.Sprintf("h%d.example.com", i) })}},
		{"16 hostnames", seedRoute, map[string]any{"spec.hostnames": list(16, func(i int) any { return fmt.Sprintf("h%d.example.com", i) })}},
		{"33 parentRefs", seedRoute, map[string]any{"spec.parentRefs": list(33, func(i int) any { return map[string]any{"name": fmt.Sprintf("g%d", i)} })}},
		{"17 rules", seedRoute, map[string]any{"spec.rules": list(17, func(i int) any { return map[string]any{"matches": []any{match(i)}} })}},
		{"65 matches in a rule", seedRoute, map[string]any{"spec.rules": []any{map[string]any{"matches": list(65, match)}}}},
		{"129 matches over the rules", seedRoute, map[string]any{"spec.rules": list(3, func(r int) any { return map[string]any{"matches": list(43, match)} })}},
		{"128 matches over the rules", seedRoute, map[string]any{"spec.rules": list(2, func(r int) any { return map[string]any{"matches": list(64, match)} })}},
		{"17 backendRefs", seedRoute, map[string]any{"spec.rules[0].backendRefs": list(17, func(i int) any { return map[string]any{"name": fmt.Sprintf("b%d", i), "port": 80} })}},
		{"17 filters", seedRoute, map[string]any{"spec.rules[0].filters": list(17, func(i int) any {
			return map[string]any{"type": "ExtensionRef", "extensionRef": map[string]any{"group": "example.com", "kind": "F", "name": fmt.Sprintf("f%d", i)}}
		})}},
		{"header value of 4097 bytes", seedRoute, map[string]any{"spec.rules[0].matches[0].headers[0].value": long(4097)}},
		{"path value of 1025 bytes", seedRoute, map[string]any{"spec.rules[0].matches[0].path.value": "/" + long(1024)}},
		{"hostname of 254 bytes", seedRoute, map[string]any{"spec.hostnames[0]": long(63) + "." + long(63) + "." + long(63) + "." + long(62)}},
		{"weight 1000001", seedRoute, map[string]any{"spec.rules[0].backendRefs[0].weight": 1000001}},
		{"weight -1", seedRoute, map[string]any{"spec.rules[0].backendRefs[0].weight": -1}},
		{"65 listeners", seedGateway, map[string]any{"spec.listeners": list(65, func(i int) any {
			return map[string]any{"name": fmt.Sprintf("l%d", i), "protocol": "HTTP", "port": 1000 + i}
		})}},
		{"listener name of 254 bytes", seedGateway, map[string]any{"spec.listeners[0].name": long(254)}},
		{"17 ReferenceGrant froms", seedGrant, map[string]any{"spec.from": list(17, func(i int) any {
			return map[string]any{"group": "", "kind": "Service", "namespace": fmt.Sprintf("n%d", i)}
		})}},
		{"an annotation of 300 KiB", seedRoute, map[string]any{"metadata.annotations": map[string]any{"note": long(300 << 10)}}},
		// Hostnames.
		{"hostname with capitals", seedRoute, map[string]any{"spec.hostnames[0]": "Orders.example.com"}},
		{"hostname with an underscore", seedRoute, map[string]any{"spec.hostnames[0]": "orders_v2.example.com"}},
		{"hostname *.", seedRoute, map[string]any{"spec.hostnames[0]": "*."}},
		{"hostname with two wildcards", seedRoute, map[string]any{"spec.hostnames[0]": "*.*.example.com"}},
		{"hostname with a port", seedRoute, map[string]any{"spec.hostnames[0]": "orders.example.com:80"}},
		{"hostname an IP address", seedRoute, map[string]any{"spec.hostnames[0]": "10.0.0.1"}},
		{"listener hostname an IP address", seedGateway, map[string]any{"spec.listeners[0].hostname": "10.0.0.1"}},
		{"listener hostname with a scheme", seedGateway, map[string]any{"spec.listeners[0].hostname": "https://shop.example.com"}},
		{"redirect hostname a wildcard", seedRoute, map[string]any{"spec.rules[1].filters[0].requestRedirect.hostname": "*.example.com"}},
		// Ports.
		{"backend port 0", seedRoute, map[string]any{"spec.rules[0].backendRefs[0].port": 0}},
		{"backend port 65536", seedRoute, map[string]any{"spec.rules[0].backendRefs[0].port": 65536}},
		{"backend port beyond int32", seedRoute, map[string]any{"spec.rules[0].backendRefs[0].port": 4294967376}},
		{"parentRef port -1", seedRoute, map[string]any{"spec.parentRefs[0].port": -1}},
		{"listener port 0", seedGateway, map[string]any{"spec.listeners[0].port": 0}},
		{"Service port 0", seedService, map[string]any{"spec.ports[0].port": 0}},
		{"Service port 70000", seedService, map[string]any{"spec.ports[0].port": 70000}},
		// Header names.
		{"header match name with a space", seedRoute, map[string]any{"spec.rules[0].matches[0].headers[0].name": "X Tenant"}},
		{"header match name with a colon", seedRoute, map[string]any{"spec.rules[0].matches[0].headers[0].name": "X-Tenant:"}},
		{"header modifier name empty", seedRoute, map[string]any{"spec.rules[0].filters[0].requestHeaderModifier.set[0].name": ""}},
		{"query param name with a slash", seedRoute, map[string]any{"spec.rules[0].matches[0].queryParams[0].name": "a/b"}},
		// The Gateway's and GatewayClass's rules.
		{"tls on an HTTP listener", seedGateway, map[string]any{"spec.listeners[0].tls": map[string]any{"certificateRefs": []any{map[string]any{"name": "x"}}}}},
		{"HTTPS listener without certificates", seedGateway, map[string]any{"spec.listeners[1].tls": map[string]any{"mode": "Terminate"}}},
		{"listener names repeated", seedGateway, map[string]any{"spec.listeners[1].name": "http"}},
		{"listeners with the same port, protocol and hostname", seedGateway, map[string]any{"spec.listeners[1]": map[string]any{"name": "http2", "protocol": "HTTP", "port": 80, "hostname": "*.shop.example.com"}}},
		{"allowedRoutes Selector without a selector", seedGateway, map[string]any{"spec.listeners[0].allowedRoutes.namespaces.from": "Selector"}},
		{"unknown protocol name", seedGateway, map[string]any{"spec.listeners[0].protocol": "http"}},
		{"controllerName without a path", seedClass, map[string]any{"spec.controllerName": "tyk"}},
		{"gatewayClassName missing", seedGateway, map[string]any{"spec.gatewayClassName": del{}}},
		// Secrets.
		{"TLS Secret without its key", seedTLSSecret, map[string]any{"stringData": map[string]any{"tls.crt": "a certificate"}}},
		{"TLS Secret without its certificate", seedTLSSecret, map[string]any{"stringData": map[string]any{"tls.key": "a key"}}},
		{"Secret with an unknown field", seedTLSSecret, map[string]any{"strinData": map[string]any{"a": "b"}}},
		// Metadata.
		{"object name with an underscore", seedRoute, map[string]any{"metadata.name": "orders_v2"}},
		{"object name missing", seedRoute, map[string]any{"metadata.name": del{}}},
		{"object name of 254 bytes", seedRoute, map[string]any{"metadata.name": long(254)}},
		{"Service name with a dot", seedService, map[string]any{"metadata.name": "orders.v2"}},
		{"label value with a space", seedService, map[string]any{"metadata.labels.app": "my app"}},
		{"label key with two slashes", seedRoute, map[string]any{"metadata.labels": map[string]any{"a/b/c": "x"}}},
	}
	return m
}

// mutants are the mutations applied to their seeds, each a story of one object judged by the standard channel.
func mutants(t *testing.T) []story {
	t.Helper()
	var out []story
	for _, m := range mutations() {
		var obj map[string]any
		if err := syaml.Unmarshal([]byte(m.seed), &obj); err != nil {
			t.Fatal(err)
		}
		for path, v := range m.edits {
			if err := setPath(obj, path, v); err != nil {
				t.Fatalf("mutant %q: %s: %v", m.name, path, err)
			}
		}
		data, err := syaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		node, err := yaml.Parse(string(data))
		if err != nil {
			t.Fatalf("mutant %q: %v", m.name, err)
		}
		s := newStory(t, "mutant: "+m.name, []*yaml.RNode{node})
		s.channel = apiserver.Standard
		out = append(out, s)
	}
	return out
}

var pathPart = regexp.MustCompile(`^([^\[\]]+)((?:\[\d+\])*)$`)

// setPath sets (or, for del{}, deletes) the value at a dotted path with list indexes; a list index one past the
// end appends.
func setPath(obj map[string]any, path string, v any) error {
	parts := strings.Split(path, ".")
	var cur any = obj
	for i, p := range parts {
		m := pathPart.FindStringSubmatch(p)
		if m == nil {
			return fmt.Errorf("bad path part %q", p)
		}
		key := m[1]
		var idx []int
		for _, s := range regexp.MustCompile(`\d+`).FindAllString(m[2], -1) {
			n, _ := strconv.Atoi(s)
			idx = append(idx, n)
		}
		mp, ok := cur.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is not a mapping", strings.Join(parts[:i], "."))
		}
		last := i == len(parts)-1
		if len(idx) == 0 {
			if last {
				if _, isDel := v.(del); isDel {
					delete(mp, key)
				} else {
					mp[key] = v
				}
				return nil
			}
			if mp[key] == nil {
				mp[key] = map[string]any{}
			}
			cur = mp[key]
			continue
		}
		l, _ := mp[key].([]any)
		n := idx[0]
		if n == len(l) {
			l = append(l, map[string]any{})
			mp[key] = l
		}
		if n > len(l) {
			return fmt.Errorf("%s has %d items, not %d", key, len(l), n)
		}
		if last {
			if _, isDel := v.(del); isDel {
				mp[key] = append(l[:n], l[n+1:]...)
			} else {
				l[n] = v
			}
			return nil
		}
		cur = l[n]
	}
	return nil
}
