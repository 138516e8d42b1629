package emit

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// API is what emit needs to know of one rendered API.
type API struct {
	ID         string
	Namespace  string
	Route      string // "<ns>/<name>"
	Gateway    string // "<ns>/<name>"
	Hostname   string
	Path       string
	Conditions string // JSON array
	Document   []byte // the Tyk OAS document (JSON)
}

// ConfigMap builds the ConfigMap that holds an API's document.
func ConfigMap(api API) (*yaml.RNode, error) {
	node, err := object("v1", "ConfigMap", api)
	if err != nil {
		return nil, err
	}
	if err := node.PipeE(yaml.SetField("data", stringMap(DocumentKey, string(api.Document)))); err != nil {
		return nil, err
	}
	return node, nil
}

// TykOasApiDefinition builds the definition that points Tyk Operator at an API's ConfigMap.
func TykOasApiDefinition(api API) (*yaml.RNode, error) {
	node, err := object("tyk.tyk.io/v1alpha1", "TykOasApiDefinition", api)
	if err != nil {
		return nil, err
	}
	ref := stringMap("name", api.ID, "namespace", api.Namespace, "keyName", DocumentKey)
	if err := node.PipeE(yaml.LookupCreate(yaml.MappingNode, "spec", "tykOAS"), yaml.SetField("configmapRef", ref)); err != nil {
		return nil, err
	}
	return node, nil
}

// object builds the common part: apiVersion, kind, metadata with the contract's labels and annotations.
func object(apiVersion, kind string, api API) (*yaml.RNode, error) {
	node := yaml.NewRNode(&yaml.Node{Kind: yaml.MappingNode})
	// Each filter runs on the object itself: a pipe would hand the next filter the field just set.
	for _, f := range []yaml.Filter{
		yaml.SetField("apiVersion", yaml.NewStringRNode(apiVersion)),
		yaml.SetField("kind", yaml.NewStringRNode(kind)),
	} {
		if err := node.PipeE(f); err != nil {
			return nil, err
		}
	}
	if err := node.SetName(api.ID); err != nil {
		return nil, err
	}
	if err := node.SetNamespace(api.Namespace); err != nil {
		return nil, err
	}
	if err := node.SetLabels(map[string]string{LabelManagedBy: ManagedBy, LabelAPIID: api.ID}); err != nil {
		return nil, err
	}
	return node, node.SetAnnotations(map[string]string{
		AnnotationRoute:      api.Route,
		AnnotationGateway:    api.Gateway,
		AnnotationHostname:   api.Hostname,
		AnnotationPath:       api.Path,
		AnnotationConditions: api.Conditions,
	})
}

// stringMap builds a mapping of string values with its keys in the order given. (yaml.NewMapRNode ranges over
// a Go map, so its key order changes from run to run, and it leaves values untagged, so "true" would not stay
// a string.)
func stringMap(keyValues ...string) *yaml.RNode {
	m := yaml.NewRNode(&yaml.Node{Kind: yaml.MappingNode})
	for i := 0; i+1 < len(keyValues); i += 2 {
		m.YNode().Content = append(m.YNode().Content,
			yaml.NewStringRNode(keyValues[i]).YNode(), yaml.NewStringRNode(keyValues[i+1]).YNode())
	}
	return m
}
