// Package krmio runs a ResourceListProcessor over a ResourceList the way kyaml's framework.Execute does, byte for
// byte, but writes the output faster: each item is written on its own, on every core, and streamed out in order.
// Most items are plain objects that package directyaml writes without the encoder; the others are encoded by
// yaml.v3 item by item, as follows.
//
// Why: kio.ByteWriter deep-copies every item and then encodes the whole ResourceList as one YAML document, and the
// yaml.v3 emitter keeps every event of a document until the document ends. At 10,000 routes (about 100 MB of
// output) that one slice of events is hundreds of megabytes, grown by copying, and it is most of the time and memory
// of a run. Encoded item by item, the events of one item are all that is held, and the items are independent work.
//
// How the output stays identical: the yaml.v3 emitter writes a block sequence item by item, each item starting on a
// line of its own; what it writes for an item depends on the item and on where it stands (the indentation, the
// compact sequence style, whether it is the first item), not on the content of its neighbours. So an item is
// encoded in the same place of a document of the same shape, between two placeholder items:
//
//	apiVersion: <the wrapper's>      kind: <the wrapper's>      items: [<placeholder>, item, <placeholder>]
//
// and the lines between the two placeholders are the item's lines. The first item is encoded without a placeholder
// before it (it is the first item of the sequence), and the last item is encoded together with what follows the
// items (functionConfig and results), in the document kio.ByteWriter would build with the items before it replaced
// by one placeholder. Every piece is checked to have the frame expected around it; if one does not, the rest of
// the output is written by encoding the rest of the items in one document, which is exact too. Nothing here reads
// YAML text: the pieces are what the library's own encoder wrote.
//
// The input is read with kio.ByteReadWriter, as framework.Execute reads it. Inputs that are not wrapped in a
// ResourceList or List, and ByteReadWriter settings the framework does not use, are written by kio itself.
package krmio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	kerrors "sigs.k8s.io/kustomize/kyaml/errors"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/directyaml"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/libio"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/literal"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/meta"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/parallel"
)

// Execute is framework.Execute with Write in place of rlSource.Write: it reads the ResourceList from the source,
// passes it to the processor, and writes the result, with the same bytes and the same errors.
func Execute(p framework.ResourceListProcessor, rlSource *kio.ByteReadWriter) error {
	if libio.On() {
		return framework.Execute(p, rlSource)
	}
	// Everything up to the write is framework.Execute's own code (kyaml v0.21.2).
	if rlSource == nil {
		rlSource = &kio.ByteReadWriter{KeepReaderAnnotations: true}
	}
	if rlSource.Reader == nil {
		rlSource.Reader = os.Stdin
	}
	if rlSource.Writer == nil {
		rlSource.Writer = os.Stdout
	}

	rl := framework.ResourceList{}
	var err error
	if rl.Items, err = rlSource.Read(); err != nil {
		return kerrors.WrapPrefixf(err, "failed to read ResourceList input")
	}
	rl.FunctionConfig = rlSource.FunctionConfig

	// Not framework.Execute's: its preprocessing writes an annotation on every item and fails on one whose
	// annotations are not a mapping with kyaml's "wrong node kind", which names neither the item nor the field.
	if err := annotationsWritable(rl.Items); err != nil {
		return err
	}
	nodeAnnos, after, err := preprocess(rl.Items)
	if err != nil {
		return err
	}

	retErr := p.Process(&rl)

	if err = reconcile(rl.Items, nodeAnnos, after); err != nil {
		return err
	}

	if len(rl.Results) > 0 {
		b, err := yaml.Marshal(rl.Results)
		if err != nil {
			return kerrors.Wrap(err)
		}
		y, err := yaml.Parse(string(b))
		if err != nil {
			return kerrors.Wrap(err)
		}
		rlSource.Results = y
	}
	if err := Write(rlSource, rl.Items); err != nil {
		return err
	}
	return retErr
}

