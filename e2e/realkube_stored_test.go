package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/e2e/realkube"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/apiserver"
	"github.com/gateway2tyk/gateway2tyk/fn/emit"
)

// TestRealKubeStoredRendersAlike creates every object of every story that the API server accepts, for real, reads
// it back as the API server stores it (its defaults applied, unknown nothing), and renders the story again from the
// stored objects: every API document must be the same, byte for byte, as the one rendered from the objects as
// written. The render's defaults are thereby the API server's.
func TestRealKubeStoredRendersAlike(t *testing.T) {
	stories := corpusStories(t)
	compared, objects := 0, 0
	for _, channel := range []apiserver.Channel{apiserver.Standard, apiserver.Experimental} {
		c := channelCluster(t, channel)
		for _, s := range stories {
			if s.channel != channel {
				continue
			}
			items := inputItems(s)
			written, err := fn.Render(items, s.cfg)
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			want := apiDocuments(t, written.Items)
			if len(want) == 0 {
				continue
			}
			stored, n := storedItems(t, c, s, items)
			objects += n
			again, err := fn.Render(stored, s.cfg)
			if err != nil {
				t.Fatalf("%s, stored: %v", s.name, err)
			}
			got := apiDocuments(t, again.Items)
			if len(got) != len(want) {
				t.Errorf("%s: %d APIs from the objects as written, %d from the objects as stored", s.name, len(want), len(got))
			}
			for id, doc := range want {
				if !bytes.Equal(doc, got[id]) {
					t.Errorf("%s: API %s differs when rendered from the stored objects:\nwritten: %s\nstored:  %s", s.name, id, doc, got[id])
				}
				compared++
			}
		}
	}
	t.Logf("%d API documents compared, rendered from %d objects as the API server stored them", compared, objects)
	if compared < 50 {
		t.Errorf("only %d API documents compared", compared)
	}
}

// storedItems creates each object of the story that the render reads and the API server accepts in fresh
// namespaces (one for each of the story's namespaces; cluster-scoped objects under a fresh name), reads each back
// and gives it its own name and namespace again, without the fields the API server sets (uid, resourceVersion,
// creationTimestamp, generation, managedFields; the story's own creationTimestamp is kept). Other items are kept as
// they are.
func storedItems(t *testing.T, c *realkube.Cluster, s story, items []*yaml.RNode) ([]*yaml.RNode, int) {
	t.Helper()
	namespaces := map[string]string{}
	var out []*yaml.RNode
	n := 0
	for _, item := range items {
		obj, ok := judgeable(t, item)
		if !ok {
			out = append(out, item)
			continue
		}
		if v, isRead := renderVerdict(item, s.channel); !isRead || v.refused {
			out = append(out, item)
			continue
		}
		gvk := obj.GroupVersionKind()
		res := resources[gvk.GroupKind()]
		client := c.Dynamic.Resource(gvk.GroupVersion().WithResource(res))
		name, namespace := obj.GetName(), obj.GetNamespace()
		created0, hasCreated, _ := unstructured.NestedFieldCopy(obj.Object, "metadata", "creationTimestamp")
		added := standInKey(obj)
		var created *unstructured.Unstructured
		var err error
		if clusterScoped[res] {
			obj.SetName(fmt.Sprintf("%s-%s", name, c.Namespace(t, "name")))
			created, err = client.Create(realkube.Context(t), obj, metav1.CreateOptions{FieldValidation: "Strict"})
		} else {
			if namespaces[namespace] == "" {
				namespaces[namespace] = c.Namespace(t, "stored")
			}
			obj.SetNamespace(namespaces[namespace])
			created, err = client.Namespace(obj.GetNamespace()).Create(realkube.Context(t), obj, metav1.CreateOptions{FieldValidation: "Strict"})
		}
		if err != nil {
			t.Fatalf("%s: creating %s: %v", s.name, describe(item), err)
		}
		created.SetName(name)
		created.SetNamespace(namespace)
		for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"} {
			unstructured.RemoveNestedField(created.Object, "metadata", f)
		}
		// A story's creationTimestamp stands for the cluster's (the older of two definitions wins): the API server
		// sets its own on create, so the story's is given back.
		if hasCreated {
			_ = unstructured.SetNestedField(created.Object, created0, "metadata", "creationTimestamp")
		}
		for _, key := range added { // what the cluster's Secret has and the stand-in leaves out
			unstructured.RemoveNestedField(created.Object, "data", key)
		}
		data, err := json.Marshal(created.Object)
		if err != nil {
			t.Fatal(err)
		}
		node, err := yaml.ConvertJSONToYamlNode(string(data))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, node)
		n++
	}
	return out, n
}

// apiDocuments are the Tyk OAS documents of the emitted ConfigMaps, by API ID.
func apiDocuments(t *testing.T, items []*yaml.RNode) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, it := range items {
		if it.GetKind() != "ConfigMap" || !emit.IsEmitted(it) {
			continue
		}
		doc, err := it.Pipe(yaml.Lookup("data", emit.DocumentKey))
		if err != nil || doc == nil {
			t.Fatalf("ConfigMap %s has no %s", it.GetName(), emit.DocumentKey)
		}
		out[it.GetName()] = []byte(doc.YNode().Value)
	}
	return out
}
