// Package tyksync is `gateway2tyk sync`: it pushes the rendered Tyk OAS APIs to a Tyk Dashboard or an open-source
// Tyk Gateway, idempotently, and removes the APIs it created that are no longer rendered, of its input's owners
// only (sync/plan: many applications share one Tyk; a plan that deletes every API an owner has is refused,
// ErrDeletesAll, before anything is written, unless AllowDeleteAll).
//
// A run reads the rendered APIs (sync/source: a YAML stream, or the cluster's ConfigMaps labelled
// app.kubernetes.io/managed-by: gateway2tyk), checks the target's release, lists the target's APIs
// (sync/target), plans (sync/plan: create, update, delete, unchanged; the ownership marker and the
// normalisation are documented there), and applies:
//
//  0. before anything else, when the rendered APIs set upstream.preserveHostHeader or upstream.loadBalancing,
//     the target's release (the Gateway's /hello, or --tyk-version; the Dashboard's API does not say it) must be
//     at least tykroute.MinVersion (5.8), which the fields need: an older one would refuse every API, so the
//     run stops on one line, changing nothing. --tyk-version states the release of a build from source (which
//     reports a pre-release older than itself); a release a Gateway reports as such is checked whatever the flag;
//  1. the listener certificates first, so that the APIs that name them find them: a certificate the store has
//     is reused, one it lacks is uploaded;
//  2. creates and updates, then deletes, at most Concurrency calls at a time;
//  3. for the open-source Gateway, one group reload when anything changed, and then a bounded wait (Settle)
//     until the Gateway lists what it was given: the reload is asynchronous, and a run that ended before it
//     would leave the next run a listing without the APIs just created. While the Gateway shows none of the
//     changes, the reload is asked for again (at most three times more: a just-started Gateway can lose a
//     group reload). A wait that runs out is reported as a failed reload.
//
// RunReplicas runs the sync on each replica of an open-source data plane in turn (the Gateways behind its
// Service, or several --url): a Gateway keeps what it is given to itself, so each is planned, written,
// reloaded alone and checked.
//
// Every action is tried, even after another failed; the table shows each outcome and the run fails when any
// action failed. Nothing is planned, so nothing at all is changed, when the listing of the target failed or was
// partial (a page missing or unreadable): without the full list the sync could tell neither what exists nor what
// to delete. While a rendered ConfigMap cannot be read, deletes are withheld (reported as failed), since the
// unreadable one may be what keeps an API.
//
// Check (`sync --check`) makes the same plan and applies nothing: it reports, API by API in diff's terms
// (apidiff.Drift), what the target serves differently from the render. It only lists the target.
//
// The target's settings come from flags, then the environment (TYK_MODE, TYK_URL, TYK_AUTH, TYK_ORG,
// TYK_TLS_INSECURE_SKIP_VERIFY), then the OperatorContext named by --operator-context (its Secret's keys of those names
// win over its env).
package tyksync
