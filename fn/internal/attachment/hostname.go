package attachment

import "strings"

// intersectHostnames implements the Gateway API hostname intersection between a listener and a route, and
// returns the effective hostnames the route is served on through that listener:
//
//   - a listener without a hostname admits every route hostname unchanged, and a route without hostnames
//     inherits the listener's hostname; when neither has one, the route is served on any host ("").
//   - otherwise each route hostname that matches the listener hostname is kept in its more specific form:
//     exact equals exact; a wildcard matches any hostname with one or more labels in its place
//     ("*.example.com" matches "a.example.com" and "a.b.example.com", never "example.com"); of two wildcards
//     that match, the longer one is kept.
//
// An empty result means the route has no hostname in common with the listener.
func intersectHostnames(listener string, route []string) []string {
	if len(route) == 0 {
		return []string{listener}
	}
	if listener == "" {
		return dedupe(route)
	}
	var out []string
	for _, h := range route {
		if e, ok := intersectHostname(listener, h); ok {
			out = append(out, e)
		}
	}
	return dedupe(out)
}

// intersectHostname intersects two hostnames (both non-empty), returning the more specific one when they match.
func intersectHostname(a, b string) (string, bool) {
	switch {
	case a == b:
		return a, true
	case wildcardMatches(a, b):
		return b, true
	case wildcardMatches(b, a):
		return a, true
	}
	return "", false
}

// wildcardMatches reports whether the wildcard pattern ("*.example.com") covers h, which may itself be a
// more specific wildcard ("*.a.example.com") or an exact name ("a.example.com"). It is false for a pattern
// that is not a wildcard.
func wildcardMatches(pattern, h string) bool {
	if !strings.HasPrefix(pattern, "*.") {
		return false
	}
	suffix := pattern[1:] // ".example.com"
	return h != pattern && len(h) > len(suffix) && strings.HasSuffix(h, suffix)
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	out := make([]string, 0, len(in))
	for _, h := range in {
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return out
}
