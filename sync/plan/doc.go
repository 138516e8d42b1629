// Package plan decides what `gateway2tyk sync` does: it compares the APIs the render produced (desired) with the
// APIs the Tyk target holds (actual) and returns one action per API: create, update, delete or unchanged. It does
// no I/O; the target clients and the Kubernetes reader live elsewhere (sync/target, sync/source).
//
// # Ownership
//
// The sync deletes only APIs it created. Before an API is sent to Tyk, the sync stamps its document with a
// top-level OpenAPI specification extension of its own:
//
//	"x-gateway2tyk": {"managedBy": "gateway2tyk", "owner": "examples.basic", "route": "shop/checkout",
//	                  "gateway": "shop/edge", "hostname": "checkout.example.com", "path": "/checkout"}
//
// An API on the target is ours exactly when its document carries x-gateway2tyk.managedBy = "gateway2tyk" and its
// ID (x-tyk-api-gateway.info.id) starts with "gwapi-". The ID prefix alone is not enough: anyone may choose such an
// ID. The marker lives at the root of the OpenAPI document, not inside x-tyk-api-gateway: the OpenAPI 3.0 schema
// allows x- extensions on the root object and Tyk (whose OAS type embeds kin-openapi's, which keeps extensions)
// stores and returns them unchanged, whereas Tyk decodes x-tyk-api-gateway into fixed Go structs (the
// x-tyk-api-gateway.info schema has no free-form field), so an unknown field there would be lost on the first
// round trip, and tags or gateway tags would change which gateways load the API. The marker's route namespace
// scopes ownership further: a sync limited to some namespaces (--namespace) only ever deletes APIs whose route is
// in one of them.
//
// An API that is rendered but exists on the target without the marker (a foreign API with the same ID) is never
// overwritten: its action is blocked and reported as a failure.
//
// The owner is the application that rendered the API (fn/config: spec.owner, else the application's directory
// in its repository), so that many applications share one Tyk: a plan acts for the owners of its input (and
// Scope.Owner) only. Another owner's API is never updated or deleted; one the input renders too is a Conflict,
// blocked. An API whose marker has no owner (a release before owners made it) is adopted by the owner that
// renders it (updated with its owner) and deleted by nobody else. Plan.DeletesAll names the owners whose every API
// the plan deletes, which the sync refuses unless told it is meant.
//
// # Normalisation
//
// An API is unchanged when the document the sync would send and the one the target returns are byte-identical
// after normalising both: the JSON is decoded (numbers kept exactly as written), null values are removed, the
// fields the target assigns itself are removed (x-tyk-api-gateway.info.dbId and .orgId), the `servers` entries that
// the desired document does not have are removed (the Dashboard adds its own URL for the API there, the
// open-source Gateway regenerates them from the custom domain and the listen path) and `servers` is removed when
// that leaves it empty, an empty `components` object is removed when the desired document has none (the
// open-source Gateway adds one to every API it stores), and the result is encoded with sorted keys, no insignificant white space
// and no HTML escaping. Everything else counts, including the marker, so an API edited by hand in the Dashboard
// is put back as rendered on the next sync.
//
// What else a Gateway stores differently from what it is sent (tykroute.Normalisations) is written by the render
// the way the Gateway keeps it where it can (from 5.8, load-balancing targets with the same URL merged, weights
// added). Where it cannot, because a base document sets the field or Tyk adds to what it was sent, the
// comparison reads both sides as Tyk lists them (asTykLists, seen on the 5.4 line and v5.14.0):
// server.authentication.securitySchemes.authToken.header is left out (Tyk does not list it; the header is in
// components.securitySchemes), middleware.global.trafficLogs.tagHeaders are compared in lower case, and a path
// the desired document lacks whose operations are all named like "{rest:.*}GET" without middleware of the desired
// document (Tyk's copy of operations that ignore authentication under a regular-expression path) is left out
// with its middleware. So a second sync is a no-op (e2e/keptcheck).
package plan
