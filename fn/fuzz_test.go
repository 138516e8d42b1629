package fn_test

import (
	"bytes"
	"fmt"
	"github.com/gateway2tyk/gateway2tyk/fn/apiserver"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
	"github.com/gateway2tyk/gateway2tyk/fn/krmio"
	"github.com/gateway2tyk/gateway2tyk/fn/read"
	"github.com/gateway2tyk/gateway2tyk/fn/tykapi"
)

// The pipeline fuzz targets run the whole function, as the binary runs it (framework.Execute over a
// kio.ByteReadWriter that keeps the reader annotations), and check the contract's guarantees on whatever comes
// out (checkPipeline). `go test` runs only their seed corpus (every golden input, the edge seeds below and
// testdata/fuzz/<target>); `make fuzz` mutates them.

// FuzzPipeline runs the function on arbitrary bytes, seeded with the golden inputs.
func FuzzPipeline(f *testing.F) {
	for _, in := range goldenInputs(f) {
		f.Add(in)
	}
	for _, s := range pipelineEdgeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkPipeline(t, data) })
}

// FuzzPipelineMutated runs the function on golden inputs changed in their structure: one node of the parsed
// ResourceList (any key or value, at any depth) is replaced by a scalar, a mapping, a list, null, a copy of
// itself or nothing. Byte mutations mostly make YAML that does not parse; these make valid YAML with values of
// the wrong type, missing or extra fields and duplicated objects, which is what reaches the render. A corpus
// entry names its golden input by index, which means the same input only while testdata keeps its stories: the
// named regression test of a crasher keeps the mutated YAML itself.
func FuzzPipelineMutated(f *testing.F) {
	inputs := goldenInputs(f)
	// Only seeds that mutate something: one that does not is skipped by the target, which under go test
	// would be a skip that checks nothing (make test fails on skips it does not expect).
	seed := func(input, node uint16, op uint8, value string) {
		if _, ok := mutate(inputs[int(input)%len(inputs)], int(node), op, value); ok {
			f.Add(input, node, op, value)
		}
	}
	for i := range inputs {
		for op := range uint8(mutations) {
			seed(uint16(i), uint16(7*i+int(op)*13), op, "x")
		}
	}
	for i, v := range []string{"", "-1", "0", "1.5", "65536", "2147483648", "null", "true", "/", "*", "a b", "X-A:", "é"} {
		seed(uint16(i), uint16(31*i), uint8(opScalar), v)
	}
	f.Fuzz(func(t *testing.T, input, node uint16, op uint8, value string) {
		data, ok := mutate(inputs[int(input)%len(inputs)], int(node), op, value)
		if !ok {
			t.Skip()
		}
		checkPipeline(t, data)
	})
}

