package translate

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"strings"
)

// regexVariable names the gorilla/mux variable of a RegularExpression path's listen path.
const regexVariable = "re"

// RegexListenPath is the listen path that serves a RegularExpression path value, or why none can: Gateway API
// leaves the dialect to the implementation, and this one reads RE2 (Go's regexp, which Tyk's gorilla/mux runs),
// matched against the whole path, as Envoy Gateway does. Tyk registers a listen path as a mux PathPrefix, which
// must start with "/" and makes "/{re:X}" the regular expression ^/(?P<v0>X); so the value, parsed, must start
// with a literal "/" (after an optional ^), which the listen path writes outside the variable, and the variable
// takes the rest, anchored at the end: "/api/v[0-9]+" becomes "/{re:api/v[0-9]+$}". Real Gateways showed what is
// written otherwise (v5.8.11 and v5.14.0, docs/tyk-releases.md): a counted repetition's braces ("[a-z]{2}") make
// Tyk refuse the API ("unexpected closing curly brace"), so repetitions are written out (syntax's Simplify:
// "[a-z][a-z]"); a capture group makes v5.14.0 refuse it and v5.8.11 panic on reload (gorilla/mux accepts only
// non-capturing groups), so groups are written (?:...). A literal brace has no such spelling and is refused.
func RegexListenPath(value string) (string, error) {
	re, err := syntax.Parse(value, syntax.Perl)
	if err != nil {
		return "", fmt.Errorf("not an RE2 regular expression: %v", err)
	}
	re = uncapture(re.Simplify())
	rest, ok := afterSlash(re)
	if !ok {
		return "", errors.New("must start with \"/\" (after an optional ^): every path does, and Tyk's listen path " +
			"must start with it")
	}
	pattern := rest.String()
	if rest.Op == syntax.OpEmptyMatch {
		pattern = ""
	}
	if strings.ContainsAny(pattern, "{}") {
		return "", errors.New("a literal { or } cannot be written in a Tyk listen path")
	}
	return "/{" + regexVariable + ":" + pattern + "$}", nil
}

// uncapture turns every capture group of re into its contents (a group without capture).
func uncapture(re *syntax.Regexp) *syntax.Regexp {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	for i, sub := range re.Sub {
		re.Sub[i] = uncapture(sub)
	}
	return re
}

// afterSlash is re without the literal "/" it starts with (and a ^ before it), false when it does not start so.
func afterSlash(re *syntax.Regexp) (*syntax.Regexp, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 || re.Rune[0] != '/' {
			return nil, false
		}
		if len(re.Rune) == 1 {
			return &syntax.Regexp{Op: syntax.OpEmptyMatch}, true
		}
		out := *re
		out.Rune = re.Rune[1:]
		return &out, true
	case syntax.OpConcat:
		subs := re.Sub
		if len(subs) > 0 && subs[0].Op == syntax.OpBeginText {
			subs = subs[1:]
		}
		if len(subs) == 0 {
			return nil, false
		}
		first, ok := afterSlash(subs[0])
		if !ok {
			return nil, false
		}
		out := *re
		out.Sub = append([]*syntax.Regexp{first}, subs[1:]...)
		if first.Op == syntax.OpEmptyMatch {
			out.Sub = out.Sub[1:]
		}
		if len(out.Sub) == 0 {
			return &syntax.Regexp{Op: syntax.OpEmptyMatch}, true
		}
		return &out, true
	}
	return nil, false
}
