package translate

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/status"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
)

// resolveCollisions keeps Tyk from loading two APIs with the same custom domain and listen path on the same
// Tyk Gateways, which it would "solve" by renaming one listen path.
//
//  1. Within a route: when two parent Gateways serve it on the same hostname and the same data plane (the
//     Service of dataPlane.serviceRef), the parent whose Gateway sorts later by namespace/name is Accepted False
//     DataPlaneShared, and none of its APIs is kept. Gateways without a known data plane are never shared.
//  2. Across routes: two routes that claim the same (Gateway, hostname, path), or the same hostname and path
//     on two Gateways that share a data plane, are resolved the Gateway API way: the oldest route (creationTimestamp, then namespace/name) keeps the API; the others lose it and
//     are told so (PartiallyInvalid PathConflict). Listener ports take no part: Tyk Gateway does not listen
//     on them.
func resolveCollisions(candidates []*API, routes []*Route) []*API {
	byRoute := map[*attachment.Route]*Route{}
	for _, r := range routes {
		byRoute[r.Route] = r
	}
	kept := dataPlaneShared(candidates, byRoute)

	groups := map[string][]*API{}
	keys := make([]string, len(kept))
	for i, a := range kept {
		keys[i] = claimKey(a)
		groups[keys[i]] = append(groups[keys[i]], a)
	}
	// The winner of each claim is found once: routes that all claim one path (no hostname, path /) make one
	// group as large as the fleet.
	winners := make(map[string]*API, len(groups))
	for k, g := range groups {
		winners[k] = oldest(g)
	}
	var out []*API
	for i, a := range kept {
		winner := winners[keys[i]]
		if a == winner {
			out = append(out, a)
			continue
		}
		w := winner.Route.Route
		why := "two APIs with the same domain and listen path cannot both load in Tyk"
		if a.Route == winner.Route && a.Parent.Gateway == winner.Parent.Gateway {
			lose(byRoute[a.Route], a, status.ReasonPathConflict, fmt.Sprintf(
				"%s on %s of Gateway %s/%s is served on one of its listeners' ports only: Tyk keeps one API per "+
					"custom domain and listen path whatever its port, and this path cannot be written as another "+
					"template (a mock response on a Tyk that finds mocks only under plain listen paths; give the "+
					"listeners or the route hostnames)",
				a.PathDescription(), hostDescription(a.Hostname), a.Parent.Gateway.Gateway.Namespace, a.Parent.Gateway.Gateway.Name))
			continue
		}
		if a.port != winner.port {
			why = "Tyk keeps one API per custom domain and listen path whatever its port, and without a hostname " +
				"the APIs of the listeners on both ports have the same (give the listeners or the routes hostnames)"
		} else if note := onePortForBothProtocols(a, winner); note != "" {
			why += note
		}
		lose(byRoute[a.Route], a, status.ReasonPathConflict, fmt.Sprintf(
			"%s on %s of Gateway %s/%s is served by HTTPRoute %s/%s, which takes precedence (older, or as old "+
				"and first by namespace/name); %s",
			a.PathDescription(), hostDescription(a.Hostname), a.Parent.Gateway.Gateway.Namespace, a.Parent.Gateway.Gateway.Name,
			w.Namespace, w.Name, why))
	}
	return out
}

// claimKey is what two APIs must not share: the custom domain and listen path on one set of Tyk Gateways. Those
// are the data plane of the Gateway when it has one (two Gateways can share it), else the Gateway itself
// (claimWhere). The port takes no part, since Tyk keeps one API per custom domain and listen path whatever its
// port; APIs of one hostname on two ports write their domains apart (plainDomain), and APIs without hostname
// their listen paths where they can (listenPathVariant), and so do not share a key; two that cannot (a
// PathPrefix taken as a string prefix, on a release that finds mocks only under plain listen paths) do.
func claimKey(a *API) string {
	return claimWhere(a.dataPlane, a.Parent.Gateway.Gateway, 0) + "\n" + a.domain() + "\n" + a.ListenPath() +
		"\n" + strconv.Itoa(a.variant)
}

func dataPlaneShared(candidates []*API, byRoute map[*attachment.Route]*Route) []*API {
	type key struct {
		route                 *attachment.Route
		dataPlane, host, path string
		port                  int
	}
	first := map[key]*attachment.Parent{}
	losing := map[*attachment.Parent]*attachment.Parent{}
	for _, a := range sortedByGateway(candidates) {
		k := key{a.Route, a.dataPlane, a.Hostname, a.ListenPath(), a.port}
		p, ok := first[k]
		switch {
		case a.dataPlane == "":
		case !ok:
			first[k] = a.Parent
		case p.Gateway != a.Parent.Gateway:
			if _, already := losing[a.Parent]; !already {
				losing[a.Parent] = p
			}
		}
	}
	var kept []*API
	for _, a := range candidates {
		w, lost := losing[a.Parent]
		if !lost {
			kept = append(kept, a)
			continue
		}
		tr := byRoute[a.Route]
		if len(tr.Lost[parentIndex(a)]) == 0 {
			lose(tr, a, status.ReasonDataPlaneShared, fmt.Sprintf(
				"Gateway %s/%s already serves this route on %s with the same data plane (Service %s)",
				w.Gateway.Gateway.Namespace, w.Gateway.Gateway.Name, hostDescription(a.Hostname), a.dataPlane))
		}
	}
	return kept
}

