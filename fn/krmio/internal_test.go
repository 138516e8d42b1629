package krmio

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/gateway2tyk/gateway2tyk/bench/resourcelist"
	"github.com/gateway2tyk/gateway2tyk/fn"
)

// TestEveryItemButTheLastIsCut checks that the comparisons with framework.Execute test the fast path: on a
// generated fleet, every item but the last is written from its own piece.
func TestEveryItemButTheLastIsCut(t *testing.T) {
	var in bytes.Buffer
	resourcelist.Generate(&in, 200, 7)
	cut.Store(0)
	uncut.Store(0)
	var out bytes.Buffer
	noop := framework.ResourceListProcessorFunc(func(*framework.ResourceList) error { return nil })
	require.NoError(t, Execute(noop, &kio.ByteReadWriter{Reader: &in, Writer: &out, KeepReaderAnnotations: true}))
	require.Positive(t, cut.Load())
	require.Equal(t, int64(1), uncut.Load(), "only the last item is written with what follows the items")
}

// TestRenderedDocumentsAreSpliced checks that the comparisons of the render's output with framework.Execute's
// test the direct writing of long literal blocks (package literal): the rendered API documents take that path.
func TestRenderedDocumentsAreSpliced(t *testing.T) {
	var in bytes.Buffer
	resourcelist.Generate(&in, 50, 3)
	splicedItems.Store(0)
	var out bytes.Buffer
	require.NoError(t, Execute(fn.Processor{}, &kio.ByteReadWriter{Reader: &in, Writer: &out, KeepReaderAnnotations: true}))
	require.Greater(t, splicedItems.Load(), int64(50), "the API ConfigMaps' documents are written directly")
}

// TestEdgeCasesAreCut checks the same on items with comments around them and block scalars that keep their
// trailing newlines, which the comparisons in krmio_test.go cover.
func TestEdgeCasesAreCut(t *testing.T) {
	in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" +
		"# head\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}  # line\n  data:\n    k: |+\n      kept\n\n\n" +
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n    annotations: {}\n  # foot of data\n  data: {x: 'y'}\n  # foot of the item\n" +
		"- {apiVersion: v1, kind: ConfigMap, metadata: {name: c, annotations: {}}}\n" +
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: g}\n  data:\n    last: |+\n      kept\n\n"
	cut.Store(0)
	uncut.Store(0)
	var out bytes.Buffer
	noop := framework.ResourceListProcessorFunc(func(*framework.ResourceList) error { return nil })
	require.NoError(t, Execute(noop, &kio.ByteReadWriter{Reader: bytes.NewBufferString(in), Writer: &out, KeepReaderAnnotations: true}))
	require.Equal(t, int64(3), cut.Load())
	require.Equal(t, int64(1), uncut.Load())
}
