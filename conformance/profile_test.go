package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

// The suite on the gateway-api profile: the platform team's GatewayClass names an OperatorContext whose data
// plane is a LoadBalancer Service exposing the suite's listener ports (80, 443), as the upstream harness
// (make e2e-conformance) sets it up. The suite's Gateways have no infrastructure.parametersRef, so in this
// profile they are served by the class's data plane, and the helpers check what needs one (Programmed True, an
// address).

// gatewayAPIPlatform is the platform of the gateway-api profile.
var gatewayAPIPlatform = platform{cfg: gatewayAPIConfig(), dataPlane: true, objects: fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: %s
  generation: 1
spec:
  controllerName: %s
  parametersRef: {group: tyk.tyk.io, kind: OperatorContext, name: tyk, namespace: tyk}
---
apiVersion: tyk.tyk.io/v1alpha1
kind: OperatorContext
metadata: {name: tyk, namespace: tyk}
spec:
  env: {mode: ce, url: "http://tyk-gateway.tyk.svc.cluster.local:8080"}
  dataPlane:
    serviceRef: {name: tyk-gateway}
---
apiVersion: v1
kind: Service
metadata:
  name: tyk-gateway
  namespace: tyk
  annotations: {config.kubernetes.io/local-config: "true"}
spec:
  type: LoadBalancer
  selector: {app: tyk-gateway}
  ports:
  - {name: http, port: 80}
  - {name: https, port: 443}
status:
  loadBalancer:
    ingress: [{ip: 192.0.2.10}]
`, gatewayClassName, controllerName)}

func gatewayAPIConfig() config.Spec {
	cfg := config.Default()
	cfg.Profile = config.ProfileGatewayAPI
	return cfg
}

// TestConformanceGatewayAPIProfile runs the status assertions of the GATEWAY-HTTP profile's Core tests
// (coreShortNames: those of TestConformance and coreTests) on the gateway-api profile. Every object the suite
// applies has metadata.generation 1, as the API server gives it, so observedGeneration is checked for real.
func TestConformanceGatewayAPIProfile(t *testing.T) {
	dir := conformanceDir(t)
	base := withGeneration(t, readManifests(t, dir, "base/manifests.yaml"))
	secrets := suiteSecrets(t)

	t.Run("SuiteSetup", func(t *testing.T) {
		_, w := renderPlatform(t, gatewayAPIPlatform, base, secrets, nil)
		gwcMustHaveAcceptedConditionTrue(t, w, gatewayClassName)
		// No tykVersion: the APIs are for Tyk 5.14, which serves the timeouts exactly and finds mock responses the
		// classic way (redirects that keep the request's host), so those are claimed too.
		gwcMustListSupportedFeatures(t, w, gatewayClassName, "Gateway", "GatewayAddressEmpty", "GatewayHTTPListenerIsolation", "GatewayPort8080", "HTTPRoute",
			"HTTPRoute303RedirectStatusCode", "HTTPRoute307RedirectStatusCode", "HTTPRoute308RedirectStatusCode",
			"HTTPRouteBackendProtocolH2C", "HTTPRouteBackendProtocolWebSocket", "HTTPRouteBackendTimeout", "HTTPRouteCORS", "HTTPRouteDestinationPortMatching",
			"HTTPRouteMethodMatching", "HTTPRouteNamedRouteRule", "HTTPRouteParentRefPort", "HTTPRoutePathRedirect",
			"HTTPRoutePathRewrite",
			"HTTPRoutePortRedirect", "HTTPRouteQueryParamMatching", "HTTPRouteRequestTimeout", "HTTPRouteSchemeRedirect",
			"ListenerSet", "ReferenceGrant")
		namespacesMustBeReady(t, w, []string{infraNamespace, appBackendNamespace, webBackendNamespace})
	})

	for _, ct := range coreConformanceTests(t) {
		t.Run(ct.ShortName, func(t *testing.T) {
			var extra []*yaml.RNode
			for _, m := range ct.Manifests {
				extra = append(extra, readManifests(t, dir, m)...)
			}
			extra = withGeneration(t, extra)
			_, w := renderPlatform(t, gatewayAPIPlatform, base, secrets, extra)
			if ct.Gap != "" {
				t.Logf("not given by the gateway-api profile: %s", ct.Gap)
				ct.GapTest(t, w)
				return
			}
			ct.Test(t, w)
			if ct.Patch == nil {
				return
			}
			t.Run("after the patch", func(t *testing.T) {
				ct.Patch(t, extra)
				_, w := renderPlatform(t, gatewayAPIPlatform, base, secrets, extra)
				test := ct.PatchedTest
				if test == nil {
					test = ct.Test
				}
				test(t, w)
			})
		})
	}
}

// coreConformanceTests are the tests of TestConformance and coreTests whose ShortName is a Core test, in the
// order of coreShortNames; every Core test must be carried exactly once.
func coreConformanceTests(t *testing.T) []conformanceTest {
	t.Helper()
	byName := map[string]conformanceTest{}
	for _, ct := range append(append([]conformanceTest{}, conformanceTests...), coreTests...) {
		if _, dup := byName[ct.ShortName]; dup {
			t.Fatalf("conformance test %s is carried twice", ct.ShortName)
		}
		byName[ct.ShortName] = ct
	}
	var out []conformanceTest
	for _, name := range coreShortNames {
		ct, ok := byName[name]
		if !ok {
			t.Fatalf("Core test %s is carried neither by conformanceTests nor by coreTests", name)
		}
		out = append(out, ct)
	}
	return out
}

// withGeneration copies the nodes, giving each Gateway API object without one metadata.generation 1, as the API
// server creates them.
func withGeneration(t *testing.T, nodes []*yaml.RNode) []*yaml.RNode {
	t.Helper()
	out := make([]*yaml.RNode, len(nodes))
	for i, n := range nodes {
		n = n.Copy()
		if strings.HasPrefix(n.GetApiVersion(), gwv1.GroupName+"/") {
			if g, err := n.Pipe(yaml.Lookup("metadata", "generation")); err != nil || g == nil {
				setGeneration(t, n, 1)
			}
		}
		out[i] = n
	}
	return out
}

// setGeneration sets metadata.generation to an integer.
func setGeneration(t *testing.T, n *yaml.RNode, g int64) {
	t.Helper()
	v := yaml.NewRNode(&yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagInt, Value: strconv.FormatInt(g, 10)})
	if err := n.PipeE(yaml.LookupCreate(yaml.MappingNode, "metadata"), yaml.SetField("generation", v)); err != nil {
		t.Fatal(err)
	}
}
