// Package translate owns the translation of attached HTTPRoutes into Tyk OAS API definitions: API identity
// (one API per parent Gateway, effective hostname and path value), the settings table of the reference, the
// upstreams, and the rejection of everything Tyk cannot serve, which it reports as the route's Accepted and
// PartiallyInvalid conditions. It works on typed objects and the attachment result, and knows nothing of YAML.
package translate
