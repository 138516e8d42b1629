package directyaml

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestScalarsWrittenWithoutTheEncoder checks the texts scalar writes itself, without the memo: each is what the
// encoder writes for the same node as a mapping value and as a sequence entry.
func TestScalarsWrittenWithoutTheEncoder(t *testing.T) {
	cases := []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "edge"},
		{Kind: yaml.ScalarNode, Tag: "!!str", Value: "/orders/v1"},
		{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.DoubleQuotedStyle, Value: `[{"a":"b \"c\" \\ d"}]`},
		{Kind: yaml.ScalarNode, Style: yaml.DoubleQuotedStyle, Value: ""},
		{Kind: yaml.ScalarNode, Style: yaml.DoubleQuotedStyle, Value: "true"},
		{Kind: yaml.ScalarNode, Style: yaml.SingleQuotedStyle, Value: "it's 0"},
		{Kind: yaml.ScalarNode, Style: yaml.SingleQuotedStyle, Value: ""},
		{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.SingleQuotedStyle, Value: " # : - "},
		{Kind: yaml.ScalarNode, Tag: "!!int", Value: "8080"},
		{Kind: yaml.ScalarNode, Tag: "!!int", Value: "0"},
		{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "false"},
	}
	for _, n := range cases {
		m := NewMemo()
		for _, item := range []*yaml.Node{
			{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "key"}, n}},
			{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "list"},
				{Kind: yaml.SequenceNode, Content: []*yaml.Node{n, n}}}},
		} {
			got, ok := AppendItem(nil, item, m)
			require.True(t, ok, "%q", n.Value)
			var want bytes.Buffer
			enc := yaml.NewEncoder(&want)
			list := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "items"},
				{Kind: yaml.SequenceNode, Content: []*yaml.Node{item}}}}
			require.NoError(t, enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{list}}))
			require.NoError(t, enc.Close())
			require.Equal(t, strings.TrimPrefix(want.String(), "items:\n"), string(got), "%q (style %d, tag %q)", n.Value, n.Style, n.Tag)
		}
		require.Empty(t, m.seen, "%q is written without the encoder", n.Value)
	}
}
