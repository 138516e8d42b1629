package translate

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func ptr[T any](v T) *T { return &v }

func fullPath(p string) *gwv1.HTTPPathModifier {
	return &gwv1.HTTPPathModifier{Type: gwv1.FullPathHTTPPathModifier, ReplaceFullPath: ptr(p)}
}

var (
	http8080  = listenerFacts{scheme: "http", port: 8080}
	http80    = listenerFacts{scheme: "http", port: 80}
	https443  = listenerFacts{scheme: "https", port: 443}
	https8443 = listenerFacts{scheme: "https", port: 8443}
)

// TestConstantRedirect is the RequestRedirect row of the Filters table with Gateway API's rules for the Location:
// an unset scheme is the listener's; an unset port is the scheme's well-known port when the scheme is set, else the
// listener port; the port is left out when it is the well-known port of the scheme; the code defaults to 302. A
// redirect that is not the same for every request (no hostname, a path other than ReplaceFullPath, a scheme or port
// that depends on which listener took the request) is rejected, naming the field.
func TestConstantRedirect(t *testing.T) {
	const f = "spec.rules[0].filters[0].requestRedirect"
	type want struct {
		code     int
		location string
		fields   []string // the rejected fields, sorted; none when the redirect is constant
	}
	for _, c := range []struct {
		name      string
		r         *gwv1.HTTPRequestRedirectFilter
		listeners []listenerFacts
		want      want
	}{
		{"listener scheme and port, port written", &gwv1.HTTPRequestRedirectFilter{
			Hostname: ptr(gwv1.PreciseHostname("support.shop.example.com")), Path: fullPath("/support/home")},
			[]listenerFacts{http8080}, want{302, "http://support.shop.example.com:8080/support/home", nil}},
		{"listener on port 80: default port left out", &gwv1.HTTPRequestRedirectFilter{
			Hostname: ptr(gwv1.PreciseHostname("www.shop.example.com")), Path: fullPath("/")},
			[]listenerFacts{http80}, want{302, "http://www.shop.example.com/", nil}},
		{"https listener on 443", &gwv1.HTTPRequestRedirectFilter{
			Hostname: ptr(gwv1.PreciseHostname("www.shop.example.com")), Path: fullPath("/cart")},
			[]listenerFacts{https443}, want{302, "https://www.shop.example.com/cart", nil}},
		{"https listener on 8443", &gwv1.HTTPRequestRedirectFilter{
			Hostname: ptr(gwv1.PreciseHostname("www.shop.example.com")), Path: fullPath("/cart")},
			[]listenerFacts{https8443}, want{302, "https://www.shop.example.com:8443/cart", nil}},
		{"scheme https set: well-known port, not the listener's", &gwv1.HTTPRequestRedirectFilter{
			Scheme: ptr("https"), Hostname: ptr(gwv1.PreciseHostname("accounts.shop.example.com")),
			Path: fullPath("/login"), StatusCode: ptr(301)},
			[]listenerFacts{http8080}, want{301, "https://accounts.shop.example.com/login", nil}},
		{"scheme http set on an 8080 listener: port 80", &gwv1.HTTPRequestRedirectFilter{
			Scheme: ptr("http"), Hostname: ptr(gwv1.PreciseHostname("www.shop.example.com")), Path: fullPath("/")},
			[]listenerFacts{http8080}, want{302, "http://www.shop.example.com/", nil}},
		{"scheme and port set", &gwv1.HTTPRequestRedirectFilter{
			Scheme: ptr("https"), Hostname: ptr(gwv1.PreciseHostname("www.shop.example.com")),
			Port: ptr(gwv1.PortNumber(8443)), Path: fullPath("/"), StatusCode: ptr(302)},
			[]listenerFacts{http8080}, want{302, "https://www.shop.example.com:8443/", nil}},
		{"port 443 with scheme http is written", &gwv1.HTTPRequestRedirectFilter{
			Scheme: ptr("http"), Hostname: ptr(gwv1.PreciseHostname("www.shop.example.com")),
			Port: ptr(gwv1.PortNumber(443)), Path: fullPath("/")},
			[]listenerFacts{https443}, want{302, "http://www.shop.example.com:443/", nil}},
		{"port 80 set, scheme from an https listener", &gwv1.HTTPRequestRedirectFilter{
			Hostname: ptr(gwv1.PreciseHostname("www.shop.example.com")), Port: ptr(gwv1.PortNumber(80)),
			Path: fullPath("/")},
			[]listenerFacts{https443}, want{302, "https://www.shop.example.com:80/", nil}},
		{"two listeners with the same scheme and port", &gwv1.HTTPRequestRedirectFilter{
			Hostname: ptr(gwv1.PreciseHostname("www.shop.example.com")), Path: fullPath("/")},
			[]listenerFacts{http8080, http8080}, want{302, "http://www.shop.example.com:8080/", nil}},
		{"listeners on different ports, port set", &gwv1.HTTPRequestRedirectFilter{
			Hostname: ptr(gwv1.PreciseHostname("www.shop.example.com")), Port: ptr(gwv1.PortNumber(8080)),
			Path: fullPath("/")},
			[]listenerFacts{http8080, {scheme: "http", port: 8081}}, want{302, "http://www.shop.example.com:8080/", nil}},
		{"listeners with different schemes, scheme set", &gwv1.HTTPRequestRedirectFilter{
			Scheme: ptr("https"), Hostname: ptr(gwv1.PreciseHostname("www.shop.example.com")), Path: fullPath("/")},
			[]listenerFacts{http8080, https8443}, want{302, "https://www.shop.example.com/", nil}},
		{"statusCode 308", &gwv1.HTTPRequestRedirectFilter{
			Hostname: ptr(gwv1.PreciseHostname("www.shop.example.com")), Path: fullPath("/"), StatusCode: ptr(308)},
			[]listenerFacts{http80}, want{308, "http://www.shop.example.com/", nil}},

		{"listeners on different ports, no port", &gwv1.HTTPRequestRedirectFilter{
			Hostname: ptr(gwv1.PreciseHostname("www.shop.example.com")), Path: fullPath("/")},
			[]listenerFacts{http8080, {scheme: "http", port: 8081}}, want{fields: []string{f + ".port"}}},
		{"listeners with different schemes, no scheme", &gwv1.HTTPRequestRedirectFilter{
			Hostname: ptr(gwv1.PreciseHostname("www.shop.example.com")), Port: ptr(gwv1.PortNumber(8443)),
			Path: fullPath("/")},
			[]listenerFacts{http8080, https8443}, want{fields: []string{f + ".scheme"}}},
		{"listeners differ in scheme and port, neither set", &gwv1.HTTPRequestRedirectFilter{
			Hostname: ptr(gwv1.PreciseHostname("www.shop.example.com")), Path: fullPath("/")},
			[]listenerFacts{http8080, https8443}, want{fields: []string{f + ".port", f + ".scheme"}}},
		{"no hostname", &gwv1.HTTPRequestRedirectFilter{Scheme: ptr("https"), Path: fullPath("/")},
			[]listenerFacts{http8080}, want{fields: []string{f + ".hostname"}}},
		{"no path keeps the request path", &gwv1.HTTPRequestRedirectFilter{
			Hostname: ptr(gwv1.PreciseHostname("www.shop.example.com"))},
			[]listenerFacts{http8080}, want{fields: []string{f + ".path"}}},
		{"ReplacePrefixMatch keeps the rest of the path", &gwv1.HTTPRequestRedirectFilter{
			Hostname: ptr(gwv1.PreciseHostname("www.shop.example.com")),
			Path:     &gwv1.HTTPPathModifier{Type: gwv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: ptr("/catalog")}},
			[]listenerFacts{http8080}, want{fields: []string{f + ".path"}}},
		{"scheme only", &gwv1.HTTPRequestRedirectFilter{Scheme: ptr("https")},
			[]listenerFacts{http8080}, want{fields: []string{f + ".hostname", f + ".path"}}},
		{"no filter body", nil, []listenerFacts{http8080}, want{fields: []string{f}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var fields []string
			got := constantRedirect(f, c.r, c.listeners, redirectServing{}, func(field, _ string, _ ...any) { fields = append(fields, field) })
			sort.Strings(fields)
			if !reflect.DeepEqual(fields, c.want.fields) {
				t.Fatalf("rejected fields = %v, want %v", fields, c.want.fields)
			}
			if c.want.fields != nil {
				if got != nil {
					t.Fatalf("a rejected redirect gave %+v", *got)
				}
				return
			}
			if got == nil {
				t.Fatal("no redirect")
			}
			if loc := got.locationFor("api.example.com"); got.code != c.want.code || loc != c.want.location {
				t.Fatalf("redirect = %d %s, want %d %s", got.code, loc, c.want.code, c.want.location)
			}
		})
	}
}

