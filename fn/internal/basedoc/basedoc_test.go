package basedoc

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
	"github.com/gateway2tyk/gateway2tyk/fn/tykapi"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas/tykoastest"
)

// The tests build their inputs in the payments namespace: a Gateway edge, the routes payments and status, and
// TykOasApiDefinitions whose base documents live in ConfigMaps of the same name.

const ns = "payments"

// authDoc is a base that turns on an auth token read from the Authorization header, with the OpenAPI security
// scheme that describes it.
const authDoc = `{
  "openapi": "3.0.3",
  "info": {"title": "Payments", "version": "2.1.0"},
  "paths": {},
  "components": {"securitySchemes": {"authToken": {"type": "apiKey", "in": "header", "name": "Authorization"}}},
  "security": [{"authToken": []}],
  "x-tyk-api-gateway": {
    "server": {
      "authentication": {
        "enabled": true,
        "securitySchemes": {"authToken": {"enabled": true, "header": {"enabled": true, "name": "Authorization"}}}
      }
    }
  }
}`

// rateDoc is a Gateway-wide base: a rate limit and traffic logs, no authentication.
const rateDoc = `{
  "openapi": "3.0.3",
  "info": {"title": "Edge defaults", "version": "1.0.0"},
  "x-tyk-api-gateway": {
    "upstream": {"rateLimit": {"enabled": true, "rate": 500, "per": "1s"}},
    "middleware": {"global": {"trafficLogs": {"enabled": true}}}
  }
}`

func route(name string) *gwv1.HTTPRoute {
	return &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

func gateway(name string) *gwv1.Gateway {
	return &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

func toRoute(name string) tykapi.TargetRef {
	return tykapi.TargetRef{Group: gwv1.GroupName, Kind: inventory.KindHTTPRoute, Name: name}
}

func toGateway(name string) tykapi.TargetRef {
	return tykapi.TargetRef{Group: gwv1.GroupName, Kind: inventory.KindGateway, Name: name}
}

// definition is a TykOasApiDefinition whose base is key tyk-oas.json of the ConfigMap of its own name; a zero
// created leaves creationTimestamp unset, as in a file in git.
func definition(name string, created time.Time, targets ...tykapi.TargetRef) *tykapi.TykOasApiDefinition {
	d := &tykapi.TykOasApiDefinition{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if !created.IsZero() {
		d.CreationTimestamp = metav1.NewTime(created)
	}
	d.Spec.TargetRefs = targets
	d.Spec.TykOAS.ConfigmapRef = tykapi.ConfigMapRef{Name: name, KeyName: "tyk-oas.json"}
	return d
}

func configMap(name, doc string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"tyk-oas.json": doc}}
}

// resolve files the objects, plus the Gateway edge and the routes payments and status, and resolves.
func resolve(t *testing.T, objs ...any) *Result {
	t.Helper()
	inv := inventory.New()
	for _, o := range append([]any{gateway("edge"), route("payments"), route("status")}, objs...) {
		require.True(t, inv.Add(o), "duplicate test object %T", o)
	}
	inv.Seal()
	return Resolve(inv)
}

func byName(t *testing.T, res *Result, name string) *Definition {
	t.Helper()
	for _, d := range res.Definitions {
		if d.Def.Name == name {
			return d
		}
	}
	t.Fatalf("definition %s is not among the attached definitions", name)
	return nil
}

func requireAccepted(t *testing.T, d *Definition, status metav1.ConditionStatus, reason string) {
	t.Helper()
	require.Equal(t, "Accepted", d.Accepted.Type, "%s", d.Name())
	require.Equal(t, status, d.Accepted.Status, "%s: %s", d.Name(), d.Accepted.Message)
	require.Equal(t, reason, d.Accepted.Reason, "%s: %s", d.Name(), d.Accepted.Message)
}

var (
	march   = time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)
	january = time.Date(2025, 1, 15, 16, 30, 0, 0, time.UTC)
)

// TestResolvePrecedence: among definitions on one target, the oldest creationTimestamp wins, an unset one
// counting as the newest; at the same age namespace/name decides. The others are AttachmentConflict, naming
// the target and the winner.
func TestResolvePrecedence(t *testing.T) {
	for _, tc := range []struct {
		name             string
		alpha, beta      time.Time // created of definitions alpha-auth and beta-auth
		winner, loserMsg string
	}{
		{"older wins over name order", january, march, "beta-auth", "payments/beta-auth takes precedence"},
		{"older wins, name agrees", march, january, "alpha-auth", "payments/alpha-auth takes precedence"},
		{"same timestamp: name order", march, march, "alpha-auth", "payments/alpha-auth takes precedence"},
		{"both unset: name order", time.Time{}, time.Time{}, "alpha-auth", "payments/alpha-auth takes precedence"},
		{"unset counts as newest", time.Time{}, january, "beta-auth", "payments/beta-auth takes precedence"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := resolve(t,
				definition("alpha-auth", tc.alpha, toRoute("payments")), configMap("alpha-auth", authDoc),
				definition("beta-auth", tc.beta, toRoute("payments")), configMap("beta-auth", authDoc))
			got := res.For(route("payments"), gateway("edge"))
			require.NotNil(t, got)
			assert.Equal(t, tc.winner, got.Def.Name)

			requireAccepted(t, byName(t, res, tc.winner), metav1.ConditionTrue, ReasonAttached)
			assert.Equal(t, "applies to HTTPRoute payments/payments", byName(t, res, tc.winner).Accepted.Message)
			loser := "alpha-auth"
			if tc.winner == loser {
				loser = "beta-auth"
			}
			l := byName(t, res, loser)
			requireAccepted(t, l, metav1.ConditionFalse, ReasonAttachmentConflict)
			assert.Contains(t, l.Accepted.Message, "HTTPRoute payments/payments")
			assert.Contains(t, l.Accepted.Message, tc.loserMsg)
		})
	}
}

