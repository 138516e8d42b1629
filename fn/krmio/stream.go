package krmio

import (
	"bytes"
	"io"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/directyaml"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/libio"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/meta"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/parallel"
)

// WriteStream writes the nodes as a multi-document YAML stream, as kio.ByteWriter{Writer: out, ClearAnnotations:
// clear}.Write(nodes) does, byte for byte (gateway2tyk render's output), with the documents written on every core
// and streamed out in order: kio's writer copies every node first and runs the encoder over each document, which at
// 10,000 routes was a third of a render's time and most of its memory.
//
// Each document is a copy of its node with kio's annotations cleared, as kio clears them. Most are written by
// package directyaml; the others are encoded by yaml.v3 as the middle document of a stream of three, the two
// around it plain scalars, and cut out: what the emitter writes for a document does not depend on its neighbours
// but for the "---" line that starts every document after the first. Anything outside that (few documents,
// a document that is not a mapping, a wide sequence indent) is written by kio itself.
func WriteStream(out io.Writer, nodes []*yaml.RNode, clear []string) error {
	if libio.On() || len(nodes) < 64 || !streamable(nodes) {
		return kio.ByteWriter{Writer: out, ClearAnnotations: clear}.Write(nodes)
	}
	const chunk = 128
	pieces := parallel.Map((len(nodes)+chunk-1)/chunk, func(k int) streamPiece {
		from := k * chunk
		return encodeDocuments(nodes[from:min(from+chunk, len(nodes))], clear, from == 0)
	})
	// Every document is encoded before anything is written, so that a document outside the frame can still be
	// left to kio's writer with the whole stream (the text is a fraction of the size of kio's copy of the nodes).
	for _, p := range pieces {
		if p.err != nil {
			return p.err
		}
		if p.fallback {
			return kio.ByteWriter{Writer: out, ClearAnnotations: clear}.Write(nodes)
		}
	}
	for _, p := range pieces {
		if _, err := out.Write(p.buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// streamable reports whether every node is a mapping without kio's wide sequence indent annotation: the documents
// WriteStream writes itself.
func streamable(nodes []*yaml.RNode) bool {
	for _, n := range nodes {
		if n == nil || n.YNode() == nil || n.YNode().Kind != yaml.MappingNode ||
			meta.Annotations(n)[kioutil.SeqIndentAnnotation] == string(yaml.WideSequenceStyle) {
			return false
		}
	}
	return true
}

// streamPiece is the text of consecutive documents, each but the stream's first starting with "---".
type streamPiece struct {
	buf      *bytes.Buffer
	err      error
	fallback bool
}

// encodeDocuments writes the documents of nodes; first says whether the first of them starts the stream.
func encodeDocuments(nodes []*yaml.RNode, clear []string, first bool) streamPiece {
	p := streamPiece{buf: &bytes.Buffer{}}
	memo := directyaml.NewMemo()
	for i, n := range nodes {
		doc, err := clearedCopy(n, clear)
		if err != nil {
			return streamPiece{err: err}
		}
		if i > 0 || !first {
			p.buf.WriteString("---\n")
		}
		if b, ok := directyaml.AppendDocument(p.buf.AvailableBuffer(), doc.YNode(), memo); ok {
			p.buf.Write(b)
			continue
		}
		text, ok, err := framedDocument(doc.YNode())
		if err != nil {
			return streamPiece{err: err}
		}
		if !ok {
			return streamPiece{fallback: true}
		}
		p.buf.Write(text)
	}
	return p
}

// clearedCopy is what kio.ByteWriter writes for a node: a copy, with the reader's index and sequence indent
// annotations and the annotations of clear removed, and empty annotations and metadata cleared.
func clearedCopy(n *yaml.RNode, clear []string) (*yaml.RNode, error) {
	c := n.Copy()
	for _, a := range append([]string{kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation, kioutil.SeqIndentAnnotation}, clear...) {
		if _, err := c.Pipe(yaml.ClearAnnotation(a)); err != nil {
			return nil, err
		}
	}
	if err := yaml.ClearEmptyAnnotations(c); err != nil {
		return nil, err
	}
	return c, nil
}

// framedDocument encodes doc as the middle document of a stream of three and returns its text (without the
// "---" before it); ok is false when the stream does not have the frame expected.
func framedDocument(doc *yaml.Node) (text []byte, ok bool, err error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.CompactSeqIndent()
	for _, d := range []*yaml.Node{placeholder(before), doc, placeholder(after)} {
		if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{d}}); err != nil {
			return nil, false, err
		}
	}
	if err := enc.Close(); err != nil {
		return nil, false, err
	}
	b := buf.Bytes()
	head, tail := []byte(before+"\n---\n"), []byte("---\n"+after+"\n")
	if !bytes.HasPrefix(b, head) || !bytes.HasSuffix(b, tail) || len(head) > len(b)-len(tail) {
		return nil, false, nil
	}
	return b[len(head) : len(b)-len(tail)], true, nil
}
