package krmio_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/bench/resourcelist"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/krmio"
)

// processors are run through both framework.Execute and krmio.Execute: the render itself, one that changes
// nothing, and one that edits items, drops one and adds a result.
var processors = map[string]func() framework.ResourceListProcessor{
	"render": func() framework.ResourceListProcessor { return fn.Processor{} },
	"noop": func() framework.ResourceListProcessor {
		return framework.ResourceListProcessorFunc(func(*framework.ResourceList) error { return nil })
	},
	"edit": func() framework.ResourceListProcessor {
		return framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
			for _, it := range rl.Items {
				if it.YNode().Kind == yaml.MappingNode {
					_ = it.PipeE(yaml.SetAnnotation("example.com/seen", "yes"))
				}
			}
			if len(rl.Items) > 2 {
				rl.Items = append(rl.Items[:1], rl.Items[2:]...)
			}
			rl.Results = append(rl.Results, &framework.Result{Severity: framework.Info, Message: "edited"})
			return nil
		})
	},
}

// same runs both executions on fresh reads of the input and requires the same output and the same error.
func same(t *testing.T, name string, input []byte) {
	t.Helper()
	for pname, p := range processors {
		var want, got bytes.Buffer
		wantErr := framework.Execute(p(), &kio.ByteReadWriter{Reader: bytes.NewReader(input), Writer: &want,
			KeepReaderAnnotations: true})
		gotErr := krmio.Execute(p(), &kio.ByteReadWriter{Reader: bytes.NewReader(input), Writer: &got,
			KeepReaderAnnotations: true})
		require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), "%s (%s): error", name, pname)
		if want.String() != got.String() {
			require.Equal(t, want.String(), got.String(), "%s (%s): output", name, pname)
		}
	}
}

// TestExecuteMatchesFrameworkOnGoldens compares the two on every golden input (failing stories included).
func TestExecuteMatchesFrameworkOnGoldens(t *testing.T) {
	inputs, err := filepath.Glob("../testdata/*/input.yaml")
	require.NoError(t, err)
	failing, err := filepath.Glob("../testdata/failing/*/input.yaml")
	require.NoError(t, err)
	inputs = append(inputs, failing...)
	require.NotEmpty(t, inputs)
	for _, path := range inputs {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		same(t, path, data)
		// Also the render's own output, read back as input (the second run of the idempotence guarantee).
		var out bytes.Buffer
		_ = framework.Execute(fn.Processor{}, &kio.ByteReadWriter{Reader: bytes.NewReader(data), Writer: &out,
			KeepReaderAnnotations: true})
		same(t, path+" (output)", out.Bytes())
	}
	t.Logf("%d golden inputs compared", len(inputs))
}

// TestExecuteMatchesFrameworkOnExamples compares the two on each example's files, wrapped in a ResourceList as
// kustomize and kpt hand them over (with comments, as kpt keeps them).
func TestExecuteMatchesFrameworkOnExamples(t *testing.T) {
	dirs, err := filepath.Glob("../../examples/*")
	require.NoError(t, err)
	ran := 0
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		var items []*yaml.RNode
		var config *yaml.RNode
		for _, f := range files {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(data), OmitReaderAnnotations: true}).Read()
			require.NoError(t, err, f)
			for _, n := range nodes {
				switch n.GetKind() {
				case "Kustomization", "Kptfile", "Application":
				case "RenderConfig":
					config = n
				default:
					items = append(items, n)
				}
			}
		}
		if len(items) == 0 {
			continue
		}
		var rl bytes.Buffer
		require.NoError(t, kio.ByteWriter{Writer: &rl, FunctionConfig: config, WrappingKind: kio.ResourceListKind,
			WrappingAPIVersion: kio.ResourceListAPIVersion}.Write(items))
		same(t, dir, rl.Bytes())
		ran++
	}
	require.NotZero(t, ran)
}

// TestExecuteMatchesFrameworkOnGenerated compares the two on generated fleets (the benchmark's inputs).
func TestExecuteMatchesFrameworkOnGenerated(t *testing.T) {
	for _, n := range []int{1, 2, 3, 60, 400} {
		var b bytes.Buffer
		resourcelist.Generate(&b, n, uint64(n))
		same(t, fmt.Sprintf("generated %d", n), b.Bytes())
	}
}