// TestOlderTieBreaksOnNamespaceThenName checks the comparison itself, namespace included (definitions on one
// target share a namespace, so Resolve never compares two namespaces).
func TestOlderTieBreaksOnNamespaceThenName(t *testing.T) {
	def := func(namespace, name string, created time.Time) *tykapi.TykOasApiDefinition {
		d := definition(name, created)
		d.Namespace = namespace
		return d
	}
	assert.True(t, inventory.Older(def("b", "b", march), def("a", "a", january)), "older timestamp first")
	assert.False(t, inventory.Older(def("a", "a", january), def("b", "b", march)))
	assert.True(t, inventory.Older(def("a", "z", march), def("b", "a", march)), "same age: namespace first")
	assert.True(t, inventory.Older(def("a", "a", march), def("a", "b", march)), "same namespace: name")
	assert.True(t, inventory.Older(def("z", "z", march), def("a", "a", time.Time{})), "unset is the newest")
	assert.False(t, inventory.Older(def("a", "a", time.Time{}), def("z", "z", march)))
	assert.True(t, inventory.Older(def("a", "a", time.Time{}), def("a", "b", time.Time{})), "both unset: name")
	assert.False(t, inventory.Older(def("a", "a", march), def("a", "a", march)), "not older than itself")
}

// TestResolveRouteBeatsGateway: the definition on the route applies to the route's APIs even when the one on
// its Gateway is older; the Gateway's applies to the Gateway's other routes. Bases are not combined.
func TestResolveRouteBeatsGateway(t *testing.T) {
	res := resolve(t,
		definition("edge-defaults", march, toGateway("edge")), configMap("edge-defaults", rateDoc),
		definition("payments-auth", january, toRoute("payments")), configMap("payments-auth", authDoc))
	assert.Equal(t, "payments-auth", res.For(route("payments"), gateway("edge")).Def.Name)
	assert.Equal(t, "edge-defaults", res.For(route("status"), gateway("edge")).Def.Name)
	assert.Nil(t, res.For(route("status"), gateway("internal")), "no definition on that Gateway")
	requireAccepted(t, byName(t, res, "edge-defaults"), metav1.ConditionTrue, ReasonAttached)
	requireAccepted(t, byName(t, res, "payments-auth"), metav1.ConditionTrue, ReasonAttached)
	assert.Nil(t, (*Result)(nil).For(route("payments"), gateway("edge")), "a nil result applies nothing")
}

