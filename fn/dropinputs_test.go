package fn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDropInputsKeepsBackendTLSPolicies: with inputs: Drop the Gateway API objects the render read are left out,
// as the contract names them (GatewayClass, Gateway, HTTPRoute, ReferenceGrant), but a BackendTLSPolicy, read
// for the backends it refuses, passes through as it did before it was read.
func TestDropInputsKeepsBackendTLSPolicies(t *testing.T) {
	out := renderEditedStory(t, "profile-gateway-api-backend-tls-policy", "spec: {profile: gateway-api}",
		"spec: {profile: gateway-api, inputs: Drop}")
	kinds := map[string]int{}
	for _, it := range out.Items {
		kinds[it.GetKind()]++
	}
	assert.Equal(t, 2, kinds["BackendTLSPolicy"], "the story's two policies pass through")
	for _, k := range []string{"GatewayClass", "Gateway", "HTTPRoute"} {
		assert.Zero(t, kinds[k], k)
	}
	assert.Equal(t, 4, kinds["ConfigMap"], "the route's three APIs and the story's CA ConfigMap")
}
