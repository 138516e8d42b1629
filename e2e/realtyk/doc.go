// Package realtyk runs a real open-source Tyk Gateway, with Redis, on loopback ports for tests: it starts both
// with a generated configuration, loads Tyk OAS APIs through the Gateway's own API, sends requests through the
// Gateway and reports what came back and what reached the upstream. Upstreams are observed with a forward
// proxy of its own (HTTP_PROXY of the Gateway process), so the cluster DNS names and pod addresses that the
// rendered APIs point at are never dialled: every upstream request ends at the proxy on loopback.
//
// A fact about Tyk counts only once a real Gateway showed it; this package is how the tests ask one. It knows
// Tyk's HTTP interface and nothing of Gateway API or of the render.
//
// The Gateway binary is built by `make bin/tyk` from the one build the Go module proxy serves (the 5.4 line);
// Redis is Debian's redis-server. Without them the tests skip and say why, unless
// GATEWAY2TYK_REAL_TYK=required (as `make test` and `make e2e-tyk` set it), when they fail. TYK_GATEWAY and
// TYK_TEMPLATES point the tests at another Gateway build; TYK_GATEWAY_VERSION states its release when its /hello
// lags (a Gateway built from source without Tyk's release flags says v5.5.0-dev).
package realtyk
