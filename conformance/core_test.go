package conformance

// The Core tests of the GATEWAY-HTTP profile that TestConformance does not carry, with the status assertions of
// their Go files in the order the Go code makes them; they run on the gateway-api profile
// (TestConformanceGatewayAPIProfile). Requests sent through the Gateway are not repeated here (the request tables
// of requests_test.go, and the upstream suite itself, send them). Where a test patches an object and checks the
// status again, Patch applies the same change to the manifests and PatchedTest asserts what the suite asserts
// after it.

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// coreShortNames are the Core tests of the GATEWAY-HTTP profile in sigs.k8s.io/gateway-api/conformance v1.6.3:
// the tests of tests.ConformanceTests whose Features are all in GatewayHTTPConformanceProfile.CoreFeatures
// (Gateway, HTTPRoute, ReferenceGrant), none provisional. Listed by running the suite's own Go API over them.
var coreShortNames = []string{
	"GatewayClassObservedGenerationBump", "GatewayInvalidRouteKind", "GatewayInvalidTLSConfiguration",
	"GatewayListenerUnsupportedProtocol", "GatewayModifyListeners", "GatewayObservedGenerationBump",
	"GatewaySecretInvalidReferenceGrant", "GatewaySecretMissingReferenceGrant",
	"GatewaySecretReferenceGrantAllInNamespace", "GatewaySecretReferenceGrantSpecific", "GatewayWithAttachedRoutes",
	"HTTPRouteCrossNamespace", "HTTPRouteExactPathMatching", "HTTPRouteHTTPSListener", "HTTPRouteHeaderMatching",
	"HTTPRouteHostnameIntersection", "HTTPRouteInvalidBackendRefUnknownKind",
	"HTTPRouteInvalidCrossNamespaceBackendRef", "HTTPRouteInvalidCrossNamespaceParentRef",
	"HTTPRouteInvalidNonExistentBackendRef", "HTTPRouteInvalidParentRefNotMatchingSectionName",
	"HTTPRouteInvalidReferenceGrant", "HTTPRouteListenerHostnameMatching", "HTTPRouteMatching",
	"HTTPRouteMatchingAcrossRoutes", "HTTPRouteMultipleGateways", "HTTPRouteNoBackendRefs",
	"HTTPRouteObservedGenerationBump", "HTTPRoutePartiallyInvalidViaInvalidReferenceGrant",
	"HTTPRoutePathMatchOrder", "HTTPRouteRedirectHostAndStatus", "HTTPRouteReferenceGrant",
	"HTTPRouteRequestHeaderModifier", "HTTPRouteServiceTypes", "HTTPRouteSimpleSameNamespace", "HTTPRouteWeight",
}

// acceptedAndResolved is the start of most HTTPRoute tests: GatewayAndHTTPRoutesMustBeAccepted, then
// HTTPRouteMustHaveResolvedRefsConditionsTrue for each route.
func acceptedAndResolved(t *testing.T, w *world, gwNN types.NamespacedName, routeNNs ...types.NamespacedName) {
	t.Helper()
	gatewayAndHTTPRoutesMustBeAccepted(t, w, gwNN, nil, routeNNs...)
	for _, r := range routeNNs {
		httpRouteMustHaveResolvedRefsConditionsTrue(t, w, r, gwNN)
	}
}

// infraRoute is the common shape of a route test: one route on the same-namespace Gateway.
func infraRoute(shortName, file, route string) conformanceTest {
	return conformanceTest{
		ShortName: shortName,
		Source:    "tests/" + file + ".go",
		Manifests: []string{"tests/" + file + ".yaml"},
		Test: func(t *testing.T, w *world) {
			acceptedAndResolved(t, w, nsName(infraNamespace, "same-namespace"), nsName(infraNamespace, route))
		},
	}
}

// appendListener adds a listener to a Gateway of the manifests, as the suite's patches do.
func appendListener(t *testing.T, nodes []*yaml.RNode, gateway, listenerYAML string) {
	t.Helper()
	for _, n := range nodes {
		if n.GetKind() != "Gateway" || n.GetName() != gateway {
			continue
		}
		l, err := yaml.Parse(listenerYAML)
		if err != nil {
			t.Fatalf("parsing the listener: %v", err)
		}
		if err := n.PipeE(yaml.Lookup("spec", "listeners"), yaml.Append(l.YNode())); err != nil {
			t.Fatalf("adding a listener to Gateway %s: %v", gateway, err)
		}
		bumpGeneration(t, n)
		return
	}
	t.Fatalf("no Gateway %s in the manifests", gateway)
}

