package fn

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A long value echoed in a message is cut: a 100 kB hostname was printed whole on stderr.
func TestShorten(t *testing.T) {
	host := strings.Repeat("a", 100000) + ".example.com"
	got := shorten(`spec.hostnames[0]: "` + host + `": must be a valid hostname`)
	assert.Equal(t, `spec.hostnames[0]: "`+strings.Repeat("a", 63)+"… (99949 more bytes)\": must be a valid hostname", got)
	short := "Accepted/NoMatchingParent: no listener named nope"
	assert.Equal(t, short, shorten(short))
	word := strings.Repeat("é", 300)
	assert.Equal(t, strings.Repeat("é", 64)+"… (472 more bytes)", shorten(word), "cut between characters")
}

// The results of a render are shortened where they are made.
func TestResultMessageShortened(t *testing.T) {
	r := result("error", nil, "spec.hostnames[0]", strings.Repeat("x", 5000))
	assert.Less(t, len(r.Message), 200)
}
