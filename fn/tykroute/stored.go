package tykroute

import (
	"sort"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// Normalisation is one way a Tyk Gateway stores and lists an API differently from the document it was sent,
// seen on a real Gateway (e2e/keptcheck pushes every rendered document and reads each back), with the release
// it starts in. The render writes each of them the way Tyk keeps it, so that what sync sends is what the
// Gateway serves back.
type Normalisation struct {
	// Field is the path of the field in the Tyk OAS document.
	Field string
	// Since is the first release that normalises it (the release that has the field, when older ones refuse it).
	Since Version
	// What the Gateway does.
	What string
	// Seen lists the releases a real Gateway showed it on.
	Seen []string
}

// Normalisations are the differences between what a Tyk Gateway is sent and what it lists, found by pushing
// every document of every example, conformance story, a generated fleet and every testdata story to real
// Gateways (the 5.4 line, v5.8.11 and v5.14.0; docs/tyk-releases.md) and reading each back. Besides these, a Gateway regenerates
// `servers` and adds `components: {}` (sync/plan leaves both out of its comparison), and the 5.4 line has no
// field below, since it refuses every API that sets upstream.loadBalancing.
var Normalisations = []Normalisation{{
	Field: "x-tyk-api-gateway.upstream.loadBalancing.targets",
	Since: Version{5, 8},
	What: "targets with the same URL are merged into one whose weight is the sum of theirs, and the targets are " +
		"sorted by URL: Tyk turns the targets into its classic list (each URL repeated weight times) and back",
	Seen: []string{"v5.8.11", "v5.14.0"},
}}

// MergeTargets returns load-balancing targets as a Tyk Gateway keeps them (Normalisations): one target per URL,
// its weight the sum of the weights given for that URL, sorted by URL. Routing is the same, since Tyk's round
// robin repeats each URL weight times either way.
func MergeTargets(targets []tykoas.LoadBalancingTarget) []tykoas.LoadBalancingTarget {
	sum := map[string]int{}
	var out []tykoas.LoadBalancingTarget
	for _, t := range targets {
		if _, ok := sum[t.URL]; !ok {
			out = append(out, tykoas.LoadBalancingTarget{URL: t.URL})
		}
		sum[t.URL] += t.Weight
	}
	for i := range out {
		out[i].Weight = sum[out[i].URL]
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out
}
