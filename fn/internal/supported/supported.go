// Package supported owns what each render profile tells Gateway API it implements: the features a GatewayClass
// of ours lists in status.supportedFeatures, which the upstream conformance suite reads to decide what to test.
// A feature is listed only when the profile implements every test the suite runs for it; a feature the render
// only partly serves is left out, since listing it would claim what is not served.
package supported

import (
	"cmp"
	"slices"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/gateway-api/pkg/features"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

// gatewayAPI are the features of the gateway-api profile: the Core features of the GATEWAY-HTTP conformance
// profile. No Extended feature is listed until its tests pass against a real Tyk.
var gatewayAPI = []features.FeatureName{
	features.SupportGateway,
	features.SupportHTTPRoute,
	features.SupportReferenceGrant,
}

// Features is status.supportedFeatures of a GatewayClass in the profile, sorted by name as the field requires,
// or nil: the operator profile writes no supportedFeatures, as Tyk Operator 1.6 does not.
func Features(p config.Profile) []gwv1.SupportedFeature {
	if !p.GatewayAPI() {
		return nil
	}
	out := make([]gwv1.SupportedFeature, 0, len(gatewayAPI))
	for _, f := range gatewayAPI {
		out = append(out, gwv1.SupportedFeature{Name: gwv1.FeatureName(f)})
	}
	slices.SortFunc(out, func(a, b gwv1.SupportedFeature) int { return cmp.Compare(a.Name, b.Name) })
	return out
}
