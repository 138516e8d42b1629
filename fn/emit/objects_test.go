package emit

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The reference: the objects as kyaml's setters build them (the implementation before the nodes were built
// directly). ConfigMap and TykOasApiDefinition must give the very same nodes.

func setterConfigMap(api API) (*yaml.RNode, error) {
	node, err := setterObject("v1", "ConfigMap", api)
	if err != nil {
		return nil, err
	}
	if err := node.PipeE(yaml.SetField("data", yaml.NewRNode(stringMap(DocumentKey, string(api.Document))))); err != nil {
		return nil, err
	}
	return node, nil
}

func setterTykOasApiDefinition(api API) (*yaml.RNode, error) {
	node, err := setterObject("tyk.tyk.io/v1alpha1", "TykOasApiDefinition", api)
	if err != nil {
		return nil, err
	}
	ref := yaml.NewRNode(stringMap("name", api.ID, "namespace", api.Namespace, "keyName", DocumentKey))
	if err := node.PipeE(yaml.LookupCreate(yaml.MappingNode, "spec", "tykOAS"), yaml.SetField("configmapRef", ref)); err != nil {
		return nil, err
	}
	return node, nil
}

func setterObject(apiVersion, kind string, api API) (*yaml.RNode, error) {
	node := yaml.NewRNode(&yaml.Node{Kind: yaml.MappingNode})
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
	if err := node.SetLabels(map[string]string{LabelManagedBy: ManagedBy, LabelAPIID: api.ID, LabelOwner: api.Owner}); err != nil {
		return nil, err
	}
	annotations := map[string]string{
		AnnotationRoute:      api.Route,
		AnnotationGateway:    api.Gateway,
		AnnotationHostname:   api.Hostname,
		AnnotationPath:       api.Path,
		AnnotationConditions: api.Conditions,
	}
	if api.Role != "" {
		annotations[AnnotationRole] = api.Role
	}
	return node, node.SetAnnotations(annotations)
}

// trickyStrings are values YAML 1.1 reads as something other than a string, or nearly so.
var trickyStrings = []string{
	"", "yes", "Yes", "YES", "yEs", "y", "Y", "n", "no", "on", "Off", "true", "False", "null", "NULL", "~",
	"1", "0x1f", "0o17", "017", "1e3", "1.5", ".inf", "-.Inf", ".nan", "+1", "-1", "1_000", "190:20:30",
	"2001-12-14", "2001-12-14t21:59:43.10-05:00", "a: b", "a #b", "#c", "[a]", "{a: b}", "- a", "? a", "!tag x",
	"&a", "*a", "|", ">", "'q'", "\"q\"", "%x", "@x", "`x", "<<", "=", "a\nb", "\ttab", " lead", "trail ", "/",
	"/p", "/p:q", "shop/orders", "gwapi-0123456789abcdef0123", "*.example.com", "api.example.com", "\xff\xfe",
	`[{"type":"Accepted","status":"True"}]`, `[]`, `{"a":1}`, "v1", "ns-1", "e5", "E", "x_y", "Inf", "NaN",
}

