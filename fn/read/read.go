// Package read owns the boundary between the KRM ResourceList and the typed inventory: it picks the items the
// render understands, has each judged as the API server would judge its create (package apiserver: validation,
// unknown fields and defaults), decodes what the API server would store into its Go type, and reports every
// item it cannot read as a problem that names the object and the field. Items it does not read are left alone;
// nothing here changes an item.
package read

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/apiserver"
	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/libio"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/parallel"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
	"github.com/gateway2tyk/gateway2tyk/fn/tykapi"
)

// Problem is an item that cannot be read as its kind. Field is the path of the offending field, empty when the
// object as a whole is at fault.
type Problem struct {
	Key     inventory.Key
	Node    *yaml.RNode
	Field   string
	Message string
}

func (p Problem) Error() string {
	if p.Field == "" {
		return p.Key.String() + ": " + p.Message
	}
	return p.Key.String() + ": " + p.Field + ": " + p.Message
}

// Result is what the reader makes of a ResourceList's items.
type Result struct {
	Inventory *inventory.Inventory
	// Nodes maps every object in the inventory back to its item, so status can be written onto it.
	Nodes map[inventory.Key]*yaml.RNode
	// Problems are the items that could not be read (error results).
	Problems []Problem
	// Ignored are items of a read group whose apiVersion the render does not know (warning results).
	Ignored []Problem
}

// kind describes one kind the render reads: the API versions accepted and how to make an empty object.
type kind struct {
	versions []string
	newObj   func() any
	defaults func(obj any)
}

var kinds = map[string]map[string]kind{
	inventory.GatewayGroup: {
		inventory.KindGatewayClass: {versions: []string{"v1", "v1beta1"}, newObj: func() any { return &gwv1.GatewayClass{} }},
		inventory.KindGateway:      {versions: []string{"v1", "v1beta1"}, newObj: func() any { return &gwv1.Gateway{} }},
		inventory.KindHTTPRoute:    {versions: []string{"v1", "v1beta1"}, newObj: func() any { return &gwv1.HTTPRoute{} }},
		// ReferenceGrant is served as v1 since Gateway API v1.5 and as v1beta1 before; the schema is the same.
		inventory.KindReferenceGrant: {versions: []string{"v1", "v1beta1"}, newObj: func() any { return &gwv1.ReferenceGrant{} }},
		// BackendTLSPolicy is served as v1 since Gateway API v1.4 (v1alpha3 by the experimental channel only).
		inventory.KindBackendTLSPolicy: {versions: []string{"v1"}, newObj: func() any { return &gwv1.BackendTLSPolicy{} }},
		inventory.KindListenerSet:      {versions: []string{"v1"}, newObj: func() any { return &gwv1.ListenerSet{} }},
	},
	"": {
		inventory.KindService:   {versions: []string{"v1"}, newObj: func() any { return &corev1.Service{} }},
		inventory.KindSecret:    {versions: []string{"v1"}, newObj: func() any { return &corev1.Secret{} }, defaults: defaultSecret},
		inventory.KindNamespace: {versions: []string{"v1"}, newObj: func() any { return &corev1.Namespace{} }},
		inventory.KindConfigMap: {versions: []string{"v1"}, newObj: func() any { return &corev1.ConfigMap{} }},
	},
	"discovery.k8s.io": {
		inventory.KindEndpointSlice: {versions: []string{"v1"}, newObj: func() any { return &discoveryv1.EndpointSlice{} }},
	},
	tykapi.Group: {
		tykapi.KindOperatorContext:     {versions: []string{tykapi.Version}, newObj: func() any { return &tykapi.OperatorContext{} }},
		tykapi.KindTykOasApiDefinition: {versions: []string{tykapi.Version}, newObj: func() any { return &tykapi.TykOasApiDefinition{} }},
	},
}

// Items reads the items of a ResourceList, the Gateway API objects judged by the CRDs of the given channel.
// Items are judged and decoded on every core (each one on its own: the API server's judgement depends on the
// item alone), then filed in input order, so the inventory, the problems and which of two duplicates is read do
// not depend on scheduling.
func Items(items []*yaml.RNode, channel apiserver.Channel) *Result {
	res := &Result{Inventory: inventory.New(), Nodes: map[inventory.Key]*yaml.RNode{}}
	for i, r := range parallel.Map(len(items), func(i int) itemRead { return readItem(items[i], channel) }) {
		res.file(items[i], r)
	}
	res.Inventory.Seal()
	return res
}

// itemRead is what readItem makes of one item.
type itemRead struct {
	skip bool // not an object the render reads (or its own earlier output): it passes through untouched
	key  inventory.Key
	// ignored is the warning for a read kind in a version the render does not know.
	ignored *Problem
	obj     any
	// decodeErr is why the item cannot be decoded; problems are what validation found.
	decodeErr error
	problems  []apiserver.Problem
	// replaced marks an earlier render's Service for a Gateway (emit.OursGatewayService).
	replaced bool
}

