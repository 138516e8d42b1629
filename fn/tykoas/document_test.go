package tykoas_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas/tykoastest"
)

// fullDocument sets every field the package models, with values that would
// expose HTML escaping and key-order leaks.
func fullDocument(t *testing.T, reverse bool) *tykoas.Document {
	t.Helper()
	d := tykoas.NewDocument("gwapi-0123456789abcdef0123")
	ops := []struct{ path, method, id string }{
		{"/shop", "GET", "get-shop"},
		{"/shop", "post", "post-shop"},
		{"/shop/cart", "DELETE", "delete-shop-cart"},
		{"/old", "GET", "get-old"},
	}
	if reverse {
		for i, j := 0, len(ops)-1; i < j; i, j = i+1, j-1 {
			ops[i], ops[j] = ops[j], ops[i]
		}
	}
	for _, op := range ops {
		d.AddOperation(op.path, op.method, op.id)
	}

	d.Tyk.Server = tykoas.Server{
		ListenPath:   tykoas.ListenPath{Value: "/shop", Strip: true},
		CustomDomain: &tykoas.CustomDomain{Enabled: true, Name: "{h:.+}.example.com", Certificates: []string{"org1abc", "org1def"}},
		GatewayTags:  &tykoas.GatewayTags{Enabled: true, Tags: []string{"edge", "eu"}},
	}
	d.Tyk.Upstream = tykoas.Upstream{
		URL: "http://shop.default.svc.cluster.local:8080/shop",
		LoadBalancing: &tykoas.LoadBalancing{Enabled: true, Targets: []tykoas.LoadBalancingTarget{
			{URL: "http://shop.default.svc.cluster.local:8080/shop", Weight: 3},
			{URL: "http://shop-v2.default.svc.cluster.local:8080/shop", Weight: 1},
		}},
		PreserveHostHeader: &tykoas.PreserveHostHeader{Enabled: true},
	}
	opsCfg := map[string]tykoas.Operation{}
	set := func(id string, op tykoas.Operation) { opsCfg[id] = op }
	if reverse {
		// Map insertion order must not matter either.
		defer func() { d.Tyk.Middleware = &tykoas.Middleware{Operations: opsCfg} }()
	}
	set("get-shop", tykoas.Operation{
		TransformRequestHeaders: &tykoas.TransformHeaders{
			Enabled: true,
			Remove:  []string{"X-Debug"},
			Add:     []tykoas.Header{{Name: "X-Route", Value: "a<b&c>d"}, {Name: "X-Env", Value: "prod"}},
		},
		TransformResponseHeaders: &tykoas.TransformHeaders{
			Enabled: true,
			Add:     []tykoas.Header{{Name: "Cache-Control", Value: "no-store"}},
		},
	})
	set("post-shop", tykoas.Operation{
		URLRewrite: &tykoas.URLRewrite{Enabled: true, Pattern: "^/shop(.*)$", RewriteTo: "/store$1"},
	})
	set("get-old", tykoas.Operation{
		IgnoreAuthentication: &tykoas.Allowance{Enabled: true},
		MockResponse: &tykoas.MockResponse{
			Enabled: true,
			Code:    302,
			Body:    "moved",
			Headers: []tykoas.Header{{Name: "Location", Value: "https://new.example.com/shop?a=1&b=2"}},
		},
	})
	if !reverse {
		d.Tyk.Middleware = &tykoas.Middleware{Operations: opsCfg}
	}
	return d
}

func encode(t *testing.T, d *tykoas.Document) []byte {
	t.Helper()
	b, err := d.Encode()
	require.NoError(t, err)
	return b
}

func TestRoundTrip(t *testing.T) {
	want := fullDocument(t, false)
	b := encode(t, want)

	got, err := tykoas.Decode(b)
	require.NoError(t, err)
	assert.Equal(t, want.Tyk, got.Tyk)
	assert.Nil(t, got.OpenAPI.Extensions, "the Tyk extension must move out of OpenAPI.Extensions")
	assert.Equal(t, "3.0.3", got.OpenAPI.OpenAPI)
	assert.Equal(t, "gwapi-0123456789abcdef0123", got.OpenAPI.Info.Title)
	assert.Equal(t, "post-shop", got.OpenAPI.Paths.Value("/shop").Post.OperationID)
	assert.NotNil(t, got.OpenAPI.Paths.Value("/shop/cart").Delete.Responses.Default())
	assert.Equal(t, string(b), string(encode(t, got)), "decode then encode must reproduce the bytes")

	var viaJSON tykoas.Document
	require.NoError(t, viaJSON.UnmarshalJSON(b))
	assert.Equal(t, want.Tyk, viaJSON.Tyk)
}