// TestResolveConditions covers every row of the TykOasApiDefinition Conditions table that the render decides.
func TestResolveConditions(t *testing.T) {
	withRef := func(d *tykapi.TykOasApiDefinition, ref tykapi.ConfigMapRef) *tykapi.TykOasApiDefinition {
		d.Spec.TykOAS.ConfigmapRef = ref
		return d
	}
	for _, tc := range []struct {
		name    string
		objs    []any
		status  metav1.ConditionStatus
		reason  string
		message string // a part of the message
		field   string // Problem.Field, when the document is at fault
	}{
		{name: "attached to a route", status: metav1.ConditionTrue, reason: ReasonAttached,
			objs:    []any{definition("payments-auth", time.Time{}, toRoute("payments")), configMap("payments-auth", authDoc)},
			message: "applies to HTTPRoute payments/payments"},
		{name: "attached to a Gateway", status: metav1.ConditionTrue, reason: ReasonAttached,
			objs:    []any{definition("payments-auth", time.Time{}, toGateway("edge")), configMap("payments-auth", rateDoc)},
			message: "applies to Gateway payments/edge"},
		{name: "one target missing, one there", status: metav1.ConditionTrue, reason: ReasonAttached,
			objs: []any{definition("payments-auth", time.Time{}, toRoute("payment"), toRoute("payments")),
				configMap("payments-auth", authDoc)},
			message: "applies to HTTPRoute payments/payments"},
		{name: "target missing", status: metav1.ConditionFalse, reason: ReasonNotAttached,
			objs:    []any{definition("payments-auth", time.Time{}, toRoute("payment")), configMap("payments-auth", authDoc)},
			message: "no target of spec.targetRefs exists"},
		{name: "Gateway missing", status: metav1.ConditionFalse, reason: ReasonNotAttached,
			objs:    []any{definition("payments-auth", time.Time{}, toGateway("internal")), configMap("payments-auth", authDoc)},
			message: "no target of spec.targetRefs exists"},
		{name: "target a Service", status: metav1.ConditionFalse, reason: ReasonUnsupportedTarget,
			objs: []any{definition("payments-auth", time.Time{}, tykapi.TargetRef{Kind: "Service", Name: "payments"}),
				configMap("payments-auth", authDoc)},
			message: "spec.targetRefs[0] (Service)"},
		{name: "target an HTTPRoute without its group", status: metav1.ConditionFalse, reason: ReasonUnsupportedTarget,
			objs: []any{definition("payments-auth", time.Time{}, toRoute("payments"), tykapi.TargetRef{Kind: "HTTPRoute", Name: "status"}),
				configMap("payments-auth", authDoc)},
			message: "spec.targetRefs[1] (HTTPRoute)"},
		{name: "target a GRPCRoute", status: metav1.ConditionFalse, reason: ReasonUnsupportedTarget,
			objs: []any{definition("payments-auth", time.Time{}, tykapi.TargetRef{Group: gwv1.GroupName, Kind: "GRPCRoute", Name: "payments"}),
				configMap("payments-auth", authDoc)},
			message: "spec.targetRefs[0] (GRPCRoute.gateway.networking.k8s.io)"},
		{name: "ConfigMap missing", status: metav1.ConditionFalse, reason: ReasonBaseDocumentUnresolved,
			objs:    []any{definition("payments-auth", time.Time{}, toRoute("payments"))},
			message: "ConfigMap payments/payments-auth does not exist", field: "spec.tykOAS.configmapRef"},
		{name: "ConfigMap in another namespace missing", status: metav1.ConditionFalse, reason: ReasonBaseDocumentUnresolved,
			objs: []any{withRef(definition("payments-auth", time.Time{}, toRoute("payments")),
				tykapi.ConfigMapRef{Name: "payments-auth", Namespace: "platform", KeyName: "tyk-oas.json"}),
				configMap("payments-auth", authDoc)},
			message: "ConfigMap platform/payments-auth does not exist", field: "spec.tykOAS.configmapRef"},
		{name: "configmapRef without name", status: metav1.ConditionFalse, reason: ReasonDocumentInvalid,
			objs: []any{withRef(definition("payments-auth", time.Time{}, toRoute("payments")), tykapi.ConfigMapRef{KeyName: "tyk-oas.json"}),
				configMap("payments-auth", authDoc)},
			message: "spec.tykOAS.configmapRef.name is required", field: "spec.tykOAS.configmapRef.name"},
		{name: "configmapRef without keyName", status: metav1.ConditionFalse, reason: ReasonDocumentInvalid,
			objs: []any{withRef(definition("payments-auth", time.Time{}, toRoute("payments")), tykapi.ConfigMapRef{Name: "payments-auth"}),
				configMap("payments-auth", authDoc)},
			message: "spec.tykOAS.configmapRef.keyName is required", field: "spec.tykOAS.configmapRef.keyName"},
		{name: "key missing", status: metav1.ConditionFalse, reason: ReasonDocumentInvalid,
			objs: []any{withRef(definition("payments-auth", time.Time{}, toRoute("payments")),
				tykapi.ConfigMapRef{Name: "payments-auth", KeyName: "oas.json"}), configMap("payments-auth", authDoc)},
			message: `ConfigMap payments/payments-auth has no key "oas.json"`, field: "spec.tykOAS.configmapRef.keyName"},
		{name: "not JSON", status: metav1.ConditionFalse, reason: ReasonDocumentInvalid,
			objs: []any{definition("payments-auth", time.Time{}, toRoute("payments")),
				configMap("payments-auth", "openapi: 3.0.3\n")},
			message: "is not a JSON object", field: "spec.tykOAS.configmapRef.keyName"},
		{name: "no x-tyk-api-gateway", status: metav1.ConditionFalse, reason: ReasonDocumentInvalid,
			objs: []any{definition("payments-auth", time.Time{}, toRoute("payments")),
				configMap("payments-auth", `{"openapi": "3.0.3", "info": {"title": "Payments", "version": "1"}, "paths": {}}`)},
			message: "has no x-tyk-api-gateway object", field: "x-tyk-api-gateway"},
		{name: "x-tyk-api-gateway not an object", status: metav1.ConditionFalse, reason: ReasonDocumentInvalid,
			objs: []any{definition("payments-auth", time.Time{}, toRoute("payments")),
				configMap("payments-auth", `{"openapi": "3.0.3", "x-tyk-api-gateway": true}`)},
			message: "has no x-tyk-api-gateway object", field: "x-tyk-api-gateway"},
		{name: "sets the listen path", status: metav1.ConditionFalse, reason: ReasonDocumentInvalid,
			objs: []any{definition("payments-auth", time.Time{}, toRoute("payments")),
				configMap("payments-auth", `{"x-tyk-api-gateway": {"server": {"listenPath": {"value": "/payments/"}}}}`)},
			message: "sets x-tyk-api-gateway.server.listenPath, which the route decides", field: "x-tyk-api-gateway.server.listenPath"},
		{name: "sets the upstream URL", status: metav1.ConditionFalse, reason: ReasonDocumentInvalid,
			objs: []any{definition("payments-auth", time.Time{}, toGateway("edge")),
				configMap("payments-auth", `{"x-tyk-api-gateway": {"upstream": {"url": "http://orders:8080"}}}`)},
			message: "sets x-tyk-api-gateway.upstream.url, which the route decides", field: "x-tyk-api-gateway.upstream.url"},
		{name: "a broken base that also targets nothing reports the base", status: metav1.ConditionFalse, reason: ReasonBaseDocumentUnresolved,
			objs:    []any{definition("payments-auth", time.Time{}, toRoute("payment"))},
			message: "ConfigMap payments/payments-auth does not exist", field: "spec.tykOAS.configmapRef"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := resolve(t, tc.objs...)
			require.Len(t, res.Definitions, 1)
			d := res.Definitions[0]
			requireAccepted(t, d, tc.status, tc.reason)
			assert.Contains(t, d.Accepted.Message, tc.message)
			if tc.field == "" {
				assert.Nil(t, d.Problem)
			} else {
				require.NotNil(t, d.Problem)
				assert.Equal(t, tc.field, d.Problem.Field)
				assert.Equal(t, tc.reason, d.Problem.Reason)
			}
		})
	}
}

