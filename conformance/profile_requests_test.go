package conformance

import (
	"net/http"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/translate"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// loops is the note of a request a router passes to one of its internal APIs.
const loops = "loops the request to API"

// gatewayAPIRequestTables are the request tables that differ on the gateway-api profile, where every Gateway of
// the suite is served by the one data plane of the GatewayClass's OperatorContext.
var gatewayAPIRequestTables = []requestTable{
	{
		// The suite's table as it is: the gateway-api profile serves add (translate's appends.go), so no rule is
		// dropped, and each added header is appended to the request's value or written alone.
		ShortName: "HTTPRouteRequestHeaderModifier",
		Source:    "tests/httproute-request-header-modifier.go",
		Manifests: []string{"tests/httproute-request-header-modifier.yaml"},
		Gateway:   nsName(infraNamespace, "same-namespace"),
		Status: func(t *testing.T, w *world) {
			routeNN, gwNN := nsName(infraNamespace, "request-header-modifier"), nsName(infraNamespace, "same-namespace")
			httpRouteMustHaveCondition(t, w, routeNN, gwNN, cond("Accepted", condTrue, "Accepted"))
			st, _ := w.routeStatus(t, routeNN)
			for _, p := range st.Parents {
				for _, c := range p.Conditions {
					if c.Type == "PartiallyInvalid" && c.Status == "True" {
						t.Errorf("HTTPRoute %s: no rule is dropped, got PartiallyInvalid %q", routeNN, c.Message)
					}
				}
			}
		},
		Cases: []requestCase{
			{name: "0 request to '/set' with headers should go to infra-backend-v1", path: "/set",
				headers: map[string]string{"Some-Other-Header": "val"},
				want: withHeaders(backend("infra-backend-v1", infraNamespace),
					map[string]string{"Some-Other-Header": "val", "X-Header-Set": "set-overwrites-values"})},
			{name: "1 request to '/set' with headers should go to infra-backend-v1", path: "/set",
				headers: map[string]string{"Some-Other-Header": "val", "X-Header-Set": "some-other-value"},
				want: withHeaders(backend("infra-backend-v1", infraNamespace),
					map[string]string{"Some-Other-Header": "val", "X-Header-Set": "set-overwrites-values"})},
			{name: "2 request to '/add' with headers should go to infra-backend-v1", path: "/add",
				headers: map[string]string{"Some-Other-Header": "val"},
				want: withHeaders(backend("infra-backend-v1", infraNamespace),
					map[string]string{"Some-Other-Header": "val", "X-Header-Add": "add-appends-values"}).noting(loops)},
			{name: "3 request to '/add' with headers should go to infra-backend-v1", path: "/add",
				headers: map[string]string{"Some-Other-Header": "val", "X-Header-Add": "some-other-value"},
				want: withHeaders(backend("infra-backend-v1", infraNamespace),
					map[string]string{"Some-Other-Header": "val", "X-Header-Add": "some-other-value,add-appends-values"}).noting(loops)},
			{name: "4 request to '/remove' with headers should go to infra-backend-v1", path: "/remove",
				headers: map[string]string{"X-Header-Remove": "val"},
				want:    expectation{backend: "infra-backend-v1", namespace: infraNamespace, absent: []string{"X-Header-Remove"}}},
			{name: "5 request to '/multiple' with headers should go to infra-backend-v1", path: "/multiple",
				headers: map[string]string{"X-Header-Set-2": "set-val-2", "X-Header-Add-2": "add-val-2",
					"X-Header-Remove-2": "remove-val-2", "Another-Header": "another-header-val"},
				want: expectation{backend: "infra-backend-v1", namespace: infraNamespace,
					headers: map[string]string{"X-Header-Set-1": "header-set-1", "X-Header-Set-2": "header-set-2",
						"X-Header-Add-1": "header-add-1", "X-Header-Add-2": "add-val-2,header-add-2",
						"X-Header-Add-3": "header-add-3", "Another-Header": "another-header-val"},
					absent: []string{"X-Header-Remove-1", "X-Header-Remove-2"}}.noting(loops)},
			{name: "6 request to '/case-insensitivity' with headers should go to infra-backend-v1", path: "/case-insensitivity",
				headers: map[string]string{"x-header-set": "original-val-set", "x-header-add": "original-val-add",
					"x-header-remove": "original-val-remove", "Another-Header": "another-header-val"},
				want: expectation{backend: "infra-backend-v1", namespace: infraNamespace,
					headers: map[string]string{"X-Header-Set": "header-set", "X-Header-Add": "original-val-add,header-add",
						"Another-Header": "another-header-val"},
					absent: []string{"x-header-remove", "X-Header-Remove"}}.noting(loops)},
		},
	},
	{
		ShortName: "HTTPRouteMultipleGateways",
		Source:    "tests/httproute-multiple-gateways.go",
		Manifests: []string{"tests/httproute-multiple-gateways.yaml"},
		Gateway:   nsName(infraNamespace, "same-namespace"),
		Cases: []requestCase{
			{name: "Gateway same-namespace: shared route is accessible and routed to infra-backend-v1", path: "/shared",
				want: backend("infra-backend-v1", infraNamespace)},
			{name: "Gateway same-namespace: dedicated route is accessible and routed to infra-backend-v2", path: "/",
				want: backend("infra-backend-v2", infraNamespace),
				tyk:  ptrTo(backend("infra-backend-v3", infraNamespace)), strict: ptrTo(backend("infra-backend-v3", infraNamespace)),
				why: "the two Gateways share the class's data plane, so the same Tyk Gateways answer both addresses and " +
					"cannot tell them apart: both dedicated routes claim / on any host, all-namespaces-dedicated-route " +
					"takes precedence (the render's PathConflict), and / reaches infra-backend-v3 through either Gateway"},
			{name: "Gateway all-namespaces: shared route is accessible and routed to infra-backend-v1", path: "/shared",
				gateway: new(nsName(infraNamespace, "all-namespaces")), want: backend("infra-backend-v1", infraNamespace)},
			{name: "Gateway all-namespaces: dedicated route is accessible and routed to infra-backend-v3", path: "/",
				gateway: new(nsName(infraNamespace, "all-namespaces")), want: backend("infra-backend-v3", infraNamespace)},
		},
	},
}

// asTheSuiteAsks is the table of shortName in requestTables with the named cases' Tyk deviations dropped: the
// gateway-api profile gives the answer Gateway API asks there (a PathPrefix by whole segments, translate's
// segments.go; a wildcard listener that leaves out its exact neighbours, isolation.go).
func asTheSuiteAsks(shortName string, cases ...string) requestTable {
	for _, rt := range requestTables {
		if rt.ShortName != shortName {
			continue
		}
		rt.Cases = slices.Clone(rt.Cases)
		for i := range rt.Cases {
			if slices.Contains(cases, rt.Cases[i].name) {
				rt.Cases[i].tyk, rt.Cases[i].strict, rt.Cases[i].why = nil, nil, ""
			}
		}
		return rt
	}
	panic("no request table " + shortName)
}

func init() {
	gatewayAPIRequestTables = append(gatewayAPIRequestTables,
		asTheSuiteAsks("HTTPRoutePartiallyInvalidViaInvalidReferenceGrant", "added: request to '/v2example' should go to app-backend-v1"),
		asTheSuiteAsks("HTTPRouteListenerHostnameMatching", "1 request to 'foo.bar.com/' should go to infra-backend-v2"),
		requestTable{
			// The redirects without hostname on this route of any host keep the request's host (translate's
			// redirect.go: $tyk_context.headers_Host), and ReplacePrefixMatch keeps what follows the prefix
			// (redirectprefix.go: $tyk_context.trigger-0-path-0), so every rule is served: the suite's table.
			ShortName: "HTTPRouteRedirectPath",
			Source:    "tests/httproute-redirect-path.go",
			Manifests: []string{"tests/httproute-redirect-path.yaml"},
			Gateway:   nsName(infraNamespace, "same-namespace"),
			Status: func(t *testing.T, w *world) {
				httpRouteMustHaveCondition(t, w, nsName(infraNamespace, "redirect-path"), nsName(infraNamespace, "same-namespace"),
					metav1.Condition{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted"})
			},
			Cases: []requestCase{
				{name: "0 request to '/original-prefix/lemon' should receive one of [302]", path: "/original-prefix/lemon",
					want: expectation{status: http.StatusFound, location: "http://" + gatewayAddress + "/replacement-prefix/lemon"}},
				{name: "1 request to '/full/path/original' should receive one of [302]", path: "/full/path/original",
					want: expectation{status: http.StatusFound, location: "http://" + gatewayAddress + "/full-path-replacement"}},
				{name: "2 request to '/path-and-host' should receive one of [302]", path: "/path-and-host",
					want: expectation{status: http.StatusFound, location: "http://example.org/replacement-prefix"}},
				{name: "3 request to '/path-and-status' should receive one of [301]", path: "/path-and-status",
					want: expectation{status: http.StatusMovedPermanently, location: "http://" + gatewayAddress + "/replacement-prefix"}},
				{name: "4 request to '/full-path-and-host' should receive one of [302]", path: "/full-path-and-host",
					want: expectation{status: http.StatusFound, location: "http://example.org/replacement-full"}},
				{name: "5 request to '/full-path-and-status' should receive one of [301]", path: "/full-path-and-status",
					want: expectation{status: http.StatusMovedPermanently, location: "http://" + gatewayAddress + "/replacement-full"}},
			},
		},
		requestTable{
			// The suite's table: its header matches are served by the / router, and /v2 by whole segments with the
			// path kept as it came.
			ShortName: "HTTPRouteMatching",
			Source:    "tests/httproute-matching.go",
			Manifests: []string{"tests/httproute-matching.yaml"},
			Gateway:   nsName(infraNamespace, "same-namespace"),
			Cases: []requestCase{
				{name: "0 request to '/' should go to infra-backend-v1", path: "/",
					want: backend("infra-backend-v1", infraNamespace).noting(loops)},
				{name: "1 request to '/example' should go to infra-backend-v1", path: "/example",
					want: backend("infra-backend-v1", infraNamespace).noting(loops)},
				{name: "2 request to '/' with headers should go to infra-backend-v1", path: "/",
					headers: map[string]string{"Version": "one"}, want: backend("infra-backend-v1", infraNamespace).noting(loops)},
				{name: "3 request to '/v2' should go to infra-backend-v2", path: "/v2",
					want: backend("infra-backend-v2", infraNamespace)},
				{name: "4 request to '/v2/example' should go to infra-backend-v2", path: "/v2/example",
					want: backend("infra-backend-v2", infraNamespace)},
				{name: "5 request to '/' with headers should go to infra-backend-v2", path: "/",
					headers: map[string]string{"Version": "two"}, want: backend("infra-backend-v2", infraNamespace).noting(loops)},
				{name: "6 request to '/v2/' should go to infra-backend-v2", path: "/v2/",
					want: backend("infra-backend-v2", infraNamespace)},
				{name: "7 request to '/v2example' should go to infra-backend-v1", path: "/v2example",
					want: backend("infra-backend-v1", infraNamespace).noting(loops)},
				{name: "8 request to '/foo/v2/example' should go to infra-backend-v1", path: "/foo/v2/example",
					want: backend("infra-backend-v1", infraNamespace).noting(loops)},
			},
		})
}

// TestConformanceRequestsGatewayAPIProfile runs every request table on the gateway-api profile, over the APIs of
// the Gateway's data plane (the Tyk Gateways behind its address load every API of every Gateway they serve): the
// profile must route as the reference does wherever the tables agree, and gatewayAPIRequestTables says where not.
func TestConformanceRequestsGatewayAPIProfile(t *testing.T) {
	// A table of gatewayAPIRequestTables replaces the one of the same test.
	replaced := map[string]bool{}
	for _, rt := range gatewayAPIRequestTables {
		replaced[rt.ShortName] = true
	}
	var tables []requestTable
	for _, rt := range requestTables {
		if !replaced[rt.ShortName] {
			tables = append(tables, rt)
		}
	}
	tables = append(tables, gatewayAPIRequestTables...)
	// The render writes for the newest release it knows (no spec.tykVersion), so Tyk is that release here.
	runRequestTables(t, tables, tykroute.NewestVersion, func(t *testing.T, base, secrets, extra []*yaml.RNode) (*fn.Output, *world) {
		return renderPlatform(t, gatewayAPIPlatform, withGeneration(t, base), secrets, withGeneration(t, extra))
	}, dataPlaneAPIs)
}

// dataPlaneAPIs are the APIs that the Tyk Gateways behind a Gateway's address load: those of every Gateway with
// the same data plane (those of the Gateway alone when it has none).
func dataPlaneAPIs(out *fn.Output, gwNN types.NamespacedName) []*translate.API {
	g := out.Attachment.GatewaysByName[gwNN]
	if g == nil || g.Infrastructure.Service == nil {
		return gatewayAPIs(out.Translation, gwNN)
	}
	dataPlane := g.Infrastructure.Service.Namespace + "/" + g.Infrastructure.Service.Name
	var apis []*translate.API
	for _, a := range out.Translation.APIs {
		if a.DataPlane() == dataPlane {
			apis = append(apis, a)
		}
	}
	return apis
}

func init() {
	// A URLRewrite beside requestHeaderModifier.add: the rule's path is routed (appends.go), and the internal API
	// of the set of added headers the request carries rewrites the path as a plain API would.
	appended := map[string]string{"X-Header-Add": "header-val-1", "X-Header-Add-Append": "append-val-1,header-val-2",
		"X-Header-Set": "set-overwrites-values"}
	sent := map[string]string{"X-Header-Remove": "remove-val", "X-Header-Add-Append": "append-val-1", "X-Header-Set": "set-val"}
	gatewayAPIRequestTables = append(gatewayAPIRequestTables, requestTable{
		ShortName: "HTTPRouteRewritePath",
		Source:    "tests/httproute-rewrite-path.go",
		Manifests: []string{"tests/httproute-rewrite-path.yaml"},
		Gateway:   nsName(infraNamespace, "same-namespace"),
		Status: func(t *testing.T, w *world) {
			httpRouteMustHaveCondition(t, w, nsName(infraNamespace, "rewrite-path"), nsName(infraNamespace, "same-namespace"),
				metav1.Condition{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted"})
		},
		Cases: []requestCase{
			{name: "0 request to '/prefix/one/two' should go to infra-backend-v1", path: "/prefix/one/two",
				want: backend("infra-backend-v1", infraNamespace).at("/one/two").on("/prefix/one")},
			{name: "1 request to '/strip-prefix/three' should go to infra-backend-v1", path: "/strip-prefix/three",
				want: backend("infra-backend-v1", infraNamespace).at("/three").on("/strip-prefix")},
			{name: "2 request to '/strip-prefix' should go to infra-backend-v1", path: "/strip-prefix",
				want: backend("infra-backend-v1", infraNamespace).at("/").on("/strip-prefix")},
			{name: "3 request to '/full/one/two' should go to infra-backend-v1", path: "/full/one/two",
				want: backend("infra-backend-v1", infraNamespace).at("/one").on("/full/one")},
			{name: "4 request to '/full/rewrite-path-and-modify-headers/test' with headers should go to infra-backend-v1",
				path: "/full/rewrite-path-and-modify-headers/test", headers: sent,
				want: expectation{backend: "infra-backend-v1", namespace: infraNamespace, path: "/test", headers: appended,
					absent: []string{"X-Header-Remove"}, notes: []string{"loops the request to API"}}},
			{name: "5 request to '/prefix/rewrite-path-and-modify-headers/one' with headers should go to infra-backend-v1",
				path: "/prefix/rewrite-path-and-modify-headers/one", headers: sent,
				want: expectation{backend: "infra-backend-v1", namespace: infraNamespace, path: "/prefix/one", headers: appended,
					absent: []string{"X-Header-Remove"}, notes: []string{"loops the request to API"}}},
		},
	})
}
