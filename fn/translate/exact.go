package translate

import "strings"

// ExactPaths says how a match with path.type Exact is served.
type ExactPaths int

const (
	// ExactRejected drops a rule with an Exact path (the reference: Tyk matches listen paths by prefix).
	ExactRejected ExactPaths = iota
	// ExactProxiedOnly serves an Exact path that Tyk only proxies: a rule that would need a mock response
	// there (a method match, whose other methods answer 404, or a redirect) is dropped, since before 5.8.12 on
	// the 5.8 line and 5.12.0 on the main line Tyk finds mock responses with its OpenAPI router, which never
	// matches under an Exact listen path (seen on the 5.4 line and v5.8.11: such a request is proxied).
	ExactProxiedOnly
	// ExactServed serves every rule with an Exact path: those releases match mock responses the classic way,
	// against the path with the listen path removed, which "/" matches (seen on v5.14.0).
	ExactServed
)

// exactVariable is the name of the mux variable that anchors an Exact path's listen path.
const exactVariable = "exact"

// ExactListenPath is the listen path that serves the Exact path value: the value followed by a gorilla/mux
// variable that matches only the end of the path, "/one{exact:$}". Tyk registers every listen path as a mux
// PathPrefix, which makes it the regular expression ^/one(?P<v0>$): Tyk hands that API "/one" (and "/one?x=1")
// and nothing else, and every other path goes on to the APIs that come after it, as Gateway API asks of an
// Exact match (seen on the 5.4 line, v5.8.11 and v5.14.0). Tyk orders such a listen path before the PathPrefix
// of the same value (from 5.8.0 by its segments without the variable, before by its string length; see
// tykroute's listenPathLength), so Exact wins over a prefix that also matches, as Gateway API's precedence
// asks. A value that ends with "/" puts that "/" into the variable ("/one{exact:/$}"): a variable that is a
// whole segment does not count in Tyk's length, and "/one/{exact:$}" would tie with the prefix "/one/". The
// value "/" cannot (a listen path starts with "/"): "/{exact:$}" is as long as the prefix "/" for Tyk 5.8.0
// and later, which then order the two by load order (docs/limits.md).
func ExactListenPath(value string) string {
	if value != "/" && strings.HasSuffix(value, "/") {
		return strings.TrimSuffix(value, "/") + "{" + exactVariable + ":/$}"
	}
	return value + "{" + exactVariable + ":$}"
}
