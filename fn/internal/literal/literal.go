// Package literal writes multi-line strings as YAML literal blocks directly, for the writers that would
// otherwise spend most of their time in a YAML emitter on them (directyaml's items in the KRM output,
// kustomization's kustomize build output): the Tyk OAS documents of the emitted ConfigMaps, a few KB each, are
// most of the output. The emitters (yaml.v3's and yaml.v2's) analyse every character of a string to choose its
// style and then write it one character at a time; the literal block of a plain text is fully determined
// (AppendBlock). A writer that holds whole items writes the block itself (directyaml); one that hands items to
// an emitter replaces each long string by a placeholder (Replace) and then the placeholder's line by the block
// (Splice). Only texts whose block the emitters would write the same way take these paths; anything else is
// left to the emitter. The writers' tests compare their output with the emitters', byte for byte.
package literal

import (
	"bytes"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// minBlock is the length from which a string is written directly; shorter ones cost the emitter little.
const minBlock = 512

const blockPlaceholder = "gateway2tyk-literal-block-"

// Direct reports whether an emitter asked for a literal block would write s as "|" followed by its lines
// indented one step, and so may be written directly: a block-shaped text (see blockShape) long enough to be
// worth it.
func Direct(s string) bool { return len(s) >= minBlock && blockShape(s) }

// blockShape reports whether s is a text the emitters write as "|" and its lines, indented, with nothing else:
// printable ASCII lines, none empty, none ending in a space (the emitters would quote the text), the first not
// starting with a space (they would add an indentation indicator), and one final newline (no chomping
// indicator). Tabs, control characters and anything beyond ASCII are left to the emitters.
func blockShape(s string) bool {
	if s == "" || s[len(s)-1] != '\n' || s[0] == ' ' {
		return false
	}
	for s != "" {
		nl := strings.IndexByte(s, '\n')
		line := s[:nl]
		if line == "" || line[len(line)-1] == ' ' || !PrintableASCII(line) {
			return false
		}
		s = s[nl+1:]
	}
	return true
}

// PrintableASCII reports whether s holds only the characters from space to tilde (no breaks, no tabs).
func PrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i]-0x20 > 0x7e-0x20 {
			return false
		}
	}
	return true
}

// AppendBlock appends "|", a line break and the lines of s, each indented by indent spaces, which is how the
// emitters write s as a literal block whose lines stand at that column, and reports true; or returns buf
// unchanged and false when s is not block-shaped.
func AppendBlock(buf []byte, s string, indent int) ([]byte, bool) {
	if !blockShape(s) {
		return buf, false
	}
	return appendBlock(buf, s, indent), true
}

// appendBlock is AppendBlock for a text known to be block-shaped.
func appendBlock(buf []byte, s string, indent int) []byte {
	buf = append(buf, "|\n"...)
	for s != "" {
		nl := strings.IndexByte(s, '\n')
		buf = AppendSpaces(buf, indent)
		buf = append(buf, s[:nl+1]...)
		s = s[nl+1:]
	}
	return buf
}

// spaces is long enough for the indentation of any block the writers write directly; deeper ones are built.
const spaces = "                                                                "

// AppendSpaces appends n spaces.
func AppendSpaces(buf []byte, n int) []byte {
	for n > len(spaces) {
		buf = append(buf, spaces...)
		n -= len(spaces)
	}
	return append(buf, spaces[:n]...)
}

// Replace returns n with every string scalar that Direct accepts, and that literalOnly asks for (only those in
// literal style; an emitter converting from JSON chooses the literal style for any string with a newline),
// replaced by a placeholder scalar, copying only the nodes on the way to them (n itself is shared and is not
// changed), and the texts replaced, in document order. Mapping keys are never replaced.
func Replace(n *yaml.Node, literalOnly bool, texts []string) (*yaml.Node, []string) {
	switch n.Kind {
	case yaml.ScalarNode:
		if (!literalOnly || n.Style&yaml.LiteralStyle != 0) && Direct(n.Value) && (n.Tag == "" || n.Tag == "!!str") &&
			n.HeadComment == "" && n.LineComment == "" && n.FootComment == "" && n.Anchor == "" {
			return &yaml.Node{Kind: yaml.ScalarNode, Value: blockPlaceholder + strconv.Itoa(len(texts))}, append(texts, n.Value)
		}
	case yaml.MappingNode, yaml.SequenceNode, yaml.DocumentNode:
		var content []*yaml.Node
		for i, c := range n.Content {
			if n.Kind == yaml.MappingNode && i%2 == 0 {
				continue
			}
			r, t := Replace(c, literalOnly, texts)
			if r != c {
				if content == nil {
					content = append([]*yaml.Node{}, n.Content...)
				}
				content[i] = r
			}
			texts = t
		}
		if content != nil {
			cp := *n
			cp.Content = content
			return &cp, texts
		}
	}
	return n, texts
}

// Splice replaces the placeholder lines of the encoded document b by the texts' literal blocks. It returns false,
// leaving the job to the emitter, when a placeholder is not alone at the end of a "key: " line.
func Splice(b []byte, texts []string) ([]byte, bool) {
	out := make([]byte, 0, len(b)+2*len(texts)*minBlock)
	rest := b
	for i, text := range texts {
		ph := []byte(": " + blockPlaceholder + strconv.Itoa(i) + "\n")
		at := bytes.Index(rest, ph)
		if at < 0 || bytes.Count(rest, ph) != 1 {
			return nil, false
		}
		lineStart := bytes.LastIndexByte(rest[:at], '\n') + 1
		line := rest[lineStart:at]
		indent := len(line) - len(bytes.TrimLeft(line, " "))
		key := line[indent:]
		if len(key) == 0 || bytes.ContainsAny(key, "\"'#:{}[]&*!|>%@`") || key[0] == '-' || key[0] == '?' {
			return nil, false
		}
		out = appendBlock(append(append(out, rest[:at]...), ": "...), text, indent+2) // Replace took only Direct texts
		rest = rest[at+len(ph):]
	}
	return append(out, rest...), true
}