// TestResolveBrokenWinnerStillWins: a broken definition competes like any other, so the route fails closed on
// it rather than quietly taking a newer definition's base: precedence does not depend on the ConfigMap.
func TestResolveBrokenWinnerStillWins(t *testing.T) {
	res := resolve(t,
		definition("payments-auth", march, toRoute("payments")), // its ConfigMap is missing
		definition("api-key-auth", january, toRoute("payments")), configMap("api-key-auth", authDoc))
	got := res.For(route("payments"), gateway("edge"))
	require.NotNil(t, got)
	assert.Equal(t, "payments-auth", got.Def.Name)
	require.NotNil(t, got.Problem)
	assert.Equal(t, ReasonBaseDocumentUnresolved, got.Problem.Reason)
	requireAccepted(t, byName(t, res, "api-key-auth"), metav1.ConditionFalse, ReasonAttachmentConflict)
}

// TestResolveUnsupportedCompetesForNothing: a definition rejected as UnsupportedTarget does not take a target
// from a valid one, even when it is older.
func TestResolveUnsupportedCompetesForNothing(t *testing.T) {
	res := resolve(t,
		definition("alpha-auth", march, toRoute("payments"), tykapi.TargetRef{Kind: "Service", Name: "payments"}),
		configMap("alpha-auth", authDoc),
		definition("beta-auth", january, toRoute("payments")), configMap("beta-auth", authDoc))
	assert.Equal(t, "beta-auth", res.For(route("payments"), gateway("edge")).Def.Name)
	requireAccepted(t, byName(t, res, "alpha-auth"), metav1.ConditionFalse, ReasonUnsupportedTarget)
	requireAccepted(t, byName(t, res, "beta-auth"), metav1.ConditionTrue, ReasonAttached)
}

// TestResolvePartlyWon: a definition that wins one target and loses another is Attached, and says where it
// does not apply and why.
func TestResolvePartlyWon(t *testing.T) {
	res := resolve(t,
		definition("alpha-auth", march, toRoute("payments")), configMap("alpha-auth", authDoc),
		definition("beta-auth", january, toRoute("payments"), toRoute("status")), configMap("beta-auth", authDoc))
	b := byName(t, res, "beta-auth")
	requireAccepted(t, b, metav1.ConditionTrue, ReasonAttached)
	assert.Equal(t, "applies to HTTPRoute payments/status; not to HTTPRoute payments/payments "+
		"(definition payments/alpha-auth takes precedence)", b.Accepted.Message)
}

// TestResolveSameTargetTwice: a target listed twice is one target; the definition does not lose it to itself.
func TestResolveSameTargetTwice(t *testing.T) {
	res := resolve(t, definition("payments-auth", time.Time{}, toRoute("payments"), toRoute("payments")),
		configMap("payments-auth", authDoc))
	d := byName(t, res, "payments-auth")
	requireAccepted(t, d, metav1.ConditionTrue, ReasonAttached)
	assert.Equal(t, "applies to HTTPRoute payments/payments", d.Accepted.Message)
}

// TestResolveSkipsPlainDefinitions: a TykOasApiDefinition without targetRefs is Tyk Operator's own API, not
// an attachment: it gets no condition from the render.
func TestResolveSkipsPlainDefinitions(t *testing.T) {
	res := resolve(t, definition("payments-api", time.Time{}), configMap("payments-api", authDoc))
	assert.Empty(t, res.Definitions)
	assert.Nil(t, res.For(route("payments"), gateway("edge")))
}

// TestResolveConfigMapNamespace: configmapRef.namespace names the ConfigMap's namespace; without it, the
// definition's own.
func TestResolveConfigMapNamespace(t *testing.T) {
	def := definition("payments-auth", time.Time{}, toRoute("payments"))
	def.Spec.TykOAS.ConfigmapRef.Namespace = "platform"
	shared := configMap("payments-auth", rateDoc)
	shared.Namespace = "platform"
	res := resolve(t, def, shared, configMap("payments-auth", authDoc))
	d := byName(t, res, "payments-auth")
	require.Nil(t, d.Problem)
	_, hasAuth := lookup(d.tree, []string{extensionKey, "server", "authentication"})
	assert.False(t, hasAuth, "the base is platform/payments-auth, not payments/payments-auth")
}

