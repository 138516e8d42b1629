package translate

import (
	"regexp"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// A redirect's ReplacePrefixMatch: Gateway API replaces the matched prefix of the request's path (whole
// segments) with the replacement, so "/old/x" under prefix /old becomes "/new/x", and "/old" becomes "/new"; with
// a replacement ending in "/" (such as "/") the segment separator is not doubled ("/x", and "/" for "/old"). Tyk
// writes it as the replacement (the redirect's path) followed by a context variable: the operation's urlRewrite
// trigger matches the request's path (context variable path) with the redirect's prefixPattern, whose one group
// is what follows the prefix with or without its leading "/", and Tyk keeps the group as prefixRestVariable
// (locationTrigger).

// prefixRestVariable is the context variable Tyk sets to the first group of the path rule of the operation's
// urlRewrite trigger 0 (checkContextTrigger keeps group i as trigger-<n>-<name>-<i>).
const prefixRestVariable = "$tyk_context.trigger-0-path-0"

// replacedPrefix is the trigger pattern of a ReplacePrefixMatch of a rule with matches, or "" when it cannot be
// served, said by fail: the rule must have one match, a PathPrefix (which Gateway API's CRD requires too: the
// prefix to replace must be known). fail's first argument is the field under the filter's path.
func replacedPrefix(replacement *string, matches []gwv1.HTTPRouteMatch, fail func(sub, format string, args ...any)) string {
	if replacement == nil {
		fail(".replacePrefixMatch", "required for ReplacePrefixMatch")
		return ""
	}
	if len(matches) != 1 || matches[0].Path == nil || matches[0].Path.Type == nil ||
		*matches[0].Path.Type != gwv1.PathMatchPathPrefix || matches[0].Path.Value == nil {
		fail(".type", "ReplacePrefixMatch needs the rule to have exactly one match, a PathPrefix: the prefix it "+
			"replaces")
		return ""
	}
	match := regexp.QuoteMeta(strings.TrimSuffix(*matches[0].Path.Value, "/"))
	if strings.HasSuffix(*replacement, "/") {
		return "^" + match + "/?(.*)$"
	}
	return "^" + match + "(.*)$"
}
