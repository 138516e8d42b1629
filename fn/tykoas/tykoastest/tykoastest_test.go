package tykoastest_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas/tykoastest"
)

func validDocument(t *testing.T) []byte {
	t.Helper()
	d := tykoas.NewDocument("gwapi-00000000000000000001")
	d.AddOperation("/shop", "GET", "get-shop")
	d.AddOperation("/shop", "POST", "post-shop")
	d.Tyk.Server = tykoas.Server{
		ListenPath:   tykoas.ListenPath{Value: "/shop", Strip: true},
		CustomDomain: &tykoas.CustomDomain{Enabled: true, Name: "shop.example.com", Certificates: []string{"org1abc"}},
		GatewayTags:  &tykoas.GatewayTags{Enabled: true, Tags: []string{"edge"}},
	}
	d.Tyk.Upstream = tykoas.Upstream{
		URL: "http://a.default.svc.cluster.local:80/shop",
		LoadBalancing: &tykoas.LoadBalancing{Enabled: true, Targets: []tykoas.LoadBalancingTarget{
			{URL: "http://a.default.svc.cluster.local:80/shop", Weight: 1},
			{URL: "http://b.default.svc.cluster.local:80/shop", Weight: 2},
		}},
		PreserveHostHeader: &tykoas.PreserveHostHeader{Enabled: true},
	}
	d.Tyk.Middleware = &tykoas.Middleware{Operations: map[string]tykoas.Operation{
		"get-shop": {
			TransformRequestHeaders: &tykoas.TransformHeaders{Enabled: true, Remove: []string{"X-A"},
				Add: []tykoas.Header{{Name: "X-B", Value: "1"}, {Name: "X-C", Value: "2"}}},
			TransformResponseHeaders: &tykoas.TransformHeaders{Enabled: true, Remove: []string{"Server"}},
			URLRewrite:               &tykoas.URLRewrite{Enabled: true, Pattern: ".*", RewriteTo: "/new"},
		},
		"post-shop": {
			IgnoreAuthentication: &tykoas.Allowance{Enabled: true},
			MockResponse: &tykoas.MockResponse{Enabled: true, Code: 301,
				Headers: []tykoas.Header{{Name: "Location", Value: "https://x.example.com/"}}},
		},
	}}
	b, err := d.Encode()
	require.NoError(t, err)
	return b
}

// mutate applies f to the generic form of doc and re-encodes it, so negative
// cases can build documents the typed API would never produce.
func mutate(t *testing.T, doc []byte, f func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(doc, &m))
	f(m)
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return b
}

func obj(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		m = m[k].(map[string]any)
	}
	return m
}

func TestValidDocumentPasses(t *testing.T) {
	doc := validDocument(t)
	assert.NoError(t, tykoastest.Check(doc))
	tykoastest.Validate(t, doc)
}

func TestCheckFails(t *testing.T) {
	for name, tc := range map[string]struct {
		mutate func(m map[string]any)
		want   []string // substrings of the error
		not    []string // substrings the error must not have
	}{
		"middleware key with no matching operationId": {
			mutate: func(m map[string]any) {
				ops := obj(m, "x-tyk-api-gateway", "middleware", "operations")
				ops["get-shopp"] = ops["get-shop"]
			},
			want: []string{`middleware.operations["get-shopp"]`, "Tyk ignores it"},
		},
		// Tyk's kin-openapi reads {rest:.*} as the parameter "rest:.*" (the newer one of this module as "rest").
		"a gorilla/mux path variable declared without its pattern": {
			mutate: func(m map[string]any) {
				m["paths"].(map[string]any)["/{rest:.*}"] = map[string]any{
					"parameters": []any{map[string]any{"name": "rest", "in": "path", "required": true,
						"schema": map[string]any{"type": "string"}}},
					"get": map[string]any{"operationId": "get-rest", "responses": map[string]any{
						"default": map[string]any{"description": "d"}}},
				}
			},
			want: []string{"GET /{rest:.*} declares the path parameters [rest], Tyk reads [rest:.*] from the path"},
		},
		"listenPath without value (schema)": {
			mutate: func(m map[string]any) {
				obj(m, "x-tyk-api-gateway", "server")["listenPath"] = map[string]any{}
			},
			want: []string{"as written", "listenPath", "value"},
		},
		"missing required info.name (schema)": {
			mutate: func(m map[string]any) { delete(obj(m, "x-tyk-api-gateway", "info"), "name") },
			want:   []string{"as written", "name"},
		},
		"weight of wrong type (schema)": {
			mutate: func(m map[string]any) {
				lb := obj(m, "x-tyk-api-gateway", "upstream", "loadBalancing")
				lb["targets"].([]any)[0].(map[string]any)["weight"] = "1"
			},
			want: []string{"as written", "weight"},
		},
		// Tyk itself accepts these two (draft-04 ignores if/then; a tuple
		// constrains only the first element); only the strict reading fails.
		"enabled loadBalancing without targets (strict if/then)": {
			mutate: func(m map[string]any) {
				delete(obj(m, "x-tyk-api-gateway", "upstream", "loadBalancing"), "targets")
			},
			want: []string{"strict", "targets"},
			not:  []string{"as written"},
		},
		"second header without value (strict items)": {
			mutate: func(m map[string]any) {
				h := obj(m, "x-tyk-api-gateway", "middleware", "operations", "get-shop", "transformRequestHeaders")
				delete(h["add"].([]any)[1].(map[string]any), "value")
			},
			want: []string{"strict", "value"},
			not:  []string{"as written"},
		},
		"operation without operationId": {
			mutate: func(m map[string]any) {
				delete(obj(m, "paths", "/shop", "post"), "operationId")
			},
			want: []string{`paths["/shop"].POST: no operationId`, `operations["post-shop"]`},
		},
		"operation without responses": {
			mutate: func(m map[string]any) { delete(obj(m, "paths", "/shop", "get"), "responses") },
			want:   []string{"OpenAPI"},
		},
		"not OpenAPI 3.0": {
			mutate: func(m map[string]any) { m["openapi"] = "2.0" },
			want:   []string{"not 3.0.x"},
		},
		"no extension": {
			mutate: func(m map[string]any) { delete(m, "x-tyk-api-gateway") },
			want:   []string{`no "x-tyk-api-gateway" extension`},
		},
	} {
		t.Run(name, func(t *testing.T) {
			err := tykoastest.Check(mutate(t, validDocument(t), tc.mutate))
			require.Error(t, err)
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
			for _, n := range tc.not {
				assert.NotContains(t, err.Error(), n)
			}
		})
	}
}

// fakeTB records what Validate reports; the embedded TB is nil and only
// satisfies testing.TB's unexported method.
type fakeTB struct {
	testing.TB
	errors []string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Errorf(format string, a ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, a...))
}

func TestValidateReportsFailures(t *testing.T) {
	ok := &fakeTB{}
	tykoastest.Validate(ok, validDocument(t))
	assert.Empty(t, ok.errors)

	bad := &fakeTB{}
	tykoastest.Validate(bad, mutate(t, validDocument(t), func(m map[string]any) {
		obj(m, "x-tyk-api-gateway", "server")["listenPath"] = map[string]any{}
	}))
	require.Len(t, bad.errors, 1)
	assert.Contains(t, bad.errors[0], "listenPath")
}
