package e2e_test

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn"
)

// The contract's guarantees, in process: the same input in any order gives the same bytes, and running the
// function on its own output gives the same output.

func TestIdempotentAndOrderIndependent(t *testing.T) {
	for _, output := range []string{"ConfigMap", "TykOasApiDefinition"} {
		t.Run("output="+output, func(t *testing.T) {
			items, fnConfig := readExample(t)
			if err := fnConfig.PipeE(yaml.LookupCreate(yaml.MappingNode, "spec"), yaml.SetField("output", yaml.NewStringRNode(output))); err != nil {
				t.Fatal(err)
			}
			input := resourceList(t, items, fnConfig)
			first := execute(t, input)

			// The render did its work: the APIs are there (two per API with TykOasApiDefinition).
			out := parseResourceList(t, first)
			wantKinds := map[string]int{"ConfigMap": 2}
			if output == "TykOasApiDefinition" {
				wantKinds["TykOasApiDefinition"] = 2
			}
			for kind, n := range wantKinds {
				got := 0
				for _, it := range out {
					if it.GetKind() == kind && it.GetLabels()["app.kubernetes.io/managed-by"] == "gateway2tyk" {
						got++
					}
				}
				if got != n {
					t.Fatalf("%d emitted %s objects, want %d; output:\n%s", got, kind, n, first)
				}
			}
			if len(out) != len(items)+len(wantKinds)*2 {
				t.Errorf("%d output items for %d input items, want %d", len(out), len(items), len(items)+len(wantKinds)*2)
			}

			t.Run("on its own output", func(t *testing.T) {
				second := execute(t, first)
				sameBytes(t, "the first run's output", first, "the run on that output", second)
			})

			t.Run("shuffled input", func(t *testing.T) {
				for _, seed := range []int64{1, 2, 3, 42, 1234, 20260101} {
					shuffled := append([]*yaml.RNode(nil), items...)
					r := rand.New(rand.NewSource(seed))
					r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
					got := execute(t, resourceList(t, shuffled, fnConfig))
					sameBytes(t, "the output for the input in file order", first,
						fmt.Sprintf("the output for the input shuffled with seed %d (%s)", seed, order(shuffled)), got)
				}
			})
		})
	}
}

// readExample reads the objects of every YAML file of examples/basic but kustomization.yaml; the RenderConfig
// is returned apart, as the function config.
func readExample(t *testing.T) (items []*yaml.RNode, fnConfig *yaml.RNode) {
	t.Helper()
	dir := filepath.Join(repoRoot(t), exampleDir)
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if filepath.Base(f) == "kustomization.yaml" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(b), OmitReaderAnnotations: true}).Read()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, n := range nodes {
			if n.GetKind() == "RenderConfig" {
				if fnConfig != nil {
					t.Fatalf("%s: a second RenderConfig", f)
				}
				fnConfig = n
				continue
			}
			items = append(items, n)
		}
	}
	if fnConfig == nil {
		t.Fatalf("no RenderConfig in %s", dir)
	}
	if len(items) == 0 {
		t.Fatalf("no items in %s", dir)
	}
	return items, fnConfig
}

// resourceList writes a config.kubernetes.io/v1 ResourceList of copies of items, so that a run never sees
// another run's changes.
func resourceList(t *testing.T, items []*yaml.RNode, fnConfig *yaml.RNode) []byte {
	t.Helper()
	copies := make([]*yaml.RNode, len(items))
	for i, it := range items {
		copies[i] = it.Copy()
	}
	var b bytes.Buffer
	w := kio.ByteWriter{
		Writer:             &b,
		WrappingAPIVersion: "config.kubernetes.io/v1",
		WrappingKind:       "ResourceList",
		FunctionConfig:     fnConfig.Copy(),
	}
	if err := w.Write(copies); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// execute runs the function in process on a ResourceList, as the binary does in KRM mode, and returns the
// ResourceList it writes. A failing run fails the test.
func execute(t *testing.T, input []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	rw := &kio.ByteReadWriter{Reader: bytes.NewReader(input), Writer: &out, KeepReaderAnnotations: true, OmitReaderAnnotations: true}
	if err := framework.Execute(fn.Processor{}, rw); err != nil {
		t.Fatalf("the function failed: %v\ninput:\n%s", err, input)
	}
	return out.Bytes()
}

func parseResourceList(t *testing.T, b []byte) []*yaml.RNode {
	t.Helper()
	items, err := (&kio.ByteReader{Reader: bytes.NewReader(b), OmitReaderAnnotations: true}).Read()
	if err != nil {
		t.Fatalf("output is not a ResourceList: %v\n%s", err, b)
	}
	return items
}

// sameBytes fails t when a and b differ, showing the first differing line with some context and both
// documents in full.
func sameBytes(t *testing.T, aName string, a []byte, bName string, b []byte) {
	t.Helper()
	if bytes.Equal(a, b) {
		return
	}
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	i := 0
	for i < len(al) && i < len(bl) && al[i] == bl[i] {
		i++
	}
	excerpt := func(lines []string) string {
		lo, hi := max(0, i-3), min(len(lines), i+4)
		var s strings.Builder
		for k := lo; k < hi; k++ {
			mark := "  "
			if k == i {
				mark = "> "
			}
			fmt.Fprintf(&s, "%s%4d | %s\n", mark, k+1, lines[k])
		}
		return s.String()
	}
	t.Errorf("%s and %s differ, first at line %d:\n--- %s\n%s+++ %s\n%s\n=== %s in full:\n%s\n=== %s in full:\n%s",
		aName, bName, i+1, aName, excerpt(al), bName, excerpt(bl), aName, a, bName, b)
}

// order names the items in their order, for a failure message.
func order(items []*yaml.RNode) string {
	var names []string
	for _, it := range items {
		n := it.GetKind() + " " + it.GetName()
		if ns := it.GetNamespace(); ns != "" {
			n = it.GetKind() + " " + ns + "/" + it.GetName()
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}
