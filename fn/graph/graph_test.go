package graph_test

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/graph"
	"github.com/gateway2tyk/gateway2tyk/fn/graph/graphtest"
)

// nasty is text with every character either syntax could misread.
const nasty = `a "quoted" #35; <b>&amp; back\slash \n \" end | pipe; 50% ` + "`tick`" + ` [x] (y) {z} --> end` +
	"\ttab\nnewline ünïcode"

// handmade is a graph with labels that need escaping, IDs that collide after sanitizing and marked states.
func handmade() *graph.Graph {
	return &graph.Graph{
		Nodes: []graph.Node{
			{ID: "gc_x", Kind: graph.KindGatewayClass, Lines: []string{"GatewayClass x"}},
			{ID: "gw_ns_end", Kind: graph.KindGateway, Lines: []string{"Gateway ns/end", nasty}},
			{ID: "l_ns_end_a", Kind: graph.KindListener, Lines: []string{"listener a", nasty}, State: graph.Rejected},
			{ID: "r_ns_r", Kind: graph.KindRoute, Lines: []string{"HTTPRoute ns/r", nasty}, State: graph.Rejected},
			{ID: "r_ns_s", Kind: graph.KindRoute, Lines: []string{"HTTPRoute ns/s"}, State: graph.Degraded},
			{ID: "api_gwapi_1", Kind: graph.KindAPI, Lines: []string{"API gwapi-1", "(any host) /"}},
			{ID: "svc_ns_a_80", Kind: graph.KindService, Lines: []string{"Service ns/a:80"}},
			{ID: "be_ns_b_80", Kind: graph.KindBackend, Lines: []string{"Service ns/b:80", nasty}, State: graph.Rejected},
		},
		Edges: []graph.Edge{
			{From: "gc_x", To: "gw_ns_end"},
			{From: "gw_ns_end", To: "l_ns_end_a"},
			{From: "gw_ns_end", To: "r_ns_r", Lines: []string{"Accepted False: X", nasty}, State: graph.Rejected},
			{From: "l_ns_end_a", To: "r_ns_s"},
			{From: "r_ns_s", To: "api_gwapi_1"},
			{From: "api_gwapi_1", To: "svc_ns_a_80", Lines: []string{"weight 1"}},
			{From: "api_gwapi_1", To: "be_ns_b_80", Lines: []string{"weight 1"}, State: graph.Rejected},
		},
	}
}

// clean is what a label line becomes in both syntaxes: control characters are spaces.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

func cleanLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = clean(l)
	}
	return out
}

// checkRoundTrip checks that the parsed graph is g: the same nodes in order, labels decoded to the same text,
// the same edges with their labels, and the marked states styled.
func checkRoundTrip(t *testing.T, syntax string, g *graph.Graph, p *graphtest.Parsed) {
	t.Helper()
	var ids []string
	for _, n := range g.Nodes {
		ids = append(ids, n.ID)
		if got, want := p.Labels[n.ID], cleanLines(n.Lines); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: label of %s decodes to %q, want %q", syntax, n.ID, got, want)
		}
	}
	if !slices.Equal(p.Nodes, ids) {
		t.Errorf("%s: nodes %v, want %v", syntax, p.Nodes, ids)
	}
	if len(p.Edges) != len(g.Edges) {
		t.Fatalf("%s: %d edges, want %d", syntax, len(p.Edges), len(g.Edges))
	}
	for i, e := range g.Edges {
		pe := p.Edges[i]
		if pe.From != e.From || pe.To != e.To {
			t.Errorf("%s: edge %d is %s -> %s, want %s -> %s", syntax, i, pe.From, pe.To, e.From, e.To)
		}
		if want := cleanLines(e.Lines); len(want) > 0 && !reflect.DeepEqual(pe.Lines, want) || len(want) == 0 && len(pe.Lines) > 0 {
			t.Errorf("%s: label of edge %d decodes to %q, want %q", syntax, i, pe.Lines, want)
		}
		if marked := e.State != graph.OK; pe.Dashed != marked || (pe.Color != "") != marked {
			t.Errorf("%s: edge %s -> %s (%s) dashed=%v color=%q", syntax, e.From, e.To, e.State, pe.Dashed, pe.Color)
		}
	}
}

