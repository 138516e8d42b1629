// Package e2e_test runs gateway2tyk the way users do: as a kustomize exec transformer over examples/basic, as
// the `render` command, as a KRM function on stdin, and in process for the determinism guarantees.
//
// The kustomize test needs a kustomize binary: $KUSTOMIZE, or else <repo>/bin/kustomize (`make test` installs
// it and sets $KUSTOMIZE and $GATEWAY2TYK). Without one it skips, saying so.
package e2e_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas/tykoastest"
)

// exampleDir is the example every test here renders, relative to the repository root.
const exampleDir = "examples/basic"

// expectedAPI is one API that examples/basic must give, written from the example and the contract.
type expectedAPI struct {
	route, gateway string // "<ns>/<name>"
	namespace      string // the route's namespace
	hostname       string // the effective hostname as written, for the ID and the annotation
	path           string
	customDomain   string // server.customDomain.name
	upstream       string
}

var basicAPIs = []expectedAPI{
	{
		route: "shop/orders", gateway: "shop/edge", namespace: "shop",
		hostname: "orders.shop.example.com", path: "/orders",
		customDomain: "orders.shop.example.com",
		upstream:     "http://orders.shop.svc.cluster.local:8080/orders",
	},
	{
		route: "shop/catalog", gateway: "shop/edge", namespace: "shop",
		hostname: "*.shop.example.com", path: "/",
		customDomain: "{h:.+}.shop.example.com",
		upstream:     "http://catalog.shop.svc.cluster.local:80/",
	},
}

// apiID is the contract's formula, computed here independently of the project's code:
// "gwapi-" + the first 20 hex characters of sha256(route + "\n" + path + "\n" + gateway + "\n" + hostname).
func apiID(route, path, gateway, hostname string) string {
	sum := sha256.Sum256([]byte(route + "\n" + path + "\n" + gateway + "\n" + hostname))
	return "gwapi-" + hex.EncodeToString(sum[:])[:20]
}

func (e expectedAPI) id() string { return apiID(e.route, e.path, e.gateway, e.hostname) }

func TestKustomizeBuildBasicExample(t *testing.T) {
	items := parseStream(t, kustomizeBuild(t, exampleDir))
	checkBasicAPIs(t, items)

	// The facts about the cluster are local-config: read by the function, dropped by kustomize.
	for _, gone := range []struct{ kind, ns, name string }{
		{"Secret", "tyk", "tyk-operator-conf"},
		{"Service", "shop", "tyk-gateway"},
	} {
		if n := find(items, gone.kind, gone.ns, gone.name); n != nil {
			t.Errorf("%s %s/%s is local-config and must not be in kustomize's output", gone.kind, gone.ns, gone.name)
		}
	}

	// Everything else of the example passes through.
	for _, kept := range []struct{ kind, ns, name string }{
		{"Service", "shop", "orders"}, {"Service", "shop", "catalog"},
		{"OperatorContext", "tyk", "tyk-dashboard"}, {"OperatorContext", "shop", "edge"},
	} {
		if find(items, kept.kind, kept.ns, kept.name) == nil {
			t.Errorf("%s %s/%s is missing from kustomize's output", kept.kind, kept.ns, kept.name)
		}
	}

	checkBasicStatus(t, items)
}

