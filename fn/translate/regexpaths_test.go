package translate

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRegexListenPath: the listen path matches (as gorilla/mux's ^/(?P<v0>X) would) exactly the paths the value
// matches whole, and is written as Tyk takes it: no braces, no capture group.
func TestRegexListenPath(t *testing.T) {
	tests := []struct {
		value, want string
		match, miss []string
	}{
		{"/api/v[0-9]+", "/{re:api/v[0-9]+$}", []string{"/api/v1", "/api/v22"}, []string{"/api/v1/x", "/api/v", "/x/api/v1"}},
		{"^/api/v[0-9]+/(users|orders)$", "", []string{"/api/v2/users", "/api/v2/orders"}, []string{"/api/v2/users/", "/api/v2/x"}},
		{"/img/[a-z]{2}\\.png", "", []string{"/img/ab.png"}, []string{"/img/abc.png", "/img/a.png"}},
		{"/", "/{re:$}", []string{"/"}, []string{"/x", ""}},
		{"/(?i)Static/.*", "", []string{"/static/a", "/STATIC/"}, []string{"/stat"}},
		{"(/a|/b)", "", []string{"/a", "/b"}, []string{"/ab", "/c"}}, // RE2 factors the common "/" out
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			lp, err := RegexListenPath(tc.value)
			require.NoError(t, err)
			if tc.want != "" {
				assert.Equal(t, tc.want, lp)
			}
			assert.NotRegexp(t, `\{[0-9,]+\}|\((?:[^?]|$)`, lp[len("/{re:"):len(lp)-1], "braces of a repetition or a capture group")
			mux := regexp.MustCompile("^/(?:" + lp[len("/{re:"):len(lp)-1] + ")")
			whole := regexp.MustCompile("^(?:" + tc.value + ")$")
			for _, p := range tc.match {
				assert.True(t, whole.MatchString(p), "the value takes %s", p)
				assert.True(t, mux.MatchString(p), "%s takes %s", lp, p)
			}
			for _, p := range tc.miss {
				assert.False(t, whole.MatchString(p), "the value leaves %s", p)
				assert.False(t, mux.MatchString(p), "%s leaves %s", lp, p)
			}
		})
	}
	for _, bad := range []string{"[a-z]+/x", ".*\\.png", "/a(", "/a\\{b", "/a|b"} {
		_, err := RegexListenPath(bad)
		assert.Error(t, err, bad)
	}
}
