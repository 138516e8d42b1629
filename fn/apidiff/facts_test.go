package apidiff

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// document builds a Tyk OAS document with the tykoas types, as the translation does, and encodes it.
func document(t *testing.T, edit func(d *tykoas.Document)) string {
	t.Helper()
	d := tykoas.NewDocument("gwapi-1")
	d.Tyk.Server.ListenPath = tykoas.ListenPath{Value: "/orders", Strip: true}
	d.Tyk.Upstream.URL = "http://orders:8080/orders"
	edit(d)
	b, err := d.Encode()
	require.NoError(t, err)
	return string(b)
}

func operations(d *tykoas.Document, ops map[string]tykoas.Operation) {
	d.Tyk.Middleware = &tykoas.Middleware{Operations: map[string]tykoas.Operation{}}
	for _, m := range methods {
		d.AddOperation("/", m, m)
		d.Tyk.Middleware.Operations[m] = ops[m]
	}
}

func TestDescribe(t *testing.T) {
	plain := document(t, func(*tykoas.Document) {})
	f, err := Describe(plain, "", false)
	require.NoError(t, err)
	assert.Equal(t, []string{"every method: proxied"}, f[AspectServed])
	assert.Empty(t, f[AspectNotFound])
	assert.Equal(t, []string{"http://orders:8080/orders"}, f[AspectUpstream])
	assert.Equal(t, []string{"off"}, f[AspectAuthentication])
	assert.Equal(t, []string{"none"}, f[AspectBase])
	assert.Equal(t, []string{"info.state.active = true", `info.version = "1.0.0"`, `openapi = "3.0.3"`,
		"server.listenPath.strip = true"}, f[AspectOther], "what no named aspect describes, identity left out")

	notFound := &tykoas.MockResponse{Enabled: true, Code: 404, Body: "no"}
	split := document(t, func(d *tykoas.Document) {
		operations(d, map[string]tykoas.Operation{
			"GET":     {TransformRequestHeaders: &tykoas.TransformHeaders{Enabled: true, Add: []tykoas.Header{{Name: "X-A", Value: "1"}}, Remove: []string{"X-B"}}},
			"HEAD":    {},
			"POST":    {MockResponse: &tykoas.MockResponse{Enabled: true, Code: 301, Headers: []tykoas.Header{{Name: "location", Value: "https://x/"}}}},
			"PUT":     {MockResponse: notFound},
			"PATCH":   {MockResponse: notFound},
			"DELETE":  {MockResponse: &tykoas.MockResponse{Enabled: true, Code: 500, Body: "backend"}},
			"OPTIONS": {MockResponse: notFound}, "TRACE": {MockResponse: notFound},
		})
		d.Tyk.Upstream = tykoas.Upstream{LoadBalancing: &tykoas.LoadBalancing{Enabled: true,
			Targets: []tykoas.LoadBalancingTarget{{URL: "http://b", Weight: 1}, {URL: "http://a", Weight: 9}}}}
	})
	f, err = Describe(split, "shop/base", false)
	require.NoError(t, err)
	assert.Equal(t, []string{"GET, HEAD: proxied"}, f[AspectServed])
	assert.Equal(t, []string{"PUT, PATCH, OPTIONS, TRACE: 404"}, f[AspectNotFound])
	assert.Equal(t, []string{"POST: 301 to https://x/"}, f[AspectRedirects])
	assert.Equal(t, []string{"DELETE: 500 backend"}, f[AspectFixed])
	assert.Equal(t, []string{"GET: set X-A: 1, remove X-B"}, f[AspectRequestHeaders])
	assert.Equal(t, []string{"http://a (weight 9)", "http://b (weight 1)"}, f[AspectUpstream])
	assert.Equal(t, []string{"shop/base"}, f[AspectBase])
}

// Authentication turned off for some methods of an API that keeps it on is auth-off, as is turning it off.
func TestAuthTurnedOff(t *testing.T) {
	auth := func(skip ...string) string {
		return document(t, func(d *tykoas.Document) {
			ops := map[string]tykoas.Operation{}
			for _, m := range skip {
				ops[m] = tykoas.Operation{IgnoreAuthentication: &tykoas.Allowance{Enabled: true}}
			}
			operations(d, ops)
		})
	}
	withAuth := func(doc string) string {
		// A base document's authentication, as basedoc merges it: a field outside the tykoas subset.
		tree, err := tykoas.ParseTree([]byte(doc))
		require.NoError(t, err)
		tree["x-tyk-api-gateway"].(map[string]any)["server"].(map[string]any)["authentication"] =
			map[string]any{"enabled": true, "securitySchemes": map[string]any{"token": map[string]any{"enabled": true}}}
		b, err := tykoas.EncodeTree(tree)
		require.NoError(t, err)
		return string(b)
	}
	compare := func(before, after string) []AspectChange {
		c, err := compareAPI(&API{Ref: Ref{ID: "gwapi-1"}, Document: before}, &API{Ref: Ref{ID: "gwapi-1"}, Document: after})
		require.NoError(t, err)
		return c
	}
	risk := func(cs []AspectChange) RiskKind {
		for _, c := range cs {
			if c.Aspect == AspectAuthentication {
				return c.Risk
			}
		}
		return ""
	}
	assert.Equal(t, RiskAuthOff, risk(compare(withAuth(auth()), auth())), "off")
	assert.Equal(t, RiskAuthOff, risk(compare(withAuth(auth()), withAuth(auth("GET")))), "GET exempted")
	assert.Equal(t, RiskKind(""), risk(compare(withAuth(auth("GET")), withAuth(auth()))), "GET no longer exempted")
	assert.Equal(t, RiskKind(""), risk(compare(auth(), withAuth(auth()))), "turned on")
	c := compare(withAuth(auth()), withAuth(auth("GET")))
	assert.Equal(t, []AspectChange{{Aspect: AspectAuthentication, Added: []string{"GET: no authentication"}, Removed: []string{},
		Risk: RiskAuthOff}}, c)
}

