// Package apiserver owns one question: would the Kubernetes API server store this input object, and as what?
// It answers with the API server's own code, not with a copy of its rules.
//
//   - Gateway API kinds are custom resources. They are judged against the CRDs of the gateway-api module in
//     go.mod (crds/, copied byte for byte from its config/crd, checked by a test), with apiextensions-apiserver's
//     own steps in the order its handler takes them: unknown-field detection by pruning (what strict field
//     validation, kubectl apply's default, refuses), the structural defaults, then the custom resource strategy's
//     PrepareForCreate and Validate (OpenAPI schema, embedded metadata, list types and the CEL rules), made by the
//     packages the strategy calls (pkg/apiserver/validation, schema/objectmeta, schema/listtype, schema/cel), in
//     its order, without the strategy's own package: registry/customresource is the API server's storage and
//     links etcd's client, gRPC, OpenTelemetry and Prometheus (create.go).
//   - Core kinds (Service, Secret, ...) and Tyk Operator's kinds are decoded strictly into their Go types, as the
//     API server's serializer does for built-in types (unknown and duplicate fields refused), and their metadata is
//     validated with apimachinery's ObjectMeta validation. Their kind-specific validation lives in
//     k8s.io/kubernetes (pkg/apis/core/validation), which a library cannot import; the few of its rules the render
//     depends on are named in builtin.go.
//
// Judging is per object and independent of every other object, so the reader runs it on every core. The CRDs are
// parsed once, on first use, for the channel and kinds asked for. The strategy's Validate, most of the cost, is
// remembered between runs of one executable when the binary asks for it (Memory, memory.go).
package apiserver
