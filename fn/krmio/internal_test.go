package krmio

import (
	"bytes"
	"strings"
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

// TestRenderedObjectsAreWrittenDirectly checks that the comparisons of the render's output with
// framework.Execute's test the direct writer (package directyaml): the emitted ConfigMaps take that path.
func TestRenderedObjectsAreWrittenDirectly(t *testing.T) {
	var in bytes.Buffer
	resourcelist.Generate(&in, 50, 3)
	directItems.Store(0)
	var out bytes.Buffer
	require.NoError(t, Execute(fn.Processor{}, &kio.ByteReadWriter{Reader: &in, Writer: &out, KeepReaderAnnotations: true}))
	require.Greater(t, directItems.Load(), int64(50), "the API ConfigMaps are written directly")
}

// TestCommentedDocumentsAreSpliced checks that the items the direct writer leaves to the encoder (here because of
// a comment) still have their long literal blocks written directly (package literal), as the edge cases of
// krmio_test.go compare.
func TestCommentedDocumentsAreSpliced(t *testing.T) {
	doc := "{\n" + strings.Repeat("  \"key\": \"value\",\n", 40) + "  \"last\": true\n}\n"
	item := "- apiVersion: v1 # a comment\n  kind: ConfigMap\n  metadata: {name: a}\n  data:\n    tyk-oas.json: |\n      " +
		strings.ReplaceAll(strings.TrimSuffix(doc, "\n"), "\n", "\n      ") + "\n"
	in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + item + item
	splicedItems.Store(0)
	directItems.Store(0)
	var out bytes.Buffer
	noop := framework.ResourceListProcessorFunc(func(*framework.ResourceList) error { return nil })
	require.NoError(t, Execute(noop, &kio.ByteReadWriter{Reader: strings.NewReader(in), Writer: &out, KeepReaderAnnotations: true}))
	require.Equal(t, int64(0), directItems.Load())
	require.Equal(t, int64(1), splicedItems.Load(), "the first item is spliced; the last is written with what follows")
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

// TestUnchangedItemsAreReconciledDirectly checks that the comparisons with framework.Execute test reconcile's
// path for items the function left as preprocess made them: the render's input items, which carry kustomize's
// index annotations, take it.
func TestUnchangedItemsAreReconciledDirectly(t *testing.T) {
	var in bytes.Buffer
	resourcelist.Generate(&in, 100, 9)
	fastReconciled.Store(0)
	var out bytes.Buffer
	require.NoError(t, Execute(fn.Processor{}, &kio.ByteReadWriter{Reader: &in, Writer: &out, KeepReaderAnnotations: true}))
	require.Greater(t, fastReconciled.Load(), int64(100))
}
