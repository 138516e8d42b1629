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

	code, out, stderr := cli(t, "", "configure", "--output-kind", "TykOasApiDefinition", "--fail-on", "Warning", dir)
	assert.Equal(t, 0, code, stderr)
	assert.Empty(t, out)
	cfg := filepath.Join(dir, "gateway2tyk.yaml")
	assert.Equal(t, "configure: "+cfg+": RenderConfig gateway2tyk: spec.failOn: (unset) -> Warning\n"+
		"configure: "+cfg+": RenderConfig gateway2tyk: spec.output: ConfigMap -> TykOasApiDefinition\n", stderr)

	code, _, stderr = cli(t, "", "configure", "--output-kind", "TykOasApiDefinition", dir)
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

// The old spellings, configure --output and sync --context, still work, and say they are deprecated and what
// to write instead; help shows only the new ones. cobra prints the warning with OutOrStderr: stderr in the
// binary, which sets no writer, and the stdout that cli sets here.
func TestDeprecatedSpellings(t *testing.T) {
	dir := example(t, "basic")
	code, warning, stderr := cli(t, "", "configure", "--output", "TykOasApiDefinition", dir)
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, "Flag --output has been deprecated, use --output-kind (the same spec.output; -o/--output is a format elsewhere)\n", warning)
	assert.Contains(t, stderr, "spec.output: ConfigMap -> TykOasApiDefinition")

	code, warning, stderr = cli(t, "", "sync", "--context", "no-slash", "--from", "-")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, warning, "Flag --context has been deprecated, use --operator-context")
	assert.Contains(t, stderr, `--operator-context must be NAMESPACE/NAME of an OperatorContext (got "no-slash")`)

	for cmd, flags := range map[string][2]string{"configure": {"--output-kind", "--output "}, "sync": {"--operator-context", "--context "}} {
		_, help, _ := cli(t, "", cmd, "--help")
		assert.Contains(t, help, flags[0], cmd)
		assert.NotContains(t, help, flags[1], cmd)
	}
}