// bumpGeneration raises metadata.generation by one, as the API server does on a change of spec.
func bumpGeneration(t *testing.T, n *yaml.RNode) {
	t.Helper()
	g, err := metadataGeneration(n)
	if err != nil {
		t.Fatal(err)
	}
	setGeneration(t, n, g+1)
}

var coreTests = []conformanceTest{
	infraRoute("HTTPRouteSimpleSameNamespace", "httproute-simple-same-namespace", "gateway-conformance-infra-test"),
	{
		ShortName: "HTTPRouteCrossNamespace",
		Source:    "tests/httproute-cross-namespace.go",
		Manifests: []string{"tests/httproute-cross-namespace.yaml"},
		Test: func(t *testing.T, w *world) {
			acceptedAndResolved(t, w, nsName(infraNamespace, "backend-namespaces"), nsName(webBackendNamespace, "cross-namespace"))
		},
	},
	{
		ShortName: "HTTPRouteMultipleGateways",
		Source:    "tests/httproute-multiple-gateways.go",
		Manifests: []string{"tests/httproute-multiple-gateways.yaml"},
		Test: func(t *testing.T, w *world) {
			t.Run("Gateway same-namespace", func(t *testing.T) {
				gatewayAndHTTPRoutesMustBeAccepted(t, w, nsName(infraNamespace, "same-namespace"), nil,
					nsName(infraNamespace, "multiple-gateways-shared-route"), nsName(infraNamespace, "same-namespace-dedicated-route"))
			})
			t.Run("Gateway all-namespaces", func(t *testing.T) {
				gatewayAndHTTPRoutesMustBeAccepted(t, w, nsName(infraNamespace, "all-namespaces"), nil,
					nsName(infraNamespace, "multiple-gateways-shared-route"), nsName(infraNamespace, "all-namespaces-dedicated-route"))
			})
		},
	},
	infraRoute("HTTPRouteNoBackendRefs", "httproute-omitted-backendrefs", "omitted-backendrefs"),
	infraRoute("HTTPRouteServiceTypes", "httproute-service-types", "service-types"),
	{
		ShortName: "HTTPRouteHTTPSListener",
		Source:    "tests/httproute-https-listener.go",
		Manifests: []string{"tests/httproute-https-listener.yaml"},
		Test: func(t *testing.T, w *world) {
			acceptedAndResolved(t, w, nsName(infraNamespace, "same-namespace-with-https-listener"),
				nsName(infraNamespace, "httproute-https-test"), nsName(infraNamespace, "httproute-https-test-no-hostname"))
		},
	},
	infraRoute("HTTPRouteExactPathMatching", "httproute-exact-path-matching", "exact-matching"),
	infraRoute("HTTPRouteHeaderMatching", "httproute-header-matching", "header-matching"),
	infraRoute("HTTPRouteMatching", "httproute-matching", "matching"),
	{
		ShortName: "HTTPRouteMatchingAcrossRoutes",
		Source:    "tests/httproute-matching-across-routes.go",
		Manifests: []string{"tests/httproute-matching-across-routes.yaml"},
		Test: func(t *testing.T, w *world) {
			acceptedAndResolved(t, w, nsName(infraNamespace, "same-namespace"),
				nsName(infraNamespace, "matching-part1"), nsName(infraNamespace, "matching-part2"))
		},
	},
	infraRoute("HTTPRoutePathMatchOrder", "httproute-path-match-order", "path-matching-order"),
	infraRoute("HTTPRouteRedirectHostAndStatus", "httproute-redirect-host-and-status", "redirect-host-and-status"),
	infraRoute("HTTPRouteRequestHeaderModifier", "httproute-request-header-modifier", "request-header-modifier"),
	infraRoute("HTTPRouteWeight", "httproute-weight", "weighted-backends"),
	{
		ShortName: "HTTPRouteObservedGenerationBump",
		Source:    "tests/httproute-observed-generation-bump.go",
		Manifests: []string{"tests/httproute-observed-generation-bump.yaml"},
		Test: func(t *testing.T, w *world) {
			routeNN, gwNN := nsName(infraNamespace, "observed-generation-bump"), nsName(infraNamespace, "same-namespace")
			namespacesMustBeReady(t, w, []string{infraNamespace})
			w.routeStatus(t, routeNN) // HTTPRouteMustHaveLatestConditions
			httpRouteMustHaveCondition(t, w, routeNN, gwNN, cond("Accepted", condTrue, ""))
			httpRouteMustHaveResolvedRefsConditionsTrue(t, w, routeNN, gwNN)
		},
		// mutate.Spec.Rules[0].BackendRefs[0].Name = infra-backend-v2
		Patch: func(t *testing.T, nodes []*yaml.RNode) {
			for _, n := range nodes {
				if n.GetKind() == "HTTPRoute" && n.GetName() == "observed-generation-bump" {
					ref, err := n.Pipe(yaml.Lookup("spec", "rules", "0", "backendRefs", "0"))
					if err != nil || ref == nil {
						t.Fatalf("HTTPRoute observed-generation-bump has no spec.rules[0].backendRefs[0]: %v", err)
					}
					if err := ref.PipeE(yaml.SetField("name", yaml.NewStringRNode("infra-backend-v2"))); err != nil {
						t.Fatal(err)
					}
					bumpGeneration(t, n)
				}
			}
		},
	},
	{
		ShortName: "GatewayObservedGenerationBump",
		Source:    "tests/gateway-observed-generation-bump.go",
		Manifests: []string{"tests/gateway-observed-generation-bump.yaml"},
		Test: func(t *testing.T, w *world) {
			namespacesMustBeReady(t, w, []string{infraNamespace})
			gatewayMustHaveLatestConditions(t, w, nsName(infraNamespace, "gateway-observed-generation-bump"))
		},
		Patch: func(t *testing.T, nodes []*yaml.RNode) {
			appendListener(t, nodes, "gateway-observed-generation-bump",
				"{name: alternate, hostname: foo.com, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}")
		},
	},
	{
		ShortName: "GatewayClassObservedGenerationBump",
		Source:    "tests/gatewayclass-observed-generation-bump.go",
		Manifests: []string{"tests/gatewayclass-observed-generation-bump.yaml"},
		Test: func(t *testing.T, w *world) {
			// GWCMustHaveAcceptedConditionAny, then GatewayClassMustHaveLatestConditions.
			gwcMustHaveAcceptedCondition(t, w, "gatewayclass-observed-generation-bump", "")
		},
		Patch: func(t *testing.T, nodes []*yaml.RNode) {
			for _, n := range nodes {
				if n.GetKind() == "GatewayClass" && n.GetName() == "gatewayclass-observed-generation-bump" {
					if err := n.PipeE(yaml.Lookup("spec"), yaml.SetField("description", yaml.NewStringRNode("new"))); err != nil {
						t.Fatal(err)
					}
					bumpGeneration(t, n)
				}
			}
		},
	},
	{
		ShortName: "GatewayModifyListeners",
		Source:    "tests/gateway-modify-listeners.go",
		Manifests: []string{"tests/gateway-modify-listeners.yaml"},
		Test: func(t *testing.T, w *world) {
			namespacesMustBeReady(t, w, []string{infraNamespace})
			gatewayMustHaveLatestConditions(t, w, nsName(infraNamespace, "gateway-add-listener"))
			gatewayMustHaveLatestConditions(t, w, nsName(infraNamespace, "gateway-remove-listener"))
		},
		// "should be able to add a listener" and "should be able to remove listeners", applied together.
		Patch: func(t *testing.T, nodes []*yaml.RNode) {
			appendListener(t, nodes, "gateway-add-listener",
				"{name: http, port: 80, protocol: HTTP, hostname: data.test.com, allowedRoutes: {namespaces: {from: All}}}")
			for _, n := range nodes {
				if n.GetKind() == "Gateway" && n.GetName() == "gateway-remove-listener" {
					if err := n.PipeE(yaml.Lookup("spec", "listeners"), yaml.ElementSetter{Keys: []string{"name"}, Values: []string{"https"}}); err != nil {
						t.Fatal(err)
					}
					bumpGeneration(t, n)
				}
			}
		},
		PatchedTest: func(t *testing.T, w *world) {
			namespacesMustBeReady(t, w, []string{infraNamespace})
			ready := []metav1.Condition{cond("Accepted", condTrue, ""), cond("ResolvedRefs", condTrue, "")}
			gatewayStatusMustHaveListeners(t, w, nsName(infraNamespace, "gateway-add-listener"), []gwv1.ListenerStatus{
				listener("https", httpRouteKind, 1, ready...),
				listener("http", httpRouteKind, 1, ready...),
			})
			gatewayMustHaveLatestConditions(t, w, nsName(infraNamespace, "gateway-add-listener"))
			gatewayStatusMustHaveListeners(t, w, nsName(infraNamespace, "gateway-remove-listener"), []gwv1.ListenerStatus{
				listener("http", httpRouteKind, 1, ready...),
			})
			gatewayMustHaveLatestConditions(t, w, nsName(infraNamespace, "gateway-remove-listener"))
		},
	},
}
