package fleetchange

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/bench/resourcelist"
)

// Change changes exactly n routes, each by one request header on its first rule, and nothing else.
func TestChange(t *testing.T) {
	var fleet bytes.Buffer
	resourcelist.Generate(&fleet, 200, 1)
	changed, err := Change(fleet.Bytes(), 10)
	require.NoError(t, err)

	read := func(b []byte) []*yaml.RNode {
		items, err := (&kio.ByteReadWriter{Reader: bytes.NewReader(b), KeepReaderAnnotations: true}).Read()
		require.NoError(t, err)
		return items
	}
	before, after := read(fleet.Bytes()), read(changed)
	require.Equal(t, len(before), len(after))
	differ := 0
	for i := range before {
		a, b := before[i].MustString(), after[i].MustString()
		if a == b {
			continue
		}
		differ++
		assert.Equal(t, "HTTPRoute", after[i].GetKind())
		headers, err := after[i].Pipe(yaml.Lookup("spec", "rules", "0", "filters"),
			yaml.MatchElement("type", "RequestHeaderModifier"), yaml.Lookup("requestHeaderModifier", "set"))
		require.NoError(t, err)
		require.NotNil(t, headers, after[i].GetName())
		names, err := headers.ElementValues("name")
		require.NoError(t, err)
		assert.Contains(t, names, "X-Changed", after[i].GetName())
	}
	assert.Equal(t, 10, differ)

	_, err = Change(fleet.Bytes(), 201)
	assert.ErrorContains(t, err, "201 routes to change, the fleet has 200")
}
