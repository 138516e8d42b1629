package translate

import (
	"math"
	"time"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// Timeouts says how a rule's timeouts (request, backendRequest) are served.
type Timeouts int

const (
	// TimeoutsRejected drops a rule with timeouts (the reference: "not supported by Tyk").
	TimeoutsRejected Timeouts = iota
	// TimeoutsWholeSeconds serves them as enforceTimeout.value, whole seconds: every Tyk before 5.14 (its
	// schema has no duration: the 5.4 line refuses the API that sets one, v5.8.11 ignores it). A timeout that is not whole seconds is rounded
	// up, and the route's status says so.
	TimeoutsWholeSeconds
	// TimeoutsDurations serves them exactly: enforceTimeout.duration where a timeout is not whole seconds (Tyk
	// 5.14 on), enforceTimeout.value where it is, which every release takes.
	TimeoutsDurations
)

// compileTimeouts translates a rule's timeouts into the enforced timeout of its operations (Tyk answers 504 when
// the upstream has not answered by then). Without retries, which Tyk does not do, a request makes exactly one
// backend request, so both fields bound the same wait and the shorter one is enforced. A zero duration
// disables a timeout: no enforceTimeout, so the Gateway's own limits (proxy_default_timeout) apply.
func compileTimeouts(f string, t *gwv1.HTTPRouteTimeouts, mode Timeouts, b *behaviour,
	add, approximate func(field, format string, args ...any)) {
	if t == nil {
		return
	}
	if mode == TimeoutsRejected {
		add(f+".timeouts", "not supported by Tyk%s", GatewayAPIServes)
		return
	}
	var effective time.Duration
	field, written := "", ""
	for _, d := range []struct {
		name  string
		value *gwv1.Duration
	}{{"request", t.Request}, {"backendRequest", t.BackendRequest}} {
		if d.value == nil {
			continue
		}
		v, err := time.ParseDuration(string(*d.value))
		if err != nil {
			// The API server's pattern admits only what ParseDuration reads; this is a document that bypassed it.
			add(f+".timeouts."+d.name, "%q is not a duration", *d.value)
			return
		}
		if v > 0 && (effective == 0 || v < effective) {
			effective, field, written = v, f+".timeouts."+d.name, string(*d.value)
		}
	}
	if effective == 0 {
		return
	}
	seconds := int(math.Ceil(effective.Seconds()))
	b.timeout = &tykoas.EnforceTimeout{Enabled: true, Value: seconds}
	if effective == time.Duration(seconds)*time.Second {
		return
	}
	if mode == TimeoutsDurations {
		b.timeout.Duration = tykoas.FormatDuration(effective)
		return
	}
	approximate(field, "%s is served as %ds: Tyk Gateways before 5.14, which spec.tykVersion of the function config "+
		"names, enforce whole seconds", written, seconds)
}