// TestExecuteMatchesFrameworkOnEdgeCases covers what the emitter could write differently for an item alone:
// comments before, inside, after and between items, block scalars that keep their trailing newlines (at the end
// of an item, and of the last item), flow styles, empty annotations and metadata (which the writer clears on a
// copy), items that are not mappings, anchors and aliases, a List wrapper, and inputs that are not wrapped.
func TestExecuteMatchesFrameworkOnEdgeCases(t *testing.T) {
	items := []string{
		"# head of the first item\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}  # line\n  data:\n    k: |+\n      kept\n\n\n",
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n    annotations: {}\n  # foot of data\n  data: {x: 'y'}\n  # foot of the item\n",
		"- {apiVersion: v1, kind: ConfigMap, metadata: {name: c, annotations: {}}}\n",
		"- apiVersion: v1\n  kind: Secret\n  metadata: {}\n  stringData:\n    k: |-\n      no newline\n",
		"- just a scalar item\n",
		"- - a sequence item\n  - of two\n",
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata: &m\n    name: d\n  data: &d {a: '1'}\n",
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: e\n  data: *d\n",
		"\n# a comment between items\n\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: f\n    annotations:\n      a: \"quoted\\ttab\"\n  data:\n    long: " +
			strings.Repeat("word ", 60) + "\n",
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: g}\n  data:\n    last: |+\n      kept at the very end\n\n",
	}
	// Long literal blocks, which krmio writes directly when the emitter would write them plainly (package literal),
	// and the ones it must leave to the emitter.
	block := func(key, text string) string {
		return "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: " + fmt.Sprint(len(items)) + "}\n  data:\n    " + key +
			": |\n      " + strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n      ") + "\n"
	}
	doc := "{\n" + strings.Repeat("  \"key\": \"value with spaces, \\\"quotes\\\" and # : - | > signs\",\n", 20) + "  \"last\": true\n}\n"
	for _, b := range []struct{ key, text string }{
		{"tyk-oas.json", doc},
		{"trailing-space", strings.Replace(doc, ",\n", ", \n", 1)},
		{"tab", strings.Replace(doc, "value", "va\tlue", 1)},
		{"non-ascii", strings.Replace(doc, "value", "välue", 1)},
		{"empty-line", strings.Replace(doc, ",\n", ",\n\n", 1)},
		{"\"quoted key\"", doc},
	} {
		items = append(items, block(b.key, b.text))
	}
	items = append(items,
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: indented}\n  data:\n    k: |2\n        "+strings.Repeat("first line starts with spaces ", 20)+"\n      next\n",
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: strip}\n  data:\n    k: |-\n      "+strings.Repeat("no final newline ", 40)+"\n",
		"- apiVersion: v1\n  kind: List\n  metadata: {name: seq}\n  items:\n  - |\n    "+strings.Repeat("a block in a sequence ", 30)+"\n",
	)
	config := "functionConfig:\n  apiVersion: example.com/v1\n  kind: Config\n  metadata: {name: c}\n"
	results := "results:\n- message: earlier\n  severity: info\n"
	wrap := func(kind string, its []string, tail string) string {
		return "apiVersion: config.kubernetes.io/v1\nkind: " + kind + "\nitems:\n" + strings.Join(its, "") + tail
	}
	cases := map[string]string{}
	for i := range items {
		// Each item first, in the middle and last, with and without what follows the items.
		rot := append(append([]string{}, items[i:]...), items[:i]...)
		cases[fmt.Sprintf("rotation %d", i)] = wrap("ResourceList", rot, config)
		cases[fmt.Sprintf("rotation %d, results", i)] = wrap("ResourceList", rot, config+results)
		cases[fmt.Sprintf("rotation %d, bare", i)] = wrap("ResourceList", rot, "")
		cases[fmt.Sprintf("pair %d", i)] = wrap("ResourceList", []string{items[i], items[(i+1)%len(items)]}, config)
		cases[fmt.Sprintf("single %d", i)] = wrap("ResourceList", []string{items[i]}, config)
	}
	cases["list"] = wrap("List", items[:3], "")
	cases["empty"] = wrap("ResourceList", nil, config)
	cases["document start"] = "---\n" + wrap("ResourceList", items[:3], config)
	cases["crlf"] = strings.ReplaceAll(wrap("ResourceList", items[:4], config), "\n", "\r\n")
	cases["stream"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"
	cases["malformed"] = wrap("ResourceList", []string{"- a: [\n"}, "")
	for name, in := range cases {
		same(t, name, []byte(in))
	}
}

