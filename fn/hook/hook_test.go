package hook_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/hook"
)

var update = flag.Bool("update", false, "rewrite testdata/expected.yaml (make golden)")

// render runs the function over a ResourceList and returns the output items and results.
func render(t *testing.T, in string) *framework.ResourceList {
	t.Helper()
	return process(t, in)
}

func process(t *testing.T, in string) *framework.ResourceList {
	t.Helper()
	r := &kio.ByteReader{Reader: strings.NewReader(in), OmitReaderAnnotations: true}
	items, err := r.Read()
	require.NoError(t, err)
	rl := &framework.ResourceList{Items: items, FunctionConfig: r.FunctionConfig}
	_ = fn.Processor{}.Process(rl)
	return rl
}

func hookObjects(items []*yaml.RNode) []*yaml.RNode {
	var out []*yaml.RNode
	for _, it := range items {
		if hook.IsHook(it) {
			out = append(out, it)
		}
	}
	return out
}

func write(t *testing.T, nodes []*yaml.RNode) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, kio.ByteWriter{Writer: &b}.Write(nodes))
	return b.String()
}

func input(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "input.yaml"))
	require.NoError(t, err)
	return string(b)
}

// TestGolden is the user story of testdata/input.yaml: the emitted hook objects are testdata/expected.yaml.
func TestGolden(t *testing.T) {
	rl := render(t, input(t))
	for _, r := range rl.Results {
		assert.NotEqual(t, framework.Error, r.Severity, r.String())
	}
	got := write(t, hookObjects(rl.Items))
	path := filepath.Join("testdata", "expected.yaml")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), got)

	// The Job is the hook; the RBAC objects are plain resources.
	for _, n := range hookObjects(rl.Items) {
		a := n.GetAnnotations()
		if n.GetKind() == "Job" {
			assert.Equal(t, "gateway2tyk-sync", n.GetName())
			assert.Equal(t, "PostSync", a["argocd.argoproj.io/hook"])
			assert.Equal(t, "BeforeHookCreation,HookSucceeded", a["argocd.argoproj.io/hook-delete-policy"])
		} else {
			assert.Empty(t, a["argocd.argoproj.io/hook"], n.GetKind())
		}
	}
}

// TestIdempotent runs the function on its own output: the hook objects are replaced, never duplicated.
func TestIdempotent(t *testing.T) {
	first := render(t, input(t))
	var b bytes.Buffer
	require.NoError(t, kio.ByteWriter{Writer: &b, WrappingKind: kio.ResourceListKind, WrappingAPIVersion: kio.ResourceListAPIVersion,
		FunctionConfig: first.FunctionConfig}.Write(first.Items))
	second := render(t, b.String())
	assert.Equal(t, write(t, first.Items), write(t, second.Items))
	assert.Len(t, hookObjects(second.Items), 2+2*5) // ServiceAccount, Job, and a Role and RoleBinding in 5 namespaces
}

func withSpec(t *testing.T, spec string) string {
	t.Helper()
	in := input(t)
	i := strings.Index(in, "  spec:\n    syncHook:")
	require.Positive(t, i)
	return in[:i] + spec
}

func TestDisabled(t *testing.T) {
	rl := render(t, withSpec(t, "  spec: {syncHook: {enabled: false, image: x}}\n"))
	assert.Empty(t, hookObjects(rl.Items))
	rl = render(t, withSpec(t, "  spec: {}\n"))
	assert.Empty(t, hookObjects(rl.Items))
}

func TestDisablingRemovesTheObjectsOfAnEarlierRun(t *testing.T) {
	first := render(t, input(t))
	var b bytes.Buffer
	require.NoError(t, kio.ByteWriter{Writer: &b, WrappingKind: kio.ResourceListKind, WrappingAPIVersion: kio.ResourceListAPIVersion}.Write(first.Items))
	second := render(t, b.String()+"functionConfig: {apiVersion: gateway2tyk.io/v1alpha1, kind: RenderConfig, metadata: {name: x}}\n")
	assert.Empty(t, hookObjects(second.Items))
}