// TestOwnedFields: each setting of the reference's API Configuration table that is in x-tyk-api-gateway is
// the route's, and named when a base sets it; everything else is the base's to set.
func TestOwnedFields(t *testing.T) {
	for _, tc := range []struct{ doc, field string }{
		{`{"info": {"id": "payments"}}`, "x-tyk-api-gateway.info.id"},
		{`{"info": {"name": "Payments"}}`, "x-tyk-api-gateway.info.name"},
		{`{"info": {"state": {"active": false}}}`, "x-tyk-api-gateway.info.state.active"},
		{`{"server": {"listenPath": {"value": "/payments/", "strip": true}}}`, "x-tyk-api-gateway.server.listenPath"},
		{`{"server": {"customDomain": {"enabled": true, "name": "pay.example.com"}}}`, "x-tyk-api-gateway.server.customDomain"},
		{`{"server": {"gatewayTags": {"enabled": true, "tags": ["edge"]}}}`, "x-tyk-api-gateway.server.gatewayTags"},
		{`{"upstream": {"url": "http://payments:8080"}}`, "x-tyk-api-gateway.upstream.url"},
		{`{"upstream": {"loadBalancing": {"enabled": true, "targets": []}}}`, "x-tyk-api-gateway.upstream.loadBalancing"},
		{`{"upstream": {"preserveHostHeader": {"enabled": false}}}`, "x-tyk-api-gateway.upstream.preserveHostHeader"},
	} {
		t.Run(tc.field, func(t *testing.T) {
			tree, err := tykoas.ParseTree([]byte(`{"x-tyk-api-gateway": ` + tc.doc + `}`))
			require.NoError(t, err)
			assert.Equal(t, []string{tc.field}, ownedFields(tree))
		})
	}

	t.Run("several, in table order", func(t *testing.T) {
		tree, err := tykoas.ParseTree([]byte(`{"x-tyk-api-gateway": {"upstream": {"url": "http://a"},
			"server": {"listenPath": {"value": "/a"}}, "info": {"name": "a"}}}`))
		require.NoError(t, err)
		assert.Equal(t, []string{"x-tyk-api-gateway.info.name", "x-tyk-api-gateway.server.listenPath",
			"x-tyk-api-gateway.upstream.url"}, ownedFields(tree))
	})

	t.Run("the base's settings", func(t *testing.T) {
		tree, err := tykoas.ParseTree([]byte(`{
		  "openapi": "3.0.3",
		  "info": {"title": "Payments", "version": "2.1.0"},
		  "components": {"securitySchemes": {"authToken": {"type": "apiKey", "in": "header", "name": "Authorization"}}},
		  "security": [{"authToken": []}],
		  "x-tyk-api-gateway": {
		    "info": {"state": {"internal": false}},
		    "server": {"authentication": {"enabled": true}, "detailedActivityLogs": {"enabled": true}},
		    "upstream": {"rateLimit": {"enabled": true, "rate": 10, "per": "1s"}},
		    "middleware": {"global": {"cors": {"enabled": true}, "trafficLogs": {"enabled": true}}}
		  }
		}`))
		require.NoError(t, err)
		assert.Empty(t, ownedFields(tree), "info.title/version are OpenAPI's, set or kept by the merge; the rest is the base's")
	})
}

// routeDoc is the API a route makes for /v1/payments on pay.example.com: GET proxied with a request header,
// POST and PUT redirected (302, 308), every other method answering 404.
func routeDoc(id string) *tykoas.Document {
	d := tykoas.NewDocument(id)
	d.Tyk.Server.ListenPath = tykoas.ListenPath{Value: "/v1/payments", Strip: true}
	d.Tyk.Server.CustomDomain = &tykoas.CustomDomain{Enabled: true, Name: "pay.example.com"}
	d.Tyk.Server.GatewayTags = &tykoas.GatewayTags{Enabled: true, Tags: []string{"payments"}}
	d.Tyk.Upstream = tykoas.Upstream{URL: "http://payments.payments.svc.cluster.local:8080/v1/payments",
		PreserveHostHeader: &tykoas.PreserveHostHeader{Enabled: true}}
	ops := map[string]tykoas.Operation{}
	for _, m := range []string{"get", "post", "put", "delete", "patch"} {
		d.AddOperation("/", m, m)
	}
	ops["get"] = tykoas.Operation{TransformRequestHeaders: &tykoas.TransformHeaders{Enabled: true,
		Add: []tykoas.Header{{Name: "X-Gateway", Value: "tyk-payments"}}}}
	location := []tykoas.Header{{Name: "Location", Value: "https://checkout.example.com/start"}}
	ops["post"] = tykoas.Operation{MockResponse: &tykoas.MockResponse{Enabled: true, Code: 302, Headers: location}}
	ops["put"] = tykoas.Operation{MockResponse: &tykoas.MockResponse{Enabled: true, Code: 308, Headers: location}}
	for _, m := range []string{"delete", "patch"} {
		ops[m] = tykoas.Operation{MockResponse: &tykoas.MockResponse{Enabled: true, Code: 404, Body: `{"error":"no rule"}`}}
	}
	d.Tyk.Middleware = &tykoas.Middleware{Operations: ops}
	return d
}

// plainGetRouteDoc is a route's API with an operation for GET and no middleware of its own (a route that
// matches GET and lets no other method through would have 404 mocks too; these are left out here).
func plainGetRouteDoc(id string) *tykoas.Document {
	d := plainRouteDoc(id)
	d.AddOperation("/", "GET", "get")
	return d
}

// headersOnlyRouteDoc is a route's API whose only operation changes headers: Tyk matches that the classic way,
// whatever paths the base describes.
func headersOnlyRouteDoc(id string) *tykoas.Document {
	d := routeDoc(id)
	d.Tyk.Middleware.Operations = map[string]tykoas.Operation{"get": d.Tyk.Middleware.Operations["get"]}
	return d
}

// plainRouteDoc is a route's API that proxies every method, with no operations and no middleware.
func plainRouteDoc(id string) *tykoas.Document {
	d := routeDoc(id)
	d.OpenAPI.Paths = openapi3.NewPaths()
	d.Tyk.Middleware = nil
	return d
}

