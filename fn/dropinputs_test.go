package fn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDropInputsKeepsPoliciesAndListenerSets: with inputs: Drop the Gateway API objects the render read are left
// out, as the contract names them (GatewayClass, Gateway, HTTPRoute, ReferenceGrant), but a BackendTLSPolicy or
// a ListenerSet, which the contract does not name (they were read after it was written), passes through as it did
// before it was read.
func TestDropInputsKeepsPoliciesAndListenerSets(t *testing.T) {
	for story, kept := range map[string]string{
		"profile-gateway-api-backend-tls-policy": "BackendTLSPolicy",
		"profile-gateway-api-listenersets":       "ListenerSet",
	} {
		out := renderEditedStory(t, story, "spec: {profile: gateway-api}", "spec: {profile: gateway-api, inputs: Drop}")
		kinds := map[string]int{}
		for _, it := range out.Items {
			kinds[it.GetKind()]++
		}
		assert.Equal(t, 2, kinds[kept], "%s: the story's two %ss pass through", story, kept)
		for _, k := range []string{"GatewayClass", "Gateway", "HTTPRoute"} {
			assert.Zero(t, kinds[k], "%s: %s", story, k)
		}
	}
}
