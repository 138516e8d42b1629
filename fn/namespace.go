package fn

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/read"
)

// defaultNamespaces gives ns to every namespaced object the render reads that has no metadata.namespace, as the
// pipeline's apply would (kubectl apply -n, an Argo CD destination), so that its APIs and Services are named in
// the namespace it will live in. With ns empty nothing changes, and the reader reports such an object.
func defaultNamespaces(items []*yaml.RNode, ns string) error {
	if ns == "" {
		return nil
	}
	for _, n := range items {
		if n.GetNamespace() == "" && read.Namespaced(n.GetApiVersion(), n.GetKind()) {
			if err := n.SetNamespace(ns); err != nil {
				return err
			}
		}
	}
	return nil
}
