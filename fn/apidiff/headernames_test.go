package apidiff_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/gateway2tyk/gateway2tyk/fn/apidiff"
)

// A diff of the gateway-api profile on Gateways that keep header names as written (the RenderConfig's
// ignoreCanonicalMIMEHeaderKey) words a ResponseHeaderModifier's add as an add: the render writes it by its name in
// lower case, which those Gateways write beside the backend's header; read as Tyk's default it would be a set.
func TestDiffWordsResponseAdds(t *testing.T) {
	story, err := os.ReadFile("../testdata/profile-gateway-api-response-header-add/input.yaml")
	require.NoError(t, err)
	side := func(input string) *apidiff.Snapshot {
		r := &kio.ByteReader{Reader: strings.NewReader(input), OmitReaderAnnotations: true}
		items, err := r.Read()
		require.NoError(t, err)
		s, err := apidiff.Render(items, r.FunctionConfig, "")
		require.NoError(t, err)
		return s
	}
	// The old side has /catalog's set and remove only.
	before := strings.Replace(string(story), "                add: [{name: Vary, value: Accept-Encoding}]\n", "", 1)
	require.NotEqual(t, string(story), before)
	r, err := apidiff.Compare(side(before), side(string(story)), nil)
	require.NoError(t, err)
	var text bytes.Buffer
	require.NoError(t, r.WriteText(&text))
	assert.Contains(t, text.String(), "      response headers\n"+
		"        - every method: set Cache-Control: public, max-age=300, remove Server\n"+
		"        + every method: set Cache-Control: public, max-age=300, add vary: Accept-Encoding, remove Server\n",
		text.String())
}
