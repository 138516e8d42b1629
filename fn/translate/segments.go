package translate

import (
	"strings"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// A PathPrefix matches whole path segments: /v2 takes /v2, /v2/ and /v2/x, never /v2example. Tyk registers a
// listen path as a gorilla/mux PathPrefix, a plain string prefix, so a listen path /v2 takes /v2example too. In
// the gateway-api profile a prefix's listen path therefore ends with a mux variable that takes the segment
// boundary: "/v2{p:/|$}", which mux makes the regular expression ^/v2(?P<v0>/|$), a "/" or the end of the path.
//
// The variable is written so that Tyk orders the APIs as Gateway API's precedence asks. From 5.8.0 Tyk orders
// templated listen paths by their "/" count plus the length of each "/"-separated piece that is not a variable
// as a whole (api_loader.go's listenPathLength, tykroute's): the "/" inside the variable splits it, so
// "/v2{p:/|$}" counts 10, the length of "/v2" plus 7, and every prefix gains the same 7 (so longer prefixes
// still come first), less than the 9 an Exact path gains ("/v2{exact:$}" counts 12, see ExactListenPath), so
// an Exact path still wins over a prefix of the same value. Before 5.8.0 Tyk compares the strings' lengths,
// which gain the same.
//
// The variable consumes the "/", so with strip on "/v2/x" loses "/v2/" and reaches the upstream as the
// upstream URL's path joined with "/x", as before. An API that rewrites nothing keeps strip off and an upstream
// URL without path, so the backend gets the request's path as it came: "/v2/" stays "/v2/" (stripped, what is
// left is "/", and Tyk drops a trailing "/" when it joins that to the upstream URL's path).
const segmentVariable = "{p:/|$}"

// SegmentListenPath is the listen path that serves PathPrefix value by whole segments (see segmentVariable).
// "/" and a value ending with "/" end at a segment boundary already and stay as they are.
func SegmentListenPath(value string) string {
	if strings.HasSuffix(value, "/") {
		return value
	}
	return value + segmentVariable
}

// PrefixOfListenPath is the PathPrefix value a listen path serves: the listen path without the segment
// variable (SegmentListenPath undone); any other listen path is returned as it is.
func PrefixOfListenPath(listenPath string) string {
	return strings.TrimSuffix(listenPath, segmentVariable)
}

// variantNames name the variables of listenPathVariant's templates, one letter per variant from 1 on, and no
// more variants than letters: one more port than that with the same listen path keeps its conflict.
const variantNames = "qrstuvwxyz"

// listenPathVariant is listen path lp written otherwise for variant v (0: lp itself), for an API without
// hostname whose listen path an API on another Tyk port has too (sharedClaims): Tyk keeps one API per custom
// domain and listen path string whatever its port, and "any host" has no custom domain that keeps Tyk's order.
// The variant is a gorilla/mux template that takes the same paths and that Tyk orders alike (its
// listenPathLength, from 5.8.0, is the same), by a variable of another name of the same length: the segment
// variable "/v2{p:/|$}" becomes "/v2{q:/|$}", an Exact path's "/v2{exact:$}" becomes "/v2{exacq:$}", and a
// prefix that ends with "/" gains a variable that is a whole segment, takes the empty string and so counts
// nothing: "/" becomes "/{q:$|}". That last one makes a plain listen path a template, which a release that finds
// mock responses with its OpenAPI router does not serve under (bySegment): templates says it may. ok is false
// where no variant is written (v out of range, or another listen path), and lp then keeps its conflict.
func listenPathVariant(lp string, v int, templates bool) (out string, ok bool) {
	if v < 1 || v > len(variantNames) {
		return lp, false
	}
	name := variantNames[v-1 : v]
	switch {
	case strings.HasSuffix(lp, segmentVariable):
		return strings.TrimSuffix(lp, segmentVariable) + "{" + name + ":/|$}", true
	case strings.Contains(lp, "{"+exactVariable+":") && strings.HasSuffix(lp, "}"):
		return strings.Replace(lp, "{"+exactVariable+":", "{"+exactVariable[:len(exactVariable)-1]+name+":", 1), true
	case templates && strings.HasSuffix(lp, "/") && !strings.Contains(lp, "{"):
		return lp + "{" + name + ":$|}", true
	}
	return lp, false
}

// bySegment reports whether the plain API of plan gets a segment listen path: a PathPrefix value that does not
// end with "/", where the release serves templated listen paths (ExactServed), or on an older release of the
// gateway-api profile where the API holds no mock response (before 5.8.12 and 5.12.0 Tyk finds mock responses
// with its OpenAPI router, which matches nothing under a templated listen path, as for Exact paths).
func bySegment(plan *pathPlan, mode ExactPaths, d *tykoas.Document) bool {
	if plan.exact || plan.listenPrefix != "" || strings.HasSuffix(plan.path, "/") {
		return false
	}
	switch mode {
	case ExactServed:
		return true
	case ExactProxiedOnly:
		return !hasMock(d)
	}
	return false
}

// keepsPath reports whether the plan's requests go upstream with their path as it came: nothing on the path
// rewrites it (ReplacePrefixMatch or ReplaceFullPath), which need strip on.
func (p *pathPlan) keepsPath() bool {
	if p.upstream != nil && p.upstream.prefix != nil {
		return false
	}
	for _, b := range p.methods {
		if b.fullPath != nil {
			return false
		}
	}
	return true
}

// hasMock reports whether some operation of d answers with a mock response.
func hasMock(d *tykoas.Document) bool {
	if d.Tyk.Middleware == nil {
		return false
	}
	for _, op := range d.Tyk.Middleware.Operations {
		if op.MockResponse != nil {
			return true
		}
	}
	return false
}