// readItem reads one item. An earlier render's Service for a Gateway that the API server would refuse is not read:
// the render replaces it, so it is as if it were not there (a new Service, whose address is not known yet).
func readItem(node *yaml.RNode, channel apiserver.Channel) itemRead {
	r := readObject(node, channel)
	if r.replaced && (r.decodeErr != nil || len(r.problems) > 0 || r.ignored != nil) {
		return itemRead{skip: true}
	}
	return r
}

func readObject(node *yaml.RNode, channel apiserver.Channel) itemRead {
	meta, err := node.GetMeta()
	if err != nil {
		return itemRead{skip: true} // not a Kubernetes object: nothing to read, and it passes through untouched
	}
	group, version := splitAPIVersion(meta.APIVersion)
	byKind, ok := kinds[group]
	if !ok {
		return itemRead{skip: true}
	}
	k, ok := byKind[meta.Kind]
	if !ok {
		return unknownKind(node, meta, group, byKind)
	}
	key := inventory.Key{Group: group, Kind: meta.Kind, Namespace: meta.Namespace, Name: meta.Name}
	// The render's own output from an earlier run is replaced, never read as input; but for a Gateway's Service,
	// whose copy in the cluster says the address the load balancer gave it.
	part := emit.Ours(meta.Labels)
	if part != emit.NotOurs && part != emit.OursGatewayService {
		return itemRead{skip: true}
	}
	r := readKnown(node, meta, group, version, key, k, channel)
	r.replaced = part == emit.OursGatewayService
	return r
}

func readKnown(node *yaml.RNode, meta yaml.ResourceMeta, group, version string, key inventory.Key, k kind,
	channel apiserver.Channel) itemRead {
	if !contains(k.versions, version) {
		return itemRead{key: key, ignored: &Problem{Key: key, Node: node, Field: "apiVersion",
			Message: fmt.Sprintf("%s is not a version gateway2tyk reads (%s/%s); the object is passed through unread",
				meta.APIVersion, group, strings.Join(k.versions, ", "))}}
	}
	if meta.Namespace == "" && namespaced(meta.Kind) && !namespaceOfOtherShape(node) {
		return itemRead{key: key, problems: []apiserver.Problem{{Field: "metadata.namespace", Message: missingNamespace}}}
	}
	data, err := ToJSON(node)
	if err != nil {
		return itemRead{key: key, decodeErr: err}
	}
	if group == inventory.GatewayGroup {
		return readCustomResource(node, key, version, data, k, channel)
	}
	obj := k.newObj()
	decode := apiserver.DecodeStrict
	if group == tykapi.Group {
		// Tyk Operator's CRDs are not part of the render (Tyk's, read from third_party/tyk by the tests only), and the Go
		// types hold only the fields the render reads: an unknown field cannot be told from an unread one.
		decode = decodeLoose
	}
	problems, err := decode(data, obj)
	if err != nil {
		// sigs.k8s.io/json's errors do not say where; encoding/json's do, for the same value.
		if stdErr := json.Unmarshal(data, k.newObj()); stdErr != nil {
			err = stdErr
		}
		return itemRead{key: key, decodeErr: typeError(node, err)}
	}
	if len(problems) > 0 {
		return itemRead{key: key, problems: problems}
	}
	if k.defaults != nil {
		k.defaults(obj)
	}
	return itemRead{key: key, obj: obj, problems: apiserver.ValidateBuiltin(obj)}
}

// readCustomResource reads a Gateway API object: the API server's judgement of its create, and the object it
// would store (defaulted by the CRD) decoded into its Go type.
func readCustomResource(node *yaml.RNode, key inventory.Key, version string, data []byte, k kind,
	channel apiserver.Channel) itemRead {
	var m map[string]any
	if err := utiljson.Unmarshal(data, &m); err != nil {
		return itemRead{key: key, decodeErr: fmt.Errorf("cannot be read as JSON: %v", err)}
	}
	v, served, err := apiserver.AdmitCustomResource(channel, key.Kind, version, m)
	if fe := metadataShape(err); fe != nil {
		return itemRead{key: key, decodeErr: fe}
	}
	switch {
	case err != nil:
		return itemRead{key: key, decodeErr: err}
	case !served:
		return itemRead{key: key, ignored: &Problem{Key: key, Node: node, Field: "apiVersion",
			Message: fmt.Sprintf("%s/%s is not served by the Gateway API %s channel's CRD; the object is passed "+
				"through unread", key.Group, version, channel)}}
	case len(v.Problems) > 0:
		return itemRead{key: key, problems: v.Problems}
	}
	stored, err := json.Marshal(v.Object)
	if err != nil {
		return itemRead{key: key, decodeErr: err}
	}
	obj := k.newObj()
	if err := json.Unmarshal(stored, obj); err != nil {
		if fe := metadataShape(err); fe != nil {
			return itemRead{key: key, decodeErr: fe} // metadata.namespace: {a: b} passes the CRD's schema
		}
		// The schema admitted it, so the Go type disagrees with the CRD.
		return itemRead{key: key, decodeErr: fmt.Errorf("the object the API server would store does not decode "+
			"into gateway-api's Go type: %v", err)}
	}
	return itemRead{key: key, obj: obj}
}

