package tyksync

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
	"github.com/gateway2tyk/gateway2tyk/sync/plan"
)

// The version check names every field an older Gateway refuses, in upstream, in server (the gateway-api
// profile's HTTPS listeners set server.port and server.protocol) and in the operations (a timeout that is not
// whole seconds), with how many APIs set it, and names only those the target refuses.
func TestFieldsNeedingNewer(t *testing.T) {
	apis := []plan.Desired{
		{ID: "a", Document: []byte(`{"x-tyk-api-gateway": {"server": {"listenPath": {"value": "/"}, "port": 8443, "protocol": "https"},
			"upstream": {"url": "http://u", "preserveHostHeader": {"enabled": true}}}}`)},
		{ID: "b", Document: []byte(`{"x-tyk-api-gateway": {"server": {"listenPath": {"value": "/b"}},
			"upstream": {"url": "http://u", "preserveHostHeader": {"enabled": true}},
			"middleware": {"operations": {"get": {"enforceTimeout": {"duration": "500ms", "enabled": true, "value": 1}},
				"post": {"enforceTimeout": {"duration": "500ms", "enabled": true, "value": 1}}}}}}`)},
		{ID: "c", Document: []byte(`{"x-tyk-api-gateway": {"server": {"listenPath": {"value": "/c"}}, "upstream": {"url": "http://u"},
			"middleware": {"operations": {"get": {"enforceTimeout": {"enabled": true, "value": 10}}}}}}`)},
	}
	fields := fieldsNeedingNewer(apis)
	assert.Equal(t, tykroute.Version{Major: 5, Minor: 14}, fields.need())
	// The 5.4 line refuses them all: each says the release it needs, since they differ.
	assert.Equal(t, []string{"upstream.preserveHostHeader (2 APIs; Tyk 5.8)", "server.port (1 API; Tyk 5.8)",
		"server.protocol (1 API; Tyk 5.8)", "middleware.operations.*.enforceTimeout.duration (1 API; Tyk 5.14)"},
		fields.refusedBy(tykroute.Version{Major: 5, Minor: 4}).list())
	// 5.8.11 refuses only the duration (an API counts once, however many operations set it).
	refused := fields.refusedBy(tykroute.Version{Major: 5, Minor: 8, Patch: 11})
	assert.Equal(t, []string{"middleware.operations.*.enforceTimeout.duration (1 API)"}, refused.list())
	assert.Equal(t, "5.14", refused.need().String())
	assert.Empty(t, fields.refusedBy(tykroute.Version{Major: 5, Minor: 14}))
	// Whole seconds (enforceTimeout.value) need nothing newer.
	assert.Empty(t, fieldsNeedingNewer(apis[2:]))
}