// TestKustomizeShowsWarnings: kustomize keeps a transformer's results to itself (issue 45 finding 5: a warning
// printed nothing on this path); the function prints them on stderr, which kustomize passes through, and warns
// when the APIs got the fallback owner (a copy of examples/basic outside any repository). The build still
// succeeds with the same objects.
func TestKustomizeShowsWarnings(t *testing.T) {
	app := filepath.Join(t.TempDir(), "app")
	require.NoError(t, os.CopyFS(app, os.DirFS(filepath.Join(repoRoot(t), exampleDir))))
	routes := filepath.Join(app, "routes.yaml")
	data, err := os.ReadFile(routes)
	require.NoError(t, err)
	unread := "---\napiVersion: tyk.tyk.io/v1beta9\nkind: TykOasApiDefinition\nmetadata: {name: future, namespace: shop}\n"
	require.NoError(t, os.WriteFile(routes, append(data, unread...), 0o644))

	stdout, stderr := kustomizeBuildIn(t, app)
	items := parseStream(t, stdout)
	checkBasicAPIs(t, items)
	require.NotNil(t, find(items, "TykOasApiDefinition", "shop", "future"), "the unread object passes through")
	assert.Contains(t, stderr, "gateway2tyk: the render wrote its output, with 1 result:\n  [warning] "+
		"tyk.tyk.io/v1beta9/TykOasApiDefinition/shop/future apiVersion: tyk.tyk.io/v1beta9 is not a version gateway2tyk reads")
	assert.Contains(t, stderr, `gateway2tyk: warning: the APIs' owner is "gateway2tyk", the fallback`)
	assert.Contains(t, stderr, "set spec.owner in the RenderConfig")

	// Inside the repository the owner is the example's path, and a clean render prints nothing.
	_, stderr = kustomizeBuildIn(t, filepath.Join(repoRoot(t), exampleDir))
	assert.Empty(t, stderr)
}

// kustomizeBuild runs the real kustomize over an example directory (relative to the repository root) with the
// function first on PATH, and returns its output.
func kustomizeBuild(t *testing.T, dir string) []byte {
	t.Helper()
	stdout, _ := kustomizeBuildIn(t, dir)
	return stdout
}

// kustomizeBuildIn is kustomizeBuild, run in the repository root, with what kustomize printed on stderr.
func kustomizeBuildIn(t *testing.T, dir string) ([]byte, string) {
	t.Helper()
	root := repoRoot(t)
	kustomize := findKustomize(t, root)
	fnDir := functionDir(t, root)
	cmd := exec.Command(kustomize, "build", "--enable-alpha-plugins", "--enable-exec", dir)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PATH="+fnDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kustomize build %s: %v\nstderr:\n%s", dir, err, stderr.String())
	}
	return stdout.Bytes(), stderr.String()
}

// checkBasicAPIs checks that items hold exactly the two API ConfigMaps of examples/basic, as the contract
// describes them, and that each document is one Tyk will load.
func checkBasicAPIs(t *testing.T, items []*yaml.RNode) {
	t.Helper()
	var cms []*yaml.RNode
	for _, it := range items {
		if it.GetKind() == "ConfigMap" {
			cms = append(cms, it)
		}
	}
	var got, want []string
	for _, cm := range cms {
		got = append(got, cm.GetNamespace()+"/"+cm.GetName())
	}
	for _, e := range basicAPIs {
		want = append(want, e.namespace+"/"+e.id())
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Fatalf("API ConfigMaps: got %v, want %v (IDs from the contract's formula)", got, want)
	}

	for _, e := range basicAPIs {
		id := e.id()
		t.Run(e.route, func(t *testing.T) {
			cm := find(items, "ConfigMap", e.namespace, id)
			if cm.GetApiVersion() != "v1" {
				t.Errorf("apiVersion %q, want v1", cm.GetApiVersion())
			}
			// The owner depends on where the application was rendered (its directory in its repository): any
			// valid owner, with exactly these labels besides.
			owner := cm.GetLabels()["gateway2tyk.io/owner"]
			if owner == "" || config.OwnerError(owner) != "" {
				t.Errorf("owner label %q, want a label value", owner)
			}
			wantLabels := map[string]string{"app.kubernetes.io/managed-by": "gateway2tyk", "gateway2tyk.io/api-id": id,
				"gateway2tyk.io/owner": owner}
			if got := cm.GetLabels(); !reflect.DeepEqual(got, wantLabels) {
				t.Errorf("labels %v, want %v", got, wantLabels)
			}
			ann := cm.GetAnnotations()
			wantAnn := map[string]string{
				"gateway2tyk.io/route":    e.route,
				"gateway2tyk.io/gateway":  e.gateway,
				"gateway2tyk.io/hostname": e.hostname,
				"gateway2tyk.io/path":     e.path,
			}
			for k, v := range wantAnn {
				if got, ok := ann[k]; !ok || got != v {
					t.Errorf("annotation %s = %q (present %v), want %q", k, got, ok, v)
				}
			}
			var conds []condition
			if err := json.Unmarshal([]byte(ann["gateway2tyk.io/conditions"]), &conds); err != nil {
				t.Errorf("annotation gateway2tyk.io/conditions %q is not a JSON array of conditions: %v",
					ann["gateway2tyk.io/conditions"], err)
			}
			checkCondition(t, "conditions", conds, "Accepted", "True")
			checkCondition(t, "conditions", conds, "ResolvedRefs", "True")
			for k := range ann {
				if _, ok := wantAnn[k]; !ok && k != "gateway2tyk.io/conditions" {
					t.Errorf("unexpected annotation %s=%q", k, ann[k])
				}
			}

			doc := cm.GetDataMap()["tyk-oas.json"]
			if doc == "" {
				t.Fatalf("data[\"tyk-oas.json\"] is missing or empty")
			}
			checkDocument(t, []byte(doc), e, id)
			tykoastest.Validate(t, []byte(doc))
		})
	}
}

