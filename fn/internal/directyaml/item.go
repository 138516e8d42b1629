package directyaml

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/literal"
)

// maxSimpleKey is the longest key yaml.v3 writes as "key: value"; a longer one is written as an explicit "? key".
const maxSimpleKey = 128

// AppendItem appends item as yaml.v3's encoder writes it as an entry of a block sequence at column 0 ("- ", then
// the item's keys at column 2), which is how the items of a ResourceList are written, and reports true; or
// returns buf unchanged and false when the item holds anything outside the subset written here.
func AppendItem(buf []byte, item *yaml.Node, m *Memo) ([]byte, bool) {
	w := writer{buf: buf, memo: m}
	item, ok := w.rootComment(item)
	if !ok {
		return buf, false
	}
	w.buf = append(w.buf, "- "...)
	if !w.mapping(item, 2, true) {
		return buf, false
	}
	return w.buf, true
}

// rootComment writes an item's head comment (the lines above it in a file), which the encoder writes at column 0
// above the item, and returns the item without it.
func (w *writer) rootComment(item *yaml.Node) (*yaml.Node, bool) {
	if item == nil || item.HeadComment == "" {
		return item, item != nil
	}
	if !commentLines(item.HeadComment) {
		return nil, false
	}
	w.buf = append(append(w.buf, item.HeadComment...), '\n')
	bare := *item
	bare.HeadComment = ""
	return &bare, true
}

// AppendDocument appends item as yaml.v3's encoder writes it as a document of a stream (its keys at column 0,
// no "---"), which is how kio.ByteWriter writes the documents of a multi-document stream, and reports true; or
// returns buf unchanged and false, as AppendItem does.
func AppendDocument(buf []byte, item *yaml.Node, m *Memo) ([]byte, bool) {
	w := writer{buf: buf, memo: m}
	item, ok := w.rootComment(item)
	if !ok || !w.mapping(item, 0, false) {
		return buf, false
	}
	return w.buf, true
}

type writer struct {
	buf  []byte
	memo *Memo
}

// mapping writes a block mapping whose keys stand at column indent; when inline, the first key follows what is
// already on the line (the "- " of a sequence entry).
func (w *writer) mapping(n *yaml.Node, indent int, inline bool) bool {
	if !collection(n, yaml.MappingNode, "!!map") || len(n.Content)%2 != 0 {
		return false
	}
	for i := 0; i < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k == nil || v == nil {
			return false // the encoder's to report
		}
		if c, ok := keyComment(k); !ok || c != "" && i == 0 && inline {
			return false // the encoder writes a comment on an entry's first key on the entry's own line
		} else if c != "" {
			for line := range strings.SplitSeq(c, "\n") {
				w.indent(indent)
				w.buf = append(append(w.buf, line...), '\n')
			}
		}
		if i > 0 || !inline {
			w.indent(indent)
		}
		if !simpleKey(k) {
			return false
		}
		w.buf = append(w.buf, k.Value...)
		var ok bool
		switch {
		case v.Kind == yaml.ScalarNode:
			ok = w.value(v, indent)
		case inFlow(v):
			w.buf = append(w.buf, ": "...)
			ok = w.flow(v)
			w.buf = append(w.buf, '\n')
		case v.Kind == yaml.MappingNode:
			w.buf = append(w.buf, ":\n"...)
			ok = w.mapping(v, indent+2, false)
		case v.Kind == yaml.SequenceNode:
			// A sequence in a mapping is compact: its "- " stand at the key's column.
			w.buf = append(w.buf, ":\n"...)
			ok = w.sequence(v, indent)
		}
		if !ok {
			return false
		}
	}
	return true
}