func TestEncodeIsDeterministic(t *testing.T) {
	a := encode(t, fullDocument(t, false))
	assert.Equal(t, string(a), string(encode(t, fullDocument(t, false))))
	assert.Equal(t, string(a), string(encode(t, fullDocument(t, true))),
		"operation and map insertion order must not change the output")
	for range 20 {
		require.True(t, bytes.Equal(a, encode(t, fullDocument(t, true))))
	}
}

func TestEncodeFormat(t *testing.T) {
	d := tykoas.NewDocument("api-1")
	d.Tyk.Server.ListenPath = tykoas.ListenPath{Value: "/", Strip: true}
	d.Tyk.Upstream.URL = "http://svc.ns.svc.cluster.local:80/"
	d.AddOperation("/", "GET", "get-root")

	assert.Equal(t, `{
  "info": {
    "title": "api-1",
    "version": "1.0.0"
  },
  "openapi": "3.0.3",
  "paths": {
    "/": {
      "get": {
        "operationId": "get-root",
        "responses": {
          "default": {
            "description": "Default response"
          }
        }
      }
    }
  },
  "x-tyk-api-gateway": {
    "info": {
      "id": "api-1",
      "name": "api-1",
      "state": {
        "active": true
      }
    },
    "server": {
      "listenPath": {
        "strip": true,
        "value": "/"
      }
    },
    "upstream": {
      "url": "http://svc.ns.svc.cluster.local:80/"
    }
  }
}
`, string(encode(t, d)))
}

func TestEncodeDoesNotEscapeHTML(t *testing.T) {
	b := string(encode(t, fullDocument(t, false)))
	assert.Contains(t, b, `"value": "a<b&c>d"`)
	assert.NotContains(t, b, `\u003c`)
}

func TestNewDocumentHasEmptyPaths(t *testing.T) {
	b := string(encode(t, tykoas.NewDocument("x")))
	assert.Contains(t, b, "\n  \"paths\": {},\n")
}

func TestGatewayTagsNilIsEmptyArray(t *testing.T) {
	d := tykoas.NewDocument("x")
	d.Tyk.Server.GatewayTags = &tykoas.GatewayTags{}
	assert.Contains(t, string(encode(t, d)), `"tags": []`)
}

func TestAddOperation(t *testing.T) {
	d := tykoas.NewDocument("x")
	d.AddOperation("/a", "patch", "p")
	d.AddOperation("/a", "PATCH", "p2")
	op := d.OpenAPI.Paths.Value("/a").Patch
	require.NotNil(t, op)
	assert.Equal(t, "p2", op.OperationID, "a second call for the same path and method replaces the operation")

	assert.Panics(t, func() { d.AddOperation("/a", "QUERY", "q") })
}

func TestEncodeRejectsExtensionInOpenAPI(t *testing.T) {
	d := tykoas.NewDocument("x")
	d.OpenAPI.Extensions = map[string]any{tykoas.ExtensionKey: map[string]any{}}
	_, err := d.Encode()
	assert.ErrorContains(t, err, tykoas.ExtensionKey)
}

func TestEncodeKeepsOtherExtensions(t *testing.T) {
	d := tykoas.NewDocument("x")
	d.OpenAPI.Extensions = map[string]any{"x-other": "v"}
	b := encode(t, d)
	got, err := tykoas.Decode(b)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"x-other": "v"}, got.OpenAPI.Extensions)
}

func TestDecodeErrors(t *testing.T) {
	base := string(encode(t, tykoas.NewDocument("x")))
	for name, doc := range map[string]string{
		"not JSON":        "{",
		"no extension":    `{"openapi":"3.0.3","info":{"title":"x","version":"1"},"paths":{}}`,
		"unmodeled field": strings.Replace(base, `"server": {`, `"server": {"slug": "x",`, 1),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tykoas.Decode([]byte(doc))
			assert.Error(t, err)
		})
	}
}

func TestFullDocumentIsValidForTyk(t *testing.T) {
	tykoastest.Validate(t, encode(t, fullDocument(t, false)))
}

func TestMinimalDocumentIsValidForTyk(t *testing.T) {
	d := tykoas.NewDocument("api-1")
	d.Tyk.Server.ListenPath = tykoas.ListenPath{Value: "/"}
	d.Tyk.Upstream.URL = "http://svc.ns.svc.cluster.local:80"
	tykoastest.Validate(t, encode(t, d))
}
