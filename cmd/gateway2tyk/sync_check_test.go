package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/sync/plan"
	"github.com/gateway2tyk/gateway2tyk/sync/target/targettest"
)

// TestSyncCheck holds sync --check to the Dashboard fake (which sync/target's contract test holds to Tyk's
// published description; --check calls only the listing operations that test exercises): in sync after a sync;
// an API edited in the Dashboard, one deleted there and one created there with gateway2tyk's marker are each
// reported, in every format, with exit status 1; the check sends only GET requests; a sync makes it clean again.
func TestSyncCheck(t *testing.T) {
	f := targettest.NewDashboard(t)
	fast(t, map[string]string{"TYK_MODE": "pro", "TYK_URL": f.Server.URL, "TYK_AUTH": f.Auth}, nil)
	rendered := append(apis(), targettest.API{Route: "shop/orders", Gateway: "shop/edge", Hostname: "shop.example.com",
		Path: "/orders", Upstream: "http://orders"})
	path := filepath.Join(t.TempDir(), "rendered.yaml")
	require.NoError(t, os.WriteFile(path, []byte(targettest.Streams(rendered)), 0o600))

	code, out, stderr := cli(t, "", "sync", "--check", "--from", path)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, out, "APIs missing on the target (3)\n")
	code, _, stderr = cli(t, "", "sync", "--from", path)
	require.Equal(t, 0, code, stderr)

	f.ResetCalls()
	code, out, stderr = cli(t, "", "sync", "--check", "--from", path)
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, "gateway2tyk sync --check: in sync: 0 APIs changed on the target, 0 missing, 0 no longer rendered, "+
		"0 held by an API gateway2tyk did not create, 3 in sync, 0 in conflict with another owner's, 0 of other owners "+
		"left alone (owner gateway2tyk; Tyk Dashboard at "+f.Server.URL+")\n", out)

	// Behind sync's back: the cart API's upstream is edited in the Dashboard, the orders API deleted, and an API
	// is created there with the marker of a route the render does not have.
	cart, orders := rendered[0], rendered[2]
	var doc map[string]any
	require.NoError(t, json.Unmarshal(f.APIs()[cart.ID()], &doc))
	doc["x-tyk-api-gateway"].(map[string]any)["upstream"].(map[string]any)["url"] = "http://cart-hotfix"
	edited, err := json.Marshal(doc)
	require.NoError(t, err)
	f.Put(cart.ID(), edited)
	deleteFrom(t, f, orders.ID())
	stray := targettest.API{Route: "shop/legacy", Gateway: "shop/edge", Hostname: "shop.example.com", Path: "/legacy", Upstream: "http://legacy"}
	body, err := plan.Stamp([]byte(stray.Document()), plan.Marker{Owner: stray.OwnerOf(), Route: stray.Route,
		Gateway: stray.Gateway, Hostname: stray.Hostname, Path: stray.Path})
	require.NoError(t, err)
	f.Put(stray.ID(), body)

	f.ResetCalls()
	code, out, stderr = cli(t, "", "sync", "--check", "--from", path)
	assert.Equal(t, 1, code, stderr)
	assert.Equal(t, `APIs changed on the target (1; - as rendered, + as served)
  ~ shop/cart on shop/edge, shop.example.com/cart (`+cart.ID()+`)
      upstream targets
        - http://cart
        + http://cart-hotfix
APIs missing on the target (1)
  - shop/orders on shop/edge, shop.example.com/orders (`+orders.ID()+`)
APIs on the target no longer rendered (1)
  + shop/legacy on shop/edge, shop.example.com/legacy (`+stray.ID()+`)
gateway2tyk sync --check: drift: 1 API changed on the target, 1 missing, 1 no longer rendered, 0 held by an API gateway2tyk did not create, 1 in sync, 0 in conflict with another owner's, 0 of other owners left alone (owner gateway2tyk; Tyk Dashboard at `+f.Server.URL+`)
`, out)
	for _, c := range f.Calls() {
		assert.Equal(t, http.MethodGet, c.Method, "sync --check sent %s %s", c.Method, c.Path)
	}
	assert.NotEmpty(t, f.Calls())

	code, out, _ = cli(t, "", "sync", "--check", "--from", path, "-o", "json")
	assert.Equal(t, 1, code)
	var report struct {
		Drifted bool `json:"drifted"`
		Changed []struct {
			ID      string `json:"id"`
			Aspects []struct {
				Aspect         string
				Removed, Added []string
			} `json:"aspects"`
		} `json:"changed"`
		Missing, NotRendered, Foreign []struct{ ID string }
		InSync                        int `json:"inSync"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &report), out)
	assert.True(t, report.Drifted)
	require.Len(t, report.Changed, 1)
	assert.Equal(t, cart.ID(), report.Changed[0].ID)
	assert.Equal(t, []string{"http://cart-hotfix"}, report.Changed[0].Aspects[0].Added)
	assert.Equal(t, orders.ID(), report.Missing[0].ID)
	assert.Equal(t, stray.ID(), report.NotRendered[0].ID)
	assert.Empty(t, report.Foreign)
	assert.Equal(t, 1, report.InSync)

	code, out, _ = cli(t, "", "sync", "--check", "--from", path, "-o", "markdown")
	assert.Equal(t, 1, code)
	for _, want := range []string{"### gateway2tyk sync --check\n", "#### APIs changed on the target (1)\n",
		"```diff\n# upstream targets (- as rendered, + as served)\n- http://cart\n+ http://cart-hotfix\n```",
		"#### APIs missing on the target (1)\n", "| `shop/orders` | `shop/edge` | `shop.example.com` | `/orders` | `" + orders.ID() + "` |",
		"#### APIs on the target no longer rendered (1)\n"} {
		assert.Contains(t, out, want)
	}
	for _, c := range f.Calls() {
		assert.Equal(t, http.MethodGet, c.Method, "sync --check sent %s %s", c.Method, c.Path)
	}

	// An API with a rendered ID that gateway2tyk did not create.
	foreign := targettest.API{Route: "shop/checkout", Gateway: "shop/edge", Hostname: "shop.example.com", Path: "/checkout", Upstream: "http://x"}
	f.Put(foreign.ID(), []byte(foreign.Document()))
	code, out, _ = cli(t, "", "sync", "--check", "--from", path)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "APIs held by an API gateway2tyk did not create (1)\n  ! shop/checkout on shop/edge, shop.example.com/checkout ("+foreign.ID()+")\n")

	// After a sync (once the foreign API is gone: sync does not overwrite it), clean again.
	deleteFrom(t, f, foreign.ID())
	code, _, stderr = cli(t, "", "sync", "--from", path)
	require.Equal(t, 0, code, stderr)
	code, out, stderr = cli(t, "", "sync", "--check", "--from", path)
	assert.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(out, "gateway2tyk sync --check: in sync:"), out)
}