// sequence writes a block sequence whose "- " stand at column indent. An entry that is itself a sequence is left
// to the encoder.
func (w *writer) sequence(n *yaml.Node, indent int) bool {
	if !collection(n, yaml.SequenceNode, "!!seq") {
		return false
	}
	for _, it := range n.Content {
		if it == nil {
			return false
		}
		w.indent(indent)
		w.buf = append(w.buf, "- "...)
		switch {
		case it.Kind == yaml.ScalarNode:
			if !w.scalar(it) {
				return false
			}
			w.buf = append(w.buf, '\n')
		case inFlow(it):
			if !w.flow(it) {
				return false
			}
			w.buf = append(w.buf, '\n')
		case it.Kind == yaml.MappingNode:
			if !w.mapping(it, indent+2, true) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// value writes ": " and a scalar mapping value: a literal block, one step deeper than the mapping's keys, for a
// text package literal accepts; the one-line text otherwise.
func (w *writer) value(v *yaml.Node, indent int) bool {
	if !bare(v) {
		return false
	}
	w.buf = append(w.buf, ": "...)
	if isStr(v.Tag) && (v.Style == yaml.LiteralStyle || v.Style == 0 && strings.Contains(v.Value, "\n")) {
		if b, ok := literal.AppendBlock(w.buf, v.Value, indent+2); ok {
			w.buf = b
			return true
		}
	}
	if !w.scalar(v) {
		return false
	}
	w.buf = append(w.buf, '\n')
	return true
}

// scalar appends the one-line text of a scalar. The texts of printable ASCII strings follow from their style
// alone (yaml.v3's emitter, emitterc.go): plain for a Plain word; in double quotes with " and \ escaped; in single
// quotes with ' doubled (allowed for any printable ASCII on one line); a canonical decimal integer or a boolean
// tagged as such is written as it is (its tag is implied). Anything else is encoded by yaml.v3 (see Memo).
func (w *writer) scalar(n *yaml.Node) bool {
	if !bare(n) {
		return false
	}
	v := n.Value
	switch {
	case n.Style == 0 && isStr(n.Tag) && Plain(v),
		n.Style == 0 && n.Tag == "!!int" && Decimal(v),
		n.Style == 0 && n.Tag == "!!bool" && (v == "true" || v == "false"):
		w.buf = append(w.buf, v...)
		return true
	case n.Style == yaml.DoubleQuotedStyle && isStr(n.Tag) && literal.PrintableASCII(v):
		w.buf = append(w.buf, '"')
		for i := 0; i < len(v); i++ {
			if v[i] == '"' || v[i] == '\\' {
				w.buf = append(w.buf, '\\')
			}
			w.buf = append(w.buf, v[i])
		}
		w.buf = append(w.buf, '"')
		return true
	case n.Style == yaml.SingleQuotedStyle && isStr(n.Tag) && literal.PrintableASCII(v):
		w.buf = append(w.buf, '\'')
		for i := 0; i < len(v); i++ {
			if v[i] == '\'' {
				w.buf = append(w.buf, '\'')
			}
			w.buf = append(w.buf, v[i])
		}
		w.buf = append(w.buf, '\'')
		return true
	}
	text, ok := w.memo.scalar(n)
	w.buf = append(w.buf, text...)
	return ok
}

// inFlow reports whether the encoder writes a collection in flow style: one that asks for it, or an empty one
// ({} or []).
func inFlow(n *yaml.Node) bool {
	return (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && (n.Style&yaml.FlowStyle != 0 || len(n.Content) == 0)
}

// flow writes a collection in flow style on one line ("{k: v, k: v}", "[a, b]"; the encoder has no line width),
// with everything in it in flow style too. Only scalars whose text does not depend on the flow context are
// written (those scalar writes itself, none of the encoder's); anything else is refused.
func (w *writer) flow(n *yaml.Node) bool {
	if !bare(n) || n.Style&^yaml.FlowStyle != 0 {
		return false
	}
	open, close := byte('['), byte(']')
	step := 1
	switch {
	case n.Kind == yaml.MappingNode && (n.Tag == "" || n.Tag == "!!map") && len(n.Content)%2 == 0:
		open, close, step = '{', '}', 2
	case n.Kind == yaml.SequenceNode && (n.Tag == "" || n.Tag == "!!seq"):
	default:
		return false
	}
	w.buf = append(w.buf, open)
	for i := 0; i < len(n.Content); i += step {
		if i > 0 {
			w.buf = append(w.buf, ", "...)
		}
		v := n.Content[i]
		if step == 2 {
			if k := n.Content[i]; k == nil || !bare(k) || !simpleKey(k) {
				return false
			} else {
				w.buf = append(append(w.buf, k.Value...), ": "...)
			}
			v = n.Content[i+1]
		}
		if v == nil {
			return false
		}
		switch v.Kind {
		case yaml.ScalarNode:
			if !w.flowScalar(v) {
				return false
			}
		case yaml.MappingNode, yaml.SequenceNode:
			if !w.flow(v) {
				return false
			}
		default:
			return false
		}
	}
	w.buf = append(w.buf, close)
	return true
}

// flowScalar writes a scalar inside a flow collection when its text is what scalar writes itself: a Plain word
// (no flow indicator in it), a decimal integer, a boolean, or a quoted printable ASCII text.
func (w *writer) flowScalar(n *yaml.Node) bool {
	if !bare(n) {
		return false
	}
	switch {
	case n.Style == 0 && isStr(n.Tag) && Plain(n.Value), n.Style == 0 && n.Tag == "!!int" && Decimal(n.Value),
		n.Style == 0 && n.Tag == "!!bool" && (n.Value == "true" || n.Value == "false"),
		(n.Style == yaml.DoubleQuotedStyle || n.Style == yaml.SingleQuotedStyle) && isStr(n.Tag) &&
			literal.PrintableASCII(n.Value):
		return w.scalar(n)
	}
	return false
}

// keyComment returns a key's head comment, which the encoder writes on lines of their own above the key, at the
// key's column (ok false for one outside commentLines; the key's other comments are simpleKey's to refuse).
func keyComment(k *yaml.Node) (comment string, ok bool) {
	if k == nil {
		return "", false
	}
	if k.HeadComment == "" {
		return "", true
	}
	return k.HeadComment, commentLines(k.HeadComment)
}

// commentLines reports whether a comment is lines of printable ASCII that each start with "#": written line by
// line as they are. A blank line in a comment, or other text, is left to the encoder.
func commentLines(c string) bool {
	for line := range strings.SplitSeq(c, "\n") {
		if !strings.HasPrefix(line, "#") || !literal.PrintableASCII(line) {
			return false
		}
	}
	return true
}

// Decimal reports whether s is an integer as YAML and Go write it: 0, or a digit 1-9 and up to 17 more digits.
func Decimal(s string) bool {
	if s == "0" {
		return true
	}
	if s == "" || len(s) > 18 || s[0] < '1' || s[0] > '9' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (w *writer) indent(n int) { w.buf = literal.AppendSpaces(w.buf, n) }

// simpleKey reports whether a key is written as it is: a Plain string scalar, short enough to be a simple key
// (its head comment, if any, is the caller's: see keyComment).
func simpleKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Anchor == "" && k.LineComment == "" && k.FootComment == "" && k.Style == 0 &&
		isStr(k.Tag) && len(k.Value) <= maxSimpleKey && Plain(k.Value)
}

// collection reports whether n is a non-empty block mapping or sequence with no tag of its own (an empty one is
// written in flow style, "{}" or "[]").
func collection(n *yaml.Node, kind yaml.Kind, tag string) bool {
	return n != nil && n.Kind == kind && bare(n) && n.Style == 0 && (n.Tag == "" || n.Tag == tag) && len(n.Content) > 0
}

// bare reports whether n carries no anchor and no comments, which the encoder would write around it.
func bare(n *yaml.Node) bool {
	return n.Anchor == "" && n.HeadComment == "" && n.LineComment == "" && n.FootComment == ""
}

func isStr(tag string) bool { return tag == "" || tag == "!!str" }
