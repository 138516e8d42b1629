package kube

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// The status writer's access (sync/status.Client): the only writes the sync makes to a cluster, the status
// subresource of the objects it names.

// Get reads an object of any resource.
func (c *Cluster) Get(parent context.Context, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	ctx, cancel := c.ctx(parent)
	defer cancel()
	return c.resource(gvr, namespace).Get(ctx, name, metav1.GetOptions{})
}

// List lists the objects of a resource in a namespace ("" for every namespace, or a cluster-scoped resource).
func (c *Cluster) List(parent context.Context, gvr schema.GroupVersionResource, namespace string) ([]unstructured.Unstructured, error) {
	ctx, cancel := c.ctx(parent)
	defer cancel()
	list, err := c.resource(gvr, namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// ApplyStatus server-side applies obj to the status subresource, forced, as fieldManager.
func (c *Cluster) ApplyStatus(parent context.Context, gvr schema.GroupVersionResource, obj *unstructured.Unstructured,
	fieldManager string) (*unstructured.Unstructured, error) {
	ctx, cancel := c.ctx(parent)
	defer cancel()
	return c.resource(gvr, obj.GetNamespace()).ApplyStatus(ctx, obj.GetName(), obj,
		metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
}

func (c *Cluster) resource(gvr schema.GroupVersionResource, namespace string) dynamic.ResourceInterface {
	if namespace == "" {
		return c.Dynamic.Resource(gvr)
	}
	return c.Dynamic.Resource(gvr).Namespace(namespace)
}