// TestRedirectKeepsPath: where the request's path can be kept (the gateway-api profile, for a Tyk that finds
// mock responses the classic way), a redirect without path keeps it: the Location is the scheme, host and port
// followed by Tyk's $tyk_context.path, added by the response header transform; ReplacePrefixMatch is still
// rejected, and so is a redirect without hostname.
func TestRedirectKeepsPath(t *testing.T) {
	const f = "spec.rules[0].filters[0].requestRedirect"
	host := ptr(gwv1.PreciseHostname("example.org"))
	var fields []string
	reject := func(field, _ string, _ ...any) { fields = append(fields, field) }
	got := constantRedirect(f, &gwv1.HTTPRequestRedirectFilter{Hostname: host, StatusCode: ptr(301)}, []listenerFacts{http8080}, redirectServing{keepPath: true}, reject)
	if len(fields) > 0 || got == nil || !got.keepPath || got.code != 301 || got.locationFor("api.example.com") != "http://example.org:8080" {
		t.Fatalf("redirect = %+v, rejected %v", got, fields)
	}
	if h := requestPathLocation(got, "api.example.com"); h.Name != "Location" || h.Value != "http://example.org:8080$tyk_context.path" {
		t.Fatalf("Location = %+v", h)
	}
	got = constantRedirect(f, &gwv1.HTTPRequestRedirectFilter{Hostname: host,
		Path: &gwv1.HTTPPathModifier{Type: gwv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: ptr("/catalog")}},
		[]listenerFacts{http80}, redirectServing{keepPath: true}, reject)
	if got != nil || !reflect.DeepEqual(fields, []string{f + ".path"}) {
		t.Fatalf("ReplacePrefixMatch: redirect = %+v, rejected %v", got, fields)
	}
	fields = nil
	if got = constantRedirect(f, &gwv1.HTTPRequestRedirectFilter{}, []listenerFacts{http80}, redirectServing{keepPath: true}, reject); got != nil ||
		!reflect.DeepEqual(fields, []string{f + ".hostname"}) {
		t.Fatalf("no hostname: redirect = %+v, rejected %v", got, fields)
	}
}

