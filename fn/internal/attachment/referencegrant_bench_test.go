package attachment

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
)

// BenchmarkPermittedHub: a shared namespace holds one ReferenceGrant for each of n team namespaces, and a route
// of every team refers to it. Grants are looked up by the referring namespace (before, every grant of the
// shared namespace was scanned for each reference: routes × namespaces).
func BenchmarkPermittedHub(b *testing.B) {
	for _, n := range []int{250, 1000} {
		inv := inventory.New()
		for i := range n {
			inv.Add(&gwv1.ReferenceGrant{
				ObjectMeta: metav1.ObjectMeta{Namespace: "platform", Name: fmt.Sprintf("allow-team-%04d", i)},
				Spec: gwv1.ReferenceGrantSpec{
					From: []gwv1.ReferenceGrantFrom{{Group: inventory.GatewayGroup, Kind: inventory.KindHTTPRoute,
						Namespace: gwv1.Namespace(fmt.Sprintf("team-%04d", i))}},
					To: []gwv1.ReferenceGrantTo{{Group: "", Kind: inventory.KindService}},
				},
			})
		}
		inv.Seal()
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				for i := range n { // one reference from each team
					from := refFrom{inventory.GatewayGroup, inventory.KindHTTPRoute, fmt.Sprintf("team-%04d", i)}
					if !permitted(from, refTo{"", inventory.KindService, "platform", "auth"}, inv) {
						b.Fatal("not permitted")
					}
				}
			}
		})
	}
}
