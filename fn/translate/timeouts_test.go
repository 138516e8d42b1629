package translate

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// The shorter non-zero timeout is enforced; 0s is none; whole seconds are value only; what is not whole seconds is
// a duration for 5.14 and rounded up, and said, before; the reference drops the rule.
func TestCompileTimeouts(t *testing.T) {
	d := func(s string) *gwv1.Duration { v := gwv1.Duration(s); return &v }
	for _, c := range []struct {
		name     string
		in       gwv1.HTTPRouteTimeouts
		mode     Timeouts
		want     *tykoas.EnforceTimeout
		said     []string
		rejected []string
	}{
		{"both: the shorter", gwv1.HTTPRouteTimeouts{Request: d("30s"), BackendRequest: d("10s")}, TimeoutsDurations,
			&tykoas.EnforceTimeout{Enabled: true, Value: 10}, nil, nil},
		{"request 0s leaves the backend's", gwv1.HTTPRouteTimeouts{Request: d("0s"), BackendRequest: d("2s")}, TimeoutsWholeSeconds,
			&tykoas.EnforceTimeout{Enabled: true, Value: 2}, nil, nil},
		{"0s: none", gwv1.HTTPRouteTimeouts{Request: d("0s")}, TimeoutsDurations, nil, nil, nil},
		{"a duration for 5.14", gwv1.HTTPRouteTimeouts{Request: d("1m1500ms")}, TimeoutsDurations,
			&tykoas.EnforceTimeout{Enabled: true, Duration: "1m1s500ms", Value: 62}, nil, nil},
		{"rounded up before 5.14, and said", gwv1.HTTPRouteTimeouts{BackendRequest: d("1500ms")}, TimeoutsWholeSeconds,
			&tykoas.EnforceTimeout{Enabled: true, Value: 2},
			[]string{"r.timeouts.backendRequest: 1500ms is served as 2s: Tyk Gateways before 5.14, which spec.tykVersion " +
				"of the function config names, enforce whole seconds"}, nil},
		{"the reference", gwv1.HTTPRouteTimeouts{Request: d("1s")}, TimeoutsRejected, nil, nil,
			[]string{"r.timeouts: not supported by Tyk" + GatewayAPIServes}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b behaviour
			var said, rejected []string
			collect := func(to *[]string) func(string, string, ...any) {
				return func(field, format string, args ...any) { *to = append(*to, field+": "+fmt.Sprintf(format, args...)) }
			}
			compileTimeouts("r", &c.in, c.mode, &b, collect(&rejected), collect(&said))
			assert.Equal(t, c.want, b.timeout)
			assert.Equal(t, c.said, said)
			assert.Equal(t, c.rejected, rejected)
		})
	}
}