// annotationsWritable is an error naming the first item whose metadata or metadata.annotations is not a mapping
// (a list, a string), in the API server's words, with where the item starts in the input: such an item cannot
// carry the annotations the framework records each item's index and origin in, so the function cannot run at all.
func annotationsWritable(items []*yaml.RNode) error {
	for i, item := range items {
		n := item.YNode()
		if n.Kind != yaml.MappingNode {
			continue // not an object: the framework's own error names it
		}
		field, bad := yaml.MetadataField, meta.Value(n, yaml.MetadataField)
		if bad != nil && bad.Kind == yaml.MappingNode {
			field, bad = "metadata.annotations", meta.Value(bad, yaml.AnnotationsField)
		}
		if bad == nil || bad.Kind == yaml.MappingNode || (bad.Kind == yaml.ScalarNode && bad.ShortTag() == yaml.NodeTagNull) {
			continue
		}
		what := map[yaml.Kind]string{yaml.SequenceNode: "array", yaml.ScalarNode: "string", yaml.AliasNode: "alias"}[bad.Kind]
		switch bad.ShortTag() { // as encoding/json names a JSON value's type
		case yaml.NodeTagInt, yaml.NodeTagFloat:
			what = "number"
		case yaml.NodeTagBool:
			what = "bool"
		}
		return fmt.Errorf("failed to read ResourceList input: items[%d] (%s, line %d): %s: must be an object, not %s",
			i, itemName(n), n.Line, field, what)
	}
	return nil
}

