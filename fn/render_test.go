package fn

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/fn/framework/frameworktestutil"
	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

// TestRenderKeepingDocumentsIsTheKRMRender checks that the two ways render builds the APIs' documents give the
// same items: kept (Render, for explain, graph and diff: translate.Translate, encoded by emitAPIs) and encoded as
// the translation builds them (the KRM function: translate.TranslateEncoded), on every story's input, failing
// ones included, and on a generated fleet with base documents.
func TestRenderKeepingDocumentsIsTheKRMRender(t *testing.T) {
	inputs := storyInputs(t)
	render := func(data []byte, keep bool) string {
		rw := &kio.ByteReadWriter{Reader: bytes.NewReader(data), KeepReaderAnnotations: true}
		items, err := rw.Read()
		require.NoError(t, err)
		cfg, err := config.Load(rw.FunctionConfig)
		if err != nil {
			return "no render: " + err.Error() // a failing story whose config is refused
		}
		out, err := render(items, cfg, keep)
		var b bytes.Buffer
		require.NoError(t, kio.ByteWriter{Writer: &b}.Write(out.Items))
		return fmt.Sprintf("%s\nerror: %v\nresults: %v", b.String(), err, out.Results)
	}
	for _, path := range inputs {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, render(data, true), render(data, false), path)
	}
}

// storyInputs are the input files of every story, the failing ones too.
func storyInputs(t *testing.T) []string {
	t.Helper()
	inputs, err := filepath.Glob(filepath.Join("testdata", "*", frameworktestutil.DefaultInputFilename))
	require.NoError(t, err)
	failing, err := filepath.Glob(filepath.Join("testdata", "failing", "*", frameworktestutil.DefaultInputFilename))
	require.NoError(t, err)
	inputs = append(inputs, failing...)
	require.Greater(t, len(inputs), 100, "the stories are not where the test looks")
	return inputs
}
