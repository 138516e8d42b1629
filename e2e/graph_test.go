package e2e_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gateway2tyk/gateway2tyk/fn/graph/graphtest"
)

// graphRejectedFixture has a listener that is not accepted, two rejected routes and an unresolved backend.
const graphRejectedFixture = "fn/graph/testdata/rejected.yaml"

// graphOK runs `gateway2tyk graph ARGS...`, which must succeed with nothing on stderr.
func graphOK(t *testing.T, bin, root string, args ...string) string {
	t.Helper()
	stdout, stderr, code := run(t, bin, root, nil, nil, append([]string{"graph"}, args...)...)
	if code != 0 || len(stderr) > 0 {
		t.Fatalf("gateway2tyk graph %s: exit %d\nstderr:\n%s", strings.Join(args, " "), code, stderr)
	}
	return string(stdout)
}

func TestGraphMermaid(t *testing.T) {
	root := repoRoot(t)
	bin := functionBinary(t, root)

	basic := graphOK(t, bin, root, exampleDir)
	if again := graphOK(t, bin, root, exampleDir); again != basic {
		t.Errorf("two runs over %s differ:\n%s\n---\n%s", exampleDir, basic, again)
	}
	if withConfig := graphOK(t, bin, root, "-c", filepath.Join(exampleDir, "gateway2tyk.yaml"), "-o", "mermaid", exampleDir); withConfig != basic {
		t.Errorf("-c and -o mermaid change the graph:\n%s\n---\n%s", withConfig, basic)
	}
	p, err := graphtest.ParseMermaid(basic)
	if err != nil {
		t.Fatalf("%s: %v\n%s", exampleDir, err, basic)
	}
	for _, want := range [][2]string{
		{"gc_tyk", "gw_shop_edge"}, {"gw_shop_edge", "l_shop_edge_http"}, {"l_shop_edge_http", "r_shop_orders"},
		{"r_shop_orders", "api_" + strings.ReplaceAll(basicAPIs[0].id(), "-", "_")},
		{"api_" + strings.ReplaceAll(basicAPIs[0].id(), "-", "_"), "svc_shop_orders_8080"},
		{"api_" + strings.ReplaceAll(basicAPIs[1].id(), "-", "_"), "svc_shop_catalog_80"},
	} {
		if !slices.ContainsFunc(p.Edges, func(e graphtest.ParsedEdge) bool { return e.From == want[0] && e.To == want[1] }) {
			t.Errorf("no edge %s --> %s:\n%s", want[0], want[1], basic)
		}
	}
	if len(p.Classes) > 0 {
		t.Errorf("marked nodes %v in the basic example, where everything is served", p.Classes)
	}

	rejected := graphOK(t, bin, root, graphRejectedFixture)
	p, err = graphtest.ParseMermaid(rejected)
	if err != nil {
		t.Fatalf("%s: %v\n%s", graphRejectedFixture, err, rejected)
	}
	for _, id := range []string{"l_shop_edge_admin", "r_shop_legacy", "r_shop_admin"} {
		if !slices.Contains(p.Classes["rejected"], id) {
			t.Errorf("%s is not of class rejected:\n%s", id, rejected)
		}
	}
	var toLegacy *graphtest.ParsedEdge
	for i, e := range p.Edges {
		if e.To == "r_shop_legacy" {
			toLegacy = &p.Edges[i]
		}
	}
	if toLegacy == nil || toLegacy.From != "gw_shop_edge" || !toLegacy.Dashed || toLegacy.Color == "" ||
		len(toLegacy.Lines) == 0 || toLegacy.Lines[0] != "Accepted False: NoMatchingListenerHostname" {
		t.Errorf("the rejected route's edge %+v: want a dashed, coloured edge from its Gateway with the reason", toLegacy)
	}

	t.Run("mermaid.parse", func(t *testing.T) { graphtest.MermaidJS(t, basic, rejected) })
}

