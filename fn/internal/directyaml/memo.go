package directyaml

import (
	"bytes"
	"errors"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Memo holds how yaml.v3 writes the scalars that are not Plain (quoted words, numbers, JSON texts in annotations),
// each distinct one encoded once: most of them repeat from object to object (the conditions of every API of a
// Gateway are one text). It is not safe for concurrent use; each writing goroutine holds its own.
type Memo struct {
	seen map[scalarKey]string
	enc  bytes.Buffer
}

type scalarKey struct {
	value, tag string
	style      yaml.Style
}

const (
	memoEntries  = 1 << 12 // beyond this many, new values are encoded every time
	memoValueMax = 1 << 10 // longer values are encoded every time: they rarely repeat
)

// NewMemo returns an empty Memo.
func NewMemo() *Memo { return &Memo{seen: map[scalarKey]string{}} }

// memoKey is the key of the one-entry mapping a scalar is encoded in; its value's text follows "k: ".
const memoKey = "k"

// scalar returns the text yaml.v3 writes for the scalar n as a value (after "key: " or "- "), or false when that
// text is not one line (a block scalar, base64 of invalid UTF-8) or the encoder fails. The text of a one-line
// scalar does not depend on where it stands: with no line width the emitter never breaks it, and a value and a
// sequence entry are written in the same block context.
func (m *Memo) scalar(n *yaml.Node) (string, bool) {
	k := scalarKey{value: n.Value, tag: n.Tag, style: n.Style}
	if s, ok := m.seen[k]; ok {
		return s, true
	}
	m.enc.Reset()
	enc := yaml.NewEncoder(&m.enc)
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: memoKey},
		{Kind: yaml.ScalarNode, Tag: n.Tag, Style: n.Style, Value: n.Value},
	}}}}
	if err := encodeSafely(enc, doc); err != nil {
		return "", false
	}
	out := m.enc.String()
	text, ok := strings.CutPrefix(out, memoKey+": ")
	if !ok || !strings.HasSuffix(text, "\n") || strings.Count(text, "\n") != 1 {
		return "", false
	}
	text = text[:len(text)-1]
	if len(m.seen) < memoEntries && len(n.Value) <= memoValueMax {
		m.seen[k] = text
	}
	return text, true
}

// encodeSafely encodes doc, turning the encoder's panics (it panics on some invalid nodes) into an error: the
// caller then leaves the item to the encoder proper, which reports it as it always has.
func encodeSafely(enc *yaml.Encoder, doc *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errPanicked
		}
	}()
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return enc.Close()
}

var errPanicked = errors.New("directyaml: the encoder panicked")