// attached resolves one definition on the route payments with the given base document, which must be usable.
func attached(t *testing.T, doc string) *Definition {
	t.Helper()
	res := resolve(t, definition("payments-auth", time.Time{}, toRoute("payments")), configMap("payments-auth", doc))
	d := res.For(route("payments"), gateway("edge"))
	require.NotNil(t, d)
	require.Nil(t, d.Problem, "%+v", d.Problem)
	return d
}

// withDoc returns a base document changed by edit.
func withDoc(t *testing.T, base string, edit func(doc map[string]any)) string {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(base), &doc))
	edit(doc)
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	return string(b)
}

func xOf(doc map[string]any) map[string]any { return doc[extensionKey].(map[string]any) }

func TestConflicts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(doc map[string]any)
		route *tykoas.Document
		want  []string
	}{
		{name: "no paths, no operations", edit: func(map[string]any) {}, route: routeDoc("gwapi-1")},
		// The route answers DELETE and PATCH with 404 and POST and PUT with redirects on every path; on a path
		// the base describes, Tyk's OpenAPI router would find the base's operation (or none) instead.
		{name: "a path of its own", route: routeDoc("gwapi-1"), edit: func(doc map[string]any) {
			doc["paths"] = map[string]any{"/refunds": map[string]any{"post": map[string]any{"operationId": "createRefund"}}}
		}, want: []string{"the base document describes POST /refunds, where Tyk would then not give the answers of the " +
			"route's own operations (its 404s and redirects cover every path)"}},
		{name: "a method the route's path lacks", route: routeDoc("gwapi-1"), edit: func(doc map[string]any) {
			doc["paths"] = map[string]any{"/": map[string]any{"options": map[string]any{"operationId": "preflight"}}}
		}, want: []string{"the base document describes OPTIONS /, where Tyk would then not give the answers of the " +
			"route's own operations (its 404s and redirects cover every path)"}},
		{name: "the route's GET /", route: routeDoc("gwapi-1"), edit: func(doc map[string]any) {
			doc["paths"] = map[string]any{"/": map[string]any{"get": map[string]any{"operationId": "listPayments"}}}
		}, want: []string{"the base document describes GET /, where Tyk would then not give the answers of the " +
			"route's own operations (its 404s and redirects cover every path)"}},
		{name: "a path of its own beside a route that only changes headers", route: headersOnlyRouteDoc("gwapi-1"),
			edit: func(doc map[string]any) {
				doc["paths"] = map[string]any{"/refunds": map[string]any{"post": map[string]any{"operationId": "createRefund"}}}
			}},
		// The merge would put the route's GET / in place of the base's, whose middleware would then name nothing.
		{name: "the route's GET / beside a route that only changes headers", route: headersOnlyRouteDoc("gwapi-1"),
			edit: func(doc map[string]any) {
				doc["paths"] = map[string]any{"/": map[string]any{"get": map[string]any{"operationId": "listPayments"}}}
			}, want: []string{"the base document describes GET /, which the route's API also serves"}},
		{name: "operations on / of a route that proxies everything", route: plainRouteDoc("gwapi-1"), edit: func(doc map[string]any) {
			doc["paths"] = map[string]any{"/": map[string]any{"get": map[string]any{"operationId": "listPayments"}}}
		}},
		{name: "middleware for the route's get", route: routeDoc("gwapi-1"), edit: func(doc map[string]any) {
			xOf(doc)["middleware"] = map[string]any{"operations": map[string]any{"get": map[string]any{
				"rateLimit": map[string]any{"enabled": true, "rate": 10, "per": "1s"}}}}
		}, want: []string{`the base document configures middleware for operation "get", which the route's API uses`}},
		{name: "classic middleware for an operation the route serves plainly", route: plainGetRouteDoc("gwapi-1"),
			edit: func(doc map[string]any) {
				xOf(doc)["middleware"] = map[string]any{"operations": map[string]any{"get": map[string]any{
					"transformRequestHeaders": map[string]any{"enabled": true}}}}
			}},
		{name: "router middleware for an operation the route serves plainly", route: plainGetRouteDoc("gwapi-1"),
			edit: func(doc map[string]any) {
				xOf(doc)["middleware"] = map[string]any{"operations": map[string]any{"get": map[string]any{
					"validateRequest": map[string]any{"enabled": true}}}}
			}, want: []string{`the base document configures validateRequest for operation "get" of the route's API: ` +
				`Tyk finds validateRequest through its OpenAPI router, which reaches that operation (path /) on the ` +
				`listen path followed by "/" only, not on every path under it`}},
		{name: "middleware for a 404 mock of the route", route: routeDoc("gwapi-1"), edit: func(doc map[string]any) {
			xOf(doc)["middleware"] = map[string]any{"operations": map[string]any{"delete": map[string]any{}}}
		}, want: []string{`the base document configures middleware for operation "delete", which the route's API uses`}},
		{name: "middleware for an operation neither side has", route: plainRouteDoc("gwapi-1"), edit: func(doc map[string]any) {
			xOf(doc)["middleware"] = map[string]any{"operations": map[string]any{"get": map[string]any{}}}
		}, want: []string{`the base document configures middleware for operation "get", which neither it nor the route's API has, so Tyk would ignore it`}},
		{name: "middleware for an operation of the base's own paths", route: plainRouteDoc("gwapi-1"), edit: func(doc map[string]any) {
			doc["paths"] = map[string]any{"/health": map[string]any{"get": map[string]any{"operationId": "health"}}}
			xOf(doc)["middleware"] = map[string]any{"operations": map[string]any{"health": map[string]any{}}}
		}},
		{name: "global middleware", route: routeDoc("gwapi-1"), edit: func(doc map[string]any) {
			xOf(doc)["middleware"] = map[string]any{"global": map[string]any{"trafficLogs": map[string]any{"enabled": true}}}
		}},
		{name: "both kinds, sorted", route: routeDoc("gwapi-1"), edit: func(doc map[string]any) {
			doc["paths"] = map[string]any{"/": map[string]any{"post": map[string]any{}, "get": map[string]any{}}}
			xOf(doc)["middleware"] = map[string]any{"operations": map[string]any{"put": map[string]any{}}}
		}, want: []string{
			"the base document configures middleware for operation \"put\", which the route's API uses",
			"the base document describes GET /, where Tyk would then not give the answers of the route's own " +
				"operations (its 404s and redirects cover every path)",
			"the base document describes POST /, where Tyk would then not give the answers of the route's own " +
				"operations (its 404s and redirects cover every path)",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := attached(t, withDoc(t, authDoc, tc.edit))
			assert.Equal(t, tc.want, d.Conflicts(tc.route))
		})
	}
}

