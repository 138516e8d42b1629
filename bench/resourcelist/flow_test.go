package resourcelist

import (
	"bytes"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
)

// TestFlowKeepsTheObjects: the flow-style fleet holds the same objects as the block-style one, and is written in
// flow style with comments.
func TestFlowKeepsTheObjects(t *testing.T) {
	for _, shape := range []Shape{{}, {Heavy: true}} {
		var block, flow bytes.Buffer
		GenerateShape(&block, 120, 1, shape)
		if err := Flow(&flow, bytes.NewReader(block.Bytes())); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(flow.String(), "parentRefs:\n    - {name: ") || !strings.Contains(flow.String(), "# one rule for each") {
			t.Fatalf("not written in flow style with comments:\n%.2000s", flow.String())
		}
		a, b := objects(t, block.Bytes()), objects(t, flow.Bytes())
		if len(a) != len(b) || len(a) < 100 {
			t.Fatalf("%d objects in block style, %d in flow style", len(a), len(b))
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("object %d differs:\n%s\n%s", i, a[i], b[i])
			}
		}
	}
}

func objects(t *testing.T, data []byte) []string {
	t.Helper()
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(data), OmitReaderAnnotations: true}).Read()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range nodes {
		j, err := n.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(j))
	}
	return out
}

// TestHeavyRoutes: every rule of a heavy fleet has a filter and three or four backends.
func TestHeavyRoutes(t *testing.T) {
	var b bytes.Buffer
	GenerateShape(&b, 50, 1, Shape{Heavy: true})
	if strings.Contains(b.String(), "RequestRedirect") {
		t.Fatal("a heavy fleet has no redirects")
	}
	if n := strings.Count(b.String(), "weight:"); n < 50*3 {
		t.Fatalf("only %d weighted backends for 50 routes", n)
	}
}