// scalar is the text of a scalar field of mapping m ("" when it is missing or not a scalar).
func scalar(m *yaml.Node, key string) string {
	if v := meta.Value(m, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// itemName is "Kind namespace/name", as much of it as the item says.
func itemName(n *yaml.Node) string {
	name := scalar(n, yaml.KindField)
	if md := meta.Value(n, yaml.MetadataField); md != nil && md.Kind == yaml.MappingNode {
		if ns := scalar(md, yaml.NamespaceField); ns != "" {
			return name + " " + ns + "/" + scalar(md, yaml.NameField)
		}
		name += " " + scalar(md, yaml.NameField)
	}
	return name
}

// preprocess is kio.PreprocessResourcesForInternalAnnotationMigration with the items done on every core: each
// item gets its index as the migration id annotation, its legacy annotations copied, and a record of its
// internal annotations; the first error in item order is returned. (On an error the framework writes nothing,
// so that later items were changed too does not show.) Items that share nodes through YAML aliases could be
// changed by two workers at once: then the library's own loop runs. It also returns what it left of each item's
// reconciled annotations, by migration id, for reconcile.
func preprocess(items []*yaml.RNode) (map[string]map[string]string, map[string]reconciledAnnos, error) {
	if len(items) < 64 || anyAlias(items) {
		nodeAnnos, err := kio.PreprocessResourcesForInternalAnnotationMigration(items)
		if err != nil || len(items) < 64 {
			return nodeAnnos, nil, err // reconcile leaves fewer than 64 items to the library
		}
		return nodeAnnos, byMigrationID(parallel.Map(len(items), func(i int) leftByPreprocess { return readLeft(items[i]) })), nil
	}
	type done struct {
		annos map[string]string
		left  leftByPreprocess
		err   error
	}
	all := parallel.Map(len(items), func(i int) done {
		// The library's loop body, for one item (kyaml v0.21.2, kio.go).
		item := items[i]
		if err := item.PipeE(yaml.SetAnnotation(kioutil.InternalAnnotationsMigrationResourceIDAnnotation, strconv.Itoa(i))); err != nil {
			return done{err: err}
		}
		annos := kioutil.GetInternalAnnotations(item)
		if err := kioutil.CopyLegacyAnnotations(item); err != nil {
			return done{err: err}
		}
		meta, _ := item.GetMeta()
		return done{annos: annos, left: readLeft(item), err: checkMismatchedAnnos(meta.Annotations)}
	})
	out := make(map[string]map[string]string, len(items))
	left := make([]leftByPreprocess, len(items))
	for i, d := range all {
		if d.err != nil {
			return nil, nil, d.err
		}
		out[strconv.Itoa(i)] = d.annos
		left[i] = d.left
	}
	return out, byMigrationID(left), nil
}

// checkMismatchedAnnos is kio's own check (unexported there): legacy and internal path, index and id
// annotations must agree where both are set.
func checkMismatchedAnnos(annotations map[string]string) error {
	path := annotations[kioutil.PathAnnotation]
	index := annotations[kioutil.IndexAnnotation]
	id := annotations[kioutil.IdAnnotation]

	legacyPath := annotations[kioutil.LegacyPathAnnotation]
	legacyIndex := annotations[kioutil.LegacyIndexAnnotation]
	legacyID := annotations[kioutil.LegacyIdAnnotation]

	if path != "" && legacyPath != "" && path != legacyPath {
		return fmt.Errorf("resource input to function has mismatched legacy and internal path annotations")
	}
	if index != "" && legacyIndex != "" && index != legacyIndex {
		return fmt.Errorf("resource input to function has mismatched legacy and internal index annotations")
	}
	if id != "" && legacyID != "" && id != legacyID {
		return fmt.Errorf("resource input to function has mismatched legacy and internal id annotations")
	}
	return nil
}

// anyAlias reports whether any item holds a YAML alias (and so may share nodes with another item).
func anyAlias(items []*yaml.RNode) bool {
	var walk func(n *yaml.Node) bool
	walk = func(n *yaml.Node) bool {
		if n.Kind == yaml.AliasNode {
			return true
		}
		for _, c := range n.Content {
			if walk(c) {
				return true
			}
		}
		return false
	}
	for _, it := range items {
		if n := it.YNode(); n != nil && walk(n) {
			return true
		}
	}
	return false
}

// Write writes the nodes as rw.Write(nodes) does, byte for byte, encoding the items of a wrapped output in
// parallel and streaming them out in order.
func Write(rw *kio.ByteReadWriter, nodes []*yaml.RNode) error {
	if libio.On() || rw.NoWrap || rw.WrappingKind == "" || !rw.KeepReaderAnnotations || rw.Style != 0 || len(nodes) < 2 {
		return rw.Write(nodes)
	}
	for _, n := range nodes {
		if n == nil || n.YNode() == nil {
			return rw.Write(nodes) // kio's behaviour for what should not happen, whatever it is
		}
	}
	w := &writer{rw: rw, nodes: nodes}
	return w.write()
}

// Placeholders stand for the items around the one being encoded. They are plain scalars, so each is written on
// one line of its own ("- " and the word).
const (
	before = "gateway2tyk-krmio-item-before"
	after  = "gateway2tyk-krmio-item-after"
)

type writer struct {
	rw    *kio.ByteReadWriter
	nodes []*yaml.RNode
	// cleared holds, for the items that yaml.ClearEmptyAnnotations changes, the copy it changed (see prepare).
	cleared map[int]*yaml.Node
	// head is what precedes the items' lines: "apiVersion: ...\nkind: ...\nitems:\n".
	head []byte
}

// list builds the wrapper mapping as kio.ByteWriter does, with the given sequence items and, when full, the
// functionConfig and results that follow the items.
func (w *writer) list(items []*yaml.Node, full bool) *yaml.Node {
	list := &yaml.Node{
		Kind: yaml.MappingNode,
		Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Value: "apiVersion"},
			{Kind: yaml.ScalarNode, Value: w.rw.WrappingAPIVersion},
			{Kind: yaml.ScalarNode, Value: "kind"},
			{Kind: yaml.ScalarNode, Value: w.rw.WrappingKind},
			{Kind: yaml.ScalarNode, Value: "items"}, {Kind: yaml.SequenceNode, Content: items},
		}}
	if full && w.rw.FunctionConfig != nil {
		list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "functionConfig"},
			w.rw.FunctionConfig.YNode())
	}
	if full && w.rw.Results != nil {
		list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "results"}, w.rw.Results.YNode())
	}
	return list
}

func placeholder(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }

// cut counts the items written from a piece of their own, and uncut those written by the fallback (tests read
// them to know that the fast path ran).
var cut, uncut atomic.Int64