// metadataShape is the field error of metadata of the wrong shape (labels: [{app: shop}], namespace: {a: b}),
// named as the built-in kinds' are; nil for any other error.
func metadataShape(err error) *fieldError {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Struct != "ObjectMeta" {
		return nil
	}
	field := te.Field // "labels" from the API server's ObjectMeta decoding, "metadata.namespace" from the object's
	if !strings.HasPrefix(field, "metadata.") {
		field = "metadata." + field
	}
	return &fieldError{field: field, message: fmt.Sprintf("must be %s, not %s", describeType(te), te.Value)}
}

// file records what was read of one item, in input order.
func (res *Result) file(node *yaml.RNode, r itemRead) {
	switch {
	case r.skip:
		return
	case r.ignored != nil:
		res.Ignored = append(res.Ignored, *r.ignored)
		return
	case r.decodeErr != nil:
		res.problem(r.key, node, r.decodeErr)
		return
	case len(r.problems) > 0:
		for _, e := range r.problems {
			res.Problems = append(res.Problems, Problem{Key: r.key, Node: node, Field: e.Field, Message: e.Message})
		}
		return
	}
	if !res.Inventory.Add(r.obj) {
		res.Problems = append(res.Problems, Problem{Key: r.key, Node: node, Field: "metadata.name",
			Message: "duplicate object: another item has the same kind, namespace and name; only the first is read"})
		return
	}
	res.Nodes[r.key] = node
}

func (res *Result) problem(key inventory.Key, node *yaml.RNode, err error) {
	var fe *fieldError
	if errors.As(err, &fe) {
		res.Problems = append(res.Problems, Problem{Key: key, Node: node, Field: fe.field, Message: fe.message})
		return
	}
	res.Problems = append(res.Problems, Problem{Key: key, Node: node, Message: err.Error()})
}

// namespaceOfOtherShape reports whether metadata.namespace is written but not as a string ({a: b}, [shop]):
// then it is not missing, and decoding names its type as the API server does.
func namespaceOfOtherShape(node *yaml.RNode) bool {
	ns, err := node.Pipe(yaml.Lookup(yaml.MetadataField, yaml.NamespaceField))
	return err == nil && ns != nil && ns.YNode().Kind != yaml.ScalarNode
}

// missingNamespace is the problem of a namespaced object without metadata.namespace that no pipeline gave one
// (fn's defaultNamespaces): rendered as it is, its Services would be named "<name>..svc.cluster.local".
const missingNamespace = "missing: the object is namespaced, and nothing gives it a namespace; set it, or let the " +
	"pipeline give one (the kustomization's namespace:, Argo CD's destination namespace, or the RenderConfig's " +
	"spec.defaultNamespace)"

// Namespaced reports whether an object of apiVersion and kind is one the render reads that lives in a
// namespace.
func Namespaced(apiVersion, kind string) bool {
	group, _ := splitAPIVersion(apiVersion)
	_, read := kinds[group][kind]
	return read && namespaced(kind)
}

// namespaced reports whether a kind the render reads lives in a namespace (all but GatewayClass and Namespace).
func namespaced(kind string) bool {
	return kind != inventory.KindGatewayClass && kind != inventory.KindNamespace
}

