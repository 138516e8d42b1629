package apidiff

import (
	"fmt"
	"strings"
)

// RiskKind names a kind of risky change, as --fail-on takes it.
type RiskKind string

const (
	RiskAPIRemoved        RiskKind = "api-removed"        // an API is no longer rendered
	RiskAuthOff           RiskKind = "auth-off"           // authentication turned off, for the API or some methods
	RiskAcceptanceLost    RiskKind = "acceptance-lost"    // a route, listener, Gateway or definition stops being accepted
	RiskBackendUnresolved RiskKind = "backend-unresolved" // a route's backends stop resolving (ResolvedRefs goes False)
	RiskListenerEmptied   RiskKind = "listener-emptied"   // a listener's attachedRoutes goes to 0
	RiskNewWarning        RiskKind = "new-warning"        // any other condition stops being as it should be
	RiskNewError          RiskKind = "new-error"          // an error result appears: an object stops rendering, or the render fails
)

// RiskKinds are every kind, in the order --help lists them.
var RiskKinds = []RiskKind{RiskAPIRemoved, RiskAuthOff, RiskAcceptanceLost, RiskBackendUnresolved, RiskListenerEmptied,
	RiskNewWarning, RiskNewError}

// DefaultFailOn are the kinds that fail a check unless --fail-on says otherwise: the changes that break traffic
// or open it, and a new error result: the object it names is read as absent (a route that no longer renders) or
// the render fails, which the pipeline would stop at. A listener emptied and a new warning are marked but do not
// fail by default: a listener emptied follows from routes removed or rejected (which fail on their own), and a
// warning may be expected.
var DefaultFailOn = []RiskKind{RiskAPIRemoved, RiskAuthOff, RiskAcceptanceLost, RiskBackendUnresolved, RiskNewError}

// isErrorResult reports whether a result line (framework.Result's String) is an error.
func isErrorResult(line string) bool { return strings.HasPrefix(line, "[error]") }

// ParseFailOn reads --fail-on: kinds separated by commas, or "all", or "none".
func ParseFailOn(s string) (map[RiskKind]bool, error) {
	out := map[RiskKind]bool{}
	for _, w := range strings.Split(s, ",") {
		w = strings.TrimSpace(w)
		switch w {
		case "none", "":
			continue
		case "all":
			for _, k := range RiskKinds {
				out[k] = true
			}
			continue
		}
		known := false
		for _, k := range RiskKinds {
			if string(k) == w {
				out[k], known = true, true
			}
		}
		if !known {
			return nil, fmt.Errorf("--fail-on: unknown kind %q (one of %s, all, none)", w, kindList(RiskKinds))
		}
	}
	return out, nil
}

func kindList(kinds []RiskKind) string { return strings.Join(KindNames(kinds), ", ") }

// KindNames are the kinds' names, in their order.
func KindNames(kinds []RiskKind) []string {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	return s
}
