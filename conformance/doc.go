// Package conformance checks the would-be statuses that gateway2tyk renders against the Kubernetes Gateway API
// conformance suite (sigs.k8s.io/gateway-api/conformance), offline.
//
// Its test reads the suite's own manifests from the module cache (located with `go mod download -json`, never
// imported, so the suite's dependencies stay out of go.mod), renders each conformance test's objects with
// fn.Render, and asserts on the gateway2tyk.io/status annotations what the suite's Go code asserts on the
// status written by a controller. The parts of the suite that send HTTP requests, or that wait for a data
// plane (addresses, Pods), have no offline counterpart and are left out; each such place is marked in the test.
package conformance
