package directyaml_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/bench/resourcelist"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/directyaml"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/yamlrand"
)

// reference is what yaml.v3's encoder, as kyaml sets it up, writes for item as the only entry of a ResourceList's
// items: the lines after "items:".
func reference(t *testing.T, item *yaml.Node) string {
	t.Helper()
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	list := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "items"}, {Kind: yaml.SequenceNode, Content: []*yaml.Node{item}}}}
	require.NoError(t, enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{list}}))
	require.NoError(t, enc.Close())
	out, ok := strings.CutPrefix(buf.String(), "items:\n")
	require.True(t, ok, buf.String())
	return out
}

// check writes item directly and, when it is written, requires the encoder's bytes; it reports whether it was.
func check(t *testing.T, name string, item *yaml.Node, m *directyaml.Memo) bool {
	t.Helper()
	got, ok := directyaml.AppendItem([]byte("before"), item, m)
	if !ok {
		require.Equal(t, "before", string(got), "%s: a refused item leaves the buffer as it was", name)
		return false
	}
	want := reference(t, item)
	if "before"+want != string(got) {
		require.Equal(t, want, strings.TrimPrefix(string(got), "before"), name)
	}
	return true
}

func readItems(t *testing.T, data []byte) []*yaml.RNode {
	t.Helper()
	items, err := (&kio.ByteReader{Reader: bytes.NewReader(data), PreserveSeqIndent: false}).Read()
	require.NoError(t, err)
	return items
}

// TestGoldenFiles compares every item of the render's golden inputs and outputs.
func TestGoldenFiles(t *testing.T) {
	files, err := filepath.Glob("../../testdata/*/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	m := directyaml.NewMemo()
	direct, all := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for i, it := range readItems(t, data) {
			all++
			if check(t, fmt.Sprintf("%s item %d", f, i), it.YNode(), m) {
				direct++
			}
		}
	}
	t.Logf("%d of %d items written directly", direct, all)
	require.Greater(t, direct, all/3)
}

// TestRenderedFleet renders a generated fleet and compares every output item; every emitted ConfigMap must be
// written directly, which is what makes the writer worth having.
func TestRenderedFleet(t *testing.T) {
	var in bytes.Buffer
	resourcelist.GenerateShape(&in, 300, 5, resourcelist.Shape{Hostnames: 2})
	rl := &framework.ResourceList{Items: readItems(t, in.Bytes())}
	require.NoError(t, fn.Processor{}.Process(rl))
	m := directyaml.NewMemo()
	configMaps := 0
	for i, it := range rl.Items {
		ok := check(t, fmt.Sprintf("item %d (%s %s)", i, it.GetKind(), it.GetName()), it.YNode(), m)
		if it.GetKind() == "ConfigMap" && it.GetLabels()["app.kubernetes.io/managed-by"] == "gateway2tyk" {
			require.True(t, ok, "emitted ConfigMap %s is written directly", it.GetName())
			configMaps++
		}
	}
	require.Greater(t, configMaps, 300)
}

// scalars are the values of random trees: plain words, words YAML reads as something else, texts that need
// quotes or escapes, multi-line texts (short and long, with and without a final newline), invalid UTF-8.
var scalars = []string{"", "a", "edge", "/orders/{id}", "api.example.com", "true", "No", "null", "~", "0", "0x1F",
	"1e3", "-", "- a", "a: b", "a #b", "#c", " lead", "trail ", "it's", `say "hi"`, "é中🙂", "tab\there", "\u2028",
	"[{\"a\":1}]", "{x: y}", "*star", "&amp", "!bang", "%pct", "@at", "`tick", "|pipe", ">gt", "?q", ",", "---",
	"...", "a\nb\n", "a\nb", "\nlead\n", strings.Repeat("line of text\n", 60), strings.Repeat("x", 600) + "\n",
	"trail \n" + strings.Repeat("y", 600) + "\n", "bad\xff", "2001-01-01", "1:20", ".inf", "<<", "y", "Yes",
	strings.Repeat("k", 129), `C:\dir\"x"`, "8080", "0123", "-5", "007", "1_000", "123456789012345678901", "False",
	"two\nlines\n", " lead\nx\n", "x\n y\n", "x \ny\n", "x\ty\n", "é\n", "a:", "a:b", "/a b", "a\r\nb\r\n",
	"# not a comment\n---\n...\n", "x\n\ny\n", "- item\n", "key: value\n", "'quoted'", "\"dq\"", "a' b", "café",
	"0.5", "+1", ".5", "1e+3", "0o17", "=", "<<", "yes\n", "null\n"}

var styles = []yaml.Style{0, 0, 0, yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle, yaml.LiteralStyle, yaml.FoldedStyle,
	yaml.TaggedStyle, yaml.FlowStyle}

var tags = []string{"", "", "!!str", "!!int", "!!bool", "!!null", "!custom", "!!float"}

