package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A mistyped subcommand or a stray argument is a usage error on one line, with cobra's suggestion; only no
// argument at all is the KRM function.
func TestUnknownSubcommand(t *testing.T) {
	for _, c := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"typo", []string{"dif", "a", "b"}, `gateway2tyk: unknown command "dif" for "gateway2tyk"  Did you mean this? 	diff`},
		{"typo of render", []string{"rendr", "a"}, `gateway2tyk: unknown command "rendr" for "gateway2tyk"  Did you mean this? 	render`},
		{"stray word", []string{"shop"}, `gateway2tyk: unknown command "shop" for "gateway2tyk"`},
	} {
		t.Run(c.name, func(t *testing.T) { usageErrorLine(t, c.stderr, c.args...) })
	}
}

// With no argument gateway2tyk is still the KRM function: a ResourceList in, a ResourceList out.
func TestNoArgumentIsTheKRMFunction(t *testing.T) {
	in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: a\n"
	code, out, stderr := cli(t, in)
	assert.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr, "no summary line in KRM function mode")
	assert.Contains(t, out, "kind: ResourceList")
	assert.Contains(t, out, "name: a")
}
