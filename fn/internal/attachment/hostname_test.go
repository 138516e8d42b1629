package attachment

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The rules are those of HTTPRouteSpec.Hostnames and Listener.Hostname in the Gateway API spec.

func TestIntersectHostnames(t *testing.T) {
	tests := []struct {
		name     string
		listener string
		route    []string
		want     []string
	}{
		{
			name: "listener without hostname and route without hostnames: served on any host",
			want: []string{""},
		},
		{
			name:  "listener without hostname admits every route hostname unchanged",
			route: []string{"a.example.com", "*.example.net", "example.org"},
			want:  []string{"a.example.com", "*.example.net", "example.org"},
		},
		{
			name:     "route without hostnames inherits the exact listener hostname",
			listener: "test.example.com",
			want:     []string{"test.example.com"},
		},
		{
			name:     "route without hostnames inherits the wildcard listener hostname",
			listener: "*.example.com",
			want:     []string{"*.example.com"},
		},
		{
			name:     "exact equals exact",
			listener: "test.example.com",
			route:    []string{"test.example.com"},
			want:     []string{"test.example.com"},
		},
		{
			name:     "exact differs from exact: no intersection",
			listener: "test.example.com",
			route:    []string{"other.example.com"},
		},
		{
			name:     "route hostnames that do not match the listener are ignored",
			listener: "*.example.com",
			route:    []string{"test.example.com", "test.example.net"},
			want:     []string{"test.example.com"},
		},
		{
			name:     "listener wildcard matches a route hostname with one label in its place",
			listener: "*.example.com",
			route:    []string{"test.example.com"},
			want:     []string{"test.example.com"},
		},
		{
			name:     "listener wildcard matches a route hostname with several labels in its place",
			listener: "*.example.com",
			route:    []string{"foo.test.example.com"},
			want:     []string{"foo.test.example.com"},
		},
		{
			name:     "listener wildcard does not match the bare domain",
			listener: "*.example.com",
			route:    []string{"example.com"},
		},
		{
			name:     "listener wildcard does not match a suffix that is not at a label boundary",
			listener: "*.example.com",
			route:    []string{"fooexample.com"},
		},
		{
			name:     "route wildcard matches the exact listener hostname, which is kept",
			listener: "test.example.com",
			route:    []string{"*.example.com"},
			want:     []string{"test.example.com"},
		},
		{
			name:     "route wildcard does not match the bare domain of an exact listener",
			listener: "example.com",
			route:    []string{"*.example.com"},
		},
		{
			name:     "route wildcard does not match an exact listener at a non-label boundary",
			listener: "fooexample.com",
			route:    []string{"*.example.com"},
		},
		{
			name:     "equal wildcards match",
			listener: "*.example.com",
			route:    []string{"*.example.com"},
			want:     []string{"*.example.com"},
		},
		{
			name:     "wildcard vs wildcard keeps the more specific route wildcard",
			listener: "*.example.com",
			route:    []string{"*.foo.example.com"},
			want:     []string{"*.foo.example.com"},
		},
		{
			name:     "wildcard vs wildcard keeps the more specific listener wildcard",
			listener: "*.foo.example.com",
			route:    []string{"*.example.com"},
			want:     []string{"*.foo.example.com"},
		},
		{
			name:     "unrelated wildcards do not match",
			listener: "*.example.com",
			route:    []string{"*.example.net"},
		},
		{
			name:     "wildcards that share a suffix only off a label boundary do not match",
			listener: "*.example.com",
			route:    []string{"*.fooexample.com"},
		},
		{
			name:     "several route wildcards that narrow to the same exact listener hostname are deduplicated",
			listener: "a.b.example.com",
			route:    []string{"*.example.com", "*.b.example.com", "a.b.example.com"},
			want:     []string{"a.b.example.com"},
		},
		{
			name:  "duplicate route hostnames are deduplicated under a listener without hostname",
			route: []string{"a.example.com", "a.example.com", "b.example.com"},
			want:  []string{"a.example.com", "b.example.com"},
		},
		{
			name:     "route order is kept for the hostnames that match",
			listener: "*.example.com",
			route:    []string{"b.example.com", "x.example.net", "a.example.com"},
			want:     []string{"b.example.com", "a.example.com"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := intersectHostnames(tc.listener, tc.route)
			if len(tc.want) == 0 {
				assert.Empty(t, got, "no hostname in common")
				return
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestIntersectHostname(t *testing.T) {
	tests := []struct {
		name   string
		a, b   string
		want   string
		wantOK bool
	}{
		{name: "exact equals exact", a: "test.example.com", b: "test.example.com", want: "test.example.com", wantOK: true},
		{name: "exact differs from exact", a: "test.example.com", b: "test.example.net"},
		{name: "exact is not a subdomain of exact", a: "example.com", b: "test.example.com"},
		{name: "wildcard first matches one label", a: "*.example.com", b: "test.example.com", want: "test.example.com", wantOK: true},
		{name: "wildcard second matches one label", a: "test.example.com", b: "*.example.com", want: "test.example.com", wantOK: true},
		{name: "wildcard matches several labels", a: "*.example.com", b: "a.b.c.example.com", want: "a.b.c.example.com", wantOK: true},
		{name: "wildcard never matches the bare domain", a: "*.example.com", b: "example.com"},
		{name: "wildcard never matches the bare domain in either order", a: "example.com", b: "*.example.com"},
		{name: "wildcard suffix must start at a label boundary", a: "*.example.com", b: "fooexample.com"},
		{name: "wildcard suffix must start at a label boundary in either order", a: "fooexample.com", b: "*.example.com"},
		{name: "wildcard vs wildcard equal", a: "*.example.com", b: "*.example.com", want: "*.example.com", wantOK: true},
		{name: "wildcard vs wildcard keeps the more specific second", a: "*.example.com", b: "*.foo.example.com", want: "*.foo.example.com", wantOK: true},
		{name: "wildcard vs wildcard keeps the more specific first", a: "*.foo.example.com", b: "*.example.com", want: "*.foo.example.com", wantOK: true},
		{name: "unrelated wildcards", a: "*.example.com", b: "*.example.net"},
		{name: "sibling wildcards", a: "*.foo.example.com", b: "*.bar.example.com"},
		{name: "wildcard with a narrower wildcard off a label boundary", a: "*.example.com", b: "*.fooexample.com"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := intersectHostname(tc.a, tc.b)
			assert.Equal(t, tc.wantOK, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}
