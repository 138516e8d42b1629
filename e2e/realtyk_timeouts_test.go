package e2e_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/explaincheck"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn/explain"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// TestRealTykRouteTimeouts holds the gateway-api profile's timeouts to a real Gateway against a slow upstream: the
// story profile-gateway-api-timeouts, rendered for the release the Gateway runs (spec.tykVersion), so 5.14 gets
// durations and an older Gateway whole seconds. Every generated request agrees with explain first; then each
// request below waits upstream for its delay, and Tyk answers 504 exactly when the delay is past the timeout
// explain says it enforces. The delays sit at least 250ms from every timeout, so that the two modes are told apart
// (500ms against 1s, 1500ms against 2s) and the machine's load does not decide. A Gateway older than 5.14 is also
// sent the API as rendered for 5.14: it refuses it (the 5.4 line) or ignores the duration (v5.8.11).
func TestRealTykRouteTimeouts(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	version, err := tykroute.ParseVersion(g.Version)
	require.NoError(t, err)
	durations := !version.Less(tykroute.TimeoutDurations)

	data, err := os.ReadFile("../fn/testdata/profile-gateway-api-timeouts/input.yaml")
	require.NoError(t, err)
	input := strings.Replace(string(data), "    profile: gateway-api", "    profile: gateway-api\n    tykVersion: "+renderedFor(version).String(), 1)
	_, out := renderInput(t, input)

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
	if !durations {
		olderOnDuration(t, g, version, string(data))
	}
}

// olderOnDuration renders the story for the newest release (no tykVersion: durations) and sends its /search API
// (500ms: "duration": "500ms", value 1) to g, a Gateway older than 5.14, with only the fields of older releases
// that g refuses taken out. The 5.4 line refuses it (its X-Tyk-EnforceTimeout allows no other property); v5.8.11
// loads it and ignores the duration (its schema has none and does not refuse other properties), enforcing value,
// whole seconds: a request that waits 900ms upstream gets through. Either way the route is not served as written,
// which is why sync's version check names the field.
func olderOnDuration(t *testing.T, g *realtyk.Gateway, version tykroute.Version, input string) {
	_, out := renderInput(t, input)
	for _, a := range out.Translation.APIs {
		if a.Path != "/search" {
			continue
		}
		b, err := a.Final()
		require.NoError(t, err)
		var doc map[string]any
		require.NoError(t, json.Unmarshal(b, &doc))
		tyk := doc["x-tyk-api-gateway"].(map[string]any)
		for _, f := range tykroute.NewerFields {
			if f.Need != tykroute.TimeoutDurations && version.Less(f.Need) {
				f.RemoveFrom(tyk)
			}
		}
		b, err = json.Marshal(doc)
		require.NoError(t, err)
		require.Contains(t, string(b), `"duration":"500ms"`)
		err = g.Replace(map[string][]byte{a.ID: b})
		if version.Less(tykroute.MinVersion) {
			require.Error(t, err, "Tyk %s loaded an API with enforceTimeout.duration", g.Version)
			assert.Contains(t, err.Error(), "Additional property duration is not allowed")
			t.Logf("Tyk %s refuses enforceTimeout.duration: %v", g.Version, err)
			return
		}
		require.NoError(t, err, "Tyk %s refused an API with enforceTimeout.duration", g.Version)
		for delay, want := range map[time.Duration]int{900 * time.Millisecond: http.StatusOK, 1600 * time.Millisecond: http.StatusGatewayTimeout} {
			got, err := g.Send(realtyk.Request{Method: "GET", Host: "any-host.test", Path: "/search/q",
				Header: http.Header{realtyk.DelayHeader: {delay.String()}}})
			require.NoError(t, err)
			assert.Equal(t, want, got.Status, "upstream %s: Tyk %s ignores the duration and enforces value, 1s", delay, g.Version)
		}
		t.Logf("Tyk %s loads an API with enforceTimeout.duration 500ms and enforces value, 1s", g.Version)
		return
	}
	t.Fatal("no API for /search")
}
