package fn

import (
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
	"github.com/gateway2tyk/gateway2tyk/fn/read"
	"github.com/gateway2tyk/gateway2tyk/fn/translate"
)

// hostPrecedenceResults warns on both routes when Tyk may serve a host with the wrong one (issue 30, finding 6).
// Gateway API gives a request to the route with an exact hostname before one whose wildcard covers it, whatever
// their paths; Tyk has no listener isolation and orders its APIs by custom domain and listen path only (from
// 5.8.0: custom domains first, then the longer listen path, ties in load order; before it, custom domains of
// one length tie too). So when a wildcard API's path is the exact API's or below it, Tyk may give the exact
// host's requests to the wildcard's route. The render cannot write a document that keeps the Tyk Operator
// reference's custom domains and orders them otherwise, so it says so, naming the other route, and explain
// says which API each Tyk release serves.
func hostPrecedenceResults(in *read.Result, tr *translate.Output) framework.Results {
	var out framework.Results
	said := map[string]bool{}
	// The wildcard APIs by Gateway and hostname, so that each exact hostname looks only at the wildcards that
	// may cover it (one per dot-suffix) instead of at every API: a fleet of 19,000 APIs made the pairwise scan
	// cost 3 s of a 6 s warm render.
	type wildKey struct {
		gateway  *attachment.Gateway
		hostname string
	}
	wildcards := map[wildKey][]int{}
	for i, w := range tr.APIs {
		if strings.HasPrefix(w.Hostname, "*.") && public(w) {
			k := wildKey{w.Parent.Gateway, w.Hostname}
			wildcards[k] = append(wildcards[k], i)
		}
	}
	if len(wildcards) == 0 {
		return nil
	}
	for _, e := range tr.APIs {
		if e.Hostname == "" || strings.HasPrefix(e.Hostname, "*.") || !public(e) {
			continue
		}
		var candidates []int
		for rest := e.Hostname; ; {
			dot := strings.IndexByte(rest, '.')
			if dot < 0 {
				break
			}
			rest = rest[dot+1:]
			candidates = append(candidates, wildcards[wildKey{e.Parent.Gateway, "*." + rest}]...)
		}
		slices.Sort(candidates) // the APIs' order, as the results have always been given
		for _, i := range candidates {
			w := tr.APIs[i]
			if w.Route == e.Route || !attachment.HostTakes(w.Hostname, e.Hostname) || w.Isolates(e.Hostname) ||
				!attachment.PathPrefixTakes(e.Path, w.Path) {
				continue
			}
			exact, wild := e.Route.Route, w.Route.Route
			pair := fmt.Sprintf("%s/%s %s %s/%s %s %s", exact.Namespace, exact.Name, e.Hostname, wild.Namespace, wild.Name, w.Hostname, w.Path)
			if said[pair] {
				continue
			}
			said[pair] = true
			msg := fmt.Sprintf("on Gateway %s/%s, HTTPRoute %s/%s serves the exact hostname %s (path %s) and HTTPRoute %s/%s "+
				"the wildcard %s (path %s): Gateway API gives %s to %s/%s, but Tyk has no listener isolation and may serve "+
				"it with %s/%s's API (gateway2tyk explain --request \"GET http://%s%s\" says which, per Tyk release); "+
				"give the two routes paths that do not overlap, or hostnames that do not",
				e.Parent.Gateway.Gateway.Namespace, e.Parent.Gateway.Gateway.Name, exact.Namespace, exact.Name, e.Hostname, e.Path,
				wild.Namespace, wild.Name, w.Hostname, w.Path, e.Hostname, exact.Namespace, exact.Name, wild.Namespace, wild.Name,
				e.Hostname, w.Path)
			for _, hr := range [][2]string{{exact.Namespace, exact.Name}, {wild.Namespace, wild.Name}} {
				key := inventory.Key{Group: inventory.GatewayGroup, Kind: inventory.KindHTTPRoute, Namespace: hr[0], Name: hr[1]}
				out = append(out, result(framework.Warning, in.Nodes[key], "spec.hostnames", msg))
			}
		}
	}
	return out
}

// public reports whether Tyk routes requests to the API by its custom domain: not an internal API of a routed
// path, which only its router reaches.
func public(a *translate.API) bool {
	return a.Role == translate.RolePlain || a.Role == translate.RoleRouter
}
