package emit

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestOurs is the one answer to "is this object ours?" that the reader, the upsert, the sync hook and the sync's
// source share.
func TestOurs(t *testing.T) {
	for _, c := range []struct {
		labels map[string]string
		want   Part
	}{
		{nil, NotOurs},
		{map[string]string{LabelAPIID: "gwapi-1"}, NotOurs},
		{map[string]string{LabelManagedBy: "helm", LabelAPIID: "gwapi-1"}, NotOurs},
		{map[string]string{LabelManagedBy: ManagedBy, LabelAPIID: "gwapi-1", LabelOwner: "a"}, OursAPI},
		{map[string]string{LabelManagedBy: ManagedBy, LabelAPIID: "gwapi-1"}, OursAPI},
		{map[string]string{LabelManagedBy: ManagedBy, LabelComponent: ComponentSyncHook}, OursSyncHook},
		{map[string]string{LabelManagedBy: ManagedBy, LabelComponent: "other"}, OursOther},
		{map[string]string{LabelManagedBy: ManagedBy}, OursOther},
	} {
		assert.Equal(t, c.want, Ours(c.labels), "%v", c.labels)
	}
	assert.Equal(t, "a", Owner(map[string]string{LabelOwner: "a"}))
	assert.Empty(t, Owner(map[string]string{LabelManagedBy: ManagedBy}), "emitted by a release before owners")
}
