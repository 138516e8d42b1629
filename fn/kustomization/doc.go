// Package kustomization owns the large-app kustomize path: kustomize builds an application's inputs without
// gateway2tyk, and gateway2tyk renders kustomize's output after it, printing what
// `kustomize build --enable-alpha-plugins --enable-exec` with gateway2tyk as the transformer would print.
//
// It exists because kustomize is quadratic in the number of objects a transformer hands back (every returned
// object's ID is looked up by a linear scan; kustomize issue 5084): with the function as a transformer, a
// 1,000-route application takes over a minute in kustomize itself, and kustomize runs even a skipped exec
// function as a pass-through transformer at the same cost. With the transformer left out of the build, kustomize
// does only what a plain build does.
//
// What the transformer would have seen, this package gathers from the application directory with kyaml:
//   - the RenderConfig: the gateway2tyk entry of the kustomization's transformers, or else the one gateway2tyk
//     function config in the directory or below it;
//   - the cluster facts: kustomize drops config.kubernetes.io/local-config objects from its output, so they are
//     read from the local resource files of the kustomization and of its local bases and components.
//
// Load refuses (Unfaithful) an application where rendering after the build could differ from the transformer:
// another function or transformer config, generators or validators, remote resources, fields that transform
// the objects of a kustomization that holds cluster facts, the RenderConfig not being the last transformer, or
// sortOptions other than legacy. Write prints objects as kustomize build prints them (its legacy order, each
// object as JSON converted to YAML), so that the output is byte for byte the transformer path's.
package kustomization
