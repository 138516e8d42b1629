// Package realkube runs a real Kubernetes API server, with etcd, on loopback ports for tests: kube-apiserver and
// etcd built by `make bin/kube-apiserver bin/etcd` (Kubernetes v1.37.2, etcd v3.7.0), with generated certificates,
// client-certificate and service-account token authentication and RBAC authorization, as a cluster's control
// plane runs them. There is no controller-manager: nothing garbage-collects, finalizes namespaces or creates
// service-account token Secrets, so each test works in a fresh namespace and asks for tokens through the
// TokenRequest API.
//
// A fact about the Kubernetes API server counts only once a real one showed it; this package is how the tests ask
// one. It knows the API server's command line and client-go, and nothing of the render.
//
// Without the binaries the tests skip and say why, unless GATEWAY2TYK_REAL_KUBE=required (as `make test` and
// `make e2e-kube` set it), when they fail. KUBE_APISERVER and ETCD point the tests at other builds.
package realkube