// A timeout is a fact of its own, per method, so that a change of it shows in a diff (the operations are claimed
// whole, so nothing else would report it).
func TestDescribeTimeouts(t *testing.T) {
	doc := document(t, func(d *tykoas.Document) {
		exact := tykoas.Operation{EnforceTimeout: &tykoas.EnforceTimeout{Enabled: true, Duration: "500ms", Value: 1}}
		operations(d, map[string]tykoas.Operation{"GET": exact, "HEAD": exact,
			"POST": {EnforceTimeout: &tykoas.EnforceTimeout{Enabled: true, Value: 10}},
			"PUT":  {EnforceTimeout: &tykoas.EnforceTimeout{Enabled: false, Value: 10}}})
	})
	f, err := Describe(doc, "", false)
	require.NoError(t, err)
	assert.Equal(t, []string{"GET, HEAD: 504 after 500ms", "POST: 504 after 10s"}, f[AspectTimeouts])
	f, err = Describe(document(t, func(*tykoas.Document) {}), "", false)
	require.NoError(t, err)
	assert.Empty(t, f[AspectTimeouts])
}

// Client certificate validation is described a CA certificate a line, so that retiring one CA of two is one line
// whatever its place in the allowlist.
func TestDescribeClientCertificates(t *testing.T) {
	f, err := Describe(document(t, func(d *tykoas.Document) {
		d.Tyk.Server.ClientCertificates = &tykoas.ClientCertificates{Enabled: true, Allowlist: []string{"org1aa", "org1bb"}}
	}), "", false)
	require.NoError(t, err)
	assert.Equal(t, []string{"client certificates: those signed by CA certificate org1aa",
		"client certificates: those signed by CA certificate org1bb"}, f[AspectCertificates])
	f, err = Describe(document(t, func(d *tykoas.Document) {
		d.Tyk.Server.ClientCertificates = &tykoas.ClientCertificates{Enabled: false, Allowlist: []string{"org1aa"}}
	}), "", false)
	require.NoError(t, err)
	assert.Equal(t, []string{"client certificates: not checked"}, f[AspectCertificates])
	f, err = Describe(document(t, func(*tykoas.Document) {}), "", false)
	require.NoError(t, err)
	assert.Empty(t, f[AspectCertificates])
}

// A router's triggers read as a reviewer says them: a presence rule (any value) as "present", a pattern as written.
func TestDescribeRouting(t *testing.T) {
	doc := document(t, func(d *tykoas.Document) {
		preflight := tykoas.Operation{URLRewrite: &tykoas.URLRewrite{Enabled: true, Pattern: "^(?:[a-z]+://[^/]*)?(.*)$",
			RewriteTo: "tyk://gwapi-other/gwapi-other$1", Triggers: []tykoas.URLRewriteTrigger{{Condition: "all",
				RewriteTo: "tyk://gwapi-preflight/gwapi-preflight$1", Rules: []tykoas.URLRewriteRule{
					{In: "header", Name: "Access-Control-Request-Method", Pattern: ".*"},
					{In: "header", Name: "Origin", Pattern: "^https://a\\.example$"}}}}}}
		operations(d, map[string]tykoas.Operation{"OPTIONS": preflight})
	})
	f, err := Describe(doc, "", false)
	require.NoError(t, err)
	assert.Contains(t, f[AspectRouting], "OPTIONS: header Access-Control-Request-Method present and header Origin "+
		"^https://a\\.example$ to API gwapi-preflight; otherwise to API gwapi-other")
}

// A header transform's name that is not in canonical form adds a header beside the message's own where the Tyk
// Gateways keep names as written (the gateway-api profile's response add), and is a set everywhere else.
func TestDescribeHeaderAdds(t *testing.T) {
	doc := document(t, func(d *tykoas.Document) {
		both := &tykoas.TransformHeaders{Enabled: true, Add: []tykoas.Header{{Name: "X-Env", Value: "prod"},
			{Name: "x-trace", Value: "on"}}, Remove: []string{"Server"}}
		operations(d, map[string]tykoas.Operation{"GET": {TransformRequestHeaders: both, TransformResponseHeaders: both}})
	})
	f, err := Describe(doc, "", true)
	require.NoError(t, err)
	assert.Equal(t, []string{"GET: set X-Env: prod, add x-trace: on, remove Server"}, f[AspectResponseHeaders])
	assert.Equal(t, []string{"GET: set X-Env: prod, add x-trace: on, remove Server"}, f[AspectRequestHeaders])
	f, err = Describe(doc, "", false)
	require.NoError(t, err)
	assert.Equal(t, []string{"GET: set X-Env: prod, set x-trace: on, remove Server"}, f[AspectResponseHeaders],
		"Tyk's default writes every name in canonical form: the lower-case name replaces")
}
