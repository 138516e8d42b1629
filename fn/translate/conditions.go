package translate

import (
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// condition is one header or query parameter match of a rule's match, as a rule of Tyk's urlRewrite trigger: in
// "header" or "query", the name, and an anchored regular expression the value must match.
type condition struct {
	in, name, pattern string
	// present says the rule only asks that the header be there (appends.go): not a match of the route's, so not
	// counted in Gateway API's precedence.
	present bool
}

// compileConditions translates a match's headers and queryParams (the gateway-api profile). An Exact value is
// matched as the whole value (its characters quoted); a RegularExpression as RE2, anchored, since Gateway API
// matches the whole value (Tyk's trigger patterns are not anchored); one that does not compile is rejected,
// naming the field. Header names are Tyk's canonical form (Tyk looks headers up that way, so a match on
// "version" takes a request's "Version"); query parameter names are matched as written, as Gateway API says.
// The conditions are sorted, so that the order they are written in makes no difference.
func compileConditions(mf string, m gwv1.HTTPRouteMatch, add func(field, format string, args ...any)) []condition {
	var out []condition
	for k, h := range m.Headers {
		field := fmt.Sprintf("%s.headers[%d]", mf, k)
		exact := h.Type == nil || *h.Type == gwv1.HeaderMatchExact
		if p, ok := conditionPattern(field, exact, h.Value, add); ok {
			out = append(out, condition{in: "header", name: http.CanonicalHeaderKey(string(h.Name)), pattern: p})
		}
	}
	for k, q := range m.QueryParams {
		field := fmt.Sprintf("%s.queryParams[%d]", mf, k)
		exact := q.Type == nil || *q.Type == gwv1.QueryParamMatchExact
		if p, ok := conditionPattern(field, exact, q.Value, add); ok {
			out = append(out, condition{in: "query", name: string(q.Name), pattern: p})
		}
	}
	sortConditions(out)
	return out
}

// sortConditions orders conditions by where they look, then by name.
func sortConditions(cs []condition) {
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].in != cs[j].in {
			return cs[i].in < cs[j].in
		}
		return cs[i].name < cs[j].name
	})
}

func conditionPattern(field string, exact bool, value string, add func(field, format string, args ...any)) (string, bool) {
	if exact {
		return "^" + regexp.QuoteMeta(value) + "$", true
	}
	if _, err := regexp.Compile(value); err != nil {
		add(field+".value", "%q is not a regular expression Tyk can match (RE2): %v", value, err)
		return "", false
	}
	return "^(?:" + value + ")$", true
}

// count is how many header and how many query parameter matches the conditions hold, Gateway API's precedence
// (presence rules are none).
func count(cs []condition) (headers, queries int) {
	for _, c := range cs {
		switch {
		case c.present:
		case c.in == "header":
			headers++
		default:
			queries++
		}
	}
	return headers, queries
}

func (c condition) rule() tykoas.URLRewriteRule {
	return tykoas.URLRewriteRule{In: c.in, Name: c.name, Pattern: c.pattern}
}

func conditionsKey(cs []condition) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%s:%s=%s;", c.in, c.name, c.pattern)
	}
	return b.String()
}