// tykDoc is the part of a Tyk OAS document that the tests read.
type tykDoc struct {
	OpenAPI string `json:"openapi"`
	Info    struct {
		Title string `json:"title"`
	} `json:"info"`
	Tyk *struct {
		Info struct {
			ID    string `json:"id"`
			Name  string `json:"name"`
			State struct {
				Active bool `json:"active"`
			} `json:"state"`
		} `json:"info"`
		Server struct {
			ListenPath *struct {
				Value string `json:"value"`
				Strip bool   `json:"strip"`
			} `json:"listenPath"`
			CustomDomain *struct {
				Enabled bool   `json:"enabled"`
				Name    string `json:"name"`
			} `json:"customDomain"`
			GatewayTags *struct {
				Enabled bool     `json:"enabled"`
				Tags    []string `json:"tags"`
			} `json:"gatewayTags"`
		} `json:"server"`
		Upstream struct {
			URL                string `json:"url"`
			PreserveHostHeader *struct {
				Enabled bool `json:"enabled"`
			} `json:"preserveHostHeader"`
		} `json:"upstream"`
	} `json:"x-tyk-api-gateway"`
}

func checkDocument(t *testing.T, raw []byte, e expectedAPI, id string) {
	t.Helper()
	var d tykDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("tyk-oas.json is not JSON: %v\n%s", err, raw)
	}
	if !strings.HasPrefix(d.OpenAPI, "3.0.") {
		t.Errorf("openapi %q, want 3.0.x", d.OpenAPI)
	}
	if d.Tyk == nil {
		t.Fatalf("no x-tyk-api-gateway in\n%s", raw)
	}
	x := d.Tyk
	if d.Info.Title != id || x.Info.ID != id || x.Info.Name != id {
		t.Errorf("info.title %q, x-tyk-api-gateway.info.id %q, .name %q: want all %q", d.Info.Title, x.Info.ID, x.Info.Name, id)
	}
	if !x.Info.State.Active {
		t.Errorf("x-tyk-api-gateway.info.state.active is not true")
	}
	if lp := x.Server.ListenPath; lp == nil || lp.Value != e.path || !lp.Strip {
		t.Errorf("server.listenPath %+v, want {Value:%s Strip:true}", lp, e.path)
	}
	if cd := x.Server.CustomDomain; cd == nil || cd.Name != e.customDomain || !cd.Enabled {
		t.Errorf("server.customDomain %+v, want {Enabled:true Name:%s}", cd, e.customDomain)
	}
	if gt := x.Server.GatewayTags; gt == nil || !gt.Enabled || !slices.Equal(gt.Tags, []string{"edge"}) {
		t.Errorf("server.gatewayTags %+v, want {Enabled:true Tags:[edge]}", gt)
	}
	if x.Upstream.URL != e.upstream {
		t.Errorf("upstream.url %q, want %q", x.Upstream.URL, e.upstream)
	}
	if ph := x.Upstream.PreserveHostHeader; ph == nil || !ph.Enabled {
		t.Errorf("upstream.preserveHostHeader %+v, want {Enabled:true}", ph)
	}
}

