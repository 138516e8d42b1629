package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every configure run says what it changed, on stderr (stdout is the manifests in the Argo CD plugin), and
// leaves the rest of the files as they were: --detach-transformer kept examples/basic's indented lists.
func TestConfigureSaysWhatItChanged(t *testing.T) {
	dir := example(t, "basic")
	before, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	require.NoError(t, err)

	code, out, stderr := cli(t, "", "configure", "--output", "TykOasApiDefinition", "--fail-on", "Warning", dir)
	assert.Equal(t, 0, code, stderr)
	assert.Empty(t, out)
	cfg := filepath.Join(dir, "gateway2tyk.yaml")
	assert.Equal(t, "configure: "+cfg+": RenderConfig gateway2tyk: spec.failOn: (unset) -> Warning\n"+
		"configure: "+cfg+": RenderConfig gateway2tyk: spec.output: ConfigMap -> TykOasApiDefinition\n", stderr)

	code, _, stderr = cli(t, "", "configure", "--output", "TykOasApiDefinition", dir)
	assert.Equal(t, 0, code)
	assert.Equal(t, "configure: nothing changed: spec.output=TykOasApiDefinition already set in the RenderConfigs at or below "+dir+"\n", stderr)

	code, out, stderr = cli(t, "", "configure", "--detach-transformer", dir)
	assert.Equal(t, 0, code, stderr)
	assert.Empty(t, out)
	k := filepath.Join(dir, "kustomization.yaml")
	assert.Equal(t, "configure: "+k+": removed gateway2tyk.yaml from transformers\n", stderr)
	after, err := os.ReadFile(k)
	require.NoError(t, err)
	assert.Equal(t, string(before[:len(before)-len("transformers:\n  - gateway2tyk.yaml\n")]), string(after),
		"only the transformers entry goes; the lists stay indented")

	code, _, stderr = cli(t, "", "configure", "--detach-transformer", dir)
	assert.Equal(t, 0, code)
	assert.Equal(t, "configure: nothing changed: gateway2tyk is not among the transformers of "+k+"\n", stderr)
}
