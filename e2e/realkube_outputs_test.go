package e2e_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/kustomize/kyaml/kio/filters"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/e2e/realkube"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/apiserver"
	"github.com/gateway2tyk/gateway2tyk/fn/emit"
)

// TestRealKubeOutputs renders every story of the corpus and applies what the render emits (ConfigMaps,
// TykOasApiDefinitions, the sync hook's Job, ServiceAccount, Roles and RoleBindings) to a real API server with
// server-side apply (field manager gateway2tyk, strict field validation); then it writes the would-be status of
// every GatewayClass, Gateway and HTTPRoute to the object's real status subresource. The API server must accept
// every one.
func TestRealKubeOutputs(t *testing.T) {
	stories := corpusStories(t)
	counts := map[string]int{}
	for _, channel := range []apiserver.Channel{apiserver.Standard, apiserver.Experimental} {
		// A cluster of the test's own: the parity test judges Namespace objects by a dry-run create, which the
		// namespaces this test creates would make AlreadyExists.
		c := realkube.Start(t)
		c.InstallCRDs(t, channelCRDs(t, channel)...)
		mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(c.Client.Discovery()))
		for _, s := range stories {
			if s.channel != channel {
				continue
			}
			out, err := fn.Render(inputItems(s), s.cfg)
			if err != nil {
				t.Errorf("%s: render: %v", s.name, err)
				continue
			}
			for _, item := range out.Items {
				obj, ok := unstructuredOf(item)
				if !ok {
					continue
				}
				emitted := emit.Ours(item.GetLabels()) != emit.NotOurs
				status, hasStatus := item.GetAnnotations()[emit.AnnotationStatus]
				if !emitted && !hasStatus {
					continue
				}
				ensureNamespace(t, c, obj)
				res, err := resourceFor(c.Dynamic, mapper, obj)
				if err != nil {
					t.Errorf("%s: %s: %v", s.name, describe(item), err)
					continue
				}
				if err := apply(t, res, obj); err != nil {
					t.Errorf("%s: the API server refuses the server-side apply of %s (emitted=%v): %v", s.name, describe(item), emitted, err)
					continue
				}
				if emitted {
					counts["emitted "+obj.GetKind()]++
				}
				if !hasStatus {
					continue
				}
				if err := applyStatus(t, res, obj, status); err != nil {
					t.Errorf("%s: the API server refuses the would-be status of %s: %v\nstatus: %s", s.name, describe(item), err, status)
					continue
				}
				counts["status of "+obj.GetKind()]++
			}
		}
	}
	t.Logf("accepted by the API server: %v", counts)
	for _, k := range []string{"emitted ConfigMap", "status of Gateway", "status of HTTPRoute", "status of GatewayClass", "emitted Job", "emitted Role",
		"status of ListenerSet"} {
		if counts[k] == 0 {
			t.Errorf("no %s was applied: the corpus lost a kind of output", k)
		}
	}
}

// inputItems are a story's items without its own earlier output.
func inputItems(s story) []*yaml.RNode {
	var out []*yaml.RNode
	for _, n := range s.items {
		if k := n.GetKind(); k != "Kustomization" && k != "Kptfile" && k != "RenderConfig" {
			out = append(out, n.Copy())
		}
	}
	return out
}

// unstructuredOf is an item as the object applied to the cluster; local-config items (kustomize's and kpt's facts
// of the cluster) are never sent to one.
func unstructuredOf(item *yaml.RNode) (*unstructured.Unstructured, bool) {
	obj, ok := toUnstructured(item)
	if !ok {
		return nil, false
	}
	if _, local := obj.GetAnnotations()[filters.LocalConfigAnnotation]; local {
		return nil, false
	}
	return obj, true
}

// ensureNamespace creates the object's namespace (default when it has none) if it does not exist.
func ensureNamespace(t *testing.T, c *realkube.Cluster, obj *unstructured.Unstructured) {
	t.Helper()
	if obj.GetKind() == "Namespace" || obj.GetKind() == "GatewayClass" {
		return
	}
	if obj.GetNamespace() == "" {
		obj.SetNamespace("default")
	}
	_, err := c.Client.CoreV1().Namespaces().Create(realkube.Context(t),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: obj.GetNamespace()}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating namespace %s: %v", obj.GetNamespace(), err)
	}
}

func resourceFor(client dynamic.Interface, mapper meta.RESTMapper, obj *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	gvk := obj.GroupVersionKind()
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, fmt.Errorf("no resource for %s: %w", gvk, err)
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return client.Resource(m.Resource).Namespace(obj.GetNamespace()), nil
	}
	return client.Resource(m.Resource), nil
}

// apply is a server-side apply as gateway2tyk, with strict field validation.
func apply(t *testing.T, res dynamic.ResourceInterface, obj *unstructured.Unstructured) error {
	t.Helper()
	_, err := res.Apply(realkube.Context(t), obj.GetName(), obj,
		metav1.ApplyOptions{FieldManager: "gateway2tyk", Force: true})
	return err
}

// writtenAt sets lastTransitionTime on every condition of a status that has none. The render has no clock, so its
// would-be status leaves the field unset (docs/reference/contract.md); metav1.Condition requires it, and whoever writes the status
// to the API server sets it to the time of writing, as a controller does. Everything else is the render's.
func writtenAt(v any, now string) {
	switch x := v.(type) {
	case map[string]any:
		if conds, ok := x["conditions"].([]any); ok {
			for _, c := range conds {
				if m, ok := c.(map[string]any); ok && m["lastTransitionTime"] == nil {
					m["lastTransitionTime"] = now
				}
			}
		}
		for _, child := range x {
			writtenAt(child, now)
		}
	case []any:
		for _, child := range x {
			writtenAt(child, now)
		}
	}
}

// applyStatus writes the would-be status (the status annotation's JSON) to the object's status subresource.
func applyStatus(t *testing.T, res dynamic.ResourceInterface, obj *unstructured.Unstructured, status string) error {
	t.Helper()
	var st map[string]any
	if err := json.Unmarshal([]byte(status), &st); err != nil {
		return fmt.Errorf("the status annotation is not JSON: %w", err)
	}
	writtenAt(st, time.Now().UTC().Format(time.RFC3339))
	patch := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": obj.GetAPIVersion(), "kind": obj.GetKind(),
		"metadata": map[string]any{"name": obj.GetName(), "namespace": obj.GetNamespace()},
		"status":   st,
	}}
	if obj.GetNamespace() == "" {
		unstructured.RemoveNestedField(patch.Object, "metadata", "namespace")
	}
	_, err := res.ApplyStatus(realkube.Context(t), obj.GetName(), patch,
		metav1.ApplyOptions{FieldManager: "gateway2tyk", Force: true})
	return err
}
