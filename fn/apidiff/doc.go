// Package apidiff owns `gateway2tyk diff`: what two renders of the same inputs change for the traffic and for
// the people who own it. It compares the render's own output (snapshot.go), never the sources: the API
// ConfigMaps with their identity annotations and Tyk OAS documents, the status annotations of the Gateway API
// objects, and the results. A source side is rendered in memory (fn.Render); an already rendered YAML stream is
// taken as it is, its documents decoded with the tykoas types.
//
// What a reviewer is told about a document (methods served, upstreams, rewrites, headers, authentication, ...)
// is derived in one place, facts.go, from the documents alone, so that a change in how the translation writes
// a behaviour is adapted there. Unchanged APIs are found by comparing the documents' bytes, so only the APIs
// that changed are decoded: a diff costs about two renders.
package apidiff