func lose(tr *Route, a *API, reason, message string) {
	i := parentIndex(a)
	tr.Lost[i] = append(tr.Lost[i], Loss{Reason: reason, Field: fmt.Sprintf("spec.parentRefs[%d]", a.Parent.Index), Message: message})
}

func parentIndex(a *API) int {
	for i, p := range a.Route.Parents {
		if p == a.Parent {
			return i
		}
	}
	return -1
}

// sortedByGateway orders APIs by Gateway namespace/name, then ID, so "the parent that sorts first" does not
// depend on parentRef order.
func sortedByGateway(apis []*API) []*API {
	out := append([]*API(nil), apis...)
	sort.SliceStable(out, func(i, j int) bool {
		gi, gj := out[i].Parent.Gateway.Gateway, out[j].Parent.Gateway.Gateway
		if gi.Namespace != gj.Namespace {
			return gi.Namespace < gj.Namespace
		}
		if gi.Name != gj.Name {
			return gi.Name < gj.Name
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// oldest applies Gateway API's tie-break between routes: the oldest creationTimestamp, then namespace/name.
func oldest(apis []*API) *API {
	best := apis[0]
	for _, a := range apis[1:] {
		if olderRoute(a, best) {
			best = a
		}
	}
	return best
}

// olderRoute applies Gateway API's precedence between the routes of two APIs; the API ID breaks the tie between
// two APIs of one route.
func olderRoute(a, b *API) bool {
	ra, rb := a.Route.Route, b.Route.Route
	if inventory.Older(ra, rb) || inventory.Older(rb, ra) {
		return inventory.Older(ra, rb)
	}
	return a.ID < b.ID
}

func hostDescription(h string) string {
	if h == "" {
		return "any hostname"
	}
	return "hostname " + h
}

// onePortForBothProtocols says plainly what a user gets when a route of an HTTP listener loses its path to a route
// of an HTTPS listener of the same hostname, or the other way round, on one Tyk port (the operator profile, as in
// Tyk Operator, where every listener's APIs are on the listen_port): requests of both protocols get the winner's
// rules. The usual case is HTTP redirected to HTTPS beside an HTTPS route: the redirect is never sent, or, when
// the redirect is older, HTTPS requests are redirected to HTTPS again, a loop. "" when the two are not on
// listeners of different protocols.
func onePortForBothProtocols(loser, winner *API) string {
	lp, wp := protocols(loser), protocols(winner)
	if len(lp) != 1 || len(wp) != 1 || lp[0] == wp[0] {
		return ""
	}
	w := winner.Route.Route
	note := fmt.Sprintf("; the %s and the %s listener's APIs are on one Tyk port (the listen_port, as in Tyk "+
		"Operator), so %s and %s requests for it both get HTTPRoute %s/%s's rules and none of this route's",
		lp[0], wp[0], lp[0], wp[0], w.Namespace, w.Name)
	if redirectsToHTTPS(winner) {
		note += ": HTTPS requests are redirected to HTTPS again, a loop"
	} else if redirectsToHTTPS(loser) {
		note += ": plain HTTP is not redirected, and gets the HTTPS route's rules unencrypted"
	}
	return note + " (the gateway-api profile serves an HTTPS listener on a port of its own)"
}

// protocols are the protocols of the listeners that give the API's parent its hostname, each once.
func protocols(a *API) []gwv1.ProtocolType {
	var out []gwv1.ProtocolType
	for _, l := range a.Parent.Listeners {
		if contains(l.Hostnames, a.Hostname) && !slices.Contains(out, l.Listener.Listener.Protocol) {
			out = append(out, l.Listener.Listener.Protocol)
		}
	}
	return out
}

// redirectsToHTTPS reports whether a rule the API serves redirects to the https scheme.
func redirectsToHTTPS(a *API) bool {
	for _, i := range a.Rules {
		for _, f := range a.Route.Route.Spec.Rules[i].Filters {
			if f.RequestRedirect != nil && f.RequestRedirect.Scheme != nil && *f.RequestRedirect.Scheme == "https" {
				return true
			}
		}
	}
	return false
}
