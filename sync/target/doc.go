// Package target holds the clients of the two Tyk targets the sync pushes to, and the robustness every call to
// them gets:
//
//   - Tyk Dashboard (mode pro): header `authorization: <key>`; `GET /api/apis/oas?p=N` (paginated listing,
//     `{"apis": [...], "pages": N}`), `POST /api/apis/oas`, `PUT|DELETE /api/apis/oas/{apiId}`, certificates with
//     `POST /api/certs` (multipart form field `cert`) and `GET /api/certs/{certId}`.
//   - Tyk Gateway, open source (mode ce): header `x-tyk-authorization: <secret>`; `GET /tyk/apis/oas` (a JSON
//     array), `POST /tyk/apis/oas`, `PUT|DELETE /tyk/apis/oas/{apiId}`, certificates with `POST /tyk/certs?org_id=`
//     (the raw PEM) and `GET /tyk/certs/{certId}?org_id=`, and `GET /tyk/reload/group` once the APIs changed, since
//     the Gateway only serves (and lists) what it has loaded.
//
// Every attempt has a timeout. A connection error, a timeout, a 429 or a 5xx answer is retried with exponential
// backoff and jitter (a Retry-After header is honoured, within the maximum backoff), up to a number of attempts
// per call and within a retry budget shared by the whole run, so a target that is down costs a bounded time.
// Other answers are final. Retrying a create whose first attempt may have reached Tyk can meet "already exists":
// the create then becomes an update; a retried delete that meets 404 has succeeded; a certificate that already
// exists is not an error.
package target