func splitAPIVersion(apiVersion string) (group, version string) {
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[:i], apiVersion[i+1:]
	}
	return "", apiVersion
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func defaultSecret(o any) {
	s := o.(*corev1.Secret)
	// The API server merges stringData into data on write; a Secret in a repository often uses stringData.
	if len(s.StringData) > 0 && s.Data == nil {
		s.Data = map[string][]byte{}
	}
	for k, v := range s.StringData {
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
}

// fieldError is a decode failure located at a field path.
type fieldError struct {
	field, message string
}

func (e *fieldError) Error() string { return e.field + ": " + e.message }

// jsonNames drops from a decoder's field path the Go names of embedded structs ("BackendRef" in
// "spec.rules.backendRefs.BackendRef.BackendObjectReference.port"): they are inlined and not in the YAML.
// JSON field names of Kubernetes types start with a lower-case letter; Go type names do not.
func jsonNames(field string) []string {
	var out []string
	for _, p := range strings.Split(field, ".") {
		if p != "" && !unicode.IsUpper(rune(p[0])) {
			out = append(out, p)
		}
	}
	return out
}

// decodeLoose decodes JSON into obj, ignoring fields obj's type lacks.
func decodeLoose(data []byte, obj any) ([]apiserver.Problem, error) {
	return nil, json.Unmarshal(data, obj)
}

// typeError locates a decoding failure (a value of the wrong type) back in the node, so the error names the
// field with its list indexes.
func typeError(node *yaml.RNode, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		parts := jsonNames(te.Field)
		field := locate(node, parts, te.Value)
		if field == "" {
			field = strings.Join(parts, ".")
		}
		return &fieldError{field: field, message: fmt.Sprintf("must be %s, not %s", describeType(te), te.Value)}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("cannot be read as JSON: %v", err)
	}
	return &fieldError{message: strings.TrimPrefix(err.Error(), "json: ")}
}

// ToJSON is node.MarshalJSON(), faster. MarshalJSON encodes the node to YAML text, parses that text into generic
// values and marshals them to JSON; decoding the node into the same generic values directly (yaml.v3's own
// Node.Decode, the decoder the parse would use) skips the text. The two agree whenever the text reads back as
// the node, which holds for nodes the parser made, as items are, but for two cases that ToJSON leaves to
// MarshalJSON: an alias (the text of one item does not hold an anchor defined in another item, so MarshalJSON
// fails), and a comment in or on a flow collection, where yaml.v3's writer is least sure: of the random trees of
// tojson_test.go that it writes as text that does not parse, nearly all have such a comment. Comments in block
// style (on keys, items and values, as people write them) take the fast path; the random trees and a fleet
// written as people write YAML show it gives MarshalJSON's bytes. Any failure also goes to MarshalJSON, so that
// errors are its errors, word for word.
func ToJSON(node *yaml.RNode) ([]byte, error) {
	y := node.YNode()
	if y == nil || libio.On() || !plainTree(y, true, false) {
		return node.MarshalJSON()
	}
	var v any
	var err error
	if y.Kind == yaml.SequenceNode {
		var a []any
		err = y.Decode(&a)
		v = a
	} else {
		m := map[string]any{}
		err = y.Decode(&m)
		v = m
	}
	if err != nil {
		return node.MarshalJSON()
	}
	data, err := json.Marshal(v)
	if err != nil {
		return node.MarshalJSON()
	}
	return data, nil
}

// plainTree reports whether a node and everything under it is free of aliases and of comments in or on flow
// collections (inFlow: the node is inside one).
func plainTree(n *yaml.Node, root, inFlow bool) bool {
	if n.Kind == yaml.AliasNode {
		return false
	}
	inFlow = inFlow || (n.Style&yaml.FlowStyle != 0 && (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode))
	if inFlow && (n.LineComment != "" || n.FootComment != "" || (!root && n.HeadComment != "")) {
		return false
	}
	for _, c := range n.Content {
		if !plainTree(c, false, inFlow) {
			return false
		}
	}
	return true
}

// unknownKind judges an item of a group the render reads whose kind it does not read. A kind that differs from
// one it reads only in case (HttpRoute) is a slip the API server would refuse (no such kind), and the item would
// otherwise pass through unrendered without a word; so is a list of such objects (HTTPRouteList), which
// kustomize and kpt hand over as one item (only a v1 List is expanded into its items). Both are errors naming
// the kind to write. Any other kind (a GRPCRoute, a Deployment) is not the render's and passes through.
func unknownKind(node *yaml.RNode, meta yaml.ResourceMeta, group string, byKind map[string]kind) itemRead {
	key := inventory.Key{Group: group, Kind: meta.Kind, Namespace: meta.Namespace, Name: meta.Name}
	for known := range byKind {
		switch {
		case strings.EqualFold(meta.Kind, known):
			return itemRead{key: key, problems: []apiserver.Problem{{Field: "kind", Message: fmt.Sprintf(
				"%s is not a kind of %s (kinds are case-sensitive): write %s, or the object passes through unrendered",
				meta.Kind, groupName(group), known)}}}
		case strings.EqualFold(meta.Kind, known+"List"):
			return itemRead{key: key, problems: []apiserver.Problem{{Field: "kind", Message: fmt.Sprintf(
				"a %s is not read: write each of its items as an object of its own (kind %s); only a v1 List is "+
					"expanded into its items", meta.Kind, known)}}}
		}
	}
	return itemRead{skip: true}
}

// groupName names an API group in a message ("the core group" for "").
func groupName(group string) string {
	if group == "" {
		return "the core group (v1)"
	}
	return group
}
