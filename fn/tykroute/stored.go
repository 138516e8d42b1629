package tykroute

import (
	"sort"
	"strings"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// Normalisation is one way a Tyk Gateway stores and lists an API differently from the document it was sent,
// seen on a real Gateway (e2e/keptcheck pushes every rendered document and reads each back), with the releases it
// applies to. Where it can, the render writes it the way Tyk keeps it (load-balancing targets); where it cannot
// (a user's base document sets the field, or Tyk adds to what it was sent), sync/plan compares as the Gateway
// lists, so that what sync sends counts as what the Gateway serves back. The ones of releases older than
// MinVersion (which refuse the rendered APIs anyway) are known, so that the check on such a Gateway (CI's 5.4
// line) tells them from a new difference.
type Normalisation struct {
	// Fields are the paths (dotted, as keptcheck names them: "x-tyk-api-gateway.upstream...") of the fields it
	// changes; a path names that field and everything below it, and one ending in a partial key ("paths./{x")
	// every key that starts so.
	Fields []string
	// Since is the first release it applies to (the release that has the field, when older ones refuse it);
	// Before, when not zero, the first release that no longer does it.
	Since, Before Version
	// What the Gateway does.
	What string
	// Seen lists the releases a real Gateway showed it on.
	Seen []string
}

// AppliesTo reports whether release v normalises so.
func (n Normalisation) AppliesTo(v Version) bool {
	return !v.Less(n.Since) && (n.Before.IsZero() || v.Less(n.Before))
}

// Covers reports whether a field path is one the normalisation changes.
func (n Normalisation) Covers(path string) bool {
	for _, f := range n.Fields {
		if path == f || strings.HasPrefix(path, f) {
			return true
		}
	}
	return false
}

// Normalisations are the differences between what a Tyk Gateway is sent and what it lists, found by pushing
// every document of every example, conformance story, a generated fleet and every testdata story to real
// Gateways (the 5.4 line, v5.8.11 and v5.14.0; docs/tyk-releases.md) and reading each back. Besides these, every
// Gateway regenerates `servers` and adds `components: {}` (sync/plan leaves both out of its comparison).
var Normalisations = []Normalisation{{
	Fields: []string{"x-tyk-api-gateway.upstream.loadBalancing.targets"},
	Since:  Version{5, 8, 0},
	What: "load-balancing targets with the same URL are merged into one whose weight is the sum of theirs, and " +
		"the targets are sorted by URL: Tyk turns the targets into its classic list (each URL repeated weight " +
		"times) and back. The render writes them so (MergeTargets)",
	Seen: []string{"v5.8.11", "v5.14.0"},
}, {
	Fields: []string{"x-tyk-api-gateway.server.authentication.securitySchemes.authToken.header"},
	Since:  Version{5, 0, 0},
	What: "authToken's header source is left out of the listing (the header stays in components.securitySchemes, " +
		"and authentication works as sent); sync/plan compares without it",
	Seen: []string{"the 5.4 line", "v5.14.0"},
}, {
	Fields: []string{"x-tyk-api-gateway.middleware.global.trafficLogs.tagHeaders"},
	Since:  Version{5, 0, 0}, Before: MinVersion,
	What: "trafficLogs.tagHeaders is dropped (the release does not have the field; v5.8.11 not checked)",
	Seen: []string{"the 5.4 line"},
}, {
	Fields: []string{"x-tyk-api-gateway.middleware.global.trafficLogs.tagHeaders"},
	Since:  Version{5, 14, 0},
	What:   "trafficLogs.tagHeaders are listed in lower case; sync/plan compares them so",
	Seen:   []string{"v5.14.0"},
}, {
	Fields: []string{"paths./{customRegex", "paths./{rest}", "x-tyk-api-gateway.middleware.operations.{rest:.*}"},
	Since:  Version{5, 0, 0},
	What: "an operation under a path with a regular-expression parameter (/{rest:.*}) that ignores authentication " +
		"is listed a second time, under /{customRegex1} (the 5.4 line) or /{rest} (v5.14.0), with operations named " +
		"{rest:.*}GET and so on (the classic ignored-paths list filled back into the document); the operations " +
		"sent stay. sync/plan leaves such a copy out of its comparison",
	Seen: []string{"the 5.4 line", "v5.14.0"},
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
