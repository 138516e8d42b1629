package kustomization

import (
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/directyaml"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/literal"
)

// generic is the value sigs.k8s.io/yaml's JSONToYAML hands yaml.v2's Marshal when it converts the object's JSON
// (read.ToJSON), built from the node directly: the JSON text and yaml.v2's parse of it were half of the
// conversion's time. It builds only what that round trip is known to give back unchanged, and reports false for
// anything else (the caller then converts the JSON):
//   - mappings whose keys are strings (quoted, tagged !!str, or a Plain word; never "<<", a merge to yaml.v3),
//     each once, as map[string]any (yaml.v2 sorts map[string]any and the map[any]any of its parse alike);
//   - sequences, as []any;
//   - strings of printable ASCII and line breaks (yaml.v3 decodes a !!str, a quoted scalar or a Plain word as a
//     string; JSON escapes and yaml.v2 reads back such text as it was);
//   - canonical decimal integers tagged !!int, as int, and true and false tagged !!bool, as bool.
//
// Aliases, comments, nulls, floats, timestamps, other tags and other text are refused.
func generic(n *yaml.Node) (any, bool) {
	if n.Anchor != "" || n.HeadComment != "" || n.LineComment != "" || n.FootComment != "" {
		return nil, false
	}
	switch n.Kind {
	case yaml.MappingNode:
		if n.Tag != "" && n.Tag != "!!map" || len(n.Content)%2 != 0 {
			return nil, false
		}
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i < len(n.Content); i += 2 {
			k, ok := stringValue(n.Content[i])
			if !ok || k == "<<" { // yaml.v3 reads an untagged "<<" key as a merge, quoted or not
				return nil, false
			}
			if _, dup := m[k]; dup {
				return nil, false
			}
			v, ok := generic(n.Content[i+1])
			if !ok {
				return nil, false
			}
			m[k] = v
		}
		return m, true
	case yaml.SequenceNode:
		if n.Tag != "" && n.Tag != "!!seq" {
			return nil, false
		}
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, ok := generic(c)
			if !ok {
				return nil, false
			}
			s[i] = v
		}
		return s, true
	case yaml.ScalarNode:
		if s, ok := stringValue(n); ok {
			return s, true
		}
		switch {
		case n.Tag == "!!int" && n.Style == 0 && directyaml.Decimal(n.Value):
			i, err := strconv.Atoi(n.Value)
			return i, err == nil
		case n.Tag == "!!bool" && n.Style == 0 && (n.Value == "true" || n.Value == "false"):
			return n.Value == "true", true
		}
	}
	return nil, false
}

// stringValue is the string yaml.v3 decodes a scalar to, when it certainly decodes it to a string and the text
// survives JSON and yaml.v2 unchanged.
func stringValue(n *yaml.Node) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || n.Anchor != "" || n.HeadComment != "" || n.LineComment != "" ||
		n.FootComment != "" || !textOnly(n.Value) {
		return "", false
	}
	quoted := n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0
	switch {
	case n.Tag == "!!str", n.Tag == "" && (quoted || directyaml.Plain(n.Value)):
		return n.Value, true
	}
	return "", false
}

// textOnly reports whether each line of s is printable ASCII.
func textOnly(s string) bool {
	for line := range strings.SplitSeq(s, "\n") {
		if !literal.PrintableASCII(line) {
			return false
		}
	}
	return true
}
