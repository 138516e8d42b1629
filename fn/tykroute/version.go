package tykroute

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a Tyk Gateway release: the routing the model follows depends on it. Most differences start with a
// release line (major.minor, Patch 0); a few were backported to a patch release of the 5.8 LTS line, so the patch
// counts too (see sinceReleases).
type Version struct{ Major, Minor, Patch int }

// MinVersion is the oldest Tyk Gateway that accepts the rendered APIs: upstream.preserveHostHeader and
// upstream.loadBalancing are in Tyk's schema from 5.8.0 on, and an older Gateway refuses every API that sets
// one. It is also the version the model answers for unless told otherwise.
var MinVersion = Version{5, 8, 0}

// NewerUpstreamFields are the fields of x-tyk-api-gateway.upstream that a Tyk Gateway older than MinVersion does
// not have in its schema (it refuses every API that sets one).
var NewerUpstreamFields = []string{"preserveHostHeader", "loadBalancing"}

// NewerServerFields are the fields of x-tyk-api-gateway.server that a Tyk Gateway older than MinVersion does not
// have in its schema: the 5.4 line's X-Tyk-Server has neither and refuses additional properties (the gateway-api
// profile sets both on an HTTPS listener's APIs).
var NewerServerFields = []string{"port", "protocol"}

// NewerFields are both, by the section of x-tyk-api-gateway that holds them, in the order a message lists them.
var NewerFields = []FieldSet{{"upstream", NewerUpstreamFields}, {"server", NewerServerFields}}

// FieldSet is fields of one section of x-tyk-api-gateway.
type FieldSet struct {
	Section string
	Fields  []string
}

// TimeoutDurations is the release from which Tyk takes an operation's enforceTimeout.duration (a timeout that is
// not whole seconds, "500ms"); an older Gateway's schema refuses it.
var TimeoutDurations = Version{5, 14, 0}

// orderedByListenPath is TT-13507 (Tyk 5.8.0): from then on APIs with a custom domain come before those without,
// then longer listen paths first; before, APIs were ordered by the length of their custom domain string first.
var orderedByListenPath = Version{5, 8, 0}

// Less reports whether v is older than o.
func (v Version) Less(o Version) bool {
	if v.Major != o.Major {
		return v.Major < o.Major
	}
	if v.Minor != o.Minor {
		return v.Minor < o.Minor
	}
	return v.Patch < o.Patch
}

// String is MAJOR.MINOR, with .PATCH when the patch is not 0.
func (v Version) String() string {
	if v.Patch != 0 {
		return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	}
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

// sinceReleases reports whether release v has a change Tyk made on its main line in release main and backported
// to the 5.8 LTS line in release lts (a patch release of 5.8): the 5.8 line from lts on, and every release from
// main on. Releases between (5.9 to main's line) do not have it.
func sinceReleases(v, lts, main Version) bool {
	if v.Major == lts.Major && v.Minor == lts.Minor {
		return !v.Less(lts)
	}
	return !v.Less(main)
}

// IsZero reports whether no version was given.
func (v Version) IsZero() bool { return v == Version{} }

// ParseVersion reads a release as Tyk prints it: "5.8", "v5.8.1", "v5.3.0-dev" (a missing patch is 0).
func ParseVersion(s string) (Version, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	t, _, _ = strings.Cut(t, "-")
	parts := strings.Split(t, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, fmt.Errorf("%q is not a Tyk version (MAJOR.MINOR or vMAJOR.MINOR.PATCH)", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 {
			return Version{}, fmt.Errorf("%q is not a Tyk version (MAJOR.MINOR or vMAJOR.MINOR.PATCH)", s)
		}
		n[i] = v
	}
	return Version{n[0], n[1], n[2]}, nil
}
