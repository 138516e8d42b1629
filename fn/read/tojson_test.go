package read

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/bench/resourcelist"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/yamlrand"
)

// sameJSON requires ToJSON to give what MarshalJSON gives, bytes or error.
func sameJSON(t *testing.T, name string, nodes []*yaml.RNode) {
	t.Helper()
	for i, n := range nodes {
		want, wantErr := n.MarshalJSON()
		got, gotErr := ToJSON(n)
		if wantErr != nil {
			require.EqualError(t, gotErr, wantErr.Error(), "%s item %d", name, i)
			continue
		}
		require.NoError(t, gotErr, "%s item %d", name, i)
		require.Equal(t, string(want), string(got), "%s item %d", name, i)
	}
}

func readList(t *testing.T, data []byte) []*yaml.RNode {
	t.Helper()
	nodes, err := (&kio.ByteReadWriter{Reader: bytes.NewReader(data), KeepReaderAnnotations: true}).Read()
	require.NoError(t, err)
	return nodes
}

func TestToJSONIsMarshalJSONOnGoldensAndGenerated(t *testing.T) {
	inputs, err := filepath.Glob("../testdata/*/input.yaml")
	require.NoError(t, err)
	more, err := filepath.Glob("../testdata/failing/*/input.yaml")
	require.NoError(t, err)
	for _, path := range append(inputs, more...) {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		sameJSON(t, path, readList(t, data))
	}
	var b bytes.Buffer
	resourcelist.Generate(&b, 300, 5)
	sameJSON(t, "generated", readList(t, b.Bytes()))
}

// TestToJSONIsMarshalJSONOnUnusualValues covers what YAML can say that JSON says differently: numbers in other
// bases and forms, booleans, nulls, timestamps, binary, merge keys, anchors and aliases within and across items,
// comments, non-string keys, duplicate keys, sequences as items, and values JSON cannot hold.
func TestToJSONIsMarshalJSONOnUnusualValues(t *testing.T) {
	list := `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: numbers}
  data: {a: 0x1F, b: 0o17, c: 017, d: 1e3, e: -1.5, f: .inf, g: .nan, h: 1_000, i: 12345678901234567890, j: -0}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: scalars}
  data:
    a: yes
    b: true
    c: ~
    d: null
    e: ""
    f: 2001-12-14
    g: 2001-12-14t21:59:43.10-05:00
    h: !!binary aGVsbG8=
    i: !!str 12
    j: 'quoted'
    k: "a\tb"
    l: |
      literal
    m: >
      folded
      text
    n: |+
      kept

- apiVersion: v1
  kind: ConfigMap
  metadata: &meta {name: anchored, labels: {a: b}}
  base: &base {x: 1, y: 2}
  merged: {<<: *base, y: 3}
  again: *meta
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: alias-elsewhere}
  data: *base
- # a comment on the item
  apiVersion: v1
  kind: ConfigMap # a line comment
  metadata:
    name: comments
    # a head comment
    labels: {a: b}
  # a foot comment
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: keys}
  data: {1: one, true: two, null: three, [a]: four}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: duplicate}
  data: {a: 1, a: 2}
- - a sequence
  - as an item
- just a scalar
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: nested}
  data: {a: [1, [2, {b: [c, {d: e}]}]], "quoted key": {"": empty}}
- {}
- []
`
	sameJSON(t, "unusual", readList(t, []byte(list)))
}

// BenchmarkToJSON and BenchmarkMarshalJSON compare the two conversions on the items of 200 generated routes.
func BenchmarkToJSON(b *testing.B) {
	var in bytes.Buffer
	resourcelist.Generate(&in, 200, 1)
	nodes, err := (&kio.ByteReadWriter{Reader: &in}).Read()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("ToJSON", func(b *testing.B) {
		for b.Loop() {
			for _, n := range nodes {
				if _, err := ToJSON(n); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("MarshalJSON", func(b *testing.B) {
		for b.Loop() {
			for _, n := range nodes {
				if _, err := n.MarshalJSON(); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// TestToJSONIsMarshalJSONWithComments writes random trees with comments on random nodes (head, line and foot
// comments; block and flow collections; keys, values and sequence items), parses the text as the render's
// reader does, and requires ToJSON to give MarshalJSON's bytes: the fast path takes every item whose comments
// are in block style, and the evidence that yaml.v3 writes those where they read back is here.
func TestToJSONIsMarshalJSONWithComments(t *testing.T) {
	gen := &yamlrand.Gen{R: rand.New(rand.NewPCG(7, 11)), Scalars: commentScalars, Keys: []string{"a", "name", "spec"},
		KeyFromScalars: 8, Styles: []yaml.Style{yaml.DoubleQuotedStyle, yaml.LiteralStyle}, Tags: []string{"!!str"},
		ValueOdds: 6, KeyOdds: 30, Comments: 6, Flow: 4}
	fast := 0
	for i := range 3000 {
		item := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
			scalar("apiVersion"), scalar("v1"), scalar("kind"), scalar("ConfigMap"),
			scalar("metadata"), {Kind: yaml.MappingNode, Content: []*yaml.Node{scalar("name"), scalar(fmt.Sprint("c", i))}},
			scalar("data"), gen.Mapping(0),
		}}
		var text bytes.Buffer
		enc := yaml.NewEncoder(&text)
		enc.SetIndent(2)
		require.NoError(t, enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{
			{Kind: yaml.MappingNode, Content: []*yaml.Node{scalar("apiVersion"), scalar("config.kubernetes.io/v1"),
				scalar("kind"), scalar("ResourceList"), scalar("items"),
				{Kind: yaml.SequenceNode, Content: []*yaml.Node{item}}}}}}))
		nodes, err := (&kio.ByteReadWriter{Reader: bytes.NewReader(text.Bytes()), KeepReaderAnnotations: true}).Read()
		if err != nil {
			continue // yaml.v3 wrote a comment it cannot read back: not an input the render can meet
		}
		for _, n := range nodes {
			if plainTree(n.YNode(), true, false) {
				fast++
			}
		}
		sameJSON(t, text.String(), nodes)
	}
	require.Greater(t, fast, 1000, "the fast path must be the one compared")
}

func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }

var commentScalars = []string{"word", "two words", "42", "-1.5", "true", "null", "", "0x1F", "a: b", "# not a comment",
	"- dash", "line one\nline two\n", "trailing space ", "'quoted'", "{flow}", "[seq]", "*star", "&amp", "%pct", "@at"}

// TestToJSONIsMarshalJSONOnFlowFleet compares the two on a fleet written as people write YAML (flow collections,
// comments above keys), the bench's FLEET=flow.
func TestToJSONIsMarshalJSONOnFlowFleet(t *testing.T) {
	var b, flow bytes.Buffer
	resourcelist.GenerateShape(&b, 300, 5, resourcelist.Shape{Heavy: true})
	require.NoError(t, resourcelist.Flow(&flow, &b))
	nodes := readList(t, flow.Bytes())
	fast := 0
	for _, n := range nodes {
		if plainTree(n.YNode(), true, false) {
			fast++
		}
	}
	require.Equal(t, len(nodes), fast, "every item of the fleet takes the fast path")
	sameJSON(t, "flow fleet", nodes)
}