// checkPipeline runs the function on data and checks:
//   - no panic (the fuzzer reports one as a crash);
//   - the function fails when kyaml's framework cannot read the input, and otherwise writes an output that
//     parses, a ResourceList when the input was one;
//   - every input item the render does not own comes out unchanged but for the gateway2tyk.io/status
//     annotation, and every other output item is one the render emitted (nothing lost, nothing made up);
//   - running the function on its own output gives the same bytes.
//
// "Unchanged" is measured against a function that does nothing, run the same way: kyaml's framework annotates
// every item on the way in and reconciles the annotations on the way out, and its YAML library does not give
// back every odd input byte for byte; neither is the render's doing.
func checkPipeline(t *testing.T, data []byte) {
	t.Helper()
	fatalf := func(format string, args ...any) {
		t.Helper()
		t.Fatalf(format+"\n--- input\n%s", append(args, data)...)
	}
	out, err := execute(data)
	noop, noopErr := executeWith(framework.ResourceListProcessorFunc(func(*framework.ResourceList) error { return nil }), data)
	if noopErr != nil {
		if err == nil {
			fatalf("kyaml's framework cannot read the input (%v), yet the function succeeded", noopErr)
		}
		return
	}
	ref := &kio.ByteReadWriter{Reader: bytes.NewReader(noop), OmitReaderAnnotations: true}
	in, perr := ref.Read()
	if perr != nil {
		t.Skipf("kyaml cannot read back what it wrote itself: %v", perr)
	}
	if len(out) == 0 && len(noop) > 0 {
		fatalf("no output (error: %v)", err)
	}
	got := &kio.ByteReadWriter{Reader: bytes.NewReader(out), OmitReaderAnnotations: true}
	outItems, oerr := got.Read()
	if oerr != nil {
		fatalf("the output does not parse: %v\n%s", oerr, out)
	}
	if got.WrappingKind != ref.WrappingKind {
		fatalf("the input was a %q, the output a %q", ref.WrappingKind, got.WrappingKind)
	}

	owned := ownedItems(in, ref.FunctionConfig)
	want := map[string]int{}
	for _, it := range in {
		if !owned[it] {
			want[normalized(t, it)]++
		}
	}
	for _, it := range outItems {
		s := normalized(t, it)
		if want[s] > 0 {
			want[s]--
			continue
		}
		if !emit.Replaced(it) {
			fatalf("the output has an item that is neither an input item nor one the render emitted:\n%s\n--- output\n%s", s, out)
		}
	}
	for s, n := range want {
		if n > 0 {
			fatalf("an input item is lost or changed:\n%s\n--- output\n%s", s, out)
		}
	}

	// With inputs: Drop the second run no longer has the routes, so only a render that keeps its inputs can
	// be run again on its output.
	if ref.WrappingKind == kio.ResourceListKind && !dropsInputs(ref.FunctionConfig) {
		again, err2 := execute(out)
		if !bytes.Equal(out, again) {
			fatalf("running the function on its output changes it:\n--- first run\n%s\n--- second run\n%s", out, again)
		}
		if (err == nil) != (err2 == nil) {
			fatalf("the first run returned %v, the second %v", err, err2)
		}
	}
}

// execute runs the function as the binary does.
func execute(data []byte) (out []byte, err error) { return executeWith(fn.Processor{}, data) }

// executeWith runs the processor as the binary does (krmio.Execute: kyaml's framework.Execute with a faster
// writer and a clearer error for an item that cannot carry the framework's annotations).
func executeWith(p framework.ResourceListProcessor, data []byte) (out []byte, err error) {
	var b bytes.Buffer
	err = krmio.Execute(p, &kio.ByteReadWriter{Reader: bytes.NewReader(data), Writer: &b, KeepReaderAnnotations: true})
	return b.Bytes(), err
}

// ownedItems are the input items that may leave the output: the render's own output of an earlier run (replaced)
// and, with inputs: Drop, the objects it read of the dropped kinds.
func ownedItems(items []*yaml.RNode, fnConfig *yaml.RNode) map[*yaml.RNode]bool {
	owned := map[*yaml.RNode]bool{}
	for _, it := range items {
		if emit.Replaced(it) {
			owned[it] = true
		}
	}
	if !dropsInputs(fnConfig) {
		return owned
	}
	copies := make([]*yaml.RNode, len(items))
	orig := map[*yaml.RNode]*yaml.RNode{}
	for i, it := range items {
		copies[i] = it.Copy()
		orig[copies[i]] = it
	}
	res := read.Items(copies, apiserver.Standard)
	for key, n := range res.Nodes {
		switch {
		case key.Group == inventory.GatewayGroup:
			owned[orig[n]] = true
		case key.Kind == tykapi.KindTykOasApiDefinition && len(res.Inventory.TykOasApiDefinitions[key.NN()].Spec.TargetRefs) > 0:
			owned[orig[n]] = true
		}
	}
	return owned
}

func dropsInputs(fnConfig *yaml.RNode) bool {
	cfg, err := config.Load(fnConfig)
	return err == nil && cfg.Inputs == config.InputsDrop
}

// normalized is an item as YAML without the gateway2tyk.io/status and gateway2tyk.io/health annotations, and
// without the annotations map or metadata that leaves empty.
func normalized(t *testing.T, it *yaml.RNode) string {
	t.Helper()
	n := it.Copy()
	if n.YNode().Kind == yaml.MappingNode {
		if md := n.Field(yaml.MetadataField); md != nil && md.Value.YNode().Kind == yaml.MappingNode {
			if an := md.Value.Field(yaml.AnnotationsField); an != nil && an.Value.YNode().Kind == yaml.MappingNode {
				if an.Value.Field(emit.AnnotationStatus) != nil {
					_ = an.Value.PipeE(yaml.Clear(emit.AnnotationStatus))
					_ = an.Value.PipeE(yaml.Clear(emit.AnnotationHealth))
					if isEmpty(an.Value.YNode()) {
						_ = md.Value.PipeE(yaml.Clear(yaml.AnnotationsField))
						if isEmpty(md.Value.YNode()) {
							_ = n.PipeE(yaml.Clear(yaml.MetadataField))
						}
					}
				}
			}
		}
	}
	s, err := n.String()
	if err != nil {
		t.Fatalf("an item cannot be encoded: %v", err)
	}
	return s
}