// TestRedirectKeepsHost: where the host can be kept (the gateway-api profile), a redirect without hostname names
// the API's own host in its Location, provided every listener that admits the route gives it exact hostnames
// only; a wildcard or "any host" leaves the Location to the request's Host header, which Tyk cannot write, and
// the hostname field is rejected with a message that says why. Without keepHost (the operator profile) the
// rejection names the profile that serves it.
func TestRedirectKeepsHost(t *testing.T) {
	const f = "spec.rules[0].filters[0].requestRedirect"
	exact := listenerFacts{scheme: "http", port: 80, hostnames: []string{"shop.example.com", "www.example.com"}}
	var fields, messages []string
	reject := func(field, format string, args ...any) {
		fields = append(fields, field)
		messages = append(messages, fmt.Sprintf(format, args...))
	}
	toHTTPS := &gwv1.HTTPRequestRedirectFilter{Scheme: ptr("https"), StatusCode: ptr(301)}
	got := constantRedirect(f, toHTTPS, []listenerFacts{exact}, redirectServing{keepPath: true, keepHost: true}, reject)
	if len(fields) > 0 || got == nil || !got.keepPath || got.code != 301 {
		t.Fatalf("scheme only: redirect = %+v, rejected %v", got, messages)
	}
	for host, want := range map[string]string{"shop.example.com": "https://shop.example.com$tyk_context.path",
		"www.example.com": "https://www.example.com$tyk_context.path"} {
		if h := requestPathLocation(got, host); h.Value != want {
			t.Errorf("Location on %s = %q, want %q", host, h.Value, want)
		}
	}
	got = constantRedirect(f, &gwv1.HTTPRequestRedirectFilter{Port: ptr(gwv1.PortNumber(8443)), Path: fullPath("/login")},
		[]listenerFacts{exact}, redirectServing{keepHost: true}, reject)
	if len(fields) > 0 || got == nil || got.locationFor("shop.example.com") != "http://shop.example.com:8443/login" {
		t.Fatalf("full path: redirect = %+v, rejected %v", got, messages)
	}
	for _, hosts := range [][]string{{"shop.example.com", "*.example.com"}, {""}} {
		fields, messages = nil, nil
		l := listenerFacts{scheme: "http", port: 80, hostnames: hosts}
		if got := constantRedirect(f, toHTTPS, []listenerFacts{exact, l}, redirectServing{keepPath: true, keepHost: true}, reject); got != nil ||
			!reflect.DeepEqual(fields, []string{f + ".hostname"}) {
			t.Fatalf("hostnames %q: redirect = %+v, rejected %v", hosts, got, fields)
		}
		if !strings.Contains(messages[0], "wildcard *.example.com") && !strings.Contains(messages[0], "any host") {
			t.Errorf("hostnames %q: message %q does not say which hostname is not exact", hosts, messages[0])
		}
	}
	fields, messages = nil, nil
	if got := constantRedirect(f, toHTTPS, []listenerFacts{exact}, redirectServing{keepPath: true}, reject); got != nil ||
		!strings.Contains(strings.Join(messages, ""), "gateway-api profile") {
		t.Fatalf("operator profile: redirect = %+v, rejected %v", got, messages)
	}
}

