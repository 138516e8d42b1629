// Package target holds the clients of the two Tyk targets the sync pushes to, and the robustness every call to
// them gets. Each client calls only the operations of Tyk's published API description of its target
// (third_party/tyk/dashboard-swagger.yml and gateway-swagger.yml; Operations lists them, and a contract test
// checks them and the fakes' answers against those files):
//
//   - Tyk Dashboard (mode pro): header `authorization: <key>`. Listing: `GET /api/apis?p=N`, every page up to
//     the announced `pages` (pages of the Dashboard's page_size), answering `{"apis": [ApiDefinitionWrapper],
//     "pages": N}`; each wrapper names the API (`api_definition.api_id`), says whether it is a Tyk OAS API
//     (`api_definition.is_oas`) and carries its document in `oas`; where it does not, the document is read
//     with `GET /api/apis/oas/{apiId}`, since ownership is read from the document. A classic API is listed
//     without a document: its ID is taken, and it is never ours. There is no `GET /api/apis/oas`. Writes:
//     `POST /api/apis/oas`, `PUT|DELETE /api/apis/oas/{apiId}`; certificates `POST /api/certs` (multipart form
//     field `file`) and `GET /api/certs/{certId}`. The Dashboard's API does not say its release.
//   - Tyk Gateway, open source (mode ce): header `x-tyk-authorization: <secret>`; `GET /hello` (the release),
//     `GET /tyk/apis/oas` (a JSON array of the loaded APIs), `POST /tyk/apis/oas`, `PUT|DELETE
//     /tyk/apis/oas/{apiID}`, certificates with `POST /tyk/certs?org_id=` (the raw PEM, text/plain) and `GET
//     /tyk/certs/{certID}?org_id=`, and `GET /tyk/reload/group` once the APIs changed, since the Gateway only
//     serves (and lists) what it has loaded; `GET /tyk/reload` (this Gateway alone) for a sync that writes to
//     each replica itself (Settings.NodeReload).
//
// Every attempt has a timeout. A connection error, a timeout, a 429 or a 5xx answer is retried with exponential
// backoff and jitter (a Retry-After header is honoured, within the maximum backoff), up to a number of attempts
// per call and within a retry budget shared by the whole run, so a target that is down costs a bounded time.
// Other answers are final. Retrying a create whose first attempt may have reached Tyk can meet "already exists":
// the create then becomes an update (the Gateway overwrites instead); a retried delete that meets 404 has
// succeeded, and so has a Gateway delete answered 500 "Delete failed", which a Gateway of the 5.4 line gives
// when the API's file is gone but the API is still loaded (a delete before a reload that has not ended); a
// certificate that already exists is not an error.
package target
