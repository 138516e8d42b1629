// Package config owns the function config of gateway2tyk: the RenderConfig
// resource (gateway2tyk.io/v1alpha1) and its ConfigMap form, as `kpt fn eval
// -- key=value` writes it, their defaults and their validation.
//
// Everything that reads a function config (the KRM function, `render -c`,
// `explain -c`, `graph -c`) goes through Load, so every entry point rejects
// the same mistakes with the same field-naming message, and the rest of the
// program only ever sees a complete, valid Spec.
package config
