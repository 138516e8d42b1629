package e2e_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

// renderInput renders a ResourceList (a story's input.yaml) with its own function config, in memory: the items
// read and the render's output.
func renderInput(t *testing.T, input string) ([]*yaml.RNode, *fn.Output) {
	t.Helper()
	rw := &kio.ByteReader{Reader: strings.NewReader(input), WrapBareSeqNode: false}
	items, err := rw.Read()
	require.NoError(t, err)
	cfg, err := config.Load(rw.FunctionConfig)
	require.NoError(t, err)
	out, err := fn.Render(items, cfg)
	require.NoError(t, err)
	return items, out
}