// condition is a metav1.Condition as the annotations hold it.
type condition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	Reason             string `json:"reason"`
	Message            string `json:"message"`
	ObservedGeneration *int64 `json:"observedGeneration"`
}

func checkCondition(t *testing.T, where string, conds []condition, typ, status string) {
	t.Helper()
	for _, c := range conds {
		if c.Type != typ {
			continue
		}
		if c.Status != status {
			t.Errorf("%s: condition %s is %s (%s: %s), want %s", where, typ, c.Status, c.Reason, c.Message, status)
		}
		if c.Reason == "" || c.ObservedGeneration == nil {
			t.Errorf("%s: condition %s lacks reason or observedGeneration: %+v", where, typ, c)
		}
		return
	}
	t.Errorf("%s: no %s condition in %+v", where, typ, conds)
}

// checkBasicStatus checks the would-be status of the GatewayClass, the Gateway and both HTTPRoutes.
func checkBasicStatus(t *testing.T, items []*yaml.RNode) {
	t.Helper()
	statusOf := func(kind, ns, name string, v any) bool {
		t.Helper()
		n := find(items, kind, ns, name)
		if n == nil {
			t.Errorf("%s %s/%s is missing from the output", kind, ns, name)
			return false
		}
		s, ok := n.GetAnnotations()["gateway2tyk.io/status"]
		if !ok {
			t.Errorf("%s %s/%s has no gateway2tyk.io/status annotation", kind, ns, name)
			return false
		}
		if err := json.Unmarshal([]byte(s), v); err != nil {
			t.Errorf("%s %s/%s: gateway2tyk.io/status is not the JSON of a status: %v\n%s", kind, ns, name, err, s)
			return false
		}
		return true
	}

	var class struct {
		Conditions []condition `json:"conditions"`
	}
	if statusOf("GatewayClass", "", "tyk", &class) {
		checkCondition(t, "GatewayClass tyk", class.Conditions, "Accepted", "True")
	}

	var gw struct {
		Addresses []struct {
			Type  string `json:"type"`
			Value string `json:"value"`
		} `json:"addresses"`
		Conditions []condition `json:"conditions"`
		Listeners  []struct {
			Name           string      `json:"name"`
			AttachedRoutes *int        `json:"attachedRoutes"`
			Conditions     []condition `json:"conditions"`
			SupportedKinds []struct {
				Group string `json:"group"`
				Kind  string `json:"kind"`
			} `json:"supportedKinds"`
		} `json:"listeners"`
	}
	if statusOf("Gateway", "shop", "edge", &gw) {
		checkCondition(t, "Gateway shop/edge", gw.Conditions, "Accepted", "True")
		checkCondition(t, "Gateway shop/edge", gw.Conditions, "Programmed", "True")
		if len(gw.Addresses) != 1 || gw.Addresses[0].Value != "edge.lb.example.net" || gw.Addresses[0].Type != "Hostname" {
			t.Errorf("Gateway shop/edge: addresses %+v, want [{Type:Hostname Value:edge.lb.example.net}]", gw.Addresses)
		}
		if len(gw.Listeners) != 1 || gw.Listeners[0].Name != "http" {
			t.Errorf("Gateway shop/edge: listeners %+v, want one named http", gw.Listeners)
		} else {
			l := gw.Listeners[0]
			if l.AttachedRoutes == nil || *l.AttachedRoutes != 2 {
				t.Errorf("Gateway shop/edge: listener http attachedRoutes %v, want 2", l.AttachedRoutes)
			}
			checkCondition(t, "Gateway shop/edge listener http", l.Conditions, "Accepted", "True")
			if len(l.SupportedKinds) != 1 || l.SupportedKinds[0].Kind != "HTTPRoute" {
				t.Errorf("Gateway shop/edge: listener http supportedKinds %+v, want [HTTPRoute]", l.SupportedKinds)
			}
		}
	}

	for _, route := range []string{"orders", "catalog"} {
		var hr struct {
			Parents []struct {
				ParentRef struct {
					Group string `json:"group"`
					Kind  string `json:"kind"`
					Name  string `json:"name"`
				} `json:"parentRef"`
				ControllerName string      `json:"controllerName"`
				Conditions     []condition `json:"conditions"`
			} `json:"parents"`
		}
		where := "HTTPRoute shop/" + route
		if !statusOf("HTTPRoute", "shop", route, &hr) {
			continue
		}
		if len(hr.Parents) != 1 {
			t.Errorf("%s: %d parents in status, want 1", where, len(hr.Parents))
			continue
		}
		p := hr.Parents[0]
		if p.ParentRef.Name != "edge" || p.ParentRef.Kind != "Gateway" || p.ParentRef.Group != "gateway.networking.k8s.io" {
			t.Errorf("%s: parentRef %+v, want the Gateway edge with group and kind filled in", where, p.ParentRef)
		}
		if p.ControllerName != "tyk.tyk.io/gateway-controller" {
			t.Errorf("%s: controllerName %q", where, p.ControllerName)
		}
		checkCondition(t, where, p.Conditions, "Accepted", "True")
		checkCondition(t, where, p.Conditions, "ResolvedRefs", "True")
	}
}

