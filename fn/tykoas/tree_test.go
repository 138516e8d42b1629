package tykoas

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// sameEncoding requires EncodeTree to write what encoding/json writes, bytes or error.
func sameEncoding(t *testing.T, name string, tree map[string]any) {
	t.Helper()
	want, wantErr := encodeTreeStd(tree)
	got, gotErr := EncodeTree(tree)
	require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), name)
	require.Equal(t, string(want), string(got), name)
}

// TestEncodeTreeOnGoldenDocuments re-encodes every Tyk OAS document the golden tests expect.
func TestEncodeTreeOnGoldenDocuments(t *testing.T) {
	files, err := filepath.Glob("../testdata/*/expected.yaml")
	require.NoError(t, err)
	more, _ := filepath.Glob("../testdata/*/*/expected.yaml")
	checked := 0
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		rl, err := yaml.Parse(string(data))
		require.NoError(t, err)
		items, err := rl.Pipe(yaml.Lookup("items"))
		if err != nil || items == nil {
			continue
		}
		elems, _ := items.Elements()
		for _, it := range elems {
			doc, ok := it.GetDataMap()["tyk-oas.json"]
			if !ok {
				continue
			}
			tree, err := ParseTree([]byte(doc))
			require.NoError(t, err, f)
			sameEncoding(t, f, tree)
			checked++
		}
	}
	require.NotZero(t, checked)
}

// trickyStrings exercise every escaping rule of encoding/json.
var trickyStrings = []string{"", "plain", "\"quoted\"", `back\slash`, "<html> & 'x'", "tab\tnew\nline\rcr\bbs\fff",
	"\x00\x01\x1f\x7f", "é ü 中文 🙂", "\u2028\u2029", "bad \xff\xfe utf8", "\xe2\x80", "/path/{id}", "{h:.+}.example.com"}

var numbers = []string{"0", "-0", "1", "-1.5", "1e10", "1E+2", "2.5e-3", "12345678901234567890", "", "01", "1.", "abc", "+1", "-"}

func randomValue(r *rand.Rand, depth int) any {
	n := 8
	if depth > 4 {
		n = 5
	}
	switch r.IntN(n) {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2, 3:
		if r.IntN(2) == 0 {
			return trickyStrings[r.IntN(len(trickyStrings))]
		}
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return string(b)
	case 4:
		return json.Number(numbers[r.IntN(len(numbers)-6)]) // valid literals only here
	case 5:
		m := map[string]any{}
		if r.IntN(8) == 0 {
			return map[string]any(nil)
		}
		for range r.IntN(5) {
			m[trickyStrings[r.IntN(len(trickyStrings))]+fmt.Sprint(r.IntN(3))] = randomValue(r, depth+1)
		}
		return m
	case 6:
		if r.IntN(8) == 0 {
			return []any(nil)
		}
		a := []any{}
		for range r.IntN(4) {
			a = append(a, randomValue(r, depth+1))
		}
		return a
	default:
		return map[string]any{"k": randomValue(r, depth+1)}
	}
}

func TestEncodeTreeOnRandomTrees(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 5000 {
		tree := map[string]any{}
		for range r.IntN(6) {
			tree[trickyStrings[r.IntN(len(trickyStrings))]] = randomValue(r, 0)
		}
		sameEncoding(t, fmt.Sprintf("tree %d", i), tree)
	}
}

// TestEncodeTreeLeavesTheRestToEncodingJSON covers values it does not write itself: they go to encoding/json,
// errors included.
func TestEncodeTreeLeavesTheRestToEncodingJSON(t *testing.T) {
	for _, n := range numbers {
		sameEncoding(t, "number "+n, map[string]any{"n": json.Number(n), "s": []any{json.Number(n)}})
	}
	for _, v := range []any{1, 1.5, int64(-3), float32(2.5), []string{"a"}, map[string]string{"a": "b"},
		struct{ A int }{1}, map[string]any{"deep": []any{map[string]any{"x": 2.0}}}} {
		sameEncoding(t, fmt.Sprintf("%T", v), map[string]any{"v": v})
	}
	sameEncoding(t, "long", map[string]any{"s": strings.Repeat("x<>&", 10000)})
}

// BenchmarkEncodeTree compares the direct writer with encoding/json on a document of the golden tests.
func BenchmarkEncodeTree(b *testing.B) {
	data, err := os.ReadFile("../testdata/backend-weights/expected.yaml")
	if err != nil {
		b.Skip(err)
	}
	rl, err := yaml.Parse(string(data))
	if err != nil {
		b.Fatal(err)
	}
	var tree map[string]any
	items, _ := rl.Pipe(yaml.Lookup("items"))
	elems, _ := items.Elements()
	for _, it := range elems {
		if doc, ok := it.GetDataMap()["tyk-oas.json"]; ok {
			tree, _ = ParseTree([]byte(doc))
		}
	}
	if tree == nil {
		b.Skip("no document")
	}
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			_, _ = EncodeTree(tree)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			_, _ = encodeTreeStd(tree)
		}
	})
}
