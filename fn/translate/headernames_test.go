package translate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

func TestAppendNameDiffersFromCanonical(t *testing.T) {
	for name, want := range map[string]string{
		"X-Header-Add": "x-header-add", "x-lowercase-add": "x-lowercase-add", "X-UPPERCASE-ADD": "x-uppercase-add",
		"Vary": "vary", "1st-hop-id": "1st-hop-id", "9-z9": "9-z9", "a1": "a1",
	} {
		got, ok := appendName(name)
		assert.True(t, ok, name)
		assert.Equal(t, want, got, name)
	}
	for _, name := range []string{"42-7", "1st", "1st-2nd"} {
		_, ok := appendName(name)
		assert.False(t, ok, "%s: its canonical form has no upper-case letter", name)
	}
}

func TestResponseHeaderAddByProfile(t *testing.T) {
	filter := &gwv1.HTTPHeaderFilter{
		Set:    []gwv1.HTTPHeader{{Name: "x-header-set", Value: "s"}},
		Add:    []gwv1.HTTPHeader{{Name: "X-Header-Add", Value: "a"}},
		Remove: []string{"X-Header-Remove"},
	}
	cases := []struct {
		names   HeaderNames
		want    *tykoas.TransformHeaders
		dropped string
	}{
		{HeaderNamesAsGiven, nil, "f.add: not supported: Tyk Gateway holds one value for each header name; use set to replace the value"},
		{HeaderNamesCanonicalized, nil, "f.add: not supported on Tyk Gateways that write header names in canonical form (Tyk's default)"},
		{HeaderNamesKept, &tykoas.TransformHeaders{Enabled: true,
			Add:    []tykoas.Header{{Name: "X-Header-Set", Value: "s"}, {Name: "x-header-add", Value: "a"}},
			Remove: []string{"X-Header-Remove"}}, ""},
	}
	for _, c := range cases {
		var drops []string
		got := responseHeaderTransform("f", filter, c.names, func(field, format string, args ...any) {
			drops = append(drops, field+": "+format)
		})
		assert.Equal(t, c.want, got, "names %d", c.names)
		if c.dropped == "" {
			assert.Empty(t, drops, "names %d", c.names)
		} else if assert.Len(t, drops, 1, "names %d", c.names) {
			assert.Contains(t, drops[0], c.dropped, "names %d", c.names)
		}
	}
}

func TestResponseHeaderAddRefusals(t *testing.T) {
	for _, c := range []struct {
		add     []gwv1.HTTPHeader
		set     []gwv1.HTTPHeader
		dropped string
	}{
		{add: []gwv1.HTTPHeader{{Name: "X-A", Value: "1"}, {Name: "x-a", Value: "2"}}, dropped: "f.add[1].name: %s is added twice"},
		{add: []gwv1.HTTPHeader{{Name: "x-a", Value: "1"}}, set: []gwv1.HTTPHeader{{Name: "X-A", Value: "2"}},
			dropped: "f.add[0].name: %s is also set or removed"},
		{add: []gwv1.HTTPHeader{{Name: "42", Value: "1"}}, dropped: "f.add[0].name: %s has no upper-case letter in its canonical form"},
	} {
		var drops []string
		got := responseHeaderTransform("f", &gwv1.HTTPHeaderFilter{Add: c.add, Set: c.set}, HeaderNamesKept,
			func(field, format string, args ...any) { drops = append(drops, field+": "+format) })
		assert.Nil(t, got)
		if assert.Len(t, drops, 1) {
			assert.Contains(t, drops[0], c.dropped)
		}
	}
}

func TestRequestSetByCanonicalNameWhereNamesAreKept(t *testing.T) {
	in := func() *tykoas.TransformHeaders {
		return &tykoas.TransformHeaders{Enabled: true, Add: []tykoas.Header{{Name: "x-request-id", Value: "v"}}}
	}
	assert.Equal(t, "X-Request-Id", HeaderNamesKept.setByCanonicalName(in()).Add[0].Name)
	assert.Equal(t, "x-request-id", HeaderNamesCanonicalized.setByCanonicalName(in()).Add[0].Name)
	assert.Equal(t, "x-request-id", HeaderNamesAsGiven.setByCanonicalName(in()).Add[0].Name)
}
