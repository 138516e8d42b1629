package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/gateway2tyk/gateway2tyk/sync/kube"
	"github.com/gateway2tyk/gateway2tyk/sync/target"
	"github.com/gateway2tyk/gateway2tyk/sync/target/targettest"
)

// cli runs the command line as main does and returns the exit status and what was printed.
func cli(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	root := newRoot()
	var out, errb bytes.Buffer
	if args == nil {
		args = []string{} // not nil: cobra would read the test binary's own flags (make golden's -update)
	}
	root.SetArgs(args)
	root.SetIn(strings.NewReader(stdin))
	root.SetOut(&out)
	root.SetErr(&errb)
	code := exitStatus(root.Execute(), &errb)
	return code, out.String(), errb.String()
}

// fast makes the target clients retry without sleeping, and isolates the environment and the cluster.
func fast(t *testing.T, env map[string]string, cluster *kube.Cluster) {
	t.Helper()
	oldOpts, oldEnv, oldConnect := targetOptions, getenv, connectCluster
	t.Cleanup(func() { targetOptions, getenv, connectCluster = oldOpts, oldEnv, oldConnect })
	targetOptions = target.Options{Timeout: 2 * time.Second,
		Retry: target.Retry{Sleep: func(context.Context, time.Duration) error { return nil }}}
	getenv = func(k string) string { return env[k] }
	connectCluster = func(string) (*kube.Cluster, error) {
		if cluster == nil {
			return nil, errors.New("no cluster to read from (in-cluster config or kubeconfig): none in this test")
		}
		return cluster, nil
	}
}

func apis() []targettest.API {
	return []targettest.API{
		{Route: "shop/cart", Gateway: "shop/edge", Hostname: "shop.example.com", Path: "/cart", Upstream: "http://cart"},
		{Route: "shop/checkout", Gateway: "shop/edge", Hostname: "shop.example.com", Path: "/checkout", Upstream: "http://checkout"},
	}
}

func TestSyncFromFileAndStdin(t *testing.T) {
	f := targettest.NewGateway(t)
	fast(t, map[string]string{"TYK_MODE": "ce", "TYK_URL": f.Server.URL, "TYK_AUTH": f.Auth}, nil)
	path := filepath.Join(t.TempDir(), "rendered.yaml")
	require.NoError(t, os.WriteFile(path, []byte(targettest.Streams(apis())), 0o600))

	code, out, stderr := cli(t, "", "sync", "--from", path, "--dry-run")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "create  "+apis()[0].ID()+"  shop/cart shop.example.com/cart\n")
	assert.Contains(t, out, "plan: 2 to create, 0 to update, 0 to delete, 0 unchanged (dry run: nothing was changed)")
	assert.Empty(t, f.APIs())

	code, out, stderr = cli(t, "", "sync", "--from", path)
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "ACTION  API ID                      ROUTE                                    OUTCOME\n")
	assert.Contains(t, out, "sync: 2 created, 0 updated, 0 deleted, 0 unchanged, 0 failed")
	assert.Len(t, f.APIs(), 2)

	// From stdin, with one route gone.
	code, out, stderr = cli(t, targettest.Streams(apis()[1:]), "sync", "--from", "-")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "delete     "+apis()[0].ID()+"  shop/cart shop.example.com/cart          ok")
	assert.Contains(t, out, "reload: ok")
	assert.Len(t, f.APIs(), 1)
}