// repoRoot is the nearest directory at or above the working directory that holds go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// findKustomize returns $KUSTOMIZE, or else <repo>/bin/kustomize; it skips the test when there is neither.
func findKustomize(t *testing.T, root string) string {
	t.Helper()
	if k := os.Getenv("KUSTOMIZE"); k != "" {
		if _, err := os.Stat(k); err != nil {
			t.Fatalf("$KUSTOMIZE=%s: %v", k, err)
		}
		return k
	}
	k := filepath.Join(root, "bin", "kustomize")
	if _, err := os.Stat(k); err != nil {
		t.Skipf("SKIPPED: no kustomize binary ($KUSTOMIZE is unset and %s is absent); run `make test`, which installs it", k)
	}
	return k
}

// functionBinary returns the gateway2tyk binary to run: $GATEWAY2TYK when set, else one built now from
// ./cmd/gateway2tyk into a temporary directory.
func functionBinary(t *testing.T, root string) string {
	t.Helper()
	if b := os.Getenv("GATEWAY2TYK"); b != "" {
		if _, err := os.Stat(b); err != nil {
			t.Fatalf("$GATEWAY2TYK=%s: %v", b, err)
		}
		return b
	}
	out := filepath.Join(t.TempDir(), "gateway2tyk")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/gateway2tyk")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/gateway2tyk: %v\n%s", err, b)
	}
	return out
}

// functionDir returns a directory that holds the function as an executable named gateway2tyk (the name the
// example's exec config runs), to put first on PATH.
func functionDir(t *testing.T, root string) string {
	t.Helper()
	bin := functionBinary(t, root)
	if filepath.Base(bin) == "gateway2tyk" {
		return filepath.Dir(bin)
	}
	dir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "gateway2tyk")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// parseStream reads a multi-document YAML stream into its objects.
func parseStream(t *testing.T, b []byte) []*yaml.RNode {
	t.Helper()
	items, err := (&kio.ByteReader{Reader: bytes.NewReader(b), OmitReaderAnnotations: true}).Read()
	if err != nil {
		t.Fatalf("output is not a YAML stream of objects: %v\n%s", err, b)
	}
	return items
}

// find returns the item of that kind, namespace and name, or nil.
func find(items []*yaml.RNode, kind, namespace, name string) *yaml.RNode {
	for _, it := range items {
		if it.GetKind() == kind && it.GetNamespace() == namespace && it.GetName() == name {
			return it
		}
	}
	return nil
}

// exitCode is the exit status of a finished command, or -1 when it did not run to an exit.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err == nil {
		return 0
	}
	return -1
}
