package tykroute_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// Tyk 5.8 and later list [{X,1},{Y,2},{X,4}] as [{X,5},{Y,2}] (seen on v5.8.11 and v5.14.0).
func TestMergeTargets(t *testing.T) {
	got := tykroute.MergeTargets([]tykoas.LoadBalancingTarget{{URL: "http://y", Weight: 2}, {URL: "http://x", Weight: 1},
		{URL: "http://x", Weight: 4}})
	assert.Equal(t, []tykoas.LoadBalancingTarget{{URL: "http://x", Weight: 5}, {URL: "http://y", Weight: 2}}, got)
	assert.Equal(t, []tykoas.LoadBalancingTarget{{URL: "http://x", Weight: 3}},
		tykroute.MergeTargets([]tykoas.LoadBalancingTarget{{URL: "http://x", Weight: 3}}))
	assert.Empty(t, tykroute.MergeTargets(nil))
}
