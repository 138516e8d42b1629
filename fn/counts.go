package fn

import (
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/status"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
	"github.com/gateway2tyk/gateway2tyk/fn/read"
	"github.com/gateway2tyk/gateway2tyk/fn/translate"
)

// Counts are what a render made of its input, for the one-line summary of `gateway2tyk render`.
type Counts struct {
	// Rendered is false when the render did not run (the function config could not be read).
	Rendered bool
	// Gateways are the Gateways of our classes; Routes every HTTPRoute of the input (those that cannot be read,
	// which are treated as absent, too), RoutesAccepted those accepted by at least one of their parents; APIs the
	// APIs emitted.
	Gateways, Routes, RoutesAccepted, APIs int
}

func count(in *read.Result, gateways int, tr *translate.Output) Counts {
	c := Counts{Rendered: true, Gateways: gateways, Routes: len(in.Inventory.HTTPRoutes), APIs: len(tr.APIs)}
	unreadable := map[*yaml.RNode]bool{}
	for _, p := range in.Problems {
		if p.Node.GetKind() == inventory.KindHTTPRoute && strings.HasPrefix(p.Node.GetApiVersion(), inventory.GatewayGroup+"/") {
			unreadable[p.Node] = true
		}
	}
	c.Routes += len(unreadable)
	for _, r := range tr.Routes {
		for _, conds := range r.Conditions {
			if status.IsTrue(conds, string(gwv1.RouteConditionAccepted)) {
				c.RoutesAccepted++
				break
			}
		}
	}
	return c
}
