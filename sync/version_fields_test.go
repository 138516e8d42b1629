package tyksync

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gateway2tyk/gateway2tyk/sync/plan"
)

// The version check names every field an older Gateway refuses, in upstream and in server (the gateway-api
// profile's HTTPS listeners set server.port and server.protocol), with how many APIs set it.
func TestFieldsNeedingNewer(t *testing.T) {
	apis := []plan.Desired{
		{ID: "a", Document: []byte(`{"x-tyk-api-gateway": {"server": {"listenPath": {"value": "/"}, "port": 8443, "protocol": "https"},
			"upstream": {"url": "http://u", "preserveHostHeader": {"enabled": true}}}}`)},
		{ID: "b", Document: []byte(`{"x-tyk-api-gateway": {"server": {"listenPath": {"value": "/b"}},
			"upstream": {"url": "http://u", "preserveHostHeader": {"enabled": true}}}}`)},
		{ID: "c", Document: []byte(`{"x-tyk-api-gateway": {"server": {"listenPath": {"value": "/c"}}, "upstream": {"url": "http://u"}}}`)},
	}
	assert.Equal(t, []string{"upstream.preserveHostHeader (2 APIs)", "server.port (1 API)", "server.protocol (1 API)"},
		fieldsNeedingNewer(apis))
	assert.Empty(t, fieldsNeedingNewer(apis[2:]))
}
