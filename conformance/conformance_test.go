package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gateway2tyk/gateway2tyk/e2e/modcache"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

const (
	// conformanceModule is the Gateway API conformance suite whose manifests the test reads. It matches the
	// sigs.k8s.io/gateway-api version in go.mod. It is only downloaded to the module cache, never required.
	conformanceModule  = "sigs.k8s.io/gateway-api/conformance"
	conformanceVersion = "v1.6.3"

	// gatewayClassName is the class the suite is run with (its --gateway-class flag).
	gatewayClassName = "tyk-conformance"
	// controllerName is Tyk Operator's controller, the render's default.
	controllerName = "tyk.tyk.io/gateway-controller"

	// statusAnnotation holds the JSON of the would-be status (docs/reference/contract.md, "The would-be status").
	statusAnnotation = "gateway2tyk.io/status"

	// The namespaces of the suite (utils/suite/consts.go).
	infraNamespace      = "gateway-conformance-infra"
	appBackendNamespace = "gateway-conformance-app-backend"
	webBackendNamespace = "gateway-conformance-web-backend"

	// skipReadinessAnnotation excludes a Gateway from NamespacesMustBeReady (utils/kubernetes/helpers.go,
	// GatewayExcludedFromReadinessChecks).
	skipReadinessAnnotation = "gateway-api/skip-this-for-readiness"
)

// conformanceTest is one test of the suite: its manifests, and the status assertions of its Go code.
type conformanceTest struct {
	// ShortName is the ShortName of the suite's ConformanceTest.
	ShortName string
	// Source is the suite's Go file that holds the test, relative to the module.
	Source string
	// Manifests are the test's manifests, applied after base/manifests.yaml.
	Manifests []string
	// Test asserts, on the render, what the suite's test asserts on the cluster.
	Test func(t *testing.T, w *world)
	// Patch, when set, changes the manifests as the test's Go code patches the objects after its first
	// assertions (bumping metadata.generation as the API server does); PatchedTest (Test when nil) asserts what
	// the suite asserts after the patch. Run on the gateway-api profile (TestConformanceGatewayAPIProfile).
	Patch       func(t *testing.T, manifests []*yaml.RNode)
	PatchedTest func(t *testing.T, w *world)
	// Gap, when set, says why the gateway-api profile does not give what Test asserts, and which issue owns
	// it; GapTest then asserts what the render gives instead, so that the case is revisited when that changes.
	Gap     string
	GapTest func(t *testing.T, w *world)
}

// TestConformance renders each conformance test's objects and checks the statuses its Go code asserts.
func TestConformance(t *testing.T) {
	dir := conformanceDir(t)
	base := readManifests(t, dir, "base/manifests.yaml")
	secrets := suiteSecrets(t)

	t.Run("SuiteSetup", func(t *testing.T) {
		// utils/suite/suite.go, Setup: the GatewayClass must be accepted, then the base manifests and the
		// programmatic Secrets are applied and the three namespaces must be ready.
		w := render(t, base, secrets, nil)
		gwcMustHaveAcceptedConditionTrue(t, w, gatewayClassName)
		namespacesMustBeReady(t, w, []string{infraNamespace, appBackendNamespace, webBackendNamespace})
	})

	for _, ct := range conformanceTests {
		t.Run(ct.ShortName, func(t *testing.T) {
			t.Logf("conformance test %s: %s (%s@%s)", ct.ShortName, ct.Source, conformanceModule, conformanceVersion)
			if _, err := os.Stat(filepath.Join(dir, ct.Source)); err != nil {
				t.Fatalf("the conformance suite has no %s: %v", ct.Source, err)
			}
			var extra []*yaml.RNode
			for _, m := range ct.Manifests {
				extra = append(extra, readManifests(t, dir, m)...)
			}
			ct.Test(t, render(t, base, secrets, extra))
		})
	}
}

// conformanceDir locates the conformance module in the module cache, downloading it if needed. Without it
// (offline, no proxy) the test is skipped.
func conformanceDir(t *testing.T) string {
	t.Helper()
	dir := modcache.Dir(t, conformanceModule, conformanceVersion)
	if _, err := os.Stat(filepath.Join(dir, "base", "manifests.yaml")); err != nil {
		t.Fatalf("%s@%s in %s has no base/manifests.yaml: %v", conformanceModule, conformanceVersion, dir, err)
	}
	return dir
}

// readManifests reads one of the suite's manifest files with kyaml.
func readManifests(t *testing.T, dir, rel string) []*yaml.RNode {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatalf("reading %s: %v", rel, err)
	}
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(data), OmitReaderAnnotations: true}).Read()
	if err != nil {
		t.Fatalf("parsing %s: %v", rel, err)
	}
	return nodes
}

// render builds the objects the suite applies for one test (the GatewayClass, the base manifests, the
// suite's Secrets, the test's manifests) and renders them with the default config.
func render(t *testing.T, base, secrets, manifests []*yaml.RNode) *world {
	t.Helper()
	_, w := renderOutput(t, base, secrets, manifests)
	return w
}

