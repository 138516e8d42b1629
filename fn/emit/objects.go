package emit

import (
	"sync"
	"sync/atomic"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/directyaml"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/libio"
)

// API is what emit needs to know of one rendered API.
type API struct {
	ID         string
	Namespace  string
	Route      string // "<ns>/<name>"
	Gateway    string // "<ns>/<name>"
	Hostname   string
	Path       string
	Role       string // AnnotationRole, "" for a plain API
	Owner      string // the application that owns the API (config.Spec.Owner)
	Conditions string // JSON array
	Document   []byte // the Tyk OAS document (JSON)
}

// The objects are built node by node, and are the very nodes kyaml's setters would build (SetField, SetName,
// SetNamespace, SetLabels, SetAnnotations on an empty mapping: the same keys in the same order, the same tags
// and styles; objects_test.go compares them with the setters' on many APIs). The setters are not used because
// each string value goes through yaml.IsValueNonString, a YAML 1.1 parse of the value, which at fleet scale was
// a large part of the render; here its answer is computed once per distinct value (see nonString).
//
// At fleet scale there are tens of thousands of these objects, held until they are written, so they are built
// small: the nodes of one object come from one allocation, and the key nodes, which are the same in every
// object, are shared (see key). Values are never shared: a setter replaces a value node's content in place.

// ConfigMap builds the ConfigMap that holds an API's document.
func ConfigMap(api API) (*yaml.RNode, error) {
	b := newBuilder(configMapNodes)
	node := b.object("v1", "ConfigMap", api)
	data := b.mapping()
	appendKey(data, DocumentKey, b.str(string(api.Document)))
	appendField(node, "data", data)
	return yaml.NewRNode(node), nil
}

// TykOasApiDefinition builds the definition that points Tyk Operator at an API's ConfigMap.
func TykOasApiDefinition(api API) (*yaml.RNode, error) {
	b := newBuilder(definitionNodes)
	node := b.object("tyk.tyk.io/v1alpha1", "TykOasApiDefinition", api)
	ref := b.mapping()
	appendKey(ref, "name", b.str(api.ID))
	appendKey(ref, "namespace", b.str(api.Namespace))
	appendKey(ref, "keyName", b.str(DocumentKey))
	spec, tykOAS := b.mapping(), b.mapping()
	appendField(node, "spec", spec)
	appendField(spec, "tykOAS", tykOAS)
	appendField(tykOAS, "configmapRef", ref)
	return yaml.NewRNode(node), nil
}

// The nodes of each object, keys aside (they are shared): objectNodes for what object builds (the object, its
// apiVersion and kind, metadata, name, namespace, labels and their three values, annotations and their five), then
// the data mapping and the document, or spec, tykOAS, configmapRef and its three values. A builder made too small
// allocates a second slice for the rest, which at fleet scale was 44 MB held until the output is written.
const (
	objectNodes     = 16
	configMapNodes  = objectNodes + 2
	definitionNodes = objectNodes + 6
)

// builder hands out the nodes of one object from one slice.
type builder struct{ nodes []yaml.Node }

func newBuilder(n int) *builder { return &builder{nodes: make([]yaml.Node, 0, n)} }

func (b *builder) next() *yaml.Node {
	if len(b.nodes) == cap(b.nodes) {
		b.nodes = make([]yaml.Node, 0, 8)
	}
	b.nodes = b.nodes[:len(b.nodes)+1]
	return &b.nodes[len(b.nodes)-1]
}

func (b *builder) mapping() *yaml.Node {
	n := b.next()
	n.Kind = yaml.MappingNode
	return n
}

// str is yaml.NewStringRNode's node: a !!str scalar (literal style when it spans lines).
func (b *builder) str(v string) *yaml.Node {
	n := b.next()
	n.Kind = yaml.ScalarNode
	n.SetString(v)
	return n
}

// scalar is yaml.NewScalarRNode's node: an untagged scalar.
func (b *builder) scalar(v string) *yaml.Node {
	n := b.next()
	n.Kind = yaml.ScalarNode
	n.Value = v
	return n
}

