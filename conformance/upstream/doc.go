// Package upstream runs the upstream Gateway API conformance suite (sigs.k8s.io/gateway-api/conformance v1.6.3,
// unmodified, through its Go API) against gateway2tyk: a real kube-apiserver and etcd (e2e/realkube), a real Tyk
// Gateway (e2e/realtyk), the suite's own echo-basic backend, and a GitOps loop standing in for Argo CD that runs
// the gateway2tyk binary (render, apply, sync --write-status) after every change the suite makes. It is a module of
// its own because the suite brings controller-runtime and more, which the project's go.mod must not carry.
//
// What stands in for a part of Kubernetes that is not there is named in standins.go, with why.
package upstream