// splicedItems counts the items whose long literal blocks were written directly (package literal),
// directItems those written whole by package directyaml, and fastReconciled those reconcile formatted without
// the library's loop, for the tests.
var splicedItems, directItems, fastReconciled atomic.Int64

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// encode writes the wrapper document into buf with kyaml's encoder settings, as kio.ByteWriter does.
func encode(buf *bytes.Buffer, list *yaml.Node) error {
	enc := yaml.NewEncoder(buf)
	err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{list}})
	if cerr := enc.Close(); err == nil {
		err = cerr
	}
	return err
}

// prepare does what kio.ByteWriter does to every item before it writes anything: yaml.ClearEmptyAnnotations on a
// copy. Copying only the items it may change gives the same nodes to encode; an error is returned, as kio returns
// it, before anything is written.
func (w *writer) prepare() error {
	for i, n := range w.nodes {
		if !mayClear(n.YNode()) {
			continue
		}
		c := n.Copy()
		if err := yaml.ClearEmptyAnnotations(c); err != nil {
			return err
		}
		if w.cleared == nil {
			w.cleared = map[int]*yaml.Node{}
		}
		w.cleared[i] = c.YNode()
	}
	return nil
}

// node is the node to encode for item i.
func (w *writer) node(i int) *yaml.Node {
	if c, ok := w.cleared[i]; ok {
		return c
	}
	return w.nodes[i].YNode()
}

// mayClear reports whether yaml.ClearEmptyAnnotations could change the item: it clears metadata.annotations and
// metadata when their value has no content (an empty mapping, a scalar, null). Anything unusual counts as
// "could"; the exact function then decides on a copy.
func mayClear(item *yaml.Node) bool {
	if item.Kind != yaml.MappingNode {
		return true
	}
	for i := 0; i+1 < len(item.Content); i += 2 {
		if item.Content[i].Value != yaml.MetadataField {
			continue
		}
		meta := item.Content[i+1]
		if meta.Kind != yaml.MappingNode || len(meta.Content) == 0 {
			return true
		}
		for j := 0; j+1 < len(meta.Content); j += 2 {
			if meta.Content[j].Value == yaml.AnnotationsField && len(meta.Content[j+1].Content) == 0 {
				return true
			}
		}
	}
	return false
}

// piece is the encoded lines of one item, or why they could not be cut out.
type piece struct {
	buf *bytes.Buffer
	// from and to delimit the item's lines in buf; ok is false when the frame was not as expected.
	from, to int
	ok       bool
	err      error
	// panicked is a panic of the encoding, raised again in the writing goroutine (where the command turns it
	// into one line, as it would have with kio's writer).
	panicked any
}

// encodeItem writes item i (not the last) directly when package directyaml can (most items), or else encodes it
// between its placeholders and cuts out its lines.
func (w *writer) encodeItem(i int, memo *directyaml.Memo) piece {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	if b, ok := directyaml.AppendItem(buf.AvailableBuffer(), w.node(i), memo); ok {
		buf.Write(b)
		directItems.Add(1)
		return piece{buf: buf, from: 0, to: buf.Len(), ok: true}
	}
	node, texts := literal.Replace(w.node(i), true, nil)
	items := []*yaml.Node{placeholder(before), node, placeholder(after)}
	prefix := []byte("- " + before + "\n")
	if i == 0 {
		items, prefix = items[1:], nil // the first item of the sequence, as it is in the output
	}
	if err := encode(buf, w.list(items, false)); err != nil {
		return piece{buf: buf, err: err}
	}
	if len(texts) > 0 {
		spliced, ok := literal.Splice(buf.Bytes(), texts)
		buf.Reset()
		if ok {
			buf.Write(spliced)
			splicedItems.Add(1)
		} else {
			items[len(items)-2] = w.node(i) // the emitter writes the blocks itself
			if err := encode(buf, w.list(items, false)); err != nil {
				return piece{buf: buf, err: err}
			}
		}
	}
	b := buf.Bytes()
	suffix := []byte("- " + after + "\n")
	start := len(w.head) + len(prefix)
	if !bytes.HasPrefix(b, w.head) || !bytes.HasPrefix(b[len(w.head):], prefix) || !bytes.HasSuffix(b, suffix) ||
		start > len(b)-len(suffix) {
		return piece{buf: buf}
	}
	return piece{buf: buf, from: start, to: len(b) - len(suffix), ok: true}
}