// On a Tyk that finds mock responses the classic way, a redirect without hostname on any host (or a wildcard)
// names the request's Host header when it changes neither scheme nor port, and the Host header's host part (a
// context variable an urlRewrite trigger sets) when it does.
func TestRedirectKeepsAHostThatIsNotExact(t *testing.T) {
	const f = "spec.rules[0].filters[0].requestRedirect"
	var fields []string
	reject := func(field, _ string, _ ...any) { fields = append(fields, field) }
	for _, hosts := range [][]string{{""}, {"*.example.com"}} {
		l := listenerFacts{scheme: "http", port: 80, hostnames: hosts}
		fields = nil
		got := constantRedirect(f, &gwv1.HTTPRequestRedirectFilter{StatusCode: ptr(303)}, []listenerFacts{l}, redirectServing{keepPath: true, keepHost: true, hostFromRequest: true}, reject)
		if len(fields) > 0 || got == nil || !got.requestHost || got.code != 303 {
			t.Fatalf("hostnames %q: redirect = %+v, rejected %v", hosts, got, fields)
		}
		if h := requestPathLocation(got, hosts[0]); h.Value != "http://$tyk_context.headers_Host$tyk_context.path" {
			t.Errorf("hostnames %q: Location %q", hosts, h.Value)
		}
		got = constantRedirect(f, &gwv1.HTTPRequestRedirectFilter{Path: fullPath("/new")}, []listenerFacts{l}, redirectServing{keepPath: true, keepHost: true, hostFromRequest: true}, reject)
		if h := requestPathLocation(got, hosts[0]); h.Value != "http://$tyk_context.headers_Host/new" {
			t.Errorf("hostnames %q: Location %q", hosts, h.Value)
		}
		// A redirect that changes the scheme or the port names the host alone, with the new port when it is not
		// the scheme's default.
		for r, want := range map[*gwv1.HTTPRequestRedirectFilter]string{
			{Scheme: ptr("https")}:                                  "https://$tyk_context.trigger-0-headers_Host$tyk_context.path",
			{Port: ptr(gwv1.PortNumber(8080))}:                      "http://$tyk_context.trigger-0-headers_Host:8080$tyk_context.path",
			{Scheme: ptr("https"), Port: ptr(gwv1.PortNumber(443))}: "https://$tyk_context.trigger-0-headers_Host$tyk_context.path",
		} {
			fields = nil
			got := constantRedirect(f, r, []listenerFacts{l}, redirectServing{keepPath: true, keepHost: true, hostFromRequest: true}, reject)
			if len(fields) > 0 || got == nil || !got.hostAlone {
				t.Fatalf("hostnames %q, %+v: redirect = %+v, rejected %v", hosts, r, got, fields)
			}
			if h := requestPathLocation(got, hosts[0]); h.Value != want {
				t.Errorf("hostnames %q, %+v: Location %q, want %q", hosts, r, h.Value, want)
			}
		}
		// Without the classic mock matching (an older tykVersion) it is refused as before.
		fields = nil
		if got := constantRedirect(f, &gwv1.HTTPRequestRedirectFilter{}, []listenerFacts{l}, redirectServing{keepPath: true, keepHost: true}, reject); got != nil {
			t.Errorf("hostnames %q, older Tyk: redirect = %+v", hosts, got)
		}
	}
}

