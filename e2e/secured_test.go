package e2e_test

import (
	"encoding/json"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas/tykoastest"
)

// securedDoc is the part of a Tyk OAS document the secured checks read. Pointers tell "absent" from "off".
type securedDoc struct {
	Info struct {
		Title   string `json:"title"`
		Version string `json:"version"`
	} `json:"info"`
	Components *struct {
		SecuritySchemes map[string]struct {
			Type string `json:"type"`
			In   string `json:"in"`
			Name string `json:"name"`
		} `json:"securitySchemes"`
	} `json:"components"`
	Security []map[string][]string `json:"security"`
	Tyk      struct {
		Info struct {
			ID string `json:"id"`
		} `json:"info"`
		Server struct {
			ListenPath     struct{ Value string } `json:"listenPath"`
			CustomDomain   struct{ Name string }  `json:"customDomain"`
			Authentication *struct {
				Enabled         bool `json:"enabled"`
				SecuritySchemes map[string]struct {
					Enabled bool `json:"enabled"`
					Header  *struct {
						Enabled bool   `json:"enabled"`
						Name    string `json:"name"`
					} `json:"header"`
				} `json:"securitySchemes"`
			} `json:"authentication"`
		} `json:"server"`
		Upstream struct {
			URL       string `json:"url"`
			RateLimit *struct {
				Enabled bool    `json:"enabled"`
				Rate    float64 `json:"rate"`
				Per     string  `json:"per"`
			} `json:"rateLimit"`
		} `json:"upstream"`
		Middleware *struct {
			Global *struct {
				TrafficLogs *struct {
					Enabled    bool     `json:"enabled"`
					TagHeaders []string `json:"tagHeaders"`
				} `json:"trafficLogs"`
			} `json:"global"`
			Operations map[string]struct {
				IgnoreAuthentication *struct{ Enabled bool } `json:"ignoreAuthentication"`
				MockResponse         *struct {
					Code    int
					Headers []struct{ Name, Value string }
				} `json:"mockResponse"`
			} `json:"operations"`
		} `json:"middleware"`
	} `json:"x-tyk-api-gateway"`
}