// merged merges and decodes, checking that the result is a definition Tyk loads.
func merged(t *testing.T, d *Definition, route *tykoas.Document) map[string]any {
	t.Helper()
	raw, err := d.Merge(route)
	require.NoError(t, err)
	tykoastest.Validate(t, raw)
	doc, err := tykoas.ParseTree(raw)
	require.NoError(t, err)
	return doc
}

func at(t *testing.T, doc map[string]any, path string) any {
	t.Helper()
	v, ok := lookup(doc, strings.Split(path, "."))
	require.True(t, ok, "%s is missing", path)
	return v
}

func has(doc map[string]any, path string) bool {
	_, ok := lookup(doc, strings.Split(path, "."))
	return ok
}

// TestMergeRouteSettingsWin: the route's settings and operations are laid over the base; the base's other
// keys stay; OpenAPI's info.title is the API ID.
func TestMergeRouteSettingsWin(t *testing.T) {
	base := withDoc(t, authDoc, func(doc map[string]any) {
		doc["info"].(map[string]any)["description"] = "Payments of the shop"
		doc["paths"] = map[string]any{"/refunds": map[string]any{"post": map[string]any{"operationId": "createRefund",
			"responses": map[string]any{"201": map[string]any{"description": "Created"}}}}}
		x := xOf(doc)
		x["info"] = map[string]any{"state": map[string]any{"internal": false}}
		x["upstream"] = map[string]any{"rateLimit": map[string]any{"enabled": true, "rate": 100, "per": "1s"}}
		x["middleware"] = map[string]any{
			"global":     map[string]any{"trafficLogs": map[string]any{"enabled": true}},
			"operations": map[string]any{"createRefund": map[string]any{"rateLimit": map[string]any{"enabled": true, "rate": 1, "per": "1s"}}},
		}
	})
	d := attached(t, base)
	doc := merged(t, d, routeDoc("gwapi-0123456789abcdef0123"))
	x := doc[extensionKey].(map[string]any)

	// The route's.
	assert.Equal(t, "gwapi-0123456789abcdef0123", at(t, doc, "info.title"), "info.title is the API ID")
	assert.Equal(t, "gwapi-0123456789abcdef0123", at(t, x, "info.id"))
	assert.Equal(t, "gwapi-0123456789abcdef0123", at(t, x, "info.name"))
	assert.Equal(t, true, at(t, x, "info.state.active"))
	assert.Equal(t, "/v1/payments", at(t, x, "server.listenPath.value"))
	assert.Equal(t, "pay.example.com", at(t, x, "server.customDomain.name"))
	assert.Equal(t, []any{"payments"}, at(t, x, "server.gatewayTags.tags"))
	assert.Equal(t, "http://payments.payments.svc.cluster.local:8080/v1/payments", at(t, x, "upstream.url"))
	assert.Equal(t, true, at(t, x, "upstream.preserveHostHeader.enabled"))
	assert.Equal(t, "get", at(t, doc, "paths./.get.operationId"))
	assert.Equal(t, true, at(t, x, "middleware.operations.get.transformRequestHeaders.enabled"))

	// The base's.
	assert.Equal(t, "2.1.0", at(t, doc, "info.version"))
	assert.Equal(t, "Payments of the shop", at(t, doc, "info.description"))
	assert.Equal(t, "3.0.3", at(t, doc, "openapi"))
	assert.Equal(t, "apiKey", at(t, doc, "components.securitySchemes.authToken.type"))
	assert.Equal(t, []any{map[string]any{"authToken": []any{}}}, doc["security"])
	assert.Equal(t, true, at(t, x, "server.authentication.enabled"))
	assert.Equal(t, "Authorization", at(t, x, "server.authentication.securitySchemes.authToken.header.name"))
	assert.Equal(t, json.Number("100"), at(t, x, "upstream.rateLimit.rate"))
	assert.Equal(t, true, at(t, x, "middleware.global.trafficLogs.enabled"))
	assert.Equal(t, "createRefund", at(t, doc, "paths./refunds.post.operationId"))
	assert.Equal(t, true, at(t, x, "middleware.operations.createRefund.rateLimit.enabled"))
	assert.Equal(t, false, at(t, x, "info.state.internal"), "the base's info.state keys stay beside the route's active")
}

