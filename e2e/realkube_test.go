package e2e_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/kustomize/kyaml/kio/filters"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/e2e/modcache"
	"github.com/gateway2tyk/gateway2tyk/e2e/realkube"
	"github.com/gateway2tyk/gateway2tyk/fn/apiserver"
	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/read"
	"github.com/gateway2tyk/gateway2tyk/fn/tykapi"
	"github.com/gateway2tyk/gateway2tyk/third_party/tyk"
)

// TestMain gives the binaries the tests run a memory of verdicts of their own (see apiserver.Memory), not the
// user's, and runs the shared API server, if a test started it, until the end.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gateway2tyk-e2e-verdicts-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("GATEWAY2TYK_CACHE", dir)
	code := realkube.Main(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// resources maps the kinds the render reads to their API resources.
var resources = map[schema.GroupKind]string{
	{Group: "gateway.networking.k8s.io", Kind: "GatewayClass"}:   "gatewayclasses",
	{Group: "gateway.networking.k8s.io", Kind: "Gateway"}:        "gateways",
	{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"}:      "httproutes",
	{Group: "gateway.networking.k8s.io", Kind: "ReferenceGrant"}: "referencegrants",
	{Group: "", Kind: "Service"}:                                 "services",
	{Group: "", Kind: "Secret"}:                                  "secrets",
	{Group: "", Kind: "ConfigMap"}:                               "configmaps",
	{Group: "", Kind: "Namespace"}:                               "namespaces",
	{Group: "discovery.k8s.io", Kind: "EndpointSlice"}:           "endpointslices",
	{Group: tykapi.Group, Kind: tykapi.KindOperatorContext}:      "operatorcontexts",
	{Group: tykapi.Group, Kind: tykapi.KindTykOasApiDefinition}:  "tykoasapidefinitions",
}

var clusterScoped = map[string]bool{"gatewayclasses": true, "namespaces": true}

// channelCluster is a real API server with one Gateway API channel's CRDs installed (a cluster has one channel's
// CRDs at a time: both channels name their CRDs alike), and Tyk Operator's.
func channelCluster(t *testing.T, channel apiserver.Channel) *realkube.Cluster {
	t.Helper()
	var c *realkube.Cluster
	if channel == apiserver.Standard {
		c = realkube.Shared(t)
	} else {
		c = realkube.Start(t)
	}
	c.InstallCRDs(t, channelCRDs(t, channel)...)
	return c
}

// channelCRDs are the Gateway API CRDs of a channel (gateway-api v1.6.3, as go.mod has it) and Tyk Operator's.
func channelCRDs(t *testing.T, channel apiserver.Channel) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	api := modcache.Dir(t, "sigs.k8s.io/gateway-api", "v1.6.3")
	files, err := filepath.Glob(filepath.Join(api, "config", "crd", string(channel), "gateway.networking.k8s.io_*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s CRDs in %s: %v", channel, api, err)
	}
	gw := realkube.ReadCRDs(t, files...)
	var conditions *apiextensionsv1.JSONSchemaProps
	for _, crd := range gw {
		if crd.Spec.Names.Kind == "Gateway" {
			c := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["status"].Properties["conditions"]
			conditions = &c
		}
	}
	return append(gw, tykCRDs(t, conditions)...)
}

// tykCRDs are Tyk Operator's CRDs as its Helm chart 1.4.2 installs them (the repository's copy, third_party/tyk,
// MPL-2.0), with what Operator 1.6 adds that these files lack, added here to the test's copy:
// OperatorContext.spec.dataPlane and TykOasApiDefinition.spec.targetRefs (Tyk's CRD reference), and the
// TykOasApiDefinition's status.conditions, where 1.6 reports an attached definition's Accepted condition (the
// reference's "TykOasApiDefinition Conditions"). 1.6's CRD is not public: its conditions are taken to be
// metav1.Conditions, with the schema the Gateway API CRDs give them (conditions).
func tykCRDs(t *testing.T, conditions *apiextensionsv1.JSONSchemaProps) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, name := range []string{tyk.OperatorContextCRD, tyk.TykOasAPICRD} {
		crds = append(crds, realkube.DecodeCRDs(t, "third_party/tyk/"+name, tyk.Read(name))...)
	}
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	for _, crd := range crds {
		for i := range crd.Spec.Versions {
			spec := crd.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["spec"]
			switch crd.Spec.Names.Kind {
			case tykapi.KindOperatorContext:
				spec.Properties["dataPlane"] = apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"serviceRef": {Type: "object", Required: []string{"name"}, Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": str}},
					"tags":       {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &str}},
				}}
			case tykapi.KindTykOasApiDefinition:
				st := crd.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["status"]
				if st.Properties == nil {
					st.Properties = map[string]apiextensionsv1.JSONSchemaProps{}
				}
				st.Properties["conditions"] = *conditions
				crd.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["status"] = st
				spec.Properties["targetRefs"] = apiextensionsv1.JSONSchemaProps{Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{
					Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", Required: []string{"group", "kind", "name"},
						Properties: map[string]apiextensionsv1.JSONSchemaProps{"group": str, "kind": str, "name": str}}}}
			}
			crd.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["spec"] = spec
		}
	}
	return crds
}