func TestSyncExitStatus(t *testing.T) {
	f := targettest.NewDashboard(t)
	fast(t, nil, nil)
	path := filepath.Join(t.TempDir(), "rendered.yaml")
	require.NoError(t, os.WriteFile(path, []byte(targettest.Streams(apis())), 0o600))
	flags := []string{"--mode", "pro", "--url", f.Server.URL, "--auth", f.Auth}

	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no target", []string{"sync", "--from", path}, 2, "gateway2tyk: sync: Tyk target: no mode"},
		{"bad mode", []string{"sync", "--from", path, "--mode", "x", "--url", "http://a", "--auth", "k"}, 2, `mode (flag --mode) must be pro`},
		{"bad url", []string{"sync", "--from", path, "--mode", "pro", "--url", "a:1", "--auth", "k"}, 2, "absolute http or https URL"},
		{"bad context", append([]string{"sync", "--operator-context", "no-slash"}, flags...), 2, "--operator-context must be NAMESPACE/NAME"},
		{"bad namespace", append([]string{"sync", "--from", path, "-n", "Not_A_Namespace"}, flags...), 2, `--namespace "Not_A_Namespace"`},
		{"missing file", append([]string{"sync", "--from", filepath.Join(t.TempDir(), "nope")}, flags...), 2, "--from: open"},
		{"unknown flag", []string{"sync", "--colour"}, 2, "unknown flag: --colour"},
		{"no cluster", append([]string{"sync"}, flags...), 2, "gateway2tyk: sync: no cluster to read from"},
		{"wrong credential", []string{"sync", "--from", path, "--mode", "pro", "--url", f.Server.URL, "--auth", "wrong"}, 4, "403 Forbidden"},
		{"dry run", append([]string{"sync", "--from", path, "--dry-run"}, flags...), 0, ""},
		{"run", append([]string{"sync", "--from", path}, flags...), 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := cli(t, "", c.args...)
			assert.Equal(t, c.code, code, stderr)
			assert.Contains(t, stderr, c.stderr)
			assert.NotContains(t, stderr, "goroutine", "no stack trace")
		})
	}

	// An action that fails after all others were tried: exit status 1, the table still printed.
	f.Inject = func(method, path string) int {
		if method == "PUT" {
			return 500
		}
		return 0
	}
	edited := apis()
	edited[0].Upstream = "http://cart-v2"
	require.NoError(t, os.WriteFile(path, []byte(targettest.Streams(edited)), 0o600))
	code, out, stderr := cli(t, "", append([]string{"sync", "--from", path}, flags...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "update     "+edited[0].ID()+"  shop/cart shop.example.com/cart          failed: PUT /api/apis/oas/"+edited[0].ID()+": 500 Internal Server Error")
	assert.Contains(t, out, "unchanged  "+edited[1].ID()+"  shop/checkout shop.example.com/checkout  ok")
	assert.Contains(t, stderr, "gateway2tyk sync: 1 action(s) failed:")

	// The dry run of the same plan succeeds: the plan was made.
	code, out, _ = cli(t, "", append([]string{"sync", "--from", path, "--dry-run"}, flags...)...)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "update     "+edited[0].ID()+"  shop/cart shop.example.com/cart\n")

	// A listing that fails: exit status 4 (the target failed: no answer), nothing changed.
	f.FailListing = true
	code, out, stderr = cli(t, "", append([]string{"sync", "--from", path}, flags...)...)
	assert.Equal(t, 4, code)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "listing the target's APIs failed (Tyk Dashboard at "+f.Server.URL+")")
	assert.Contains(t, stderr, "nothing was changed")
}

