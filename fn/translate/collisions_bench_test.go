package translate

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
)

// oneClaim is n routes of one namespace on one Gateway that all claim the same path with no hostname (a fleet of
// catch-all routes): one claim group as large as the fleet.
func oneClaim(n int) ([]*API, []*Route) {
	gw := &attachment.Gateway{Gateway: &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "gateways", Name: "edge"}}}
	var apis []*API
	var routes []*Route
	for i := range n {
		hr := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: fmt.Sprintf("r%06d", i)}}
		p := &attachment.Parent{Gateway: gw}
		r := &attachment.Route{Route: hr, Parents: []*attachment.Parent{p}}
		routes = append(routes, &Route{Route: r, Lost: map[int][]Loss{}, Rejected: map[int]Rejection{}})
		apis = append(apis, &API{ID: fmt.Sprintf("gwapi-%06d", i), Route: r, Parent: p, Path: "/"})
	}
	return apis, routes
}

// BenchmarkResolveCollisionsOneClaim: every API after the first loses to the oldest route. The winner of a claim
// is found once (before, it was searched again for each member: quadratic in the size of the group).
func BenchmarkResolveCollisionsOneClaim(b *testing.B) {
	for _, n := range []int{1000, 4000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				apis, routes := oneClaim(n)
				b.StartTimer()
				if got := resolveCollisions(apis, routes); len(got) != 1 {
					b.Fatalf("%d APIs kept, want 1", len(got))
				}
			}
		})
	}
}
