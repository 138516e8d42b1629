package status

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Values of the gateway2tyk.io/health annotation: the would-be status as one flat string that a health check
// reads without a JSON decoder (Argo CD's Lua VM has none; see examples/argocd).
const (
	HealthHealthy  = "Healthy"
	HealthDegraded = "Degraded: "
)

// Scope is a list of conditions and what it belongs to ("" for the object itself, "listener http", "parent
// shop/edge"), for the message of the first condition that is not as it should be.
type Scope struct {
	Name       string
	Conditions []metav1.Condition
}

// Health is the annotation's value for an object: Healthy when every condition of every scope is as it should
// be, else "Degraded: [<scope>: ]<Type>/<Reason>: <message>" of the first that is not. A condition is as it
// should be when True, except Conflicted and PartiallyInvalid, which should be False. The render has no
// controller behind it, so nothing is ever Progressing: what it says now is what it will say.
func Health(scopes ...Scope) string {
	for _, s := range scopes {
		for _, c := range s.Conditions {
			want := metav1.ConditionTrue
			if c.Type == string(gwv1.ListenerConditionConflicted) || c.Type == string(gwv1.RouteConditionPartiallyInvalid) {
				want = metav1.ConditionFalse
			}
			if c.Status == want {
				continue
			}
			msg := fmt.Sprintf("%s/%s: %s", c.Type, c.Reason, c.Message)
			if s.Name != "" {
				msg = s.Name + ": " + msg
			}
			return HealthDegraded + msg
		}
	}
	return HealthHealthy
}
