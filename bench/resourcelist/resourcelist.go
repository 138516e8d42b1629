// Package resourcelist writes a realistic, deterministic KRM ResourceList for benchmarking gateway2tyk
// (go run ./bench/gen -routes N -seed S writes one):
//
// N HTTPRoutes over N/50 namespaces (at least one), three Gateways with an HTTP and an HTTPS listener each (the
// HTTPS one with a certificate Secret), their OperatorContexts and data-plane Services (local-config), a
// GatewayClass with its OperatorContext and credentials Secret, Namespaces with labels, Services (every fifth
// headless, with an EndpointSlice), ReferenceGrants (each team namespace lets the previous team's routes in, and
// a shared platform namespace holds one grant for every team), and routes with filters, weights, method matches,
// rewrites, redirects and backends in other namespaces. About one route in twelve is invalid in a way a real fleet has (a missing Service, a hostname no
// listener takes, a cross-namespace reference without a grant, an unsupported filter, a namespace the listener
// does not allow); none is an error, so the render exits 0. The items are written the way kustomize hands them
// to a function (compact sequences, its index and id annotations), with a comment on some of them as kpt keeps
// them. The same flags give the same bytes.
package resourcelist

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

const (
	routesPerNamespace   = 50
	servicesPerNamespace = 10
	gateways             = 3
)

// cert is a certificate only (no key), as a local-config stand-in for a cert-manager Secret carries it. It is
// the public certificate of examples/storefront.
const cert = `-----BEGIN CERTIFICATE-----
MIIB2jCCAYCgAwIBAgIUS3kgYrRctyE+Jv3PDaGXFFT3ixswCgYIKoZIzj0EAwIw
IzEhMB8GA1UEAwwYKi5zdG9yZWZyb250LmV4YW1wbGUuY29tMB4XDTI2MTEzMDA0
MzgyNVoXDTM2MTEyNzA0MzgyNVowIzEhMB8GA1UEAwwYKi5zdG9yZWZyb250LmV4
YW1wbGUuY29tMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE64xm4NrFSGKVab3g
EH/OukHhfN+ab5wLvB3uyBImXW03IlICCt75FPKn3juPVBVHniztpzJBHVROGtqR
bXzwKKOBkTCBjjAdBgNVHQ4EFgQUZ8ePiKukwHcIgivMyDn0dLInGkUwHwYDVR0j
BBgwFoAUZ8ePiKukwHcIgivMyDn0dLInGkUwDwYDVR0TAQH/BAUwAwEB/zA7BgNV
HREENDAyghgqLnN0b3JlZnJvbnQuZXhhbXBsZS5jb22CFnN0b3JlZnJvbnQuZXhh
bXBsZS5jb20wCgYIKoZIzj0EAwIDSAAwRQIhALqpGm+dRKoSHCUNmCscEBukBxX1
+iM5ScITEgkSEuYZAiBx3Fjq4KaXbkKL1eZYoY57LqduzqjPWR2+nP7t9T8HVA==
-----END CERTIFICATE-----
`

// gen writes items; index is kustomize's running item index.
type gen struct {
	w     io.Writer
	rnd   *rand.Rand
	index int
	shape Shape
}

// Shape varies what a route holds beyond the default fleet.
type Shape struct {
	// Hostnames is the number of hostnames of each valid route with a single parent (0 and 1: one). Every
	// hostname makes its own APIs, so the output grows with it while the input grows by a line per hostname.
	Hostnames int
	// Heavy gives every rule a filter and three or four weighted backends (no redirects).
	Heavy bool
	// Flow writes the items the way people write them by hand (examples/): the small mappings and sequences of
	// a spec in flow style, a comment above every route and a line comment on some of its fields (see Flow).
	Flow bool
	// Profile, when set, is the RenderConfig's spec.profile (the fleet renders with the operator profile by default).
	Profile string
}

// Generate writes the ResourceList of n routes (n >= 1) made from seed. The same n and seed give the same bytes.
func Generate(w io.Writer, n int, seed uint64) { GenerateShape(w, n, seed, Shape{}) }

