package krmio

import (
	"fmt"
	"runtime"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/parallel"
)

// reconcile is kio.ReconcileInternalAnnotations, faster. The library's loop treats each item on its own (the
// record it compares an item with is found by the item's migration id, not by its place), so:
//   - an item that carries none of the annotations the loop reads or writes (the path, index and id ones, legacy
//     and internal, and the migration id) goes through the loop unchanged: every step finds nothing to copy,
//     check or clear. The render's emitted objects are such items, most of the output. They are left out;
//   - an item whose reconciled annotations are exactly as preprocess left them (the function did not touch
//     them: the render's input items) gets what the loop would do to it, without the loop's five metadata
//     decodes per item: preprocess made each legacy/internal pair agree, so the loop finds nothing missing,
//     altered or mismatched, and only formats (clears the annotations of the format the input did not use) and
//     clears the migration id, which is done here with the same library calls in the same order;
//   - the others go through the library's loop, in parallel halves, unless one of them holds an alias.
//
// The first error in item order is returned, as the loop returns it (the formatting check first, as the loop
// makes it before any item; an item of the second kind cannot fail).
func reconcile(items []*yaml.RNode, nodeAnnos map[string]map[string]string, after map[string]reconciledAnnos) error {
	workers := runtime.GOMAXPROCS(0)
	if len(items) < 64 {
		return kio.ReconcileInternalAnnotations(items, nodeAnnos)
	}
	useInternal, useLegacy, err := annotationsFormat(nodeAnnos)
	if err != nil {
		return err
	}
	var todo, unchanged []*yaml.RNode
	for _, it := range items {
		r, ok := readReconciled(it.YNode())
		switch {
		case ok && r == reconciledAnnos{}: // untouched
		case ok && asPreprocessLeft(r, after):
			unchanged = append(unchanged, it)
		default:
			todo = append(todo, it)
		}
	}
	errs := parallel.Map(len(unchanged), func(i int) error {
		return formatUnchanged(unchanged[i], useInternal, useLegacy)
	})
	for _, err := range errs {
		if err != nil {
			return err // cannot happen: asPreprocessLeft found the annotations mapping
		}
	}
	fastReconciled.Add(int64(len(unchanged)))
	// Only the items in todo are changed by the loop, so only an alias in one of them could make two workers
	// change one node.
	if len(todo) < 64 || workers < 2 || anyAlias(todo) {
		return kio.ReconcileInternalAnnotations(todo, nodeAnnos)
	}
	size := (len(todo) + workers - 1) / workers
	errs = parallel.Map(workers, func(c int) error {
		lo, hi := min(c*size, len(todo)), min((c+1)*size, len(todo))
		return kio.ReconcileInternalAnnotations(todo[lo:hi], nodeAnnos)
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// reconciled are the annotations kio.ReconcileInternalAnnotations reads or writes, in the order of
// reconciledAnnos.
var reconciledKeys = [...]string{kioutil.PathAnnotation, kioutil.IndexAnnotation, kioutil.IdAnnotation,
	kioutil.LegacyPathAnnotation, kioutil.LegacyIndexAnnotation, kioutil.LegacyIdAnnotation,
	kioutil.InternalAnnotationsMigrationResourceIDAnnotation}

const migrationID = len(reconciledKeys) - 1

var reconciled = func() map[string]int {
	m := map[string]int{}
	for i, k := range reconciledKeys {
		m[k] = i
	}
	return m
}()

// reconciledAnnos is the value of each reconciled annotation of an item, and whether it is there.
type reconciledAnnos struct {
	value   [len(reconciledKeys)]string
	present [len(reconciledKeys)]bool
}

// readReconciled reads the reconciled annotations of an item, or reports false for an item that is not a plain
// object (a mapping, with one metadata mapping holding at most one annotations mapping whose reconciled keys
// appear once, with scalar values).
func readReconciled(item *yaml.Node) (reconciledAnnos, bool) {
	var r reconciledAnnos
	annos, ok := annotationsOf(item)
	if !ok || annos == nil {
		return r, ok
	}
	for i := 0; i+1 < len(annos.Content); i += 2 {
		k, v := annos.Content[i], annos.Content[i+1]
		j, is := reconciled[k.Value]
		if !is {
			continue
		}
		if r.present[j] || v.Kind != yaml.ScalarNode {
			return r, false
		}
		r.present[j], r.value[j] = true, v.Value
	}
	return r, true
}

// annotationsOf finds metadata.annotations of a plain object (nil when it has none).
func annotationsOf(item *yaml.Node) (*yaml.Node, bool) {
	if item.Kind != yaml.MappingNode {
		return nil, false
	}
	meta, ok := onlyMapping(item, yaml.MetadataField)
	if !ok || meta == nil {
		return nil, ok
	}
	return onlyMapping(meta, yaml.AnnotationsField)
}

// onlyMapping finds the value of key in mapping m: nil when key is not there, not ok when key is there twice or
// its value is not a mapping.
func onlyMapping(m *yaml.Node, key string) (*yaml.Node, bool) {
	var found *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			if found != nil || m.Content[i+1].Kind != yaml.MappingNode {
				return nil, false
			}
			found = m.Content[i+1]
		}
	}
	return found, true
}

// asPreprocessLeft reports whether an item's reconciled annotations r are those preprocess recorded for the
// item its migration id names.
func asPreprocessLeft(r reconciledAnnos, after map[string]reconciledAnnos) bool {
	if !r.present[migrationID] {
		return false
	}
	was, found := after[r.value[migrationID]]
	return found && was == r
}

// formatUnchanged is the loop's formatInternalAnnotations and its clearing of the migration id, the library's
// own calls in the library's order (kyaml v0.21.2, kio.go).
func formatUnchanged(rn *yaml.RNode, useInternal, useLegacy bool) error {
	var clear []string
	if !useInternal {
		clear = append(clear, kioutil.IdAnnotation, kioutil.PathAnnotation, kioutil.IndexAnnotation)
	}
	if !useLegacy {
		clear = append(clear, kioutil.LegacyIdAnnotation, kioutil.LegacyPathAnnotation, kioutil.LegacyIndexAnnotation)
	}
	clear = append(clear, kioutil.InternalAnnotationsMigrationResourceIDAnnotation)
	for _, k := range clear {
		if err := rn.PipeE(yaml.ClearAnnotation(k)); err != nil {
			return err
		}
	}
	return nil
}

// annotationsFormat is the library's determineAnnotationsFormat (unexported there, kyaml v0.21.2): whether the
// input used the internal annotations, the legacy ones or both, and an error when its items disagree.
func annotationsFormat(nodeAnnos map[string]map[string]string) (useInternal, useLegacy bool, err error) {
	if len(nodeAnnos) == 0 {
		return true, true, nil
	}
	var internal, legacy *bool
	for _, annos := range nodeAnnos {
		_, foundPath := annos[kioutil.PathAnnotation]
		_, foundIndex := annos[kioutil.IndexAnnotation]
		_, foundID := annos[kioutil.IdAnnotation]
		_, foundLegacyPath := annos[kioutil.LegacyPathAnnotation]
		_, foundLegacyIndex := annos[kioutil.LegacyIndexAnnotation]
		_, foundLegacyID := annos[kioutil.LegacyIdAnnotation]
		if !(foundPath || foundIndex || foundID || foundLegacyPath || foundLegacyIndex || foundLegacyID) {
			continue
		}
		in := foundPath || foundIndex || foundID
		if internal == nil {
			internal = &in
		}
		leg := foundLegacyPath || foundLegacyIndex || foundLegacyID
		if legacy == nil {
			legacy = &leg
		}
		if in != *internal || leg != *legacy {
			return false, false, fmt.Errorf("the annotation formatting in the input resources is not consistent")
		}
	}
	if internal != nil {
		useInternal = *internal
	}
	if legacy != nil {
		useLegacy = *legacy
	}
	return useInternal, useLegacy, nil
}

// leftByPreprocess is an item's reconciled annotations as preprocess left them, when they can be read.
type leftByPreprocess struct {
	annos reconciledAnnos
	ok    bool
}

func readLeft(item *yaml.RNode) leftByPreprocess {
	r, ok := readReconciled(item.YNode())
	return leftByPreprocess{r, ok}
}

// byMigrationID files what preprocess left of item i under i, the migration id preprocess gave it.
func byMigrationID(left []leftByPreprocess) map[string]reconciledAnnos {
	out := make(map[string]reconciledAnnos, len(left))
	for i, l := range left {
		if l.ok {
			out[strconv.Itoa(i)] = l.annos
		}
	}
	return out
}