func (w *writer) safeEncodeItem(i int, memo *directyaml.Memo) (p piece) {
	defer func() {
		if r := recover(); r != nil {
			p = piece{panicked: r}
		}
	}()
	return w.encodeItem(i, memo)
}

// rest writes the items from index k on, and what follows them, in one document.
func (w *writer) rest(out io.Writer, k int) error {
	items := []*yaml.Node{placeholder(before)}
	for i := k; i < len(w.nodes); i++ {
		items = append(items, w.node(i))
	}
	var buf bytes.Buffer
	if err := encode(&buf, w.list(items, true)); err != nil {
		return err
	}
	prefix := append(append([]byte{}, w.head...), "- "+before+"\n"...)
	if !bytes.HasPrefix(buf.Bytes(), prefix) {
		return fmt.Errorf("krmio: the output of items %d.. does not start as expected", k)
	}
	_, err := out.Write(buf.Bytes()[len(prefix):])
	return err
}

func (w *writer) write() error {
	if err := w.prepare(); err != nil {
		return err
	}
	// The head: the wrapper with only a placeholder item ends with the placeholder's line.
	var hb bytes.Buffer
	if err := encode(&hb, w.list([]*yaml.Node{placeholder(before)}, false)); err != nil {
		return err
	}
	tail := []byte("items:\n- " + before + "\n")
	if !bytes.HasSuffix(hb.Bytes(), tail) {
		return w.rw.Write(w.nodes) // an unusual wrapper: kio writes it
	}
	w.head = hb.Bytes()[:hb.Len()-len(tail)+len("items:\n")]

	out := bufio.NewWriterSize(w.rw.Writer, 1<<20)
	if _, err := out.Write(w.head); err != nil {
		return err
	}
	last := len(w.nodes) - 1
	pieces, release := w.encodeAll(last)
	failed := -1
	var firstErr error
	for i := 0; i < last; i++ {
		p := <-pieces[i]
		if p.panicked != nil {
			panic(p.panicked)
		}
		if failed < 0 && firstErr == nil {
			switch {
			case p.err != nil:
				firstErr = p.err
			case !p.ok:
				failed = i
			default:
				if _, err := out.Write(p.buf.Bytes()[p.from:p.to]); err != nil {
					firstErr = err
				}
				cut.Add(1)
			}
		}
		if p.buf != nil {
			bufPool.Put(p.buf)
		}
		release()
	}
	if firstErr != nil {
		return firstErr
	}
	if failed < 0 {
		failed = last
	}
	uncut.Add(int64(len(w.nodes) - failed))
	if err := w.rest(out, failed); err != nil {
		return err
	}
	return out.Flush()
}

// encodeAll encodes items 0..n-1 on a bounded pool of workers; piece i arrives on channel i. Taking a piece
// must be followed by release(): at most a window of pieces is held at once, so memory does not grow with the
// output.
func (w *writer) encodeAll(n int) (pieces []chan piece, release func()) {
	pieces = make([]chan piece, n)
	for i := range pieces {
		pieces[i] = make(chan piece, 1)
	}
	workers := runtime.GOMAXPROCS(0)
	window := make(chan struct{}, 8*workers)
	jobs := make(chan int)
	go func() {
		for i := 0; i < n; i++ {
			window <- struct{}{}
			jobs <- i
		}
		close(jobs)
	}()
	for range workers {
		go func() {
			memo := directyaml.NewMemo()
			for i := range jobs {
				pieces[i] <- w.safeEncodeItem(i, memo)
			}
		}()
	}
	return pieces, func() { <-window }
}