func jobArgs(t *testing.T, items []*yaml.RNode) []string {
	t.Helper()
	for _, n := range hookObjects(items) {
		if n.GetKind() == "Job" {
			args, err := n.GetSlice("spec.template.spec.containers.[name=sync].args")
			require.NoError(t, err)
			out := make([]string, len(args))
			for i, a := range args {
				out[i] = a.(string)
			}
			return out
		}
	}
	t.Fatal("no Job")
	return nil
}

func TestSettings(t *testing.T) {
	rl := render(t, withSpec(t, `  spec:
    syncHook: {enabled: true, image: g:1, context: platform/tyk, namespace: ops, namespaces: [shop]}
`))
	assert.Equal(t, []string{"sync", "--operator-context", "platform/tyk", "--owner", "gateway2tyk", "--namespace", "shop"}, jobArgs(t, rl.Items))
	var kinds []string
	for _, n := range hookObjects(rl.Items) {
		kinds = append(kinds, n.GetKind()+" "+n.GetNamespace())
	}
	assert.Contains(t, kinds, "Job ops")
	assert.Contains(t, kinds, "ServiceAccount ops")
	assert.Contains(t, kinds, "Role platform")
	assert.NotContains(t, kinds, "Role blog", "blog is not in the scope")
	// platform/tyk is not in the input: a warning says its Secret cannot be named.
	var warned bool
	for _, r := range rl.Results {
		if strings.Contains(r.Message, "OperatorContext platform/tyk is not in the input") {
			warned = r.Severity == framework.Warning
		}
	}
	assert.True(t, warned)
}

func TestContextCannotBeDefaulted(t *testing.T) {
	in := strings.Replace(withSpec(t, "  spec: {syncHook: {enabled: true, image: g:1}}\n"),
		"      parametersRef: {group: tyk.tyk.io, kind: OperatorContext, name: dashboard, namespace: tyk}\n", "", 1)
	rl := render(t, in)
	assert.Empty(t, hookObjects(rl.Items))
	var found bool
	for _, r := range rl.Results {
		if r.Severity == framework.Error && strings.HasPrefix(r.Message, "spec.syncHook.context: not set, and no GatewayClass of controller tyk.tyk.io/gateway-controller names an OperatorContext") {
			found = true
		}
	}
	assert.True(t, found, "%v", rl.Results)
}

func TestNoNamespaceNoHook(t *testing.T) {
	rl := process(t, `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items: []
functionConfig: {apiVersion: gateway2tyk.io/v1alpha1, kind: RenderConfig, metadata: {name: x}, spec: {syncHook: {enabled: true, image: g:1, context: tyk/dashboard}}}
`)
	assert.Empty(t, hookObjects(rl.Items))
	require.NotEmpty(t, rl.Results)
	assert.Contains(t, rl.Results[len(rl.Results)-1].Message, "the hook is not emitted")
}

// TestDataPlaneService: a context naming a data-plane Service (not in pro mode) gives the hook get on that Service
// and list on the EndpointSlices of the context's namespace, so that the sync reaches every replica; in pro
// mode the Dashboard reaches its Gateways itself, and nothing is added.
func TestDataPlaneService(t *testing.T) {
	for mode, want := range map[string]bool{"ce": true, "pro": false} {
		in := strings.Replace(input(t),
			"      env: {mode: pro, url: \"http://dashboard.tyk.svc.cluster.local:3000\", org: 5e9d9544a1dcd60001d0ed20}\n",
			"      env: {mode: "+mode+", url: \"http://tyk-gateway.tyk.svc:8080\"}\n      dataPlane: {serviceRef: {name: tyk-gateway}}\n", 1)
		require.NotEqual(t, input(t), in)
		rl := render(t, in)
		var rules []string
		for _, n := range hookObjects(rl.Items) {
			if n.GetKind() == "Role" && n.GetNamespace() == "tyk" {
				s, err := n.Pipe(yaml.Lookup("rules"))
				require.NoError(t, err)
				rules = append(rules, s.MustString())
			}
		}
		require.Len(t, rules, 1, mode)
		got := rules[0]
		assert.Equal(t, want, strings.Contains(got, "resourceNames:\n  - tyk-gateway\n  resources:\n  - services\n  verbs:\n  - get"), "%s:\n%s", mode, got)
		assert.Equal(t, want, strings.Contains(got, "- discovery.k8s.io\n  resources:\n  - endpointslices\n  verbs:\n  - list"), "%s:\n%s", mode, got)
	}
}

