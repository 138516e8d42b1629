package supported

import (
	"testing"

	"github.com/stretchr/testify/assert"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

func TestFeatures(t *testing.T) {
	// Tyk Operator 1.6 writes no supportedFeatures: the operator profile adds none.
	assert.Nil(t, Features(config.ProfileOperator))
	// The Core features of GATEWAY-HTTP, sorted by name as the field requires, and nothing else.
	assert.Equal(t, []gwv1.SupportedFeature{{Name: "Gateway"}, {Name: "HTTPRoute"}, {Name: "ReferenceGrant"}},
		Features(config.ProfileGatewayAPI))
}