// TestSyncRefusesInputWithoutAPIs: an empty stream (a failed render piped in without pipefail), a file of source
// objects, or an empty file is refused with exit status 2 and one line, before any call to Tyk; --allow-empty
// syncs it. A plan that would delete every API is refused the same way.
func TestSyncRefusesInputWithoutAPIs(t *testing.T) {
	f := targettest.NewDashboard(t)
	fast(t, nil, nil)
	flags := []string{"--mode", "pro", "--url", f.Server.URL, "--auth", f.Auth}
	rendered := filepath.Join(t.TempDir(), "rendered.yaml")
	require.NoError(t, os.WriteFile(rendered, []byte(targettest.Streams(apis())), 0o600))
	code, _, stderr := cli(t, "", append([]string{"sync", "--from", rendered}, flags...)...)
	require.Equal(t, 0, code, stderr)
	synced := len(f.APIs())
	require.NotZero(t, synced)

	source := filepath.Join(t.TempDir(), "routes.yaml")
	require.NoError(t, os.WriteFile(source, []byte("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n"+
		"metadata: {name: orders, namespace: shop}\nspec: {parentRefs: [{name: edge}]}\n"), 0o600))
	empty := filepath.Join(t.TempDir(), "empty.yaml")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	for name, args := range map[string][]string{
		"an empty stdin":             {"sync", "--from", "-"},
		"an empty file":              {"sync", "--from", empty},
		"the source, not the render": {"sync", "--from", source},
	} {
		t.Run(name, func(t *testing.T) {
			calls := len(f.Calls())
			code, out, stderr := cli(t, "", append(args, flags...)...)
			assert.Equal(t, 2, code)
			assert.Empty(t, out)
			assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one line: %s", stderr)
			assert.Contains(t, stderr, "holds no rendered API")
			assert.Contains(t, stderr, "--allow-empty")
			assert.Equal(t, calls, len(f.Calls()), "no call to Tyk")
			assert.Len(t, f.APIs(), synced, "nothing deleted")
		})
	}

	// One API kept: the plan deletes the others and goes ahead; all gone: refused unless --allow-empty.
	require.NoError(t, os.WriteFile(rendered, []byte(targettest.Streams(apis()[:1])), 0o600))
	code, _, stderr = cli(t, "", append([]string{"sync", "--from", rendered}, flags...)...)
	require.Equal(t, 0, code, stderr)
	// An empty input acts for no owner: even with --allow-empty it deletes nothing; with --owner, that owner's
	// APIs, and only with --allow-empty.
	code, out, stderr := cli(t, "", append([]string{"sync", "--from", empty, "--allow-empty"}, flags...)...)
	assert.Equal(t, 0, code, stderr)
	assert.Len(t, f.APIs(), 1, "no owner, nothing deleted")
	assert.Contains(t, out, "owners: none")
	code, _, stderr = cli(t, "", append([]string{"sync", "--from", empty, "--owner", "gateway2tyk"}, flags...)...)
	assert.Equal(t, 2, code, stderr)
	// gateway2tyk is the fallback owner, which other applications may share (issue 45 finding 3): no advice to
	// delete all of its APIs.
	assert.Contains(t, stderr, "owner gateway2tyk is the fallback of every application rendered outside a git repository")
	assert.NotContains(t, stderr, "--allow-empty")
	code, _, stderr = cli(t, "", append([]string{"sync", "--from", empty, "--owner", "shop-apis"}, flags...)...)
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "--allow-empty syncs it, deleting every API of owner shop-apis")
	code, _, stderr = cli(t, "", append([]string{"sync", "--from", empty, "--owner", "someone-else", "--allow-empty"}, flags...)...)
	assert.Equal(t, 0, code, stderr)
	assert.Len(t, f.APIs(), 1, "another owner's sync deletes none of gateway2tyk's APIs")
	code, _, stderr = cli(t, "", append([]string{"sync", "--from", empty, "--owner", "gateway2tyk", "--allow-empty"}, flags...)...)
	assert.Equal(t, 0, code, stderr)
	assert.Empty(t, f.APIs(), "--allow-empty --owner deletes every API of the owner")
	code, _, stderr = cli(t, "", append([]string{"sync", "--from", empty, "--owner", "a/b"}, flags...)...)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `sync: --owner "a/b": `)
}

