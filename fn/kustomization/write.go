package kustomization

import (
	"io"
	"sort"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/kustomize/kyaml/resid"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/libio"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/literal"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/parallel"
	"github.com/gateway2tyk/gateway2tyk/fn/read"
)

// Order is kustomize's legacy sort order (api/internal/builtins/SortOrderTransformer.go, kustomize v5.8.2):
// kinds of orderFirst first in their order, kinds of orderLast last, every other kind between them; then by
// group, version and kind; then by namespace and name. kustomize's own sorter cannot be used: it works on a
// ResMap, whose every Append scans all objects, the quadratic cost this path avoids.
type Order struct{ rank map[string]int }

// kustomize's default orderFirst and orderLast ("DO NOT CHANGE!" in kustomize).
var (
	defaultOrderFirst = []string{"Namespace", "ResourceQuota", "StorageClass", "CustomResourceDefinition",
		"ServiceAccount", "PodSecurityPolicy", "Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding",
		"ConfigMap", "Secret", "Endpoints", "Service", "LimitRange", "PriorityClass", "PersistentVolume",
		"PersistentVolumeClaim", "Deployment", "StatefulSet", "CronJob", "PodDisruptionBudget"}
	defaultOrderLast = []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"}
)

// DefaultOrder is the order of `kustomize build` without sortOptions.
func DefaultOrder() Order { return NewOrder(defaultOrderFirst, defaultOrderLast) }

// NewOrder is the order of sortOptions.legacySortOptions.
func NewOrder(first, last []string) Order {
	rank := map[string]int{}
	for i, k := range first {
		rank[k] = -len(first) + i
	}
	for i, k := range last {
		rank[k] = 1 + i
	}
	return Order{rank: rank}
}

// sortKey is an object's ID with the strings kustomize's comparison builds from it, built once per object.
type sortKey struct {
	id        resid.ResId
	gvk, full string
}

func keyOf(n *yaml.RNode) sortKey {
	id := resid.FromRNode(n)
	return sortKey{id: id, gvk: gvkString(id.Gvk), full: idString(id)}
}

func (o Order) less(a, b sortKey) bool {
	if !a.id.Gvk.Equals(b.id.Gvk) {
		ra, rb := o.rank[a.id.Kind], o.rank[b.id.Kind]
		if ra != rb {
			return ra < rb
		}
		// kustomize reverses the comparison of two Namespaces when one is core, so the core one comes first.
		if a.id.Kind == "Namespace" && b.id.Kind == "Namespace" && (a.id.Group == "" || b.id.Group == "") {
			return a.gvk > b.gvk
		}
		return a.gvk < b.gvk
	}
	return a.full < b.full
}

func orEmpty(s, empty string) string {
	if s == "" {
		return empty
	}
	return s
}

func gvkString(g resid.Gvk) string {
	return orEmpty(g.Group, "~G") + "_" + orEmpty(g.Version, "~V") + "_" + orEmpty(g.Kind, "~K")
}

func idString(id resid.ResId) string {
	return strings.Join([]string{id.Gvk.String(), orEmpty(id.Namespace, "~X"), orEmpty(id.Name, "~N")}, "|")
}

// asYAML is kustomize's Resource.AsYAML: the object as JSON, converted to YAML (without the JSON where generic
// can build what the conversion would).
func asYAML(n *yaml.RNode) ([]byte, error) {
	if !libio.On() {
		if v, ok := generic(n.YNode()); ok {
			return yamlv2.Marshal(v)
		}
	}
	j, err := read.ToJSON(n)
	if err != nil {
		return nil, err
	}
	return sigsyaml.JSONToYAML(j)
}

// Write writes items as `kustomize build` prints objects: sorted in order, each converted to JSON and from
// JSON to YAML (kustomize's Resource.AsYAML: keys sorted, comments dropped), separated by "---". Objects are
// converted on every core.
func Write(w io.Writer, items []*yaml.RNode, order Order) error {
	keys := make([]sortKey, len(items))
	idx := make([]int, len(items))
	for i, it := range items {
		keys[i] = keyOf(it)
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return order.less(keys[idx[a]], keys[idx[b]]) })
	type doc struct {
		b   []byte
		err error
	}
	docs := parallel.Map(len(idx), func(i int) doc {
		item := items[idx[i]]
		// The long documents are spliced in as literal blocks (package literal), as JSONToYAML writes any
		// string with a newline; if the splice cannot be done, the item is converted whole.
		if libio.On() {
			y, err := asYAML(item)
			return doc{y, err}
		}
		node, texts := literal.Replace(item.YNode(), false, nil)
		y, err := asYAML(yaml.NewRNode(node))
		if err != nil || len(texts) == 0 {
			return doc{y, err}
		}
		if spliced, ok := literal.Splice(y, texts); ok {
			return doc{spliced, nil}
		}
		y, err = asYAML(item)
		return doc{y, err}
	})
	for i, d := range docs {
		if d.err != nil {
			return d.err
		}
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return err
			}
		}
		if _, err := w.Write(d.b); err != nil {
			return err
		}
	}
	return nil
}
