// Package read owns the boundary between the KRM ResourceList and the typed inventory: it picks the items the
// render understands, decodes each into its Go type, applies the CRD defaults, validates what the CRD schemas
// would enforce, and reports every item it cannot read as a problem that names the object and the field. Items
// it does not read are left alone; nothing here changes an item.
package read

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
	"github.com/gateway2tyk/gateway2tyk/fn/tykapi"
)

// ManagedByLabel marks the objects that gateway2tyk emits. The reader skips them: they are its own output from
// an earlier run, and are replaced, never read as input.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedByValue = "gateway2tyk"
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
		inventory.KindGateway: {versions: []string{"v1", "v1beta1"}, newObj: func() any { return &gwv1.Gateway{} },
			defaults: func(o any) { inventory.DefaultGateway(o.(*gwv1.Gateway)) }},
		inventory.KindHTTPRoute: {versions: []string{"v1", "v1beta1"}, newObj: func() any { return &gwv1.HTTPRoute{} },
			defaults: func(o any) { inventory.DefaultHTTPRoute(o.(*gwv1.HTTPRoute)) }},
		// ReferenceGrant is served as v1 since Gateway API v1.5 and as v1beta1 before; the schema is the same.
		inventory.KindReferenceGrant: {versions: []string{"v1", "v1beta1"}, newObj: func() any { return &gwv1.ReferenceGrant{} }},
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

// Items reads the items of a ResourceList.
func Items(items []*yaml.RNode) *Result {
	res := &Result{Inventory: inventory.New(), Nodes: map[inventory.Key]*yaml.RNode{}}
	for _, node := range items {
		res.item(node)
	}
	res.Inventory.Seal()
	return res
}

func (res *Result) item(node *yaml.RNode) {
	meta, err := node.GetMeta()
	if err != nil {
		return // not a Kubernetes object: nothing to read, and it passes through untouched
	}
	group, version := splitAPIVersion(meta.APIVersion)
	byKind, ok := kinds[group]
	if !ok {
		return
	}
	k, ok := byKind[meta.Kind]
	if !ok {
		return
	}
	key := inventory.Key{Group: group, Kind: meta.Kind, Namespace: meta.Namespace, Name: meta.Name}
	if meta.Labels[ManagedByLabel] == ManagedByValue {
		return
	}
	if !contains(k.versions, version) {
		res.Ignored = append(res.Ignored, Problem{Key: key, Node: node, Field: "apiVersion",
			Message: fmt.Sprintf("%s is not a version gateway2tyk reads (%s/%s); the object is passed through unread",
				meta.APIVersion, group, strings.Join(k.versions, ", "))})
		return
	}
	obj := k.newObj()
	if err := decode(node, obj); err != nil {
		res.problem(key, node, err)
		return
	}
	if k.defaults != nil {
		k.defaults(obj)
	}
	if errs := inventory.Validate(obj); len(errs) > 0 {
		for _, e := range errs {
			res.Problems = append(res.Problems, Problem{Key: key, Node: node, Field: e.Field, Message: e.Message})
		}
		return
	}
	if !res.Inventory.Add(obj) {
		res.Problems = append(res.Problems, Problem{Key: key, Node: node, Field: "metadata.name",
			Message: "duplicate object: another item has the same kind, namespace and name; only the first is read"})
		return
	}
	res.Nodes[key] = node
}

func (res *Result) problem(key inventory.Key, node *yaml.RNode, err error) {
	var fe *fieldError
	if errors.As(err, &fe) {
		res.Problems = append(res.Problems, Problem{Key: key, Node: node, Field: fe.field, Message: fe.message})
		return
	}
	res.Problems = append(res.Problems, Problem{Key: key, Node: node, Message: err.Error()})
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

// decode converts the item to JSON (kyaml's own conversion) and unmarshals it into obj. A type mismatch is
// located back in the node, so the error names the field with its list indexes.
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

func decode(node *yaml.RNode, obj any) error {
	data, err := node.MarshalJSON()
	if err != nil {
		return err
	}
	err = json.Unmarshal(data, obj)
	if err == nil {
		return nil
	}
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