// TestWriteStatus: with spec.syncHook.writeStatus the Job runs the sync with --write-status and names each
// object the render wrote a status on (GatewayClass tyk, Gateway gateways/edge, HTTPRoutes blog/posts and
// shop/cart; not the local-config Secrets, which have none); the RBAC adds get on exactly those objects and patch
// on exactly their status subresource, in the Roles of their namespaces and, for the cluster-scoped GatewayClass,
// in a ClusterRole of its own (testdata/writestatus-expected.yaml, the RBAC objects of the story).
func TestWriteStatus(t *testing.T) {
	in := strings.Replace(input(t), "      image: registry.example.com/gateway2tyk:v1.0.0\n",
		"      image: registry.example.com/gateway2tyk:v1.0.0\n      writeStatus: true\n", 1)
	require.NotEqual(t, input(t), in)
	rl := render(t, in)
	for _, r := range rl.Results {
		assert.NotEqual(t, framework.Error, r.Severity, r.String())
	}
	assert.Equal(t, []string{"sync", "--operator-context", "tyk/dashboard", "--owner", "gateway2tyk", "--namespace", "blog", "--namespace", "shop",
		"--write-status", "--status-object", "Gateway/gateways/edge", "--status-object", "GatewayClass/tyk",
		"--status-object", "HTTPRoute/blog/posts", "--status-object", "HTTPRoute/shop/cart"}, jobArgs(t, rl.Items))
	var rbac []*yaml.RNode
	for _, n := range hookObjects(rl.Items) {
		if k := n.GetKind(); k == "Role" || k == "ClusterRole" || k == "ClusterRoleBinding" {
			rbac = append(rbac, n)
		}
	}
	got := write(t, rbac)
	path := filepath.Join("testdata", "writestatus-expected.yaml")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), got)
	// Nothing is listed, and nothing but a status is patched.
	assert.NotContains(t, got, "- httproutes\n  verbs:\n  - list")
	assert.Equal(t, 4, strings.Count(got, "- patch"), "one per object")
	assert.Equal(t, 4, strings.Count(got, "/status\n"))
}

// TestHookPerOwner: the hooks of two applications (two owners) that share an OperatorContext, and so the
// namespace of their Jobs, have names of their own and sync only their own owner's APIs, so that neither
// application's Argo CD sync replaces or prunes the other's; the fallback owner keeps the name releases before
// owners gave the hook.
func TestHookPerOwner(t *testing.T) {
	names, total := map[string]bool{}, 0
	for _, owner := range []string{"examples.basic", "apps.team_b", "gateway2tyk"} {
		rl := render(t, withSpec(t, "  spec:\n    owner: "+owner+"\n    syncHook: {enabled: true, image: g:1, context: platform/tyk, namespaces: [shop]}\n"))
		args := jobArgs(t, rl.Items)
		assert.Equal(t, []string{"sync", "--operator-context", "platform/tyk", "--owner", owner, "--namespace", "shop"}, args)
		objs := hookObjects(rl.Items)
		require.NotEmpty(t, objs)
		total += len(objs)
		for _, n := range objs {
			assert.Equal(t, hook.NameFor(owner), n.GetName(), "%s %s", n.GetKind(), owner)
			names[n.GetKind()+" "+n.GetNamespace()+"/"+n.GetName()] = true
		}
	}
	assert.Equal(t, "gateway2tyk-sync-examples-basic", hook.NameFor("examples.basic"))
	assert.Equal(t, "gateway2tyk-sync-apps-team-b", hook.NameFor("apps.team_b"))
	assert.Equal(t, hook.Name, hook.NameFor("gateway2tyk"))
	long := hook.NameFor(strings.Repeat("a", 60) + ".b")
	assert.LessOrEqual(t, len(long), 63)
	assert.NotEqual(t, long, hook.NameFor(strings.Repeat("a", 60)+".c"), "long owners still differ")
	assert.Len(t, names, total, "the three owners' ServiceAccounts, Roles, RoleBindings and Jobs: none shared")
}
