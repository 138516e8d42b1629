package status

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestHealth(t *testing.T) {
	accepted := Condition("Accepted", true, "Accepted", "ok", 1)
	notResolved := Condition("ResolvedRefs", false, "BackendNotFound", "Service shop/orders does not exist", 1)
	conflicted := Condition("Conflicted", true, "HostnameConflict", "two listeners", 1)
	notConflicted := Condition("Conflicted", false, "NoConflicts", "", 1)
	partial := Condition("PartiallyInvalid", true, "UnsupportedValue", "dropped spec.rules[1]", 1)

	assert.Equal(t, "Healthy", Health())
	assert.Equal(t, "Healthy", Health(Scope{Conditions: []metav1.Condition{accepted, notConflicted}}))
	assert.Equal(t, "Degraded: parent shop/edge: ResolvedRefs/BackendNotFound: Service shop/orders does not exist",
		Health(Scope{Name: "parent shop/edge", Conditions: []metav1.Condition{accepted, notResolved}}))
	assert.Equal(t, "Degraded: listener http: Conflicted/HostnameConflict: two listeners",
		Health(Scope{Conditions: []metav1.Condition{accepted}}, Scope{Name: "listener http", Conditions: []metav1.Condition{conflicted}}))
	assert.Equal(t, "Degraded: PartiallyInvalid/UnsupportedValue: dropped spec.rules[1]",
		Health(Scope{Conditions: []metav1.Condition{accepted, partial}}))
}
