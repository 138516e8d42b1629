package translate

import (
	"fmt"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Drop is a part of a route that cannot be translated: the field that asks for it and why.
type Drop struct {
	// Rule is the index of the rule that is dropped.
	Rule    int
	Field   string
	Message string
}

func (d Drop) String() string { return d.Field + ": " + d.Message }

// unsupported lists what keeps a rule from being served, per the Matches, Filters and Unsupported Features
// tables of the reference. A rule with any such field is dropped whole, so what is served is never a
// weakened version of what was asked.
func unsupported(i int, rule gwv1.HTTPRouteRule) []Drop {
	var out []Drop
	f := fmt.Sprintf("spec.rules[%d]", i)
	add := func(field, format string, args ...any) {
		out = append(out, Drop{Rule: i, Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if rule.Timeouts != nil {
		add(f+".timeouts", "not supported by Tyk Operator")
	}
	if rule.Retry != nil {
		add(f+".retry", "not supported by Tyk Operator")
	}
	if rule.SessionPersistence != nil {
		add(f+".sessionPersistence", "not supported by Tyk Operator")
	}
	for m, match := range rule.Matches {
		mf := fmt.Sprintf("%s.matches[%d]", f, m)
		if t := *match.Path.Type; t != gwv1.PathMatchPathPrefix {
			add(mf+".path.type", "%s is not supported; only PathPrefix is", t)
		}
		if match.Method != nil {
			add(mf+".method", "method matches are not translated yet")
		}
		if len(match.Headers) > 0 {
			add(mf+".headers", "header matches are not supported")
		}
		if len(match.QueryParams) > 0 {
			add(mf+".queryParams", "query parameter matches are not supported")
		}
	}
	for k, filter := range rule.Filters {
		add(fmt.Sprintf("%s.filters[%d]", f, k), "%s filters are not translated yet", filter.Type)
	}
	for b, ref := range rule.BackendRefs {
		if len(ref.Filters) > 0 {
			add(fmt.Sprintf("%s.backendRefs[%d].filters", f, b), "filters on a backend reference are not supported")
		}
	}
	return out
}
