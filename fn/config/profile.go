package config

// Profile selects whose semantics the render follows where Tyk Operator's reference and Gateway API part ways.
type Profile string

const (
	// ProfileOperator is the default: the render is Tyk Operator 1.6's reference, byte for byte.
	ProfileOperator Profile = "operator"
	// ProfileGatewayAPI goes beyond the reference where Gateway API asks for it: a Gateway without
	// infrastructure.parametersRef is served by the data plane of its GatewayClass's OperatorContext, the
	// GatewayClass lists its supportedFeatures, and the statuses follow the Gateway API specification where the
	// reference is silent (each difference is named where it is decided).
	ProfileGatewayAPI Profile = "gateway-api"
)

// profileKey is the field of the profile in spec, and its key in the ConfigMap form's data.
const profileKey = "profile"

func (p Profile) String() string { return string(p) }

// GatewayAPI reports whether the render follows Gateway API beyond the reference.
func (p Profile) GatewayAPI() bool { return p == ProfileGatewayAPI }
