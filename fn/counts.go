package fn

import (
	"fmt"
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
	// Owner is the owner of the rendered APIs; OwnerFallback is set when nobody chose it: spec.owner is not set
	// and the render could not see the application's place in a repository (config.FallbackOwner), so another
	// application rendered the same way gets the same owner, and the sync of either would prune the other's APIs.
	Owner         string
	OwnerFallback bool
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

// FallbackOwnerNote is the warning a render prints (on stderr, beside its results) when its APIs got the fallback
// owner; "" when they did not, or there are none.
func FallbackOwnerNote(c Counts) string {
	if !c.OwnerFallback || c.APIs == 0 {
		return ""
	}
	return fmt.Sprintf("warning: the APIs' owner is %q, the fallback: the render cannot see this application's "+
		"directory in a git repository (stdin, kpt, no .git above it, or the repository's root), so every "+
		"application rendered that way gets the same owner, and the sync of one would delete the others' APIs; "+
		"set spec.owner in the RenderConfig (a name of this application's own)", c.Owner)
}