func TestGraphDOTRenderedByGraphviz(t *testing.T) {
	root := repoRoot(t)
	bin := functionBinary(t, root)

	for _, path := range []string{exampleDir, graphRejectedFixture} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			dot := graphOK(t, bin, root, "-o", "dot", path)
			p, err := graphtest.ParseDOT(dot)
			if err != nil {
				t.Fatalf("%v\n%s", err, dot)
			}
			if path == graphRejectedFixture {
				for _, id := range []string{"l_shop_edge_admin", "r_shop_legacy", "r_shop_admin"} {
					if a := p.Attrs[id]; !strings.Contains(a["style"], "dashed") || a["color"] == "" {
						t.Errorf("%s is drawn with %v, want dashed and coloured", id, a)
					}
				}
			}
			svg := graphtest.DotSVG(t, dot)
			// Graphviz writes each node's ID as the title of its group.
			for _, id := range p.Nodes {
				if !bytes.Contains(svg, []byte("<title>"+id+"</title>")) {
					t.Errorf("the SVG has no node %s", id)
				}
			}
		})
	}
}

func TestGraphBadCommandLine(t *testing.T) {
	root := repoRoot(t)
	bin := functionBinary(t, root)

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown format", []string{"-o", "svg", exampleDir}, "svg"},
		{"unknown flag", []string{"--bogus", exampleDir}, "bogus"},
		{"no path", nil, "PATH"},
		{"missing path", []string{"no/such/dir"}, "no/such/dir"},
		{"missing config", []string{"-c", "no/such/config.yaml", exampleDir}, "no/such/config.yaml"},
		{"bad config", []string{"-c", graphRejectedFixture, exampleDir}, "kind"},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := run(t, bin, root, nil, nil, append([]string{"graph"}, c.args...)...)
			if code != 2 {
				t.Errorf("exit %d, want 2; stderr:\n%s", code, stderr)
			}
			if n := bytes.Count(stderr, []byte("\n")); n != 1 || !bytes.HasSuffix(stderr, []byte("\n")) {
				t.Errorf("stderr has %d lines, want one:\n%s", n, stderr)
			}
			if !bytes.Contains(stderr, []byte(c.want)) {
				t.Errorf("stderr does not name %q:\n%s", c.want, stderr)
			}
			if len(stdout) > 0 {
				t.Errorf("stdout is not empty:\n%s", stdout)
			}
			noStackTrace(t, stderr)
		})
	}
}

// TestGraphPictureOfBasicExample checks that docs/basic-graph.svg, the picture docs/graph.md shows, is the graph of
// examples/basic as it renders now: every node of `graph -o dot` is in it with its label. Regenerate it with
// `gateway2tyk graph -o dot examples/basic | dot -Tsvg -o docs/basic-graph.svg`.
func TestGraphPictureOfBasicExample(t *testing.T) {
	root := repoRoot(t)
	bin := functionBinary(t, root)
	svg, err := os.ReadFile(filepath.Join(root, "docs", "basic-graph.svg"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := graphtest.ParseDOT(graphOK(t, bin, root, "-o", "dot", exampleDir))
	if err != nil {
		t.Fatal(err)
	}
	titles, texts := svgText(t, svg)
	const regenerate = "regenerate it: gateway2tyk graph -o dot examples/basic | dot -Tsvg -o docs/basic-graph.svg"
	for _, id := range p.Nodes {
		if !titles[id] {
			t.Errorf("docs/basic-graph.svg has no node %s; %s", id, regenerate)
			continue
		}
		for _, line := range p.Labels[id] {
			if !texts[line] {
				t.Errorf("docs/basic-graph.svg does not show %q for %s; %s", line, id, regenerate)
			}
		}
	}
}

// svgText returns the titles and the text lines of an SVG that Graphviz wrote.
func svgText(t *testing.T, svg []byte) (titles, texts map[string]bool) {
	t.Helper()
	titles, texts = map[string]bool{}, map[string]bool{}
	d := xml.NewDecoder(bytes.NewReader(svg))
	var in string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return titles, texts
		}
		if err != nil {
			t.Fatalf("docs/basic-graph.svg: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			in = tok.Name.Local
		case xml.EndElement:
			in = ""
		case xml.CharData:
			switch in {
			case "title":
				titles[string(tok)] = true
			case "text":
				texts[string(tok)] = true
			}
		}
	}
}
