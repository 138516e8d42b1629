package translate

import (
	"regexp"
	"sort"
	"strings"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
)

// Gateway API gives a request to the most specific listener whose hostname matches it: with listeners
// foo.bar.com and *.bar.com on one port, foo.bar.com is the first one's alone, even where the wildcard
// listener's routes match its path and the exact one's do not. Tyk has no listeners: it orders the APIs of one
// port by custom domain and listen path (from 5.8.0 the longer listen path first, ties in load order), so a
// wildcard API whose path is as long would take foo.bar.com's requests in load order. In the gateway-api
// profile the custom domain of a wildcard hostname therefore leaves out the exact hostnames the Gateway's other
// listeners on the same port claim: "*.bar.com" beside a listener foo.bar.com is the host template
// "{h:[^f].*|f(?:[^o].*|o(?:[^o].*|o.+)?)?}.bar.com", every name under bar.com but foo.bar.com. RE2 has no
// look-ahead, but the names a wildcard covers less a finite set of names is still a regular language, written
// here as a trie of the left-out labels: at each step either a character the left-out names do not go on
// with, then anything, or one they do; a whole left-out name must go on with at least one more character.
// A more specific wildcard listener (*.foo.bar.com beside *.bar.com) is not left out: the render still warns
// (hostPrecedenceResults).

// isolatedHosts are the exact hostnames that the parent Gateway's other serving listeners on the port of the
// listeners giving the route wildcard host claim, and that host covers, sorted; nil for an exact host.
func isolatedHosts(p *attachment.Parent, host string) []string {
	if !strings.HasPrefix(host, "*.") {
		return nil
	}
	ports := map[int32]bool{}
	own := map[*attachment.Listener]bool{}
	for _, l := range p.Listeners {
		if contains(l.Hostnames, host) {
			ports[int32(l.Listener.Listener.Port)] = true
			own[l.Listener] = true
		}
	}
	var out []string
	for _, l := range p.Gateway.Listeners {
		h := l.Hostname()
		if own[l] || !l.Serving || !ports[int32(l.Listener.Port)] || h == "" || strings.HasPrefix(h, "*.") ||
			!attachment.HostTakes(host, h) || contains(out, h) {
			continue
		}
		out = append(out, h)
	}
	sort.Strings(out)
	return out
}

// wildcardLabels is the pattern of the labels a wildcard hostname's "*" stands for, less the left-out
// hostnames' (see above): ".+" when none is left out.
func wildcardLabels(host string, left []string) string {
	if len(left) == 0 {
		return ".+"
	}
	suffix := host[1:] // ".bar.com"
	var words []string
	for _, h := range left {
		words = append(words, strings.TrimSuffix(h, suffix))
	}
	return complement(words, 0, true)
}

// complement is an RE2 expression (non-capturing groups only, as a gorilla/mux variable needs) for the strings
// that, after the first `at` bytes which all of words share, are none of words; first says the empty rest is
// not allowed either (the "*" stands for one label at least).
func complement(words []string, at int, first bool) string {
	ended := false
	next := map[byte][]string{}
	var chars []byte
	for _, w := range words {
		if len(w) == at {
			ended = true
			continue
		}
		c := w[at]
		if next[c] == nil {
			chars = append(chars, c)
		}
		next[c] = append(next[c], w)
	}
	sort.Slice(chars, func(i, j int) bool { return chars[i] < chars[j] })
	var alts []string
	if len(chars) == 0 {
		// Every word ends here: anything that goes on is none of them.
		return ".+"
	}
	var class strings.Builder
	for _, c := range chars {
		class.WriteString(regexp.QuoteMeta(string(c)))
	}
	alts = append(alts, "[^"+class.String()+"].*")
	for _, c := range chars {
		alts = append(alts, regexp.QuoteMeta(string(c))+complement(next[c], at+1, false))
	}
	out := strings.Join(alts, "|")
	switch {
	case first:
		return out // the whole of a mux variable's pattern, which mux puts in a group of its own
	case !ended:
		// The rest may stop here too: what was read so far is no word.
		return "(?:" + out + ")?"
	}
	return "(?:" + out + ")"
}
