package tykroute

import (
	"net/http"
	"net/textproto"
	"net/url"
	"regexp"
	"strconv"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// triggered is the rewriteTo Tyk takes for an urlRewrite (gateway/mw_url_rewrite.go's urlRewrite): the first
// trigger whose rules hold, in order, else the urlRewrite's own. A trigger's rules are grouped by where they look
// (the options Tyk keeps one map per kind of: headers, query values, ...), and with condition "all" every group
// must hold, with "any" one; a trigger without rules holds. Within a group (see group) Tyk counts the values that
// match, so "all" of two header rules holds when either header has two matching values: Tyk's count, not Gateway
// API's, and the render's triggers never hold two rules on one name.
//
// A rule "in" requestContext matches a context variable (headers_Host, path, or one an earlier trigger set) and,
// as Tyk's checkContextTrigger does, keeps its whole match as context variable trigger-<n>-<name> and each group
// as trigger-<n>-<name>-<i> (vi.context), which a later header transform can name.
func triggered(rw *tykoas.URLRewrite, subject string, header http.Header, vi *visit, out *Outcome) string {
	var query url.Values
	if _, raw, ok := cutQuery(subject); ok {
		query, _ = url.ParseQuery(raw)
	}
	for n, tr := range rw.Triggers {
		byIn := map[string]map[string]tykoas.URLRewriteRule{}
		for _, r := range tr.Rules {
			if byIn[r.In] == nil {
				byIn[r.In] = map[string]tykoas.URLRewriteRule{}
			}
			byIn[r.In][r.Name] = r // Tyk's options are maps: a second rule of one name replaces the first
		}
		anyOf := tr.Condition == "any"
		holds, groups := 0, 0
		for in, rules := range byIn {
			var ok bool
			switch in {
			case "header":
				ok = group(rules, anyOf, func(name string) []string { return header.Values(textproto.CanonicalMIMEHeaderKey(name)) }, out)
			case "query":
				ok = group(rules, anyOf, func(name string) []string { return query[name] }, out)
			case "requestContext":
				ok = vi.contextGroup(n, rules, anyOf, out)
			default:
				out.note("urlRewrite trigger rules in %q are not modelled: taken not to hold", in)
			}
			groups++
			if ok {
				holds++
			}
		}
		if (anyOf && holds > 0) || (!anyOf && holds == groups) {
			return tr.RewriteTo
		}
	}
	return rw.RewriteTo
}

// group is one kind of a trigger's rules as Tyk checks them (checkHeaderTrigger, checkQueryString): every value
// of each named header or query parameter is matched against the rule's pattern (negate inverts the match, and a
// name that is absent has no value to match); with "any" one matching value holds, with "all" there must be at
// least as many matching values as rules.
func group(rules map[string]tykoas.URLRewriteRule, anyOf bool, values func(string) []string, out *Outcome) bool {
	n := 0
	for name, r := range rules {
		re, err := regexp.Compile(r.Pattern)
		if err != nil {
			out.note("urlRewrite trigger pattern %q does not compile (%v): it never matches", r.Pattern, err)
			continue
		}
		for _, v := range values(name) {
			if re.MatchString(v) != r.Negate {
				n++
			}
		}
	}
	if n == 0 {
		return false
	}
	return anyOf || len(rules) <= n
}

// cutQuery splits the "path?query" an urlRewrite is matched against.
func cutQuery(subject string) (string, string, bool) {
	for i := 0; i < len(subject); i++ {
		if subject[i] == '?' {
			return subject[:i], subject[i+1:], true
		}
	}
	return subject, "", false
}

// contextGroup is trigger n's requestContext rules as Tyk checks them (checkContextTrigger): each named context
// variable with a value is matched against its rule's pattern, and each match is kept in the request's context
// (see triggered); with "any" one match holds, with "all" every rule must match.
func (vi *visit) contextGroup(n int, rules map[string]tykoas.URLRewriteRule, anyOf bool, out *Outcome) bool {
	matched := 0
	for name, r := range rules {
		v, ok := vi.contextVariable(name)
		if !ok {
			continue
		}
		re, err := regexp.Compile(r.Pattern)
		if err != nil {
			out.note("urlRewrite trigger pattern %q does not compile (%v): it never matches", r.Pattern, err)
			continue
		}
		m := re.FindStringSubmatch(v)
		if m == nil {
			continue
		}
		key := "trigger-" + strconv.Itoa(n) + "-" + name
		if vi.context == nil {
			vi.context = map[string]string{}
		}
		vi.context[key] = m[0]
		for i, g := range m[1:] {
			vi.context[key+"-"+strconv.Itoa(i)] = g
		}
		matched++
	}
	if matched == 0 {
		return false
	}
	return anyOf || len(rules) <= matched
}