// object builds the common part: apiVersion, kind, metadata with the contract's labels and annotations.
func (b *builder) object(apiVersion, kind string, api API) *yaml.Node {
	node := b.mapping()
	node.Content = make([]*yaml.Node, 0, 8)
	appendField(node, "apiVersion", setterValue(b.str(apiVersion)))
	appendField(node, "kind", setterValue(b.str(kind)))
	meta := b.mapping()
	meta.Content = make([]*yaml.Node, 0, 8)
	appendField(node, yaml.MetadataField, meta)
	appendField(meta, yaml.NameField, setterValue(b.scalar(api.ID)))
	if api.Namespace != "" {
		appendField(meta, yaml.NamespaceField, setterValue(b.scalar(api.Namespace)))
	}
	// setMapInMetadata's order: keys sorted.
	labels := b.mapping()
	labels.Content = make([]*yaml.Node, 0, 4)
	appendField(labels, LabelManagedBy, setterValue(b.str(ManagedBy)))
	appendField(labels, LabelAPIID, setterValue(b.str(api.ID)))
	appendField(labels, LabelOwner, setterValue(b.str(api.Owner)))
	appendField(meta, yaml.LabelsField, labels)
	annotations := b.mapping()
	annotations.Content = make([]*yaml.Node, 0, 10)
	appendField(annotations, AnnotationConditions, setterValue(b.str(api.Conditions)))
	appendField(annotations, AnnotationGateway, setterValue(b.str(api.Gateway)))
	appendField(annotations, AnnotationHostname, setterValue(b.str(api.Hostname)))
	appendField(annotations, AnnotationPath, setterValue(b.str(api.Path)))
	if api.Role != "" {
		appendField(annotations, AnnotationRole, setterValue(b.str(api.Role)))
	}
	appendField(annotations, AnnotationRoute, setterValue(b.str(api.Route)))
	appendField(meta, yaml.AnnotationsField, annotations)
	return node
}

// appendField adds a field as yaml.FieldSetter creates one: a key node with only its kind and value.
func appendField(m *yaml.Node, k string, value *yaml.Node) {
	m.Content = append(m.Content, fieldKey(k), value)
}

// appendKey adds a field as stringMap did: a !!str key node (yaml.NewStringRNode).
func appendKey(m *yaml.Node, k string, value *yaml.Node) {
	m.Content = append(m.Content, strKey(k), value)
}

// The key nodes shared by every emitted object, in the two forms the setters make them. Nothing changes a key
// node in place (setters replace or remove fields, and write new ones); the writer only reads them.
var fieldKeys, strKeys = map[string]*yaml.Node{}, map[string]*yaml.Node{}

func init() {
	for _, k := range []string{"apiVersion", "kind", yaml.MetadataField, yaml.NameField, yaml.NamespaceField,
		yaml.LabelsField, yaml.AnnotationsField, "data", "spec", "tykOAS", "configmapRef",
		LabelManagedBy, LabelAPIID, LabelOwner, AnnotationConditions, AnnotationGateway, AnnotationHostname, AnnotationPath,
		AnnotationRole, AnnotationRoute} {
		fieldKeys[k] = &yaml.Node{Kind: yaml.ScalarNode, Value: k}
	}
	for _, k := range []string{DocumentKey, "name", "namespace", "keyName"} {
		strKeys[k] = yaml.NewStringRNode(k).YNode()
	}
}

func fieldKey(k string) *yaml.Node {
	if n := fieldKeys[k]; n != nil {
		return n
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Value: k}
}

func strKey(k string) *yaml.Node {
	if n := strKeys[k]; n != nil {
		return n
	}
	return yaml.NewStringRNode(k).YNode()
}

// setterValue gives a value the style yaml.FieldSetter gives it: a string that YAML 1.1 would read as something
// else (yes, 1e3, ~) is double-quoted, unless it already has a style.
func setterValue(v *yaml.Node) *yaml.Node {
	if yaml.IsYNodeString(v) && v.Style == 0 && v.Kind == yaml.ScalarNode && nonString(v.Value) {
		v.Style = yaml.DoubleQuotedStyle
	}
	return v
}

// nonString is yaml.IsValueNonString, answered without a parse for the words that cannot be anything but a
// string, and remembered for the others (the conditions of most APIs are the same JSON text).
func nonString(s string) bool {
	if libio.On() {
		return yaml.IsValueNonString(s)
	}
	if directyaml.Plain(s) {
		return false
	}
	if v, ok := nonStringSeen.Load(s); ok {
		return v.(bool)
	}
	v := yaml.IsValueNonString(s)
	if nonStringCount.Load() < nonStringMax {
		nonStringCount.Add(1)
		nonStringSeen.Store(s, v)
	}
	return v
}

var (
	nonStringSeen  sync.Map
	nonStringCount atomic.Int64
)

const nonStringMax = 1 << 14
