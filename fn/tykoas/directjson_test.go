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

// TestEncodeIsTheRoundTrip fills every field of the Tyk types and builds operations and path parameters at
// random: Encode writes the round trip's bytes, and the JSON writer writes every document whose strings are valid
// UTF-8 (and refuses the others, which the round trip writes with U+FFFD).
func TestEncodeIsTheRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	direct := 0
	for i := range 4000 {
		invalid := i%2 == 1
		d := randomDocument(r, invalid)
		want := roundTripJSON(t, d)
		got, err := d.Encode()
		require.NoError(t, err)
		require.Equal(t, want, string(got), "document %d", i)

		written, ok := d.appendDocument(nil)
		if !invalid {
			require.True(t, ok, "document %d: a document with valid strings is written directly", i)
		}
		if ok {
			direct++
			require.Equal(t, want, string(written), "document %d", i)
		}
	}
	require.Greater(t, direct, 2000)
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
