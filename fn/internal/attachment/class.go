package attachment

import (
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/status"
)

// acceptClass decides a GatewayClass's Accepted condition. The class is ours by its controllerName; whether its
// parametersRef is acceptable is the Environment's call (InvalidParameters otherwise).
func acceptClass(gc *gwv1.GatewayClass, env Environment) *Class {
	c := &Class{Class: gc}
	if why := env.ClassParameters(gc); why != "" {
		status.Set(&c.Conditions, status.Condition(string(gwv1.GatewayClassConditionStatusAccepted), false,
			string(gwv1.GatewayClassReasonInvalidParameters), why, gc.Generation))
		return c
	}
	c.Accepted = true
	status.Set(&c.Conditions, status.Condition(string(gwv1.GatewayClassConditionStatusAccepted), true,
		string(gwv1.GatewayClassReasonAccepted), "Tyk Operator manages the class", gc.Generation))
	return c
}