// TestSyncInCluster reads the rendered ConfigMaps and the OperatorContext (with its Secret) from a fake cluster.
func TestSyncInCluster(t *testing.T) {
	f := targettest.NewDashboard(t)
	a := apis()
	other := targettest.API{Route: "blog/posts", Gateway: "shop/edge", Path: "/posts", Upstream: "http://posts"}
	core := fake.NewSimpleClientset(a[0].ConfigMap(), a[1].ConfigMap(), other.ConfigMap(),
		secret("tyk", "tyk-operator-conf", map[string]string{"TYK_AUTH": f.Auth, "TYK_ORG": f.Org}))
	oc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "tyk.tyk.io/v1alpha1", "kind": "OperatorContext",
		"metadata": map[string]any{"name": "dashboard", "namespace": "tyk"},
		"spec": map[string]any{
			"env":       map[string]any{"mode": "pro", "url": f.Server.URL, "auth": "overridden-by-the-secret"},
			"secretRef": map[string]any{"name": "tyk-operator-conf"},
		},
	}}
	cluster := &kube.Cluster{Core: core, Dynamic: dynamicfake.NewSimpleDynamicClient(runtime.NewScheme(), oc)}
	fast(t, nil, cluster)

	code, out, stderr := cli(t, "", "sync", "--operator-context", "tyk/dashboard", "--namespace", "shop")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "sync: 2 created, 0 updated, 0 deleted, 0 unchanged, 0 failed")
	assert.Len(t, f.APIs(), 2, "only namespace shop")

	code, out, stderr = cli(t, "", "sync", "--operator-context", "tyk/dashboard")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "sync: 1 created, 0 updated, 0 deleted, 2 unchanged, 0 failed")

	// The environment wins over the context, flags over the environment.
	fast(t, map[string]string{"TYK_AUTH": "wrong"}, cluster)
	code, _, stderr = cli(t, "", "sync", "--operator-context", "tyk/dashboard", "--dry-run")
	assert.Equal(t, 4, code)
	assert.Contains(t, stderr, "403 Forbidden")
	code, _, stderr = cli(t, "", "sync", "--operator-context", "tyk/dashboard", "--dry-run", "--auth", f.Auth)
	assert.Equal(t, 0, code, stderr)

	code, _, stderr = cli(t, "", "sync", "--operator-context", "tyk/missing")
	assert.Equal(t, 4, code)
	assert.Contains(t, stderr, `gateway2tyk: sync: --operator-context: reading OperatorContext tyk/missing`)
}

func secret(ns, name string, data map[string]string) runtime.Object {
	s := targettest.TLSSecret(ns, name, nil, nil)
	s.Type = "Opaque"
	s.Data = map[string][]byte{}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

// TestRenderThenSync pipes the render's real output into the sync, as a CI job would.
func TestRenderThenSync(t *testing.T) {
	f := targettest.NewDashboard(t)
	fast(t, map[string]string{"TYK_MODE": "pro", "TYK_URL": f.Server.URL, "TYK_AUTH": f.Auth}, nil)
	code, rendered, stderr := cli(t, "", "render", filepath.Join("..", "..", "fn", "hook", "testdata", "input.yaml"))
	require.Equal(t, 0, code, stderr)

	code, out, stderr := cli(t, rendered, "sync", "--from", "-")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "sync: 2 created, 0 updated, 0 deleted, 0 unchanged, 0 failed")
	assert.Contains(t, out, " shop/cart ")
	assert.Contains(t, out, " blog/posts ")

	code, out, stderr = cli(t, rendered, "sync", "--from", "-")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "sync: 0 created, 0 updated, 0 deleted, 2 unchanged, 0 failed")
}

// Without --from and with no cluster configured, sync stops on one line of its own (client-go's asked for
// KUBERNETES_MASTER) with exit status 2, a bad setting, as docs/reference/cli/exit-status.md says.
func TestSyncWithoutAClusterIsASettingsError(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	code, out, stderr := cli(t, "", "sync", "--mode", "ce", "--url", "http://127.0.0.1:1", "--auth", "x")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Equal(t, "gateway2tyk: sync: no cluster configured: not running in a cluster, and no --kubeconfig, KUBECONFIG "+
		"or ~/.kube/config: give the rendered objects with --from FILE (or - for stdin), or a kubeconfig\n", stderr)
}