// isEmpty: null, or a mapping or list with nothing in it.
func isEmpty(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode:
		return len(n.Content) == 0
	case yaml.ScalarNode:
		return n.Tag == yaml.NodeTagNull || (n.Tag == "" && (n.Value == "" || n.Value == "~" || n.Value == "null"))
	}
	return false
}

// goldenInputs reads every testdata/**/input.yaml, in a stable order.
func goldenInputs(tb testing.TB) [][]byte {
	tb.Helper()
	var paths []string
	err := filepath.WalkDir(goldenDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "input.yaml" {
			paths = append(paths, path)
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(paths)
	if len(paths) == 0 {
		tb.Fatalf("no golden input.yaml under %s", goldenDir)
	}
	out := make([][]byte, len(paths))
	for i, p := range paths {
		if out[i], err = os.ReadFile(p); err != nil {
			tb.Fatal(err)
		}
	}
	return out
}

// The structural mutations of FuzzPipelineMutated.
const (
	opScalar    = iota // the node becomes the scalar value (its type resolved from the text)
	opString           // the node becomes the string value
	opMapping          // the node becomes {value: value}
	opList             // the node becomes [value]
	opNull             // the node becomes null
	opDelete           // the node (with its key) is removed from its mapping or list
	opDuplicate        // the node is repeated in its list (for a mapping value: the whole item is repeated)
	opEmpty            // a mapping or list becomes empty
	mutations
)

// mutate applies one structural mutation to the node-th node of the ResourceList in data and returns the
// ResourceList as YAML.
func mutate(data []byte, node int, op uint8, value string) ([]byte, bool) {
	doc, err := yaml.Parse(string(data))
	if err != nil {
		return nil, false
	}
	type slot struct {
		parent *yaml.Node
		i      int  // index in parent.Content
		key    bool // the node is a mapping key
		item   *yaml.Node
	}
	var slots []slot
	var walk func(n, item *yaml.Node)
	walk = func(n, item *yaml.Node) {
		for i, c := range n.Content {
			it := item
			if it == nil && n.Kind == yaml.SequenceNode {
				it = c
			}
			slots = append(slots, slot{parent: n, i: i, key: n.Kind == yaml.MappingNode && i%2 == 0, item: it})
			walk(c, it)
		}
	}
	root := doc.YNode()
	items := doc.Field("items")
	if items != nil && items.Value.YNode().Kind == yaml.SequenceNode {
		// Items first, so that most node numbers land in an object; then the rest of the list.
		walk(items.Value.YNode(), nil)
	}
	walk(root, nil)
	if len(slots) == 0 {
		return nil, false
	}
	s := slots[node%len(slots)]
	cur := s.parent.Content[s.i]
	scalar := func(tag string) *yaml.Node {
		n := &yaml.Node{Kind: yaml.ScalarNode, Value: value}
		if tag != "" {
			n.Tag, n.Style = tag, yaml.DoubleQuotedStyle
		}
		return n
	}
	switch op % mutations {
	case opScalar:
		s.parent.Content[s.i] = scalar("")
	case opString:
		s.parent.Content[s.i] = scalar(yaml.NodeTagString)
	case opMapping:
		if s.key {
			return nil, false
		}
		s.parent.Content[s.i] = &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{scalar(yaml.NodeTagString), scalar("")}}
	case opList:
		if s.key {
			return nil, false
		}
		s.parent.Content[s.i] = &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{scalar("")}}
	case opNull:
		if s.key {
			return nil, false
		}
		s.parent.Content[s.i] = &yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagNull, Value: "null"}
	case opDelete:
		switch {
		case s.parent.Kind == yaml.SequenceNode:
			s.parent.Content = append(s.parent.Content[:s.i:s.i], s.parent.Content[s.i+1:]...)
		case s.parent.Kind == yaml.MappingNode:
			k := s.i - s.i%2
			s.parent.Content = append(s.parent.Content[:k:k], s.parent.Content[k+2:]...)
		default:
			return nil, false
		}
	case opDuplicate:
		if s.item == nil {
			return nil, false
		}
		if s.parent.Kind == yaml.SequenceNode && s.parent != items.Value.YNode() {
			s.parent.Content = append(s.parent.Content, yaml.CopyYNode(cur))
		} else {
			list := items.Value.YNode()
			list.Content = append(list.Content, yaml.CopyYNode(s.item))
		}
	case opEmpty:
		if cur.Kind != yaml.MappingNode && cur.Kind != yaml.SequenceNode {
			return nil, false
		}
		cur.Content = nil
	}
	out, err := doc.String()
	if err != nil {
		return nil, false
	}
	return []byte(out), true
}