func randomAPI(r *rand.Rand) API {
	pick := func() string {
		if r.IntN(3) == 0 {
			return trickyStrings[r.IntN(len(trickyStrings))]
		}
		var b strings.Builder
		for range 1 + r.IntN(12) {
			const alphabet = "abcXYZ019./_-: #{}[]'\"\n"
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	api := API{ID: pick(), Namespace: pick(), Route: pick(), Gateway: pick(), Hostname: pick(), Path: pick(), Owner: pick(),
		Conditions: pick(), Document: []byte(pick())}
	if r.IntN(2) == 0 {
		api.Role = pick() // an API of a routed path
	}
	return api
}

func TestObjectsAreTheSettersNodes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	apis := []API{{ID: "gwapi-1", Namespace: "ns", Route: "ns/r", Gateway: "g/g", Path: "/", Conditions: "[]",
		Document: []byte("{\n}\n")}}
	for range 3000 {
		apis = append(apis, randomAPI(r))
	}
	for _, s := range trickyStrings {
		apis = append(apis, API{ID: s, Namespace: s, Route: s, Gateway: s, Hostname: s, Path: s, Role: s, Owner: s, Conditions: s, Document: []byte(s)})
	}
	for i, api := range apis {
		for _, c := range []struct {
			fast, slow func(API) (*yaml.RNode, error)
		}{{ConfigMap, setterConfigMap}, {TykOasApiDefinition, setterTykOasApiDefinition}} {
			want, err := c.slow(api)
			require.NoError(t, err)
			got, err := c.fast(api)
			require.NoError(t, err)
			require.Equal(t, want.YNode(), got.YNode(), "API %d: %+v", i, api)
			ws, err := want.String()
			require.NoError(t, err)
			gs, err := got.String()
			require.NoError(t, err)
			require.Equal(t, ws, gs)
		}
	}
}

func TestNonStringIsYAMLs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	values := append([]string{}, trickyStrings...)
	for range 8000 {
		var b strings.Builder
		for range 1 + r.IntN(8) {
			const alphabet = "aAeEnNoOsStTyYlLuUfF0159./_-+:~ "
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		values = append(values, b.String())
	}
	for _, v := range values {
		require.Equal(t, yaml.IsValueNonString(v), nonString(v), "%q", v)
		require.Equal(t, yaml.IsValueNonString(v), nonString(v), "%q (remembered)", v)
	}
}

// stringMap builds a mapping of string values with its keys in the order given, as the setter-based
// implementation did.
func stringMap(keyValues ...string) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(keyValues); i += 2 {
		m.Content = append(m.Content, yaml.NewStringRNode(keyValues[i]).YNode(), yaml.NewStringRNode(keyValues[i+1]).YNode())
	}
	return m
}

var benchAPI = API{ID: "gwapi-0123456789abcdef0123", Namespace: "team-0001", Route: "team-0001/api-000017",
	Gateway: "gateways/edge-1", Hostname: "api-000017.gw1.example.com", Path: "/000017/v1", Owner: "apps.team-0001",
	Conditions: `[{"message":"the APIs of the route are rendered","observedGeneration":0,"reason":"Accepted","status":"True","type":"Accepted"}]`,
	Document:   []byte(strings.Repeat("{\n  \"key\": \"value\"\n}\n", 200))}

// BenchmarkConfigMap and BenchmarkConfigMapSetters compare the ConfigMap built node by node with the one kyaml's
// setters build (the implementation before).
func BenchmarkConfigMap(b *testing.B) {
	for b.Loop() {
		if _, err := ConfigMap(benchAPI); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkConfigMapSetters(b *testing.B) {
	for b.Loop() {
		if _, err := setterConfigMap(benchAPI); err != nil {
			b.Fatal(err)
		}
	}
}

// TestObjectsFitTheirBuilder checks the node counts the builders are sized with: every node of an emitted object
// that is not a shared key is one the builder handed out, and there are exactly as many as it was sized for.
func TestObjectsFitTheirBuilder(t *testing.T) {
	api := API{ID: "gwapi-1", Namespace: "team-a", Route: "team-a/r", Gateway: "gw/edge", Hostname: "a.example.com", Owner: "team-a",
		Path: "/", Conditions: "[]", Document: []byte("{}\n")}
	shared := map[*yaml.Node]bool{}
	for _, n := range fieldKeys {
		shared[n] = true
	}
	for _, n := range strKeys {
		shared[n] = true
	}
	var count func(n *yaml.Node) int
	count = func(n *yaml.Node) int {
		c := 0
		if !shared[n] {
			c = 1
		}
		for _, child := range n.Content {
			c += count(child)
		}
		return c
	}
	cm, err := ConfigMap(api)
	require.NoError(t, err)
	require.Equal(t, configMapNodes, count(cm.YNode()))
	def, err := TykOasApiDefinition(api)
	require.NoError(t, err)
	require.Equal(t, definitionNodes, count(def.YNode()))
}
