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
	"github.com/gateway2tyk/gateway2tyk/fn/internal/literal"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/yamlrand"
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

// randomObjects makes the objects of TestGenericIsTheConversionOnRandomTrees: keys that yaml.v2 sorts with its
// digit and letter rules, any style and tag now and then, and integers and booleans tagged as the parser tags them.
func randomObjects(r *rand.Rand) *yamlrand.Gen {
	return &yamlrand.Gen{R: r, Scalars: genericScalars, Styles: genericStyles, Tags: genericTags, ValueOdds: 4,
		KeyOdds: 20, Keys: []string{"name", "spec", "app.kubernetes.io/name", "x-y_z.1", "a10", "a9", "B", "_b", "a-b", "ab"},
		KeyFromScalars: 8, Scalar: func(r *rand.Rand, n *yaml.Node) {
			if n.Tag != "" || n.Style != 0 || r.IntN(3) > 0 {
				return
			}
			switch n.Value {
			case "8080", "0", "-5":
				n.Tag = "!!int"
			case "true":
				n.Tag = "!!bool"
			}
		}}
}

// TestGenericIsTheConversionOnRandomTrees compares random objects: nested mappings and sequences (empty ones
// too), keys that yaml.v2 sorts with its digit and letter rules, scalars of every style and tag.
func TestGenericIsTheConversionOnRandomTrees(t *testing.T) {
	gen := randomObjects(rand.New(rand.NewPCG(7, 8)))
	const trees = 20000
	built := 0
	for i := range trees {
		if sameAsConversion(t, fmt.Sprintf("tree %d", i), gen.Mapping(0)) {
			built++
		}
	}
	t.Logf("%d of %d random objects built directly", built, trees)
	require.Greater(t, built, trees/10)
}
