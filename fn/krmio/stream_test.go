package krmio_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/bench/resourcelist"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/yamlrand"
	"github.com/gateway2tyk/gateway2tyk/fn/krmio"
)

// renderClear are the annotations gateway2tyk render clears.
var renderClear = []string{kioutil.PathAnnotation, kioutil.IndexAnnotation, kioutil.LegacyPathAnnotation,
	kioutil.LegacyIndexAnnotation, kioutil.IdAnnotation, kioutil.LegacyIdAnnotation}

// sameStream requires WriteStream to write kio.ByteWriter's bytes (or its error) for nodes, and leave them as
// they were.
func sameStream(t *testing.T, name string, nodes []*yaml.RNode) {
	t.Helper()
	before := kioString(t, nodes)
	var want, got bytes.Buffer
	wantErr := kio.ByteWriter{Writer: &want, ClearAnnotations: renderClear}.Write(nodes)
	gotErr := krmio.WriteStream(&got, nodes, renderClear)
	require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), "%s: error", name)
	if want.String() != got.String() {
		require.Equal(t, want.String(), got.String(), "%s: output", name)
	}
	require.Equal(t, before, kioString(t, nodes), "%s: the nodes are not changed", name)
}

func kioString(t *testing.T, nodes []*yaml.RNode) string {
	var b bytes.Buffer
	require.NoError(t, kio.ByteWriter{Writer: &b, KeepReaderAnnotations: true}.Write(nodes))
	return b.String()
}

// renderedItems is what the render makes of a ResourceList: its output items, as gateway2tyk render writes them.
func renderedItems(t *testing.T, input []byte) []*yaml.RNode {
	t.Helper()
	rw := &kio.ByteReadWriter{Reader: bytes.NewReader(input), KeepReaderAnnotations: true}
	items, err := rw.Read()
	require.NoError(t, err)
	rl := &framework.ResourceList{Items: items, FunctionConfig: rw.FunctionConfig}
	_ = fn.Processor{}.Process(rl)
	return rl.Items
}

func TestWriteStreamIsByteWriterOnRenders(t *testing.T) {
	inputs, err := filepath.Glob("../testdata/*/input.yaml")
	require.NoError(t, err)
	var all []*yaml.RNode
	for _, path := range inputs {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		out := renderedItems(t, data)
		sameStream(t, path, out)
		all = append(all, out...)
	}
	sameStream(t, "every golden story's output in one stream", all)
	for _, shape := range []resourcelist.Shape{{}, {Heavy: true}, {Hostnames: 2}} {
		var b, flow bytes.Buffer
		resourcelist.GenerateShape(&b, 300, 3, shape)
		sameStream(t, fmt.Sprintf("fleet %+v", shape), renderedItems(t, b.Bytes()))
		require.NoError(t, resourcelist.Flow(&flow, bytes.NewReader(b.Bytes())))
		sameStream(t, fmt.Sprintf("flow fleet %+v", shape), renderedItems(t, flow.Bytes()))
	}
}

// TestWriteStreamIsByteWriterOnRandomDocuments: random trees with comments, flow collections, block scalars,
// tags and odd keys, read back as a reader makes them; every 97th stream also holds a document that is not a
// mapping, which sends the stream to kio's writer.
func TestWriteStreamIsByteWriterOnRandomDocuments(t *testing.T) {
	gen := &yamlrand.Gen{R: rand.New(rand.NewPCG(3, 5)), Scalars: []string{"word", "two words", "42", "true", "", "a: b",
		"# x", "line one\nline two\n", "kept\n\n", "trailing ", "'q'", "{f}", "- d", "*s", "tab\there"},
		Keys: []string{"a", "name", "metadata", "annotations"}, KeyFromScalars: 8,
		Styles: []yaml.Style{yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle, yaml.LiteralStyle, yaml.FoldedStyle},
		Tags:   []string{"!!str", "!!int"}, ValueOdds: 5, KeyOdds: 30, Odd: true, Comments: 8, Flow: 10}
	for s := range 200 {
		var docs []*yaml.Node
		for i := range 70 {
			m := gen.Mapping(0)
			m.Content = append([]*yaml.Node{{Kind: yaml.ScalarNode, Value: "kind"}, {Kind: yaml.ScalarNode, Value: fmt.Sprint("K", i)}}, m.Content...)
			docs = append(docs, m)
		}
		if s%97 == 0 {
			docs = append(docs, &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "x"}}})
		}
		var text bytes.Buffer
		enc := yaml.NewEncoder(&text)
		for _, d := range docs {
			require.NoError(t, enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{d}}))
		}
		require.NoError(t, enc.Close())
		nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(text.Bytes())}).Read()
		if err != nil {
			continue // text the encoder wrote that does not read back: not something the render meets
		}
		sameStream(t, text.String(), nodes)
	}
}
