package tykroute

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What a release refuses is taken out, wherever it is (every operation), and nothing else.
func TestRemoveNewer(t *testing.T) {
	doc := func() map[string]any {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(`{"upstream": {"url": "http://u", "preserveHostHeader": {"enabled": true}},
			"middleware": {"operations": {"get": {"enforceTimeout": {"duration": "500ms", "enabled": true, "value": 1}},
				"post": {"enforceTimeout": {"duration": "1s500ms", "enabled": true, "value": 2}}, "put": {}}}}`), &m))
		return m
	}
	m := doc()
	RemoveNewer(m, Version{5, 8, 11})
	got, _ := json.Marshal(m)
	assert.JSONEq(t, `{"upstream": {"url": "http://u", "preserveHostHeader": {"enabled": true}},
		"middleware": {"operations": {"get": {"enforceTimeout": {"enabled": true, "value": 1}},
			"post": {"enforceTimeout": {"enabled": true, "value": 2}}, "put": {}}}}`, string(got))
	m = doc()
	RemoveNewer(m, Version{5, 4, 0})
	got, _ = json.Marshal(m)
	assert.JSONEq(t, `{"upstream": {"url": "http://u"},
		"middleware": {"operations": {"get": {"enforceTimeout": {"enabled": true, "value": 1}},
			"post": {"enforceTimeout": {"enabled": true, "value": 2}}, "put": {}}}}`, string(got))
	m = doc()
	RemoveNewer(m, Version{5, 14, 0})
	assert.Equal(t, doc(), m)
}