// renderOutput renders the suite's objects as the suite applies them, and returns the render's decisions
// (for the request tables) with the world of output items (for the statuses).
func renderOutput(t *testing.T, base, secrets, manifests []*yaml.RNode) (*fn.Output, *world) {
	t.Helper()
	return renderPlatform(t, operatorPlatform, base, secrets, manifests)
}

// platform is what the platform team sets up before the suite runs, and how the render is configured.
type platform struct {
	// cfg configures the render.
	cfg config.Spec
	// objects are the GatewayClass (named gatewayClassName) and what it refers to.
	objects string
	// dataPlane: the Gateways have a data plane, so the helpers also check what needs one (Programmed True, an
	// address), as the suite does.
	dataPlane bool
}

// operatorPlatform is the default config and a GatewayClass without parametersRef: the Tyk Operator reference,
// under which the suite's Gateways (without infrastructure.parametersRef) have no data plane.
var operatorPlatform = platform{cfg: config.Default(), objects: fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: %s
spec:
  controllerName: %s
`, gatewayClassName, controllerName)}

// renderPlatform renders the suite's objects as the suite applies them on the platform.
func renderPlatform(t *testing.T, p platform, base, secrets, manifests []*yaml.RNode) (*fn.Output, *world) {
	t.Helper()
	items, err := (&kio.ByteReader{Reader: strings.NewReader(p.objects), OmitReaderAnnotations: true}).Read()
	if err != nil {
		t.Fatalf("building the platform's objects: %v", err)
	}
	for _, group := range [][]*yaml.RNode{base, secrets, manifests} {
		for _, n := range group {
			n = n.Copy()
			if n.GetKind() == "Gateway" {
				// utils/kubernetes/apply.go, prepareGateway: every Gateway gets the suite's class in place of
				// the "{GATEWAY_CLASS_NAME}" placeholder.
				if err := n.PipeE(yaml.LookupCreate(yaml.MappingNode, "spec"),
					yaml.SetField("gatewayClassName", yaml.NewStringRNode(gatewayClassName))); err != nil {
					t.Fatalf("setting the class of Gateway %s/%s: %v", n.GetNamespace(), n.GetName(), err)
				}
			}
			if n.GetKind() == "GatewayClass" {
				// prepareGatewayClass: a test's GatewayClass gets the suite's controller name.
				if err := n.PipeE(yaml.LookupCreate(yaml.MappingNode, "spec"),
					yaml.SetField("controllerName", yaml.NewStringRNode(controllerName))); err != nil {
					t.Fatalf("setting the controller of GatewayClass %s: %v", n.GetName(), err)
				}
			}
			items = append(items, n)
		}
	}

	out, err := fn.Render(items, p.cfg)
	if err != nil {
		t.Fatalf("fn.Render: %v", err)
	}
	for _, r := range out.Results {
		if r.Severity == "error" {
			t.Logf("render result: %s", r.String())
		}
	}
	w := &world{nodes: map[objKey]*yaml.RNode{}, dataPlane: p.dataPlane}
	for _, n := range out.Items {
		w.nodes[objKey{n.GetKind(), n.GetNamespace(), n.GetName()}] = n
		w.order = append(w.order, n)
	}
	return out, w
}

type objKey struct{ kind, namespace, name string }

// world is the render's output, read the way the suite reads the cluster.
type world struct {
	nodes map[objKey]*yaml.RNode
	order []*yaml.RNode
	// dataPlane is the platform's: the Gateways have a data plane.
	dataPlane bool
}

// status decodes the status annotation of an object into v and returns the object's metadata.generation.
// A missing object is a test error (ok false); an object without the annotation has an empty status.
func (w *world) status(t *testing.T, kind string, nn types.NamespacedName, v any) (generation int64, ok bool) {
	t.Helper()
	n := w.nodes[objKey{kind, nn.Namespace, nn.Name}]
	if n == nil {
		t.Errorf("%s %s is not in the render output", kind, nn)
		return 0, false
	}
	generation, err := metadataGeneration(n)
	if err != nil {
		t.Errorf("%s %s: %v", kind, nn, err)
		return 0, false
	}
	js := n.GetAnnotations()[statusAnnotation]
	if js == "" {
		return generation, true
	}
	if err := json.Unmarshal([]byte(js), v); err != nil {
		t.Errorf("%s %s: the %s annotation is not a %T: %v\n%s", kind, nn, statusAnnotation, v, err, js)
		return generation, false
	}
	return generation, true
}

// gateways lists the Gateways of a namespace in the render output.
func (w *world) gateways(namespace string) []*yaml.RNode {
	var out []*yaml.RNode
	for _, n := range w.order {
		if n.GetKind() == "Gateway" && n.GetNamespace() == namespace {
			out = append(out, n)
		}
	}
	return out
}

func metadataGeneration(n *yaml.RNode) (int64, error) {
	g, err := n.Pipe(yaml.Lookup("metadata", "generation"))
	if err != nil {
		return 0, err
	}
	if g == nil {
		return 0, nil
	}
	v, err := strconv.ParseInt(g.YNode().Value, 10, 64)
	if err != nil {
		return 0, errors.New("metadata.generation is not an integer: " + g.YNode().Value)
	}
	return v, nil
}

func nsName(namespace, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: namespace, Name: name}
}
