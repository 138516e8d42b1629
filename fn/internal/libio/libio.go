// Package libio owns the one switch that routes the render's reading and writing through the libraries that the
// project's hand-written writers copy for speed: with it on, the KRM function runs kyaml's framework.Execute (its
// preprocessing, reconcile and kio.ByteWriter) instead of package krmio's parallel writers and directyaml (and its
// naming of an item whose metadata is not a mapping: kyaml says "wrong node kind");
// `render` writes its stream with kio.ByteWriter; a Tyk OAS document is written by encoding/json from
// kin-openapi's and the Tyk structs' marshalling (tykoas's direct writers off); an item becomes JSON by kyaml's
// MarshalJSON (read.ToJSON's fast path off); and the large-app path writes each object as kustomize's
// Resource.AsYAML does, JSON to YAML by sigs.k8s.io/yaml (kustomization's generic writer and literal splicing off).
//
// The output is byte for byte the same either way, and TestLibraryIOAlike (package fn) holds it on every story and
// a generated fleet: after an upgrade of kyaml, yaml.v3, kin-openapi or sigs.k8s.io/yaml that test shows at once
// where a copy went stale, and GATEWAY2TYK_LIBRARY_IO=1 takes the copies out of the way of a bisect or a bug
// report. make bench times both.
package libio

import (
	"os"
	"sync/atomic"
)

// Env turns the switch on for a run of the binary: GATEWAY2TYK_LIBRARY_IO=1.
const Env = "GATEWAY2TYK_LIBRARY_IO"

var on atomic.Bool

func init() { on.Store(os.Getenv(Env) == "1") }

// On reports whether reading and writing go through the libraries.
func On() bool { return on.Load() }

// Set turns the switch on or off (for the tests that render both ways) and returns what puts it back.
func Set(v bool) (restore func()) {
	old := on.Swap(v)
	return func() { on.Store(old) }
}