// TestKustomizeBuildSecuredExample renders examples/secured with the real kustomize: a Gateway-wide base (rate
// limit, traffic logs) attached to Gateway shop/edge, and the route shop/orders with its own auth-token base.
// A definition on a route takes the place of the one on its Gateway, so the orders APIs have authentication
// and not the Gateway's rate limit; the catalog API has the Gateway's base.
func TestKustomizeBuildSecuredExample(t *testing.T) {
	items := parseStream(t, kustomizeBuild(t, "examples/secured"))

	const gateway = "shop/edge"
	orders := apiID("shop/orders", "/orders", gateway, "orders.shop.example.com")
	myOrders := apiID("shop/orders", "/my-orders", gateway, "orders.shop.example.com")
	catalog := apiID("shop/catalog", "/catalog", gateway, "www.shop.example.com")

	// Exactly the three APIs, and the base documents' ConfigMaps passed through for the cluster.
	var got []string
	for _, it := range items {
		if it.GetKind() == "ConfigMap" && it.GetLabels()["app.kubernetes.io/managed-by"] == "gateway2tyk" {
			got = append(got, it.GetNamespace()+"/"+it.GetName())
		}
	}
	want := []string{"shop/" + orders, "shop/" + myOrders, "shop/" + catalog}
	sort.Strings(got)
	sort.Strings(want)
	require.Equal(t, want, got, "API ConfigMaps (IDs from the contract's formula)")
	for _, base := range []string{"edge-defaults", "orders-auth"} {
		cm := find(items, "ConfigMap", "shop", base)
		require.NotNil(t, cm, "the base document ConfigMap shop/%s is in the output", base)
		assert.Contains(t, cm.GetDataMap(), "tyk-oas.json")
	}
	for _, gone := range []struct{ kind, ns, name string }{{"Secret", "tyk", "tyk-operator-conf"}, {"Service", "shop", "tyk-gateway"}} {
		assert.Nil(t, find(items, gone.kind, gone.ns, gone.name), "%s %s/%s is local-config", gone.kind, gone.ns, gone.name)
	}

	docs := map[string]securedDoc{}
	for _, id := range want {
		id := id[len("shop/"):]
		cm := find(items, "ConfigMap", "shop", id)
		raw := cm.GetDataMap()["tyk-oas.json"]
		require.NotEmpty(t, raw, "ConfigMap %s has no tyk-oas.json", id)
		tykoastest.Validate(t, []byte(raw))
		var d securedDoc
		require.NoError(t, json.Unmarshal([]byte(raw), &d), raw)
		assert.Equal(t, id, d.Info.Title, "info.title is the API ID, whatever the base says")
		assert.Equal(t, id, d.Tyk.Info.ID)
		docs[id] = d
	}

	// The orders APIs: the orders-auth base, and nothing of the Gateway's.
	for _, id := range []string{orders, myOrders} {
		d := docs[id]
		assert.Equal(t, "1.4.0", d.Info.Version, "%s: the base's info.version stays", id)
		auth := d.Tyk.Server.Authentication
		require.NotNil(t, auth, "%s: server.authentication", id)
		assert.True(t, auth.Enabled, "%s: authentication enabled", id)
		require.Contains(t, auth.SecuritySchemes, "authToken", id)
		tok := auth.SecuritySchemes["authToken"]
		assert.True(t, tok.Enabled, id)
		require.NotNil(t, tok.Header, id)
		assert.Equal(t, "Authorization", tok.Header.Name, id)
		require.NotNil(t, d.Components, "%s: components", id)
		assert.Equal(t, "apiKey", d.Components.SecuritySchemes["authToken"].Type, id)
		assert.Equal(t, []map[string][]string{{"authToken": {}}}, d.Security, id)
		assert.Nil(t, d.Tyk.Upstream.RateLimit, "%s: the route's own definition wins, so no Gateway rate limit", id)
		if d.Tyk.Middleware != nil {
			assert.Nil(t, d.Tyk.Middleware.Global, "%s: no Gateway traffic logs", id)
		}
		assert.Equal(t, "orders.shop.example.com", d.Tyk.Server.CustomDomain.Name, id)
	}
	assert.Equal(t, "http://orders.shop.svc.cluster.local:8080/orders", docs[orders].Tyk.Upstream.URL)
	assert.Nil(t, docs[orders].Tyk.Middleware, "the proxied /orders has no per-operation middleware")

	// The redirect works on the secured API: every method answers 301 without asking for the token, on "/" and
	// on the copies of the mocks for the paths below it ("-below").
	mw := docs[myOrders].Tyk.Middleware
	require.NotNil(t, mw)
	var methods []string
	for _, m := range []string{"delete", "get", "head", "options", "patch", "post", "put", "trace"} {
		methods = append(methods, m, m+"-below")
	}
	slices.Sort(methods)
	var ops []string
	for id := range mw.Operations {
		ops = append(ops, id)
	}
	slices.Sort(ops)
	assert.Equal(t, methods, ops)
	for _, m := range methods {
		op := mw.Operations[m]
		require.NotNil(t, op.MockResponse, "%s /my-orders", m)
		assert.Equal(t, 301, op.MockResponse.Code, "%s /my-orders", m)
		assert.Equal(t, []struct{ Name, Value string }{{"Location", "https://orders.shop.example.com/orders"}},
			op.MockResponse.Headers, "%s /my-orders", m)
		require.NotNil(t, op.IgnoreAuthentication, "%s /my-orders: a client following a redirect has no token", m)
		assert.True(t, op.IgnoreAuthentication.Enabled, "%s /my-orders", m)
	}

	// The catalog API: the Gateway's base only.
	c := docs[catalog]
	assert.Nil(t, c.Tyk.Server.Authentication, "catalog has no authentication")
	assert.Nil(t, c.Components, "catalog has no security schemes")
	assert.Empty(t, c.Security)
	require.NotNil(t, c.Tyk.Upstream.RateLimit, "catalog has the Gateway's rate limit")
	assert.True(t, c.Tyk.Upstream.RateLimit.Enabled)
	assert.Equal(t, float64(1000), c.Tyk.Upstream.RateLimit.Rate)
	assert.Equal(t, "1s", c.Tyk.Upstream.RateLimit.Per)
	require.NotNil(t, c.Tyk.Middleware)
	require.NotNil(t, c.Tyk.Middleware.Global)
	require.NotNil(t, c.Tyk.Middleware.Global.TrafficLogs, "catalog has the Gateway's traffic logs")
	assert.True(t, c.Tyk.Middleware.Global.TrafficLogs.Enabled)
	assert.Equal(t, []string{"X-Request-Id"}, c.Tyk.Middleware.Global.TrafficLogs.TagHeaders)
	assert.Equal(t, "/catalog", c.Tyk.Server.ListenPath.Value)
	assert.Equal(t, "http://catalog.shop.svc.cluster.local:80/catalog", c.Tyk.Upstream.URL)

	// The would-be status: both definitions attached, both routes accepted.
	for _, def := range []string{"edge-defaults", "orders-auth"} {
		var st struct {
			Conditions []condition `json:"conditions"`
		}
		statusAnnotation(t, items, "TykOasApiDefinition", "shop", def, &st)
		where := "TykOasApiDefinition shop/" + def
		checkCondition(t, where, st.Conditions, "Accepted", "True")
		for _, c := range st.Conditions {
			if c.Type == "Accepted" {
				assert.Equal(t, "Attached", c.Reason, "%s: %s", where, c.Message)
			}
		}
	}
	for _, route := range []string{"orders", "catalog"} {
		var st struct {
			Parents []struct {
				Conditions []condition `json:"conditions"`
			} `json:"parents"`
		}
		statusAnnotation(t, items, "HTTPRoute", "shop", route, &st)
		require.Len(t, st.Parents, 1, "HTTPRoute shop/%s", route)
		checkCondition(t, "HTTPRoute shop/"+route, st.Parents[0].Conditions, "Accepted", "True")
		checkCondition(t, "HTTPRoute shop/"+route, st.Parents[0].Conditions, "ResolvedRefs", "True")
	}
}

// statusAnnotation decodes the gateway2tyk.io/status annotation of an output object into v.
func statusAnnotation(t *testing.T, items []*yaml.RNode, kind, ns, name string, v any) {
	t.Helper()
	n := find(items, kind, ns, name)
	require.NotNil(t, n, "%s %s/%s is missing from the output", kind, ns, name)
	s, ok := n.GetAnnotations()["gateway2tyk.io/status"]
	require.True(t, ok, "%s %s/%s has no gateway2tyk.io/status annotation", kind, ns, name)
	require.NoError(t, json.Unmarshal([]byte(s), v), "%s %s/%s: %s", kind, ns, name, s)
}
