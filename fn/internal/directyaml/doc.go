// Package directyaml writes the YAML text that yaml.v3's encoder, set up as kyaml sets it up (two-space indent,
// compact sequences, no line width), writes for the plain Kubernetes objects that make up most of the render's
// output, without running the encoder: at fleet scale the encoder's per-node events and its collector work were
// the largest cost of writing a ResourceList after the API documents themselves.
//
// It never reads YAML and never decides a scalar's text on its own beyond one certain case: a scalar it cannot
// write as a plain word or a literal block is encoded by yaml.v3 itself (once per distinct value, see Memo), and
// any node outside the subset it knows (flow style, comments, anchors, aliases, tags, empty collections, nested
// sequences, long keys) makes it report false, so that the caller encodes the whole item with yaml.v3. Its tests
// compare its bytes with the encoder's on the examples' outputs, a generated fleet and random trees.
package directyaml
