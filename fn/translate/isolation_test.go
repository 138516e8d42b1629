package translate

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The labels a wildcard leaves to its other listeners: for every set of left-out names, every string up to four
// characters over the names' alphabet (and a few others), before .bar.com and with or without a port, matches
// the custom domain exactly when it is a name (labels of one character or more, separated by dots) and none
// of them. The domain is one mux variable for the whole host, port included (isolatedDomain).
func TestWildcardDomainLeavesOutExactNames(t *testing.T) {
	assert.Equal(t, "{h:.+}.bar.com", customDomain("*.bar.com", nil))
	assert.Equal(t, `{h:(?:(?:(?:[^.:]+\.)+foo|(?:[^.:]+\.)*(?:[^.:f][^.:]*|f(?:[^.:o][^.:]*|o(?:[^.:o][^.:]*|o[^.:]+)?)?))\.bar\.com)(?::[0-9]+)?}`,
		customDomain("*.bar.com", []string{"foo.bar.com"}))

	sets := [][]string{
		{"foo"}, {"a"}, {"foo", "fob"}, {"foo", "foo.x"}, {"a", "ab", "abc"}, {"x.y", "x"}, {"a-b", "a.b", "b"},
	}
	all := stringsUpTo(4, "a", "b", "c", "f", "o", "x", "y", ".", "-")
	for _, words := range sets {
		var hosts []string
		for _, w := range words {
			hosts = append(hosts, w+".bar.com")
		}
		re := domainRegexp(t, customDomain("*.bar.com", hosts))
		for _, s := range all {
			want := isName(s) && !slices.Contains(words, s)
			for _, host := range []string{s + ".bar.com", s + ".bar.com:8080"} {
				if re.MatchString(host) != want {
					t.Errorf("left out %v, pattern %s: %q matched %v, want %v", words, re, host, !want, want)
				}
			}
		}
	}
}

// domainRegexp compiles an isolated custom domain ("{h:pattern}", one variable for the whole host) as gorilla/mux
// does: anchored, matched against the Host header with its port (the pattern has a ":"), capturing groups refused.
func domainRegexp(t *testing.T, domain string) *regexp.Regexp {
	t.Helper()
	require.True(t, strings.HasPrefix(domain, "{h:") && strings.HasSuffix(domain, "}"), domain)
	pattern := strings.TrimSuffix(strings.TrimPrefix(domain, "{h:"), "}")
	require.Contains(t, pattern, ":", "gorilla/mux drops the port only from a pattern without a colon")
	re, err := regexp.Compile("^(?:" + pattern + ")$")
	require.NoError(t, err, pattern)
	require.Zero(t, re.NumSubexp(), "%s: gorilla/mux accepts only non-capturing groups", pattern)
	return re
}

// isName reports whether s is labels of one character or more separated by dots.
func isName(s string) bool {
	return s != "" && !slices.Contains(strings.Split(s, "."), "")
}

// Nested wildcards and no hostname: the hosts a listener leaves to more specific ones are left out of its custom
// domain, as Gateway API's GatewayHTTPListenerIsolation asks, and every other name is kept. Strings up to five
// characters over the names' alphabet, as the star part of *.bar.com or as a whole host.
func TestHostsExceptLeavesOutWildcards(t *testing.T) {
	all := stringsUpTo(5, "a", "b", "f", "o", ".")
	// under reports whether name s is under wildcard w ("*.x": one label or more, then .x).
	under := func(w, s string) bool { return strings.HasSuffix(s, w[1:]) && isName(strings.TrimSuffix(s, w[1:])) }
	for _, left := range [][]string{
		{"*.foo"}, {"*.foo", "a.foo"}, {"*.foo", "foo"}, {"*.o", "*.a.o", "b"}, {"*.b.a", "a", "f.o"}, {"*.a", "*.b"},
	} {
		re := domainRegexp(t, customDomain("", left))
		for _, s := range all {
			want := isName(s)
			for _, l := range left {
				if l == s || (strings.HasPrefix(l, "*.") && under(l, s)) {
					want = false
				}
			}
			for _, host := range []string{s, s + ":80"} {
				if re.MatchString(host) != want {
					t.Errorf("left out %v, pattern %s: %q matched %v, want %v", left, re, host, !want, want)
				}
			}
		}
	}
	// The upstream suite's listeners: no hostname beside *.example.com, *.foo.example.com and
	// abc.foo.example.com; *.example.com beside the last two.
	re := domainRegexp(t, customDomain("", []string{"*.example.com", "*.foo.example.com", "abc.foo.example.com"}))
	for host, want := range map[string]bool{"bar.com": true, "example.com": true, "bar.example.com": false,
		"abc.foo.example.com": false, "example.org": true, "a.example.com.org": true, "bar.example.com:80": false,
		"bar.com:8080": true, "[::1]:80": true, "[::1]": true, "127.0.0.1:80": true} {
		assert.Equal(t, want, re.MatchString(host), "no hostname: %s", host)
	}
}

// stringsUpTo is every string of up to n of the characters given, the empty one included.
func stringsUpTo(n int, alphabet ...string) []string {
	all := []string{""}
	for from := 0; ; {
		to := len(all)
		for _, s := range all[from:to] {
			if len(s) < n {
				for _, c := range alphabet {
					all = append(all, s+c)
				}
			}
		}
		if len(all) == to {
			return all
		}
		from = to
	}
}

// An exact host is inside no other name: within never takes a wildcard for part of it (shop.com beside *.shop.com
// once wrote the exact listener's domain as "{h:(?:s|...)hop\.com}", which also took ahop.com).
func TestWithinExactHost(t *testing.T) {
	assert.False(t, within("shop.com", "*.shop.com"))
	assert.False(t, within("shop.com", "shop.com"))
	assert.True(t, within("*.shop.com", "a.shop.com"))
	assert.True(t, within("*.shop.com", "*.a.shop.com"))
	assert.False(t, within("*.shop.com", "*.shop.com"))
	assert.True(t, within("", "*.shop.com"))
}
