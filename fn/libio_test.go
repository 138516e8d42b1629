package fn

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/gateway2tyk/gateway2tyk/bench/resourcelist"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/libio"
	"github.com/gateway2tyk/gateway2tyk/fn/krmio"
	"github.com/gateway2tyk/gateway2tyk/fn/kustomization"
)

// TestLibraryIOAlike renders every story (the failing ones too) and generated fleets (the default one, the flow
// style people write by hand, routes with two hostnames, heavy rules) with the hand-written readers and writers and again with
// the libraries they copy (package libio's switch), and holds the outputs byte for byte equal: the KRM function's
// ResourceList (krmio against kyaml's framework.Execute), render's YAML stream (krmio.WriteStream against
// kio.ByteWriter) and the large-app path's kustomize build output (kustomization.Write against Resource.AsYAML's
// conversion). After an upgrade of kyaml, yaml.v3, kin-openapi or sigs.k8s.io/yaml, a difference here is where
// a copy went stale.
func TestLibraryIOAlike(t *testing.T) {
	cases := map[string][]byte{}
	for _, path := range storyInputs(t) {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		cases[path] = data
	}
	// make check (-short, under the race detector) renders smaller fleets: still well over the 64 documents from
	// which WriteStream writes in parallel.
	routes := 300
	if testing.Short() {
		routes = 100
	}
	for name, shape := range map[string]resourcelist.Shape{
		"default": {}, "flow": {Flow: true}, "two hostnames": {Hostnames: 2}, "heavy": {Heavy: true},
	} {
		var b bytes.Buffer
		resourcelist.GenerateShape(&b, routes, 7, shape)
		cases[fmt.Sprintf("fleet of %d routes, %s", routes, name)] = b.Bytes()
	}
	for name, data := range cases {
		hand := writeAllWays(t, data)
		restore := libio.Set(true)
		library := writeAllWays(t, data)
		restore()
		require.Equal(t, library, hand, "%s: the hand-written I/O differs from the libraries'", name)
	}
}

// writeAllWays is what the KRM function writes for a ResourceList, and what render and the large-app path write of
// the items it returns.
func writeAllWays(t *testing.T, data []byte) string {
	t.Helper()
	var krm bytes.Buffer
	err := krmio.Execute(Processor{}, &kio.ByteReadWriter{Reader: bytes.NewReader(data), Writer: &krm, KeepReaderAnnotations: true})
	out := fmt.Sprintf("KRM function (error %v):\n%s", err, krm.String())
	items, err := (&kio.ByteReader{Reader: bytes.NewReader(krm.Bytes())}).Read()
	if err != nil || len(items) == 0 {
		return out
	}
	var stream, built bytes.Buffer
	errStream := krmio.WriteStream(&stream, items, nil)
	errBuilt := kustomization.Write(&built, items, kustomization.DefaultOrder())
	return fmt.Sprintf("%s\nstream (error %v):\n%s\nkustomize build (error %v):\n%s", out, errStream, stream.String(),
		errBuilt, built.String())
}