// GenerateShape is Generate with routes of the given shape; Shape{} is Generate's fleet, byte for byte.
func GenerateShape(w io.Writer, n int, seed uint64, shape Shape) {
	g := &gen{w: w, rnd: rand.New(rand.NewPCG(seed, uint64(n))), shape: shape}
	namespaces := max(1, n/routesPerNamespace)
	g.printf("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	g.platform()
	g.shared(namespaces)
	for ns := 0; ns < namespaces; ns++ {
		g.namespace(ns, namespaces)
	}
	for r := 0; r < n; r++ {
		g.route(r, min(r/routesPerNamespace, namespaces-1), namespaces)
	}
	g.printf(`functionConfig:
  apiVersion: gateway2tyk.io/v1alpha1
  kind: RenderConfig
  metadata:
    name: gateway2tyk
    annotations:
      config.kubernetes.io/function: |
        exec:
          path: gateway2tyk
      config.kubernetes.io/local-config: 'true'
  spec:
    output: ConfigMap
`)
	if shape.Profile != "" {
		g.printf("    profile: %s\n", shape.Profile)
	}
}

func (g *gen) printf(format string, args ...any) { fmt.Fprintf(g.w, format, args...) }

// item starts an item: apiVersion, kind, and metadata with kustomize's annotations plus extra ones; the caller
// writes the rest (labels go in extra lines already indented for metadata).
func (g *gen) item(comment, apiVersion, kind, namespace, name string, annotations []string, labels []string) {
	if comment != "" {
		g.printf("# %s\n", comment)
	}
	g.printf("- apiVersion: %s\n  kind: %s\n  metadata:\n    name: %s\n", apiVersion, kind, name)
	if namespace != "" {
		g.printf("    namespace: %s\n", namespace)
	}
	if len(labels) > 0 {
		g.printf("    labels:\n")
		for _, l := range labels {
			g.printf("      %s\n", l)
		}
	}
	g.printf("    annotations:\n")
	for _, a := range annotations {
		g.printf("      %s\n", a)
	}
	g.printf("      config.kubernetes.io/index: '%d'\n      internal.config.kubernetes.io/index: '%d'\n"+
		"      config.k8s.io/id: '%d'\n      internal.config.kubernetes.io/id: '%d'\n", g.index, g.index, g.index+1, g.index+1)
	g.index++
}

const localConfig = "config.kubernetes.io/local-config: 'true'"

func gatewayName(i int) string { return fmt.Sprintf("edge-%d", i) }
func nsName(i int) string      { return fmt.Sprintf("team-%04d", i) }

// platform writes the class, its OperatorContext and Secret, and the Gateways with their data planes.
func (g *gen) platform() {
	g.item("The Tyk Dashboard credentials exist in the cluster only.", "v1", "Secret", "tyk", "tyk-operator-conf",
		[]string{localConfig}, nil)
	g.item("", "tyk.tyk.io/v1alpha1", "OperatorContext", "tyk", "tyk-dashboard", nil, nil)
	g.printf("  spec:\n    secretRef:\n      name: tyk-operator-conf\n      namespace: tyk\n")
	g.item("", "gateway.networking.k8s.io/v1", "GatewayClass", "", "tyk", nil, nil)
	g.printf("  spec:\n    controllerName: tyk.tyk.io/gateway-controller\n    parametersRef:\n      group: tyk.tyk.io\n" +
		"      kind: OperatorContext\n      name: tyk-dashboard\n      namespace: tyk\n")
	for i := 0; i < gateways; i++ {
		gw := gatewayName(i)
		g.item(fmt.Sprintf("The data plane of Gateway gateways/%s: Tyk Gateways tagged %s.", gw, gw),
			"tyk.tyk.io/v1alpha1", "OperatorContext", "gateways", gw, nil, nil)
		g.printf("  spec:\n    env:\n      mode: pro\n      org: 5e9d9544a1dcd60001d0ed2%d\n    dataPlane:\n"+
			"      serviceRef:\n        name: tyk-gateway-%d\n      tags:\n      - %s\n", i, i, gw)
		g.item("", "v1", "Service", "gateways", fmt.Sprintf("tyk-gateway-%d", i), []string{localConfig}, nil)
		g.printf("  spec:\n    type: LoadBalancer\n    ports:\n    - name: http\n      port: 8080\n"+
			"    - name: https\n      port: 8443\n  status:\n    loadBalancer:\n      ingress:\n      - ip: 203.0.113.%d\n", 10+i)
		g.item("", "v1", "Secret", "gateways", fmt.Sprintf("%s-tls", gw), []string{localConfig}, nil)
		g.printf("  type: kubernetes.io/tls\n  stringData:\n    tls.crt: |\n")
		for _, line := range strings.SplitAfter(strings.TrimSuffix(cert, "\n"), "\n") {
			g.printf("      %s", line)
		}
		g.printf("\n")
		// edge-2 admits only namespaces labelled gateway-access: "true".
		from := "All"
		selector := ""
		if i == 2 {
			from = "Selector"
			selector = "\n          selector:\n            matchLabels:\n              gateway-access: 'true'"
		}
		g.item("", "gateway.networking.k8s.io/v1", "Gateway", "gateways", gw, nil, nil)
		g.printf("  spec:\n    gatewayClassName: tyk\n    infrastructure:\n      parametersRef:\n        group: tyk.tyk.io\n"+
			"        kind: OperatorContext\n        name: %s\n    listeners:\n", gw)
		for _, l := range []struct {
			name, protocol string
			port           int
		}{{"https", "HTTPS", 8443}, {"http", "HTTP", 8080}} {
			g.printf("    - name: %s\n      protocol: %s\n      port: %d\n      hostname: '*.gw%d.example.com'\n"+
				"      allowedRoutes:\n        namespaces:\n          from: %s%s\n", l.name, l.protocol, l.port, i, from, selector)
			if l.protocol == "HTTPS" {
				g.printf("      tls:\n        certificateRefs:\n        - name: %s-tls\n", gw)
			}
		}
	}
}

const sharedNamespace = "platform"

var sharedServices = []string{"auth", "search", "billing", "profile"}

// shared writes the platform namespace: Services that every team's routes may use, with one ReferenceGrant for
// each team namespace (so one namespace holds as many grants as there are teams).
func (g *gen) shared(namespaces int) {
	g.item("Services shared by every team.", "v1", "Namespace", "", sharedNamespace, nil, []string{"gateway-access: 'false'"})
	for _, name := range sharedServices {
		g.item("", "v1", "Service", sharedNamespace, name, nil, []string{"app.kubernetes.io/name: " + name})
		g.printf("  spec:\n    selector:\n      app: %s\n    ports:\n    - name: http\n      port: 8080\n      targetPort: http\n", name)
	}
	for i := 0; i < namespaces; i++ {
		g.item("", "gateway.networking.k8s.io/v1beta1", "ReferenceGrant", sharedNamespace, "allow-"+nsName(i), nil, nil)
		g.printf("  spec:\n    from:\n    - group: gateway.networking.k8s.io\n      kind: HTTPRoute\n      namespace: %s\n"+
			"    to:\n    - group: ''\n      kind: Service\n", nsName(i))
	}
}

// namespace writes a Namespace, its Services (every fifth headless, with an EndpointSlice) and a
// ReferenceGrant that lets the routes of the previous namespace use its Services.
func (g *gen) namespace(i, namespaces int) {
	ns := nsName(i)
	access := "'true'"
	if i%10 == 7 {
		access = "'false'" // edge-2 does not admit these
	}
	g.item("", "v1", "Namespace", "", ns, nil, []string{"gateway-access: " + access, "team: " + ns})
	for s := 0; s < servicesPerNamespace; s++ {
		name := fmt.Sprintf("svc-%02d", s)
		headless := s%5 == 4
		comment := ""
		if s == 0 {
			comment = fmt.Sprintf("Services of %s.", ns)
		}
		g.item(comment, "v1", "Service", ns, name, nil,
			[]string{"app.kubernetes.io/name: " + name, "app.kubernetes.io/part-of: " + ns})
		g.printf("  spec:\n")
		if headless {
			g.printf("    clusterIP: None\n")
		}
		g.printf("    selector:\n      app: %s\n    ports:\n    - name: http\n      port: 8080\n      targetPort: http\n", name)
		if headless {
			g.item("", "discovery.k8s.io/v1", "EndpointSlice", ns, name+"-"+fmt.Sprintf("%05x", g.rnd.IntN(1<<20)),
				[]string{localConfig}, []string{"kubernetes.io/service-name: " + name})
			g.printf("  addressType: IPv4\n  ports:\n  - name: http\n    port: 9090\n    protocol: TCP\n  endpoints:\n")
			for e := 0; e < 2+g.rnd.IntN(2); e++ {
				g.printf("  - addresses:\n    - 10.%d.%d.%d\n    conditions:\n      ready: %t\n",
					40+i%200, s, 10+e, e != 2)
			}
		}
	}
	if namespaces > 1 {
		from := nsName((i + namespaces - 1) % namespaces)
		g.item("", "gateway.networking.k8s.io/v1beta1", "ReferenceGrant", ns, "allow-"+from, nil, nil)
		g.printf("  spec:\n    from:\n    - group: gateway.networking.k8s.io\n      kind: HTTPRoute\n      namespace: %s\n"+
			"    to:\n    - group: ''\n      kind: Service\n", from)
	}
}

// route writes one HTTPRoute of namespace ns.
func (g *gen) route(r, nsIndex, namespaces int) {
	ns := nsName(nsIndex)
	name := fmt.Sprintf("api-%06d", r)
	gw := g.rnd.IntN(gateways)
	invalid := g.rnd.IntN(12) == 0
	kind := g.rnd.IntN(5)
	comment := ""
	if r%10 == 0 {
		comment = fmt.Sprintf("The %s API of %s, owned by its team.", name, ns)
	}
	g.item(comment, "gateway.networking.k8s.io/v1", "HTTPRoute", ns, name, nil, nil)
	host := fmt.Sprintf("%s.gw%d.example.com", name, gw)
	if invalid && kind == 0 {
		host = fmt.Sprintf("%s.%s.example.org", name, ns) // no listener takes it
	}
	g.printf("  spec:\n    parentRefs:\n    - name: %s\n      namespace: gateways\n", gatewayName(gw))
	if g.rnd.IntN(3) == 0 {
		g.printf("      sectionName: https\n")
	}
	if g.rnd.IntN(10) == 0 {
		g.printf("    - name: %s\n      namespace: gateways\n      sectionName: http\n", gatewayName((gw+1)%gateways))
		g.printf("    hostnames:\n    - %s\n    - %s.gw%d.example.com\n", host, name, (gw+1)%gateways)
		host = ""
	}
	if host != "" {
		g.printf("    hostnames:\n    - %s\n", host)
		if !(invalid && kind == 0) {
			for h := 1; h < g.shape.Hostnames; h++ {
				g.printf("    - %s-%d.gw%d.example.com\n", name, h, gw)
			}
		}
	}
	g.printf("    rules:\n")
	svc := func() string { return fmt.Sprintf("svc-%02d", g.rnd.IntN(servicesPerNamespace)) }
	base := fmt.Sprintf("/%s", strings.TrimPrefix(name, "api-"))
	rules := []int{1, 1, 2, 2, 3}[g.rnd.IntN(5)]
	for i := 0; i < rules; i++ {
		path := fmt.Sprintf("%s/v%d", base, i+1)
		g.printf("    - matches:\n      - path:\n          type: PathPrefix\n          value: %s\n", path)
		if g.shape.Heavy {
			g.heavyRule(ns, i, svc)
			continue
		}
		switch (kind + i) % 5 {
		case 0: // methods, with a request header
			g.printf("        method: GET\n      - path:\n          type: PathPrefix\n          value: %s\n        method: POST\n", path)
			g.printf("      filters:\n      - type: RequestHeaderModifier\n        requestHeaderModifier:\n          set:\n"+
				"          - name: X-Team\n            value: %s\n", ns)
			g.backend(svc(), "", 0)
		case 1: // a canary
			g.printf("      filters:\n      - type: ResponseHeaderModifier\n        responseHeaderModifier:\n          remove:\n          - Server\n")
			g.printf("      backendRefs:\n")
			g.weighted(svc(), "", 90)
			g.weighted(svc(), "", 10)
		case 2: // a prefix rewrite
			g.printf("      filters:\n      - type: URLRewrite\n        urlRewrite:\n          path:\n            type: ReplacePrefixMatch\n"+
				"            replacePrefixMatch: /internal/v%d\n", i+1)
			g.backend(svc(), "", 0)
		case 3: // a backend in another namespace: the next team's, or a shared one (both allowed by a grant there)
			switch {
			case r%2 == 1:
				g.backend(sharedServices[g.rnd.IntN(len(sharedServices))], sharedNamespace, 0)
			case namespaces > 1:
				g.backend(svc(), nsName((nsIndex+1)%namespaces), 0)
			default:
				g.backend(svc(), "", 0)
			}
		case 4: // a redirect
			g.printf("      filters:\n      - type: RequestRedirect\n        requestRedirect:\n          scheme: https\n"+
				"          hostname: docs.example.com\n          path:\n            type: ReplaceFullPath\n"+
				"            replaceFullPath: /%s/%s\n          statusCode: 301\n", ns, name)
		}
	}
	if invalid {
		switch kind {
		case 1: // a Service that does not exist
			g.printf("    - matches:\n      - path:\n          type: PathPrefix\n          value: %s/legacy\n", base)
			g.backend("svc-missing", "", 0)
		case 2: // a namespace that grants nothing to this one
			g.printf("    - matches:\n      - path:\n          type: PathPrefix\n          value: %s/shared\n", base)
			g.backend("svc-00", nsName((nsIndex+2)%namespaces), 0)
		case 3: // an unsupported filter
			g.printf("    - matches:\n      - path:\n          type: PathPrefix\n          value: %s/mirror\n", base)
			g.printf("      filters:\n      - type: RequestMirror\n        requestMirror:\n          backendRef:\n"+
				"            name: %s\n            port: 8080\n", svc())
			g.backend(svc(), "", 0)
		case 4: // an exact match
			g.printf("    - matches:\n      - path:\n          type: Exact\n          value: %s/health\n", base)
			g.backend(svc(), "", 0)
		}
	}
}

// heavyRule writes the rest of a rule of a Heavy fleet: a header or rewrite filter and three or four weighted
// backends.
func (g *gen) heavyRule(ns string, i int, svc func() string) {
	if i%2 == 0 {
		g.printf("      filters:\n      - type: RequestHeaderModifier\n        requestHeaderModifier:\n          set:\n"+
			"          - name: X-Team\n            value: %s\n", ns)
	} else {
		g.printf("      filters:\n      - type: URLRewrite\n        urlRewrite:\n          path:\n            type: ReplacePrefixMatch\n"+
			"            replacePrefixMatch: /internal/v%d\n", i+1)
	}
	g.printf("      backendRefs:\n")
	for b := range 3 + g.rnd.IntN(2) {
		g.weighted(svc(), "", 10+b*20)
	}
}

func (g *gen) backend(name, namespace string, weight int) {
	g.printf("      backendRefs:\n")
	g.weighted(name, namespace, weight)
}

func (g *gen) weighted(name, namespace string, weight int) {
	g.printf("      - name: %s\n", name)
	if namespace != "" {
		g.printf("        namespace: %s\n", namespace)
	}
	g.printf("        port: 8080\n")
	if weight > 0 {
		g.printf("        weight: %d\n", weight)
	}
}