// TestExecuteMatchesFrameworkOnAnnotationFormats covers the migration between kio's legacy and internal path,
// index and id annotations on lists long enough to be done in parallel: legacy only, internal only, both,
// mismatched (an error), and a processor that moves items to other files.
func TestExecuteMatchesFrameworkOnAnnotationFormats(t *testing.T) {
	list := func(annos func(i int) string) []byte {
		var b strings.Builder
		b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
		for i := range 150 {
			fmt.Fprintf(&b, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c%d\n    annotations:\n%s", i, annos(i))
		}
		return []byte(b.String())
	}
	legacy := func(i int) string {
		return fmt.Sprintf("      config.kubernetes.io/path: 'f%d.yaml'\n      config.kubernetes.io/index: '%d'\n", i%7, i)
	}
	internal := func(i int) string {
		return fmt.Sprintf("      internal.config.kubernetes.io/path: 'f%d.yaml'\n      internal.config.kubernetes.io/index: '%d'\n", i%7, i)
	}
	both := func(i int) string { return legacy(i) + internal(i) }
	mismatched := func(i int) string {
		if i == 97 || i == 120 {
			return legacy(i) + fmt.Sprintf("      internal.config.kubernetes.io/path: 'other%d.yaml'\n", i)
		}
		return both(i)
	}
	mixed := func(i int) string {
		if i == 130 {
			return legacy(i)
		}
		return both(i)
	}
	for name, in := range map[string][]byte{"legacy": list(legacy), "internal": list(internal), "both": list(both),
		"mismatched": list(mismatched), "mixed": list(mixed)} {
		same(t, name, in)
		move := framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
			for i, it := range rl.Items {
				if i%3 == 0 {
					_ = it.PipeE(yaml.SetAnnotation("internal.config.kubernetes.io/path", "moved.yaml"))
				}
				if i%5 == 0 {
					_ = it.PipeE(yaml.SetAnnotation("config.kubernetes.io/index", "9"))
				}
			}
			return nil
		})
		var want, got bytes.Buffer
		wantErr := framework.Execute(move, &kio.ByteReadWriter{Reader: bytes.NewReader(in), Writer: &want, KeepReaderAnnotations: true})
		gotErr := krmio.Execute(move, &kio.ByteReadWriter{Reader: bytes.NewReader(in), Writer: &got, KeepReaderAnnotations: true})
		require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), name)
		require.Equal(t, want.String(), got.String(), name)
	}
}

// TestExecutePanicsWhereFrameworkPanics checks that a panic while encoding an item (here a node with a nil
// child) reaches the caller's goroutine, as it does with kio's writer, and is not lost in a worker.
func TestExecutePanicsWhereFrameworkPanics(t *testing.T) {
	in := []byte("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" +
		strings.Repeat("- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n", 3))
	broken := framework.ResourceListProcessorFunc(func(rl *framework.ResourceList) error {
		rl.Items = append([]*yaml.RNode{yaml.NewRNode(&yaml.Node{Kind: yaml.MappingNode,
			Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "k"}, nil}})}, rl.Items...)
		return nil
	})
	require.Panics(t, func() {
		_ = framework.Execute(broken, &kio.ByteReadWriter{Reader: bytes.NewReader(in), Writer: io.Discard, KeepReaderAnnotations: true})
	})
	require.Panics(t, func() {
		_ = krmio.Execute(broken, &kio.ByteReadWriter{Reader: bytes.NewReader(in), Writer: io.Discard, KeepReaderAnnotations: true})
	})
}
