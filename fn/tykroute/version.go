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

// NewerField is a field of x-tyk-api-gateway that a Tyk Gateway older than Need does not have in its schema: where
// that part of Tyk's schema refuses additional properties, such a Gateway refuses every API that sets it; where it
// does not, the Gateway loads the API without the field (v5.8.11 with enforceTimeout.duration, seen), so it does not
// serve what the API says either.
type NewerField struct {
	// Path is dotted from x-tyk-api-gateway; "*" stands for every key of a mapping (the operations).
	Path string
	Need Version
}

// NewerFields are the fields the render may write that some Tyk Gateway it serves does not take, in the order a
// message lists them:
//   - upstream.preserveHostHeader and upstream.loadBalancing are in Tyk's schema from 5.8.0 on (MinVersion);
//   - server.port and server.protocol too: the 5.4 line's X-Tyk-Server has neither (the gateway-api profile sets
//     both on an HTTPS listener's APIs);
//   - an operation's enforceTimeout.duration from 5.14.0 on (the gateway-api profile's timeouts that are not whole
//     seconds, unless spec.tykVersion names an older release): the 5.4 line refuses the API, v5.8.11 ignores the
//     duration and enforces value, whole seconds.
var NewerFields = []NewerField{
	{"upstream.preserveHostHeader", MinVersion}, {"upstream.loadBalancing", MinVersion},
	{"server.port", MinVersion}, {"server.protocol", MinVersion},
	{"middleware.operations.*.enforceTimeout.duration", TimeoutDurations},
}

// SetIn reports whether the field is set in tyk, a decoded x-tyk-api-gateway.
func (f NewerField) SetIn(tyk map[string]any) bool {
	set := false
	f.walk(tyk, func(m map[string]any, key string) {
		_, ok := m[key]
		set = set || ok
	})
	return set
}

// RemoveFrom deletes the field from tyk, a decoded x-tyk-api-gateway, wherever it is set.
func (f NewerField) RemoveFrom(tyk map[string]any) {
	f.walk(tyk, func(m map[string]any, key string) { delete(m, key) })
}

// RemoveNewer deletes from tyk, a decoded x-tyk-api-gateway, every field of NewerFields that release v does not
// take: what the tests send a Gateway older than the render writes for (the 5.4 line, which CI builds).
func RemoveNewer(tyk map[string]any, v Version) {
	for _, f := range NewerFields {
		if v.Less(f.Need) {
			f.RemoveFrom(tyk)
		}
	}
}

// walk calls at with every mapping that holds the field's last key, and that key.
func (f NewerField) walk(tyk map[string]any, at func(m map[string]any, key string)) {
	var step func(m map[string]any, path []string)
	step = func(m map[string]any, path []string) {
		if len(path) == 1 {
			at(m, path[0])
			return
		}
		if path[0] == "*" {
			for _, v := range m {
				if next, ok := v.(map[string]any); ok {
					step(next, path[1:])
				}
			}
			return
		}
		if next, ok := m[path[0]].(map[string]any); ok {
			step(next, path[1:])
		}
	}
	step(tyk, strings.Split(f.Path, "."))
}

// NewestVersion is the newest Tyk Gateway release the render knows: the one it writes for when spec.tykVersion
// is not set, and the one the read-only views answer for then.
var NewestVersion = Version{5, 14, 0}

// TimeoutDurations is the release from which Tyk takes an operation's enforceTimeout.duration (a timeout that is
// not whole seconds, "500ms"); an older Gateway refuses or ignores it (NewerFields).
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
