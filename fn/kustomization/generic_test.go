package kustomization

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
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/gateway2tyk/gateway2tyk/bench/resourcelist"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/literal"
	"github.com/gateway2tyk/gateway2tyk/fn/read"
)

// sameAsConversion requires that a node generic builds is written as kustomize's conversion writes it (the
// object's JSON through sigs.k8s.io/yaml's JSONToYAML), and reports whether generic built it.
func sameAsConversion(t *testing.T, name string, n *yaml.Node) bool {
	t.Helper()
	v, ok := generic(n)
	if !ok {
		return false
	}
	j, err := read.ToJSON(yaml.NewRNode(n))
	require.NoError(t, err, name)
	want, err := sigsyaml.JSONToYAML(j)
	require.NoError(t, err, name)
	got, err := asYAML(yaml.NewRNode(n))
	require.NoError(t, err, name)
	require.Equal(t, string(want), string(got), "%s (%#v)", name, v)
	return true
}

// TestGenericIsTheConversionOnGoldensAndAFleet compares every item of the render's golden files and of a rendered
// fleet (with its literal blocks replaced, as Write hands them over); every emitted ConfigMap must be built.
func TestGenericIsTheConversionOnGoldensAndAFleet(t *testing.T) {
	files, err := filepath.Glob("../testdata/*/*.yaml")
	require.NoError(t, err)
	built, all := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		items, err := (&kio.ByteReader{Reader: bytes.NewReader(data), OmitReaderAnnotations: true}).Read()
		require.NoError(t, err, f)
		for i, it := range items {
			all++
			if sameAsConversion(t, fmt.Sprintf("%s item %d", f, i), it.YNode()) {
				built++
			}
		}
	}
	require.Greater(t, built, all/3)

	var in bytes.Buffer
	resourcelist.GenerateShape(&in, 200, 3, resourcelist.Shape{Hostnames: 2})
	items, err := (&kio.ByteReader{Reader: &in, OmitReaderAnnotations: true}).Read()
	require.NoError(t, err)
	rl := &framework.ResourceList{Items: items}
	require.NoError(t, fn.Processor{}.Process(rl))
	configMaps := 0
	for i, it := range rl.Items {
		node, _ := literal.Replace(it.YNode(), false, nil)
		ok := sameAsConversion(t, fmt.Sprintf("rendered item %d (%s %s)", i, it.GetKind(), it.GetName()), node)
		if it.GetKind() == "ConfigMap" && it.GetLabels()["app.kubernetes.io/managed-by"] == "gateway2tyk" {
			require.True(t, ok, "emitted ConfigMap %s is built directly", it.GetName())
			configMaps++
		}
	}
	require.Greater(t, configMaps, 200)
}

var genericScalars = []string{"", "a", "edge", "/orders/{id}", "api.example.com", "true", "No", "null", "~", "0",
	"8080", "0123", "-5", "1e3", "0x1F", "1.5", ".inf", "- a", "a: b", "a #b", "#c", " lead", "trail ", "it's",
	`say "hi"`, "é中", "tab\there", "<b>&amp;</b>", "[{\"a\":1}]", "{x: y}", "*star", "&amp", "!bang", "%pct",
	"---", "...", "a\nb\n", "a\nb", "\nlead\n", strings.Repeat("word ", 30), strings.Repeat("line of text\n", 20),
	"2001-01-01", "1:20", "<<", "y", "Yes", "\u2028", "a\r\nb"}

var genericTags = []string{"", "", "", "!!str", "!!int", "!!bool", "!!null", "!!float", "!custom"}

var genericStyles = []yaml.Style{0, 0, 0, yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle, yaml.LiteralStyle,
	yaml.FoldedStyle, yaml.FlowStyle}

func randomGenericScalar(r *rand.Rand, key bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: genericScalars[r.IntN(len(genericScalars))]}
	if key && r.IntN(8) > 0 {
		n.Value = []string{"name", "spec", "app.kubernetes.io/name", "x-y_z.1", "a10", "a9", "B", "_b", "a-b", "ab"}[r.IntN(10)]
	}
	odds := 4
	if key {
		odds = 20
	}
	if r.IntN(odds) == 0 {
		n.Style = genericStyles[r.IntN(len(genericStyles))]
	}
	if r.IntN(odds) == 0 {
		n.Tag = genericTags[r.IntN(len(genericTags))]
	}
	if n.Tag == "" && n.Style == 0 && r.IntN(3) == 0 {
		// As the parser tags what it reads.
		switch {
		case n.Value == "8080" || n.Value == "0" || n.Value == "-5":
			n.Tag = "!!int"
		case n.Value == "true":
			n.Tag = "!!bool"
		}
	}
	return n
}

func randomGenericNode(r *rand.Rand, depth int) *yaml.Node {
	switch k := r.IntN(5); {
	case depth > 3 || k < 2:
		return randomGenericScalar(r, false)
	case k < 4:
		return randomGenericMapping(r, depth+1)
	default:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for range r.IntN(4) {
			n.Content = append(n.Content, randomGenericNode(r, depth+1))
		}
		return n
	}
}

func randomGenericMapping(r *rand.Rand, depth int) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for range r.IntN(5) {
		n.Content = append(n.Content, randomGenericScalar(r, true), randomGenericNode(r, depth))
	}
	return n
}

// TestGenericIsTheConversionOnRandomTrees compares random objects: nested mappings and sequences (empty ones
// too), keys that yaml.v2 sorts with its digit and letter rules, scalars of every style and tag.
func TestGenericIsTheConversionOnRandomTrees(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const trees = 20000
	built := 0
	for i := range trees {
		if sameAsConversion(t, fmt.Sprintf("tree %d", i), randomGenericMapping(r, 0)) {
			built++
		}
	}
	t.Logf("%d of %d random objects built directly", built, trees)
	require.Greater(t, built, trees/10)
}