// verdict is one judgement of one object.
type verdict struct {
	refused bool
	fields  []string // the fields named (sorted); "" for the object as a whole
	message string
}

// serverVerdict asks the real API server to create obj (dryRun=All, fieldValidation=Strict) in namespace.
func serverVerdict(t *testing.T, c *realkube.Cluster, obj *unstructured.Unstructured, namespace string) verdict {
	t.Helper()
	gvk := obj.GroupVersionKind()
	res := resources[gvk.GroupKind()]
	gvr := gvk.GroupVersion().WithResource(res)
	opts := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"}
	var err error
	if clusterScoped[res] {
		obj.SetNamespace("")
		_, err = c.Dynamic.Resource(gvr).Create(realkube.Context(t), obj, opts)
	} else {
		obj.SetNamespace(namespace)
		_, err = c.Dynamic.Resource(gvr).Namespace(namespace).Create(realkube.Context(t), obj, opts)
	}
	if err == nil {
		return verdict{}
	}
	v := verdict{refused: true, message: err.Error()}
	var se *apierrors.StatusError
	if errors.As(err, &se) && se.ErrStatus.Details != nil {
		for _, cause := range se.ErrStatus.Details.Causes {
			if cause.Field != "" && cause.Field != "<nil>" {
				v.fields = append(v.fields, cause.Field)
			}
		}
	}
	for _, m := range strictField.FindAllStringSubmatch(err.Error(), -1) {
		v.fields = append(v.fields, m[2])
	}
	sort.Strings(v.fields)
	v.fields = slices.Compact(v.fields)
	return v
}

// strictField finds the fields of a strict decoding error (`unknown field "spec.x"`, `duplicate field "x"`).
var strictField = regexp.MustCompile(`(unknown|duplicate) field "([^"]+)"`)

// renderVerdict is what the render's reader makes of the object alone.
//
// A namespaced object written without a namespace is given one first, as every pipeline does before the render
// reads it (the kustomization's namespace, Argo CD's destination, spec.defaultNamespace) and as the API server is
// given one (the request's namespace): whether an object without a namespace may be rendered at all is the
// pipeline's question (fn's default namespace), not one of validity.
func renderVerdict(node *yaml.RNode, channel apiserver.Channel) (v verdict, isRead bool) {
	if node.GetNamespace() == "" && read.Namespaced(node.GetApiVersion(), node.GetKind()) {
		node = node.Copy()
		if err := node.SetNamespace("parity"); err != nil {
			return verdict{refused: true, message: err.Error()}, true
		}
	}
	res := read.Items([]*yaml.RNode{node}, channel)
	if len(res.Ignored) > 0 {
		return verdict{}, false
	}
	for _, p := range res.Problems {
		v.refused = true
		v.fields = append(v.fields, p.Field)
		v.message += p.Error() + "; "
	}
	sort.Strings(v.fields)
	v.fields = slices.Compact(v.fields)
	return v, len(res.Problems) > 0 || len(res.Nodes) > 0
}

// judged is an object of the corpus with both verdicts.
type judged struct {
	story, object  string
	server, render verdict
}

