package e2e_test

import (
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/gateway2tyk/gateway2tyk/e2e/explaincheck"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/explain"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// TestRealTykRouteTimeouts holds the gateway-api profile's timeouts to a real Gateway against a slow upstream: the
// story profile-gateway-api-timeouts, rendered for the release the Gateway runs (spec.tykVersion), so 5.14 gets
// durations and an older Gateway whole seconds. Every generated request agrees with explain first; then each
// request below waits upstream for its delay, and Tyk answers 504 exactly when the delay is past the timeout
// explain says it enforces. The delays sit at least 250ms from every timeout, so that the two modes are told apart
// (500ms against 1s, 1500ms against 2s) and the machine's load does not decide.
func TestRealTykRouteTimeouts(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	version, err := tykroute.ParseVersion(g.Version)
	require.NoError(t, err)
	durations := !version.Less(tykroute.TimeoutDurations)

	data, err := os.ReadFile("../fn/testdata/profile-gateway-api-timeouts/input.yaml")
	require.NoError(t, err)
	input := strings.Replace(string(data), "    profile: gateway-api", "    profile: gateway-api\n    tykVersion: "+version.String(), 1)
	rw := &kio.ByteReader{Reader: strings.NewReader(input), WrapBareSeqNode: false}
	items, err := rw.Read()
	require.NoError(t, err)
	cfg, err := config.Load(rw.FunctionConfig)
	require.NoError(t, err)
	require.Equal(t, version.String(), cfg.TykVersion)
	out, err := fn.Render(items, cfg)
	require.NoError(t, err)

	tally := explaincheck.Check(t, g, out, explaincheck.Options{})
	require.NotZero(t, tally.Compared)

	const gatewayTimeout, ok = http.StatusGatewayTimeout, http.StatusOK
	for _, c := range []struct {
		method, path string
		delay        time.Duration
		exact, whole int // the status on 5.14 (durations) and before (whole seconds)
	}{
		{"GET", "/search/q", 100 * time.Millisecond, ok, ok},
		{"GET", "/search/q", 900 * time.Millisecond, gatewayTimeout, ok}, // 500ms, or 1s
		{"GET", "/search/q", 1600 * time.Millisecond, gatewayTimeout, gatewayTimeout},
		{"POST", "/checkout/pay", 1600 * time.Millisecond, ok, ok}, // 10s
		{"GET", "/reports/daily", 1600 * time.Millisecond, ok, ok}, // 0s: none
		{"GET", "/orders/7", 1000 * time.Millisecond, ok, ok},      // 1500ms, or 2s
		{"GET", "/orders/7", 1750 * time.Millisecond, gatewayTimeout, ok},
		{"GET", "/orders/7", 2600 * time.Millisecond, gatewayTimeout, gatewayTimeout},
		{"POST", "/orders", 2600 * time.Millisecond, ok, ok}, // POST has no timeout
	} {
		want := c.whole
		if durations {
			want = c.exact
		}
		ans, err := explain.Explain(out, explain.Request{Method: c.method, URL: &url.URL{Scheme: "http", Host: "any-host.test", Path: c.path}},
			explain.Options{Version: version})
		require.NoError(t, err)
		model := ok
		if ans.Timeout != "" {
			timeout, err := time.ParseDuration(ans.Timeout)
			require.NoError(t, err)
			if c.delay > timeout {
				model = gatewayTimeout
			}
		}
		got, err := g.Send(realtyk.Request{Method: c.method, Host: "any-host.test", Path: c.path,
			Header: http.Header{realtyk.DelayHeader: {c.delay.String()}}})
		require.NoError(t, err)
		assert.Equal(t, want, got.Status, "%s %s, upstream %s: Tyk %s", c.method, c.path, c.delay, g.Version)
		assert.Equal(t, want, model, "%s %s, upstream %s: explain for %s says timeout %q", c.method, c.path, c.delay, version, ans.Timeout)
	}
	t.Logf("Tyk Gateway %s enforces the route's timeouts %s; %d generated requests agree with explain", g.Version,
		map[bool]string{true: "exactly (durations)", false: "in whole seconds"}[durations], tally.Agreed)
}
