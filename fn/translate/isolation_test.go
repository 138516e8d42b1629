package translate

import (
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The labels a wildcard leaves to its other listeners: for every set of left-out names, every string up to four
// characters over the names' alphabet (and a few others) matches exactly when it is non-empty and none of them.
func TestWildcardLabelsLeaveOutExactNames(t *testing.T) {
	assert.Equal(t, ".+", wildcardLabels("*.bar.com", nil))
	assert.Equal(t, "[^f].*|f(?:[^o].*|o(?:[^o].*|o.+)?)?", wildcardLabels("*.bar.com", []string{"foo.bar.com"}))

	sets := [][]string{
		{"foo"}, {"a"}, {"foo", "fob"}, {"foo", "foo.x"}, {"a", "ab", "abc"}, {"x.y", "x"}, {"a-b", "a.b", "b"},
	}
	alphabet := []string{"a", "b", "c", "f", "o", "x", "y", ".", "-"}
	var all []string
	var grow func(s string)
	grow = func(s string) {
		all = append(all, s)
		if len(s) == 4 {
			return
		}
		for _, c := range alphabet {
			grow(s + c)
		}
	}
	grow("")
	for _, words := range sets {
		var hosts []string
		for _, w := range words {
			hosts = append(hosts, w+".bar.com")
		}
		pattern := wildcardLabels("*.bar.com", hosts)
		re, err := regexp.Compile("^(?:" + pattern + ")$")
		require.NoError(t, err, pattern)
		require.Zero(t, re.NumSubexp(), "%s: gorilla/mux accepts only non-capturing groups", pattern)
		for _, s := range all {
			want := s != "" && !slices.Contains(words, s)
			if re.MatchString(s) != want {
				t.Errorf("left out %v, pattern %s: %q matched %v, want %v", words, pattern, s, !want, want)
			}
		}
	}
}
