package tykroute

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a Tyk Gateway release line (major.minor): the routing the model follows depends on it.
type Version struct{ Major, Minor int }

// MinVersion is the oldest Tyk Gateway that accepts the rendered APIs: upstream.preserveHostHeader and
// upstream.loadBalancing are in Tyk's schema from 5.8.0 on, and an older Gateway refuses every API that sets
// one. It is also the version the model answers for unless told otherwise.
var MinVersion = Version{5, 8}

// NewerUpstreamFields are the fields of x-tyk-api-gateway.upstream that a Tyk Gateway older than MinVersion does
// not have in its schema (it refuses every API that sets one).
var NewerUpstreamFields = []string{"preserveHostHeader", "loadBalancing"}

// orderedByListenPath is TT-13507 (Tyk 5.8.0): from then on APIs with a custom domain come before those without,
// then longer listen paths first; before, APIs were ordered by the length of their custom domain string first.
var orderedByListenPath = Version{5, 8}

// Less reports whether v is older than o.
func (v Version) Less(o Version) bool {
	return v.Major < o.Major || (v.Major == o.Major && v.Minor < o.Minor)
}

func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// IsZero reports whether no version was given.
func (v Version) IsZero() bool { return v == Version{} }

// ParseVersion reads a release as Tyk prints it: "5.8", "v5.8.1", "v5.3.0-dev".
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
	return Version{n[0], n[1]}, nil
}
