package literal

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

var doc = "{\n" + strings.Repeat("  \"key\": \"value\",\n", 40) + "  \"last\": true\n}\n"

func TestDirectTakesOnlyTextsTheEmittersWritePlainly(t *testing.T) {
	for name, c := range map[string]struct {
		text string
		want bool
	}{
		"a JSON document":            {doc, true},
		"too short":                  {"{\n}\n", false},
		"no final newline":           {strings.TrimSuffix(doc, "\n"), false},
		"two final newlines":         {doc + "\n", false},
		"an empty line":              {strings.Replace(doc, ",\n", ",\n\n", 1), false},
		"a line ending in a space":   {strings.Replace(doc, ",\n", ", \n", 1), false},
		"a tab":                      {strings.Replace(doc, "value", "va\tlue", 1), false},
		"beyond ASCII":               {strings.Replace(doc, "value", "välue", 1), false},
		"first line starts with one": {" " + doc, false},
		"first line is empty":        {"\n" + doc, false},
	} {
		require.Equal(t, c.want, Direct(c.text), name)
	}
}

// TestReplaceAndSpliceGiveTheEmittersBytes encodes a document with kyaml's encoder twice, as is and through
// Replace and Splice, and requires the same bytes.
func TestReplaceAndSpliceGiveTheEmittersBytes(t *testing.T) {
	n, err := yaml.Parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  short: |\n    x\n")
	require.NoError(t, err)
	require.NoError(t, n.PipeE(yaml.LookupCreate(yaml.MappingNode, "data"),
		yaml.SetField("tyk-oas.json", yaml.NewStringRNode(doc))))
	n.Field("data").Value.Field("tyk-oas.json").Value.YNode().Style = yaml.LiteralStyle
	want, err := n.String()
	require.NoError(t, err)

	replaced, texts := Replace(n.YNode(), true, nil)
	require.Len(t, texts, 1, "only the long literal block is replaced")
	require.Equal(t, doc, n.Field("data").Value.Field("tyk-oas.json").Value.YNode().Value, "the node given is not changed")
	b, err := yaml.NewRNode(replaced).String()
	require.NoError(t, err)
	got, ok := Splice([]byte(b), texts)
	require.True(t, ok)
	require.Equal(t, want, string(got))

	_, ok = Splice([]byte("items:\n- "+blockPlaceholder+"0\n"), texts)
	require.False(t, ok, "a placeholder that is not a mapping value is left to the emitter")
}
