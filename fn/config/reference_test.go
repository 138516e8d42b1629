package config

import (
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestReferenceListsEveryField holds the RenderConfig of docs/reference/renderconfig.md (the manual's field by
// field listing) to Spec: every field the render reads is listed, nothing else is, and the listing loads.
func TestReferenceListsEveryField(t *testing.T) {
	data, err := os.ReadFile("../../docs/reference/renderconfig.md")
	require.NoError(t, err)
	m := regexp.MustCompile("(?ms)^```yaml\n(.*?)^```").FindSubmatch(data)
	require.NotNil(t, m, "docs/reference/renderconfig.md has no yaml listing")
	node, err := yaml.Parse(string(m[1]))
	require.NoError(t, err)
	_, err = Load(node)
	require.NoError(t, err, "the listing of docs/reference/renderconfig.md does not load")

	spec, err := node.Pipe(yaml.Lookup("spec"))
	require.NoError(t, err)
	require.NotNil(t, spec)
	var listed []string
	var walk func(n *yaml.RNode, prefix string)
	walk = func(n *yaml.RNode, prefix string) {
		require.NoError(t, n.VisitFields(func(f *yaml.MapNode) error {
			name := prefix + f.Key.YNode().Value
			listed = append(listed, name)
			if f.Value.YNode().Kind == yaml.MappingNode {
				walk(f.Value, name+".")
			}
			return nil
		}))
	}
	walk(spec, "")
	sort.Strings(listed)
	assert.Equal(t, specFields(reflect.TypeOf(Spec{}), ""), listed,
		"docs/reference/renderconfig.md lists other fields than Spec has")
}

// specFields are the JSON names of a struct's fields, and of the fields of the structs among them, sorted.
func specFields(typ reflect.Type, prefix string) []string {
	var names []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		names = append(names, prefix+name)
		if f.Type.Kind() == reflect.Struct {
			names = append(names, specFields(f.Type, prefix+name+".")...)
		}
	}
	sort.Strings(names)
	return names
}