func TestWritersStructure(t *testing.T) {
	g := handmade()
	for _, n := range g.Nodes {
		if !graph.SafeID.MatchString(n.ID) {
			t.Fatalf("handmade ID %s does not match %s", n.ID, graph.SafeID)
		}
	}

	mm := g.Mermaid()
	p, err := graphtest.ParseMermaid(mm)
	if err != nil {
		t.Fatalf("Mermaid: %v\n%s", err, mm)
	}
	checkRoundTrip(t, "Mermaid", g, p)
	for _, n := range g.Nodes {
		want := map[graph.State]string{graph.Rejected: "rejected", graph.Degraded: "degraded"}[n.State]
		for class, ids := range p.Classes {
			if slices.Contains(ids, n.ID) != (class == want) {
				t.Errorf("Mermaid: node %s (%s) and class %s", n.ID, n.State, class)
			}
		}
	}
	if !strings.Contains(mm, "#quot;quoted#quot;") || strings.Contains(mm, `"quoted"`) {
		t.Errorf("Mermaid: quotes in labels are not written #quot;:\n%s", mm)
	}

	dot := g.DOT()
	p, err = graphtest.ParseDOT(dot)
	if err != nil {
		t.Fatalf("DOT: %v\n%s", err, dot)
	}
	checkRoundTrip(t, "DOT", g, p)
	for _, n := range g.Nodes {
		a := p.Attrs[n.ID]
		dashed := strings.Contains(a["style"], "dashed")
		if (n.State != graph.OK) != dashed || (n.State != graph.OK) != (a["color"] != "") {
			t.Errorf("DOT: node %s (%s) has style %q color %q", n.ID, n.State, a["style"], a["color"])
		}
	}
	if !strings.Contains(dot, `back\\slash`) || !strings.Contains(dot, `\"quoted\"`) {
		t.Errorf("DOT: backslashes and quotes in labels are not escaped:\n%s", dot)
	}

	t.Run("dot -Tsvg", func(t *testing.T) { graphtest.DotSVG(t, dot) })
	t.Run("mermaid.parse", func(t *testing.T) { graphtest.MermaidJS(t, mm) })
}

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		`say "hi"`:    "say #quot;hi#quot;",
		"a#b":         "a#35;b",
		"<br/>":       "#lt;br/#gt;",
		"x|y;z":       "x#124;y#59;z",
		"a\nb":        "a b",
		"#quot;":      "#35;quot#59;",
		"plain text.": "plain text.",
	} {
		if got := graph.MermaidEscape(in); got != want {
			t.Errorf("MermaidEscape(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		`say "hi"`: `"say \"hi\""`,
		`a\nb`:     `"a\\nb"`,
		`end\`:     `"end\\"`,
		"a\nb":     `"a b"`,
	} {
		if got := graph.DOTQuote(in); got != want {
			t.Errorf("DOTQuote(%q) = %s, want %s", in, got, want)
		}
	}
	if got := graph.Short(strings.Repeat("word ", 40)); len([]rune(got)) > graph.MaxMessage || !strings.HasSuffix(got, "…") {
		t.Errorf("Short cut a long message to %q", got)
	}
	if got := graph.Short("  two\n lines "); got != "two lines" {
		t.Errorf("Short(%q) = %q", "  two\n lines ", got)
	}
}

// readYAML reads a file or directory the way the command does, leaving the build files and the function config
// out.
func readYAML(t *testing.T, path string) []*yaml.RNode {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []*yaml.RNode
	if info.IsDir() {
		nodes, err = kio.LocalPackageReader{PackagePath: path, OmitReaderAnnotations: true}.Read()
	} else {
		var f *os.File
		if f, err = os.Open(path); err == nil {
			defer f.Close()
			nodes, err = (&kio.ByteReader{Reader: f, OmitReaderAnnotations: true}).Read()
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	var items []*yaml.RNode
	for _, n := range nodes {
		switch n.GetKind() {
		case "Kustomization", "RenderConfig":
			continue
		}
		items = append(items, n)
	}
	return items
}

func build(t *testing.T, items []*yaml.RNode) *graph.Graph {
	t.Helper()
	out, err := fn.Render(items, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	return graph.Build(out.Attachment, out.Translation)
}

func node(t *testing.T, g *graph.Graph, id string) graph.Node {
	t.Helper()
	for _, n := range g.Nodes {
		if n.ID == id {
			return n
		}
	}
	t.Fatalf("no node %s in %v", id, g.Nodes)
	return graph.Node{}
}

func edge(t *testing.T, g *graph.Graph, from, to string) graph.Edge {
	t.Helper()
	for _, e := range g.Edges {
		if e.From == from && e.To == to {
			return e
		}
	}
	t.Fatalf("no edge %s -> %s in %v", from, to, g.Edges)
	return graph.Edge{}
}

func noEdge(t *testing.T, g *graph.Graph, from, to string) {
	t.Helper()
	for _, e := range g.Edges {
		if e.From == from && e.To == to {
			t.Errorf("edge %s -> %s, want none", from, to)
		}
	}
}

// checkGraph checks what every graph must be: IDs safe and unique, every edge end a declared node.
func checkGraph(t *testing.T, g *graph.Graph) {
	t.Helper()
	seen := map[string]bool{}
	for _, n := range g.Nodes {
		if !graph.SafeID.MatchString(n.ID) {
			t.Errorf("node ID %q does not match %s", n.ID, graph.SafeID)
		}
		if seen[n.ID] {
			t.Errorf("node ID %s twice", n.ID)
		}
		seen[n.ID] = true
	}
	for _, e := range g.Edges {
		if !seen[e.From] || !seen[e.To] {
			t.Errorf("edge %s -> %s has an end that is not a declared node", e.From, e.To)
		}
	}
}

func TestBuildBasicExample(t *testing.T) {
	g := build(t, readYAML(t, "../../examples/basic"))
	checkGraph(t, g)
	for _, n := range g.Nodes {
		if n.State != graph.OK {
			t.Errorf("node %s is %s in the basic example, where everything is served: %q", n.ID, n.State, n.Lines)
		}
	}
	edge(t, g, "gc_tyk", "gw_shop_edge")
	edge(t, g, "gw_shop_edge", "l_shop_edge_http")
	edge(t, g, "l_shop_edge_http", "r_shop_orders")
	edge(t, g, "l_shop_edge_http", "r_shop_catalog")
	api := node(t, g, "api_gwapi_53599a2d8b59c6cdad60")
	if !slices.Equal(api.Lines, []string{"API gwapi-53599a2d8b59c6cdad60", "orders.shop.example.com /orders"}) {
		t.Errorf("orders API lines %q", api.Lines)
	}
	edge(t, g, "r_shop_orders", api.ID)
	edge(t, g, api.ID, "svc_shop_orders_8080")
	edge(t, g, "api_gwapi_380fe1e5b13cdb1d4539", "svc_shop_catalog_80")
	if n := len(g.Nodes); n != 9 {
		t.Errorf("%d nodes, want 9 (class, gateway, listener, 2 routes, 2 APIs, 2 Services)", n)
	}
}

func TestBuildRejected(t *testing.T) {
	g := build(t, readYAML(t, "testdata/rejected.yaml"))
	checkGraph(t, g)

	admin := node(t, g, "l_shop_edge_admin")
	if admin.State != graph.Rejected || !slices.Contains(admin.Lines, "Accepted False: PortUnavailable") {
		t.Errorf("listener admin: %s %q, want rejected with Accepted False: PortUnavailable", admin.State, admin.Lines)
	}
	if http := node(t, g, "l_shop_edge_http"); http.State != graph.OK {
		t.Errorf("listener http: %s %q, want ok", http.State, http.Lines)
	}

	// Rejected routes hang from their Gateway, with the reason on the edge, never from a listener.
	for id, reason := range map[string]string{"r_shop_legacy": "NoMatchingListenerHostname", "r_shop_admin": "NoMatchingParent"} {
		r := node(t, g, id)
		if r.State != graph.Rejected || !slices.Contains(r.Lines, "Accepted False: "+reason) {
			t.Errorf("route %s: %s %q, want rejected with Accepted False: %s", id, r.State, r.Lines, reason)
		}
		e := edge(t, g, "gw_shop_edge", id)
		if e.State != graph.Rejected || len(e.Lines) != 2 || e.Lines[0] != "Accepted False: "+reason {
			t.Errorf("edge to %s: %s %q, want rejected with the reason and a message", id, e.State, e.Lines)
		}
		noEdge(t, g, "l_shop_edge_http", id)
		noEdge(t, g, "l_shop_edge_admin", id)
	}

	// The served route attaches to its listener; its unresolved backend is a marked node.
	orders := node(t, g, "r_shop_orders")
	if orders.State != graph.Degraded || !slices.Contains(orders.Lines, "ResolvedRefs False: BackendNotFound") {
		t.Errorf("route orders: %s %q, want degraded with ResolvedRefs False: BackendNotFound", orders.State, orders.Lines)
	}
	edge(t, g, "l_shop_edge_http", "r_shop_orders")
	api := "api_gwapi_53599a2d8b59c6cdad60"
	edge(t, g, "r_shop_orders", api)
	if e := edge(t, g, api, "svc_shop_orders_8080"); e.State != graph.OK || !slices.Equal(e.Lines, []string{"weight 90"}) {
		t.Errorf("edge to the orders Service: %s %q", e.State, e.Lines)
	}
	var missing *graph.Node
	for i, n := range g.Nodes {
		if n.Kind == graph.KindBackend {
			missing = &g.Nodes[i]
		}
	}
	if missing == nil || missing.State != graph.Rejected || !slices.Contains(missing.Lines, "ResolvedRefs False: BackendNotFound") ||
		missing.Lines[0] != "Service shop/orders-v2:8080" {
		t.Fatalf("unresolved backend node: %+v", missing)
	}
	if e := edge(t, g, api, missing.ID); e.State != graph.Rejected {
		t.Errorf("edge to the unresolved backend is %s, want rejected", e.State)
	}
	// No API for the rejected routes, and no Service reached through them.
	for _, n := range g.Nodes {
		if n.Kind == graph.KindAPI && n.ID != api {
			t.Errorf("API %s: only the orders route is served", n.ID)
		}
		if n.ID == "svc_shop_admin_80" {
			t.Errorf("Service shop/admin is reached only through a rejected route")
		}
	}

	// The writers style what is rejected.
	mm := g.Mermaid()
	p, err := graphtest.ParseMermaid(mm)
	if err != nil {
		t.Fatalf("Mermaid: %v\n%s", err, mm)
	}
	for _, id := range []string{"r_shop_legacy", "r_shop_admin", "l_shop_edge_admin", missing.ID} {
		if !slices.Contains(p.Classes["rejected"], id) {
			t.Errorf("Mermaid: %s is not of class rejected:\n%s", id, mm)
		}
	}
	for _, e := range p.Edges {
		if e.To == "r_shop_legacy" && (!e.Dashed || e.Color == "") {
			t.Errorf("Mermaid: the edge to the rejected route is not dashed and coloured:\n%s", mm)
		}
	}
	dp, err := graphtest.ParseDOT(g.DOT())
	if err != nil {
		t.Fatalf("DOT: %v", err)
	}
	if a := dp.Attrs["r_shop_legacy"]; !strings.Contains(a["style"], "dashed") || a["color"] == "" {
		t.Errorf("DOT: rejected route drawn with %v", a)
	}
}

// TestDeterministic builds the graph from the inputs in many orders: the bytes are the same every time.
func TestDeterministic(t *testing.T) {
	for _, path := range []string{"../../examples/basic", "testdata/rejected.yaml"} {
		items := readYAML(t, path)
		want := build(t, items)
		wantMM, wantDOT := want.Mermaid(), want.DOT()
		rng := rand.New(rand.NewSource(1))
		for i := 0; i < 10; i++ {
			shuffled := make([]*yaml.RNode, len(items))
			for j, k := range rng.Perm(len(items)) {
				shuffled[j] = items[k].Copy()
			}
			g := build(t, shuffled)
			if mm := g.Mermaid(); mm != wantMM {
				t.Fatalf("%s: Mermaid differs with the inputs in another order:\n%s\nwant:\n%s", path, mm, wantMM)
			}
			if dot := g.DOT(); dot != wantDOT {
				t.Fatalf("%s: DOT differs with the inputs in another order:\n%s\nwant:\n%s", path, dot, wantDOT)
			}
		}
	}
}

func TestIDsUniqueAfterSanitizing(t *testing.T) {
	items := readYAML(t, "../../examples/basic")
	// Two more Gateways whose names sanitize to the same ID: shop/edge-x and shop/edge.x → gw_shop_edge_x.
	var extra []*yaml.RNode
	for _, name := range []string{"edge-x", "edge.x"} {
		n, err := yaml.Parse("apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: " + name +
			", namespace: shop}\nspec:\n  gatewayClassName: tyk\n  listeners: [{name: http, protocol: HTTP, port: 8080}]\n")
		if err != nil {
			t.Fatal(err)
		}
		extra = append(extra, n)
	}
	g := build(t, append(items, extra...))
	checkGraph(t, g)
	var gateways []string
	for _, n := range g.Nodes {
		if n.Kind == graph.KindGateway {
			gateways = append(gateways, n.ID)
		}
	}
	if len(gateways) != 3 || gateways[1] == gateways[2] {
		t.Errorf("gateway IDs %v, want three distinct", gateways)
	}
}

func TestBuildNil(t *testing.T) {
	g := graph.Build(nil, nil)
	if _, err := graphtest.ParseMermaid(g.Mermaid()); err != nil {
		t.Errorf("empty graph, Mermaid: %v", err)
	}
	if _, err := graphtest.ParseDOT(g.DOT()); err != nil {
		t.Errorf("empty graph, DOT: %v", err)
	}
}

// TestGoldenInputs draws every input of the function's golden tests (../testdata/*/input.yaml): each graph is
// well formed in both syntaxes, Graphviz renders it, and Mermaid's parser reads it.
func TestGoldenInputs(t *testing.T) {
	files, err := filepath.Glob("../testdata/*/input.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	var diagrams []string
	for _, file := range files {
		name := filepath.Base(filepath.Dir(file))
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		r := &kio.ByteReader{Reader: bytes.NewReader(data), OmitReaderAnnotations: true}
		items, err := r.Read()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cfg, err := config.Load(r.FunctionConfig)
		if err != nil {
			continue // a case about a bad function config: nothing is drawn
		}
		out, err := fn.Render(items, cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		g := graph.Build(out.Attachment, out.Translation)
		checkGraph(t, g)
		mm, dot := g.Mermaid(), g.DOT()
		if _, err := graphtest.ParseMermaid(mm); err != nil {
			t.Errorf("%s: Mermaid: %v\n%s", name, err, mm)
		}
		if _, err := graphtest.ParseDOT(dot); err != nil {
			t.Errorf("%s: DOT: %v\n%s", name, err, dot)
		}
		t.Run(name+"/dot -Tsvg", func(t *testing.T) { graphtest.DotSVG(t, dot) })
		diagrams = append(diagrams, mm)
	}
	t.Run("mermaid.parse", func(t *testing.T) { graphtest.MermaidJS(t, diagrams...) })
}

// TestBuildListenerPorts: in the gateway-api profile an API served on a port of its own (a listener's targetPort)
// says which, so a reader sees which Tyk port serves which listener's routes; an API on listen_port says nothing.
func TestBuildListenerPorts(t *testing.T) {
	items, out := renderStory(t, "profile-gateway-api-http-listener-ports")
	cfg := config.Default()
	g := graph.Build(out.Attachment, out.Translation)
	checkGraph(t, g)
	// site on port 80 (Tyk's 8080), back office on port 8080 (Tyk's 8081): same hostname and path, two APIs.
	for id, want := range map[string]string{"api_gwapi_26e0154bb8a3beef849e": "shop.com /, Tyk port 8080",
		"api_gwapi_a59b22b90c7d784b9ba8": "shop.com /, Tyk port 8081"} {
		if n := node(t, g, id); !slices.Contains(n.Lines, want) {
			t.Errorf("%s lines %q, want %q", id, n.Lines, want)
		}
	}
	edge(t, g, "r_shop_site", "api_gwapi_26e0154bb8a3beef849e")
	edge(t, g, "r_shop_backoffice", "api_gwapi_a59b22b90c7d784b9ba8")

	cfg.Profile = config.ProfileOperator
	out, err := fn.Render(items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range graph.Build(out.Attachment, out.Translation).Nodes {
		if n.Kind == graph.KindAPI && strings.Contains(strings.Join(n.Lines, " "), "Tyk port") {
			t.Errorf("operator profile: %s %q names a Tyk port; every API is on listen_port", n.ID, n.Lines)
		}
	}
}

// TestBuildH2C: the edge to an h2c backend (a Service port of appProtocol kubernetes.io/h2c, its rule's one
// target, in the gateway-api profile) says Tyk speaks HTTP/2 without TLS to it; the refused balanced ones are red.
func TestBuildH2C(t *testing.T) {
	_, out := renderStory(t, "profile-gateway-api-h2c")
	g := graph.Build(out.Attachment, out.Translation)
	checkGraph(t, g)
	e := edge(t, g, "api_gwapi_05bbfed527bfbfe8cf2b", "svc_shop_orders_9000")
	if !slices.Contains(e.Lines, "h2c (HTTP/2 without TLS)") {
		t.Errorf("edge to the h2c backend: lines %q", e.Lines)
	}
	for _, e := range g.Edges {
		if e.From == "api_gwapi_cf721b8903851e14494a" && (e.State != graph.Rejected || slices.ContainsFunc(e.Lines,
			func(l string) bool { return strings.HasPrefix(l, "h2c") })) {
			t.Errorf("edge of the balanced rule to %s: state %v, lines %q; want refused, not h2c", e.To, e.State, e.Lines)
		}
	}
}

// TestBuildFrontendValidation: a listener that checks client certificates (spec.tls.frontend) says which
// ConfigMaps' CA certificates sign them, once per ConfigMap; the plain HTTP listener says nothing of it.
func TestBuildFrontendValidation(t *testing.T) {
	_, out := renderStory(t, "profile-gateway-api-frontend-validation")
	g := graph.Build(out.Attachment, out.Translation)
	checkGraph(t, g)
	want := map[string][]string{
		"partners": {"listener partners", "HTTPS :443 partners.example.com", "client certificate: a CA of ConfigMap partners/partner-ca"},
		"ops":      {"listener ops", "HTTPS :8443 ops.example.com", "client certificate: a CA of ConfigMap partners/ops-cas"},
		"http":     {"listener http", "HTTP :80 www.example.com"},
	}
	seen := 0
	for _, n := range g.Nodes {
		if n.Kind != graph.KindListener {
			continue
		}
		name := strings.TrimPrefix(n.Lines[0], "listener ")
		if w, ok := want[name]; ok {
			seen++
			if !slices.Equal(n.Lines, w) {
				t.Errorf("listener %s: lines %q, want %q", name, n.Lines, w)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d of %d listeners drawn", seen, len(want))
	}
}

// renderStory renders a gateway-api story of the function's golden tests (../testdata) with that profile: the
// items read, and the output.
func renderStory(t *testing.T, story string) ([]*yaml.RNode, *fn.Output) {
	t.Helper()
	data, err := os.ReadFile("../testdata/" + story + "/input.yaml")
	if err != nil {
		t.Fatal(err)
	}
	items, err := (&kio.ByteReader{Reader: bytes.NewReader(data)}).Read()
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Profile = config.ProfileGatewayAPI
	out, err := fn.Render(items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return items, out
}