// A ReplacePrefixMatch redirect (a Tyk that finds mock responses the classic way) writes the replacement and
// what the request's path has after the matched prefix: the trigger's group, as Tyk's regexp finds it, gives
// Gateway API's result on each path, whole segments replaced and no separator doubled.
func TestRedirectReplacesPrefix(t *testing.T) {
	const f = "spec.rules[0].filters[0].requestRedirect"
	l := listenerFacts{scheme: "http", port: 80, hostnames: []string{""}}
	prefixMatch := func(v string) []gwv1.HTTPRouteMatch {
		return []gwv1.HTTPRouteMatch{{Path: &gwv1.HTTPPathMatch{Type: ptr(gwv1.PathMatchPathPrefix), Value: ptr(v)}}}
	}
	served := redirectServing{keepPath: true, keepHost: true, hostFromRequest: true, replacePrefix: true}
	for _, c := range []struct {
		match, replacement string
		paths              map[string]string // request path -> Location's path
	}{
		{"/original-prefix", "/replacement-prefix", map[string]string{"/original-prefix/lemon": "/replacement-prefix/lemon",
			"/original-prefix": "/replacement-prefix", "/original-prefix/": "/replacement-prefix/"}},
		{"/strip/", "/", map[string]string{"/strip/x/y": "/x/y", "/strip": "/", "/strip/": "/"}},
		{"/", "/v2", map[string]string{"/": "/v2/", "/a": "/v2/a"}},
		{"/a.b", "/c/", map[string]string{"/a.b/d": "/c/d", "/a.b": "/c/"}},
	} {
		var fields []string
		served.matches = prefixMatch(c.match)
		r := &gwv1.HTTPRequestRedirectFilter{Path: &gwv1.HTTPPathModifier{Type: gwv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: ptr(c.replacement)}}
		got := constantRedirect(f, r, []listenerFacts{l}, served, func(field, _ string, _ ...any) { fields = append(fields, field) })
		if got == nil || len(fields) > 0 || !got.fromRequest() {
			t.Fatalf("%s -> %s: redirect = %+v, rejected %v", c.match, c.replacement, got, fields)
		}
		loc := requestPathLocation(got, "").Value
		rw := locationTrigger(got)
		if rw == nil || len(rw.Triggers) != 1 || len(rw.Triggers[0].Rules) != 1 || rw.Triggers[0].Rules[0].Name != "path" {
			t.Fatalf("%s: trigger %+v", c.match, rw)
		}
		re := regexp.MustCompile(rw.Triggers[0].Rules[0].Pattern)
		for path, want := range c.paths {
			m := re.FindStringSubmatch(path)
			if m == nil {
				t.Errorf("%s: %s does not match %s", c.match, re, path)
				continue
			}
			if got := strings.Replace(loc, prefixRestVariable, m[1], 1); got != "http://$tyk_context.headers_Host"+want {
				t.Errorf("%s -> %s: %s is redirected to %s, want the path %s", c.match, c.replacement, path, got, want)
			}
		}
	}
	// The prefix must be known: one PathPrefix match. An older Tyk (mocks found only by the OpenAPI router) gets
	// the refusal of before.
	r := &gwv1.HTTPRequestRedirectFilter{Path: &gwv1.HTTPPathModifier{Type: gwv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: ptr("/x")}}
	two := append(prefixMatch("/a"), prefixMatch("/b")...)
	for name, opt := range map[string]redirectServing{
		"two matches": {keepPath: true, keepHost: true, hostFromRequest: true, replacePrefix: true, matches: two},
		"older Tyk":   {keepHost: true, matches: prefixMatch("/a")},
	} {
		var fields []string
		got := constantRedirect(f, r, []listenerFacts{l}, opt, func(field, _ string, _ ...any) { fields = append(fields, field) })
		if got != nil || !strings.HasPrefix(fields[len(fields)-1], f+".path") {
			t.Errorf("%s: redirect = %+v, rejected %v", name, got, fields)
		}
	}
}
