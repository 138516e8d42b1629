package tykoas

import (
	"math/rand/v2"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"
)

// roundTripJSON is the reference for Encode: EncodeTree's encoding/json writer on the JSON round trip.
func roundTripJSON(t *testing.T, d *Document) string {
	t.Helper()
	tree, err := d.treeRoundTrip()
	require.NoError(t, err)
	out, err := encodeTreeStd(tree)
	require.NoError(t, err)
	return string(out)
}

// TestDirectPathsAreTheRoundTrip fills every field of the Tyk types and builds operations and path parameters at
// random. The direct writer takes every document whose strings are valid UTF-8 and may refuse the others (which
// the round trip writes with U+FFFD); what it writes is the round trip's bytes. Encode writes them and Tree
// decodes to the round trip's values either way.
func TestDirectPathsAreTheRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	directJSON := 0
	for i := range 4000 {
		invalid := i%2 == 1
		d := randomDocument(r, invalid)
		wantTree, err := d.treeRoundTrip()
		require.NoError(t, err)
		want, err := encodeTreeStd(wantTree)
		require.NoError(t, err)

		tree, err := d.Tree()
		require.NoError(t, err)
		require.Equal(t, wantTree, tree, "document %d", i)

		written, ok := d.appendDocument(nil)
		require.True(t, ok || invalid, "document %d: a document with valid strings is written directly", i)
		if ok {
			directJSON++
			require.Equal(t, string(want), string(written), "document %d", i)
		}

		got, err := d.Encode()
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "document %d", i)
	}
	require.Greater(t, directJSON, 2000)
}

// TestEncodeLeavesOtherOpenAPIToTheRoundTrip: the JSON writer refuses OpenAPI content it does not write, and
// Encode still writes the round trip's bytes.
func TestEncodeLeavesOtherOpenAPIToTheRoundTrip(t *testing.T) {
	for name, c := range otherOpenAPI {
		d := otherDocument(c.change)
		written, ok := d.appendDocument(nil)
		require.Equal(t, c.direct, ok, name)
		want := roundTripJSON(t, d)
		if ok {
			require.Equal(t, want, string(written), name)
		}
		got, err := d.Encode()
		require.NoError(t, err, name)
		require.Equal(t, want, string(got), name)
	}
}

func TestEncodeRefusesWhatTreeRefuses(t *testing.T) {
	d := NewDocument("a")
	d.OpenAPI.Extensions = map[string]any{ExtensionKey: "x"}
	_, treeErr := d.Tree()
	_, err := d.Encode()
	require.Error(t, err)
	require.Equal(t, treeErr, err)
	_, err = (&Document{}).Encode()
	require.EqualError(t, err, "tykoas: document has no OpenAPI part")
}

func TestNewGuardPanicsOnAFieldKinOpenAPIDoesNotHave(t *testing.T) {
	require.PanicsWithValue(t, "tykoas: openapi3.Info has no field Titel", func() { newGuard(openapi3.Info{}, "Titel") })
}

// BenchmarkDocumentEncode compares Encode (the JSON writer) with what it replaced, EncodeTree(Tree()), on the
// document of BenchmarkDocumentTree.
func BenchmarkDocumentEncode(b *testing.B) {
	d := benchDocument()
	if _, ok := d.appendDocument(nil); !ok {
		b.Fatal("not written directly")
	}
	b.Run("direct-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := d.Encode(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tree", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tree, err := d.Tree()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := EncodeTree(tree); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestEncodeWritesRenderedDocumentsDirectly checks that Encode takes the direct writer for the documents the
// render makes (every method on "/", a mock's "-below" operation with its path parameter, the Tyk part filled):
// the bytes would be the same through the fallback, so the count is what shows it.
func TestEncodeWritesRenderedDocumentsDirectly(t *testing.T) {
	d := NewDocument("gwapi-1")
	for _, m := range []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE"} {
		d.AddOperation("/", m, m)
	}
	d.AddOperation("/{rest:.*}", "GET", "get-below")
	d.DeclarePathParameter("/{rest:.*}", "rest:.*")
	d.Tyk.Server.ListenPath = ListenPath{Value: "/orders", Strip: true}
	d.Tyk.Upstream.URL = "http://svc.ns.svc.cluster.local:8080"
	d.Tyk.Middleware = &Middleware{Operations: map[string]Operation{"get-below": {MockResponse: &MockResponse{Enabled: true, Code: 404}}}}
	before := directDocuments.Load()
	_, err := d.Encode()
	require.NoError(t, err)
	require.Equal(t, before+1, directDocuments.Load())
}