// TestMergeFillsWhatTheBaseLeavesOut: a base with only x-tyk-api-gateway still makes a whole OpenAPI document.
func TestMergeFillsWhatTheBaseLeavesOut(t *testing.T) {
	d := attached(t, `{"x-tyk-api-gateway": {"upstream": {"rateLimit": {"enabled": true, "rate": 5, "per": "1s"}}}}`)
	doc := merged(t, d, routeDoc("gwapi-1"))
	assert.Equal(t, "3.0.3", at(t, doc, "openapi"))
	assert.Equal(t, "gwapi-1", at(t, doc, "info.title"))
	assert.Equal(t, "1.0.0", at(t, doc, "info.version"))
	assert.Equal(t, json.Number("5"), at(t, doc, extensionKey+".upstream.rateLimit.rate"))

	doc = merged(t, d, plainRouteDoc("gwapi-2"))
	assert.Empty(t, doc["paths"])
	assert.False(t, has(doc, extensionKey+".middleware"), "no middleware from either side")
}

// TestMergeIgnoreAuthentication: redirects (3xx mock responses, answered by Tyk itself) skip authentication
// when the base turns it on; nothing else does, and without authentication nothing is added.
func TestMergeIgnoreAuthentication(t *testing.T) {
	for _, tc := range []struct {
		name   string
		base   string
		ignore []string // operations with ignoreAuthentication
	}{
		{"authentication on", authDoc, []string{"post", "put"}},
		{"authentication off", withDoc(t, authDoc, func(doc map[string]any) {
			xOf(doc)["server"].(map[string]any)["authentication"].(map[string]any)["enabled"] = false
		}), nil},
		{"no authentication", rateDoc, nil},
		{"a redirect of the base's own", withDoc(t, authDoc, func(doc map[string]any) {
			doc["paths"] = map[string]any{"/docs": map[string]any{"get": map[string]any{"operationId": "docs",
				"responses": map[string]any{"301": map[string]any{"description": "Moved"}}}}}
			xOf(doc)["middleware"] = map[string]any{"operations": map[string]any{"docs": map[string]any{"mockResponse": map[string]any{
				"enabled": true, "code": 301, "headers": []any{map[string]any{"name": "Location", "value": "https://docs.example.com/"}}}}}}
		}), []string{"docs", "post", "put"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := merged(t, attached(t, tc.base), routeDoc("gwapi-1"))
			ops := at(t, doc, extensionKey+".middleware.operations").(map[string]any)
			var got []string
			for id, op := range ops {
				if v, ok := lookup(op.(map[string]any), []string{"ignoreAuthentication"}); ok {
					assert.Equal(t, map[string]any{"enabled": true}, v, "operation %s", id)
					got = append(got, id)
				}
			}
			assert.ElementsMatch(t, tc.ignore, got)
			assert.True(t, has(ops, "get.transformRequestHeaders"), "the proxied operation keeps its middleware")
			assert.True(t, has(ops, "delete.mockResponse"), "the 404 keeps its mock")
		})
	}
}

// TestMergeLeavesTheBaseAlone: one base serves many APIs; merging one must not leak into the next.
func TestMergeLeavesTheBaseAlone(t *testing.T) {
	d := attached(t, authDoc)
	first := merged(t, d, routeDoc("gwapi-1"))
	second := merged(t, d, plainRouteDoc("gwapi-2"))
	assert.Equal(t, "gwapi-1", at(t, first, "info.title"))
	assert.Equal(t, "gwapi-2", at(t, second, "info.title"))
	assert.Empty(t, second["paths"], "the first route's operations stay in the first API")
	assert.False(t, has(second, extensionKey+".middleware"))
	assert.False(t, has(d.tree, extensionKey+".info"), "the base tree is not written to")
}

// TestMergedDocumentsAreValidTykOAS merges realistic bases over both kinds of route API and validates each
// result with Tyk's schema.
func TestMergedDocumentsAreValidTykOAS(t *testing.T) {
	corsAndCache := `{
	  "openapi": "3.0.3",
	  "info": {"title": "Shop", "version": "3.0.0"},
	  "x-tyk-api-gateway": {
	    "server": {"detailedActivityLogs": {"enabled": true}},
	    "middleware": {"global": {
	      "cors": {"enabled": true, "allowedOrigins": ["https://www.shop.example.com"], "allowedMethods": ["GET", "POST"]},
	      "cache": {"enabled": true, "timeout": 60},
	      "trafficLogs": {"enabled": true}
	    }}
	  }
	}`
	for name, base := range map[string]string{"auth token": authDoc, "rate limit": rateDoc, "cors and cache": corsAndCache} {
		d := attached(t, base)
		for _, r := range []*tykoas.Document{routeDoc("gwapi-1"), plainRouteDoc("gwapi-2")} {
			t.Run(name+"/"+r.OpenAPI.Info.Title, func(t *testing.T) {
				merged(t, d, r)
			})
		}
	}
}

func TestResolveRefusesAnOpenAPIVersionTykDoesNotLoad(t *testing.T) {
	doc := `{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}, "x-tyk-api-gateway": {}}`
	res := resolve(t, definition("payments-auth", time.Time{}, toRoute("payments")), configMap("payments-auth", doc))
	d := byName(t, res, "payments-auth")
	requireAccepted(t, d, metav1.ConditionFalse, ReasonDocumentInvalid)
	require.NotNil(t, d.Problem)
	assert.Equal(t, "openapi", d.Problem.Field)
	assert.Contains(t, d.Problem.Message, "OpenAPI 3.1.0; Tyk OAS APIs are OpenAPI 3.0")
}