// TestRealKubeParity submits every input object the project has (the corpus and the mutants) to a real API
// server (create, dryRun=All, fieldValidation=Strict) and to the render's reader: the verdicts must agree for
// every object, and for a refused object the render must name every field the API server names.
func TestRealKubeParity(t *testing.T) {
	stories := append(corpusStories(t), mutants(t)...)
	byChannel := map[apiserver.Channel][]story{}
	for _, s := range stories {
		byChannel[s.channel] = append(byChannel[s.channel], s)
	}
	var all []judged
	for _, channel := range []apiserver.Channel{apiserver.Standard, apiserver.Experimental} {
		c := channelCluster(t, channel)
		t.Logf("%s channel: kube-apiserver %s ready in %s", channel, c.Version, c.StartTime)
		ns := c.Namespace(t, "parity")
		for _, s := range byChannel[channel] {
			for _, node := range s.items {
				obj, ok := judgeable(t, node)
				if !ok {
					continue
				}
				rv, isRead := renderVerdict(node, channel)
				if !isRead {
					continue
				}
				standInKey(obj)
				all = append(all, judged{story: s.name, object: describe(node),
					server: serverVerdict(t, c, obj, ns), render: rv})
			}
		}
	}
	var disagree []string
	refused := 0
	for _, j := range all {
		if j.server.refused {
			refused++
		}
		switch {
		case j.server.refused != j.render.refused:
			disagree = append(disagree, fmt.Sprintf("%s: %s: API server refused=%v (%s), render refused=%v (%s)",
				j.story, j.object, j.server.refused, j.server.message, j.render.refused, j.render.message))
		case j.server.refused:
			for _, f := range j.server.fields {
				if !slices.Contains(j.render.fields, f) {
					disagree = append(disagree, fmt.Sprintf("%s: %s: the API server names %s, the render does not: "+
						"server %q; render %q", j.story, j.object, f, j.server.message, j.render.message))
				}
			}
		}
	}
	t.Logf("parity: %d objects judged (%d refused by the API server), %d disagreements", len(all), refused, len(disagree))
	if len(all) < 500 {
		t.Errorf("the corpus has only %d judged objects", len(all))
	}
	for _, d := range disagree {
		t.Error(d)
	}
}

// standInKey gives a local-config TLS Secret without a certificate or key (a stand-in for the cluster's Secret,
// which has both: the render accepts it, see fn/apiserver's ValidateBuiltin) what the cluster's Secret has, so
// that the API server judges the rest of it.
// It returns the keys it added.
func standInKey(obj *unstructured.Unstructured) (added []string) {
	if obj.GetKind() != "Secret" || obj.GetAnnotations()[filters.LocalConfigAnnotation] != "true" {
		return nil
	}
	if t, _, _ := unstructured.NestedString(obj.Object, "type"); t != "kubernetes.io/tls" {
		return nil
	}
	for _, key := range []string{"tls.crt", "tls.key"} {
		_, inData, _ := unstructured.NestedFieldNoCopy(obj.Object, "data", key)
		_, inString, _ := unstructured.NestedFieldNoCopy(obj.Object, "stringData", key)
		if !inData && !inString {
			_ = unstructured.SetNestedField(obj.Object, "the cluster's "+key, "stringData", key)
			added = append(added, key)
		}
	}
	return added
}

// toUnstructured is an item as the object a client sends (kyaml's JSON of it), or false when it is none.
func toUnstructured(node *yaml.RNode) (*unstructured.Unstructured, bool) {
	data, err := read.ToJSON(node)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil || m["kind"] == nil {
		return nil, false
	}
	return &unstructured.Unstructured{Object: m}, true
}

// judgeable is node as an object for the API server, when it is of a kind the render reads and not the render's
// own output.
func judgeable(t *testing.T, node *yaml.RNode) (*unstructured.Unstructured, bool) {
	t.Helper()
	// GetMeta, not GetLabels: kyaml's GetLabels panics on labels that are not a mapping (a mutant has them).
	if meta, err := node.GetMeta(); err == nil && emit.Ours(meta.Labels) != emit.NotOurs {
		return nil, false
	}
	obj, ok := toUnstructured(node)
	if !ok {
		return nil, false
	}
	gk := obj.GroupVersionKind().GroupKind()
	if _, ok := resources[gk]; !ok {
		return nil, false
	}
	return obj, true
}

func describe(node *yaml.RNode) string {
	return strings.TrimSpace(fmt.Sprintf("%s %s/%s", node.GetKind(), node.GetNamespace(), node.GetName()))
}
