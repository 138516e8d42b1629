package config

// HeaderNamesKey is the field of Spec.HeaderNamesKept in spec, and its key in the ConfigMap form's data
// ("true" or "false"): it mirrors tyk.conf's ignore_canonical_mime_header_key, which the render cannot read, since
// it is the Tyk Gateways' setting, not the repository's.
//
// Tyk's header transforms set a header by the name they are given: with the setting off (Tyk's default) through
// http.Header.Set, which writes the canonical name (X-Header-Add), so a transform replaces the header whatever
// the case of its name; with it on by that name as written, so a name not in canonical form (x-header-add) is a
// line of its own beside a canonical one the request or the response already has. A real v5.14.0 showed both
// (docs/tyk-releases.md). The setting is the whole Gateway's, so the render must know it to write a set (by the
// canonical name, which replaces either way) apart from an add (by a name in another case, which appends only
// with the setting on).
const HeaderNamesKey = "ignoreCanonicalMIMEHeaderKey"