// pipelineEdgeSeeds are inputs the golden stories do not have.
var pipelineEdgeSeeds = []string{
	"",
	"{}\n",
	"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n",
	"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig: null\n",
	"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [{}]\nfunctionConfig: {apiVersion: gateway2tyk.io/v1alpha1, kind: RenderConfig, spec: {inputs: Drop}}\n",
	"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [{a: b}]\nfunctionConfig: {apiVersion: v1, kind: ConfigMap, data: {output: TykOasApiDefinition}}\n",
	// A plain YAML stream, as `kpt fn eval` without wrapping would not send but a user might pipe.
	"apiVersion: v1\nkind: Service\nmetadata: {name: b}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: a}\n",
	// Output of an earlier run among the inputs: replaced.
	`apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: gwapi-0123456789abcdef0123
    namespace: apps
    labels: {app.kubernetes.io/managed-by: gateway2tyk, gateway2tyk.io/api-id: gwapi-0123456789abcdef0123}
  data: {tyk-oas.json: "{}"}
- apiVersion: gateway.networking.k8s.io/v1
  kind: HTTPRoute
  metadata: {name: r, namespace: apps, annotations: {gateway2tyk.io/status: stale}}
  spec: {parentRefs: [{name: g}]}
`,
	fmt.Sprintf("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: big}\n  data: {k: %q}\n", strings.Repeat("a", 1<<12)),
}

// Regressions found by the fuzz targets. Each crasher is also in testdata/fuzz/<target>/, which `go test` runs.

// TestPipelineOddCommentRoundTrip is FuzzPipeline/fe3b195fe3e82ab8: a plain YAML stream whose mapping value
// follows a comment line at a lower indentation. kyaml's YAML library drops the value on the way out, for a
// function that does nothing as well: the loss is kyaml's, not the render's, so "unchanged" is measured
// against such a function, and the function's output is exactly its.
func TestPipelineOddCommentRoundTrip(t *testing.T) {
	in := []byte(" 00:\n  #\n0")
	out, err := execute(in)
	require.NoError(t, err)
	noop, err := executeWith(framework.ResourceListProcessorFunc(func(*framework.ResourceList) error { return nil }), in)
	require.NoError(t, err)
	require.Equal(t, string(noop), string(out))
	checkPipeline(t, in)
}

// TestReadResultsDoNotDependOnInputOrder is what FuzzPipelineMutated found on its seeds: the error results of
// unreadable items came in input order, so running the function on its own (sorted) output reordered them.
// They now come in the order of the output.
func TestReadResultsDoNotDependOnInputOrder(t *testing.T) {
	const a = "- {apiVersion: v1, kind: Service, metadata: {name: a, namespace: shop}, spec: {ports: [{port: 0}]}}\n"
	const b = "- {apiVersion: gateway.networking.k8s.io/v1, kind: Gateway, metadata: {name: b, namespace: shop}, spec: {gatewayClassName: tyk}}\n"
	const head = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
	ab, errAB := execute([]byte(head + a + b))
	ba, errBA := execute([]byte(head + b + a))
	require.Error(t, errAB)
	require.Error(t, errBA)
	require.Equal(t, string(ab), string(ba), "the same items in another order give the same bytes")
	checkPipeline(t, []byte(head+b+a))
}