// deleteFrom deletes an API through the Dashboard's API, as someone would in the Dashboard.
func deleteFrom(t *testing.T, f *targettest.Fake, id string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, f.Server.URL+"/api/apis/oas/"+id, nil)
	require.NoError(t, err)
	req.Header.Set("authorization", f.Auth)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestSyncCheckUsage(t *testing.T) {
	f := targettest.NewDashboard(t)
	fast(t, nil, nil)
	path := filepath.Join(t.TempDir(), "rendered.yaml")
	require.NoError(t, os.WriteFile(path, []byte(targettest.Streams(apis())), 0o600))
	flags := []string{"--mode", "pro", "--url", f.Server.URL, "--auth", f.Auth, "--from", path}
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--check", "--dry-run"}, 2, "--check and --dry-run cannot be combined"},
		{[]string{"-o", "json"}, 2, `-o is for --check's report`},
		{[]string{"--check", "-o", "yaml"}, 2, `-o must be text, markdown or json (got "yaml")`},
		{[]string{"--check", "--url", "a:1"}, 2, "absolute http or https URL"},
		{[]string{"--check", "--auth", "wrong"}, 4, "403 Forbidden"},
	} {
		code, _, stderr := cli(t, "", append(append([]string{"sync"}, flags...), c.args...)...)
		assert.Equal(t, c.code, code, "%v: %s", c.args, stderr)
		assert.Contains(t, stderr, c.stderr, c.args)
	}
	assert.Zero(t, f.Changes())
}

// TestSyncCheckGateway: against the open-source Gateway fake, --check lists and does not reload.
func TestSyncCheckGateway(t *testing.T) {
	f := targettest.NewGateway(t)
	fast(t, map[string]string{"TYK_MODE": "ce", "TYK_URL": f.Server.URL, "TYK_AUTH": f.Auth}, nil)
	path := filepath.Join(t.TempDir(), "rendered.yaml")
	require.NoError(t, os.WriteFile(path, []byte(targettest.Streams(apis())), 0o600))
	code, _, stderr := cli(t, "", "sync", "--from", path, "--tyk-version", "5.8.0")
	require.Equal(t, 0, code, stderr)
	f.ResetCalls()
	code, out, stderr := cli(t, "", "sync", "--check", "--from", path, "-o", "json")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, `"drifted": false`)
	assert.Contains(t, out, `"inSync": 2`)
	require.NotEmpty(t, f.Calls())
	for _, c := range f.Calls() {
		assert.Equal(t, "GET /tyk/apis/oas", c.Method+" "+c.Path, "sync --check calls only the listing")
	}
}
