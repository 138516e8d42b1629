// Package meta reads an item's metadata.labels and metadata.annotations whatever shape the user gave them.
//
// kyaml's RNode.GetLabels and GetAnnotations walk the field as a mapping's key and value pairs, so a field written
// as a list (labels: [{app: shop}], a common slip) ends the process with an index out of range. The API server's
// decoding names such an item's mistake (fn/read reports it); every other reader of labels and annotations, which
// runs on every item whether it was read or not (the output's upsert, the hook's, the local-config check), asks
// here and gets no entries from a field of the wrong shape.
package meta

import "sigs.k8s.io/kustomize/kyaml/yaml"

// Labels are the item's labels with scalar values; nil when metadata.labels is not a mapping.
func Labels(n *yaml.RNode) map[string]string { return field(n, yaml.LabelsField) }

// Annotations are the item's annotations with scalar values; nil when metadata.annotations is not a mapping.
func Annotations(n *yaml.RNode) map[string]string { return field(n, yaml.AnnotationsField) }

func field(n *yaml.RNode, name string) map[string]string {
	if n == nil || n.YNode() == nil || n.YNode().Kind != yaml.MappingNode {
		return nil
	}
	md := Value(n.YNode(), yaml.MetadataField)
	if md == nil || md.Kind != yaml.MappingNode {
		return nil
	}
	m := Value(md, name)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	out := make(map[string]string, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		if v := m.Content[i+1]; v.Kind == yaml.ScalarNode {
			out[m.Content[i].Value] = v.Value
		}
	}
	return out
}

// Value is the value of key in mapping node m, nil when m has no such key (or is not a mapping).
func Value(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
