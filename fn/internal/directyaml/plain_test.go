package directyaml_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/directyaml"
)

// TestPlainIsReadAndWrittenAsAString checks Plain's promise on random short words over an alphabet of letters
// that make YAML's special words, digits, signs and indicators: a Plain word is a string to YAML 1.1 (kyaml's
// yaml.IsValueNonString) and the encoder writes it unquoted, untagged or tagged !!str.
func TestPlainIsReadAndWrittenAsAString(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	values := []string{"y", "Yes", "NO", "on", "Off", "true", "False", "null", "Null", "~", "/", "/a:b", "a-", "a_b.c/d"}
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(8) {
			const alphabet = "aAeEnNoOsStTyYlLuUfF0159./_-+:~ #"
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		values = append(values, b.String())
	}
	plain := 0
	for _, v := range values {
		if !directyaml.Plain(v) {
			continue
		}
		plain++
		require.False(t, yaml.IsValueNonString(v), "Plain(%q)", v)
		for _, tag := range []string{"", "!!str"} {
			var buf bytes.Buffer
			enc := yaml.NewEncoder(&buf)
			require.NoError(t, enc.Encode(&yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v}))
			require.Equal(t, v+"\n", buf.String(), "Plain(%q), tag %q", v, tag)
		}
	}
	require.Greater(t, plain, 1000)
}
