package read

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// locate turns the dotted field of a JSON type error ("spec.rules.backendRefs.port") into the path of the
// offending value in the node ("spec.rules[1].backendRefs[0].port"), by walking the node and choosing, under each
// list, the first element whose value has the JSON type the decoder complained about. It returns "" when the
// path cannot be found.
func locate(node *yaml.RNode, parts []string, jsonType string) string {
	// The decoder writes "number 1.5" for a fraction where an integer belongs; the first word is the type.
	if f := strings.Fields(jsonType); len(f) > 0 {
		jsonType = f[0]
	}
	if len(parts) == 0 || (len(parts) == 1 && parts[0] == "") {
		if jsonKind(node) == jsonType {
			return "."
		}
		return ""
	}
	return walk(node.YNode(), parts, jsonType, "")
}

func walk(n *yaml.Node, parts []string, jsonType, prefix string) string {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if len(parts) == 0 {
		if jsonKind(yaml.NewRNode(n)) == jsonType {
			return prefix
		}
		return ""
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for i, el := range n.Content {
			if p := walk(el, parts, jsonType, fmt.Sprintf("%s[%d]", prefix, i)); p != "" {
				return p
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == parts[0] {
				return walk(n.Content[i+1], parts[1:], jsonType, join(prefix, parts[0]))
			}
		}
	}
	return ""
}

func join(prefix, field string) string {
	if prefix == "" {
		return field
	}
	return prefix + "." + field
}

// jsonKind names the JSON type a node encodes to, in the words encoding/json uses for UnmarshalTypeError.Value,
// read off the node's kind and resolved tag.
func jsonKind(n *yaml.RNode) string {
	y := n.YNode()
	switch y.Kind {
	case yaml.SequenceNode:
		return "array"
	case yaml.MappingNode:
		return "object"
	case yaml.ScalarNode:
		switch y.ShortTag() {
		case yaml.NodeTagString:
			return "string"
		case yaml.NodeTagInt, yaml.NodeTagFloat:
			return "number"
		case yaml.NodeTagBool:
			return "bool"
		}
	}
	return ""
}

// describeType says in plain words what Go type the decoder wanted.
func describeType(te *json.UnmarshalTypeError) string {
	t := te.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return strings.ToLower(t.Kind().String())
}