// randomTrees makes the items of TestRandomTrees: keys mostly the usual ones, any style and tag now and then, and
// the odd flow style, !!map tag and comment, which the writer must refuse.
func randomTrees(r *rand.Rand) *yamlrand.Gen {
	return &yamlrand.Gen{R: r, Scalars: scalars, Styles: styles, Tags: tags, ValueOdds: 4, KeyOdds: 30,
		Keys: []string{"name0", "spec1", "app.kubernetes.io/name", "x-y_z.1", "data3"}, KeyFromScalars: 12, Odd: true}
}

// TestRandomTrees compares random items: mappings and sequences in any nesting, scalars of every style and tag.
// The encoder is the reference, so whatever is written directly must be its bytes.
func TestRandomTrees(t *testing.T) {
	gen := randomTrees(rand.New(rand.NewPCG(3, 4)))
	m := directyaml.NewMemo()
	const trees = 20000
	direct := 0
	for i := range trees {
		item := gen.Mapping(0)
		if check(t, fmt.Sprintf("tree %d", i), item, m) {
			direct++
		}
	}
	t.Logf("%d of %d random items written directly", direct, trees)
	require.Greater(t, direct, 2000)
}

// TestRandomTreesWithFlowAndComments: random items with many flow collections and comments (head, line and foot,
// on keys, values and entries), as people write YAML: the flow collections and the keys' head comments that are
// written directly must be the encoder's bytes, and the rest refused.
func TestRandomTreesWithFlowAndComments(t *testing.T) {
	gen := randomTrees(rand.New(rand.NewPCG(5, 6)))
	gen.Comments, gen.Flow = 12, 5
	m := directyaml.NewMemo()
	const trees = 20000
	direct, flows := 0, 0
	for i := range trees {
		item := gen.Mapping(0)
		if check(t, fmt.Sprintf("tree %d", i), item, m) {
			direct++
			if hasFlowOrComment(item) {
				flows++
			}
		}
	}
	t.Logf("%d of %d random items written directly, %d of them with a flow collection or a comment", direct, trees, flows)
	require.Greater(t, flows, 150)
}

// TestComments: comments of several lines above keys, at every depth (a comment above an item's first key is
// left to the encoder; one above the item itself is TestFlowFleet's).
func TestComments(t *testing.T) {
	for _, src := range []string{
		"a: b\n# three\n# four\nc: {d: e}\n",
		"a:\n  # nested\n  # twice\n  b: c\n  d:\n  - e: f\n    # in an entry\n    g: [h, 1]\n",
		"a: b\nc:\n  # x\n  d: e\n",
	} {
		nodes, err := kio.FromBytes([]byte(src))
		require.NoError(t, err)
		require.True(t, check(t, src, nodes[0].YNode(), directyaml.NewMemo()), "written directly:\n%s", src)
	}
}

func hasFlowOrComment(n *yaml.Node) bool {
	if n.Style&yaml.FlowStyle != 0 || n.HeadComment != "" {
		return true
	}
	for _, c := range n.Content {
		if hasFlowOrComment(c) {
			return true
		}
	}
	return false
}

// TestFlowFleet compares every item of a fleet written as people write YAML (flow collections, comments above
// keys), input and rendered output: every HTTPRoute is written directly.
func TestFlowFleet(t *testing.T) {
	var b, flow bytes.Buffer
	resourcelist.GenerateShape(&b, 300, 5, resourcelist.Shape{Heavy: true})
	require.NoError(t, resourcelist.Flow(&flow, &b))
	rl := &framework.ResourceList{Items: readItems(t, flow.Bytes())}
	require.NoError(t, fn.Processor{}.Process(rl))
	m := directyaml.NewMemo()
	routes := 0
	for i, it := range rl.Items {
		ok := check(t, fmt.Sprintf("item %d (%s %s)", i, it.GetKind(), it.GetName()), it.YNode(), m)
		if it.GetKind() == "HTTPRoute" {
			require.True(t, ok, "HTTPRoute %s is written directly", it.GetName())
			routes++
		}
	}
	require.Greater(t, routes, 250)
}

// FuzzAppendItem parses YAML text and compares every item it holds: parsed nodes carry the styles, tags and
// comments of real files, where TestRandomTrees makes them up.
func FuzzAppendItem(f *testing.F) {
	files, err := filepath.Glob("../../testdata/*/input.yaml")
	require.NoError(f, err)
	for _, file := range files[:min(len(files), 20)] {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(string(data))
	}
	f.Add("a: 'it''s'\nb: \"q\\\"\"\nc: |\n  x\n  y\nd: [1, 2]\ne:\n- f: 0x1F\n  g: !!str 12\n")
	f.Fuzz(func(t *testing.T, text string) {
		nodes, err := kio.FromBytes([]byte(text))
		if err != nil {
			return
		}
		m := directyaml.NewMemo()
		for i, n := range nodes {
			check(t, fmt.Sprintf("item %d", i), n.YNode(), m)
		}
	})
}
