package tyksync_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
	tyksync "github.com/gateway2tyk/gateway2tyk/sync"
	"github.com/gateway2tyk/gateway2tyk/sync/plan"
	"github.com/gateway2tyk/gateway2tyk/sync/source"
	"github.com/gateway2tyk/gateway2tyk/sync/target"
	"github.com/gateway2tyk/gateway2tyk/sync/target/targettest"
)

// The edits of examples/basic the real-Gateway tests sync, as objects that replace those of the same kind,
// namespace and name in the example.
const (
	// ordersEdited adds a request header to the orders route: only its API changes.
	ordersEdited = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: orders, namespace: shop}
spec:
  parentRefs: [{name: edge}]
  hostnames: [orders.shop.example.com]
  rules:
    - matches: [{path: {type: PathPrefix, value: /orders}}]
      filters:
        - type: RequestHeaderModifier
          requestHeaderModifier: {set: [{name: X-Edited, value: "yes"}]}
      backendRefs: [{name: orders, port: 8080}]
`
	// httpsListener adds an HTTPS listener whose certificate is in Secret shop/edge-tls, and the organisation
	// of the certificate IDs.
	httpsListener = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: shop}
spec:
  gatewayClassName: tyk
  infrastructure:
    parametersRef: {group: tyk.tyk.io, kind: OperatorContext, name: edge}
  listeners:
    - {name: http, protocol: HTTP, port: 8080, hostname: "*.shop.example.com"}
    - name: https
      protocol: HTTPS
      port: 8443
      hostname: "*.shop.example.com"
      tls: {certificateRefs: [{name: edge-tls}]}
---
apiVersion: tyk.tyk.io/v1alpha1
kind: OperatorContext
metadata: {name: edge, namespace: shop}
spec:
  env: {mode: ce, org: 5e9d9544a1dcd60001d0ed20}
  secretRef: {name: tyk-operator-conf, namespace: tyk}
  dataPlane:
    serviceRef: {name: tyk-gateway}
    tags: [edge]
`
)

// rendered is what one sync reads: the render's output of examples/basic with edits.
type rendered struct {
	stream string
	// route → the IDs of its APIs
	routes map[string][]string
}

// renderBasic renders examples/basic in process, as `gateway2tyk render` does, with the objects of replace
// (a YAML stream) instead of those of the same kind, namespace and name, without the HTTPRoutes named in drop,
// and with extra objects added to the render's input.
func renderBasic(t *testing.T, replace string, drop []string, extra ...*yaml.RNode) rendered {
	t.Helper()
	return renderBasicAs(t, config.Default(), replace, drop, extra...)
}

// renderBasicAs is renderBasic with a config of its own (its owner, above all).
func renderBasicAs(t *testing.T, cfg config.Spec, replace string, drop []string, extra ...*yaml.RNode) rendered {
	t.Helper()
	nodes, err := kio.LocalPackageReader{PackagePath: filepath.Join("..", "examples", "basic"), OmitReaderAnnotations: true}.Read()
	require.NoError(t, err)
	var repl []*yaml.RNode
	if replace != "" {
		repl, err = (&kio.ByteReader{Reader: strings.NewReader(replace), OmitReaderAnnotations: true}).Read()
		require.NoError(t, err)
	}
	key := func(n *yaml.RNode) string { return n.GetKind() + "/" + n.GetNamespace() + "/" + n.GetName() }
	byKey := map[string]*yaml.RNode{}
	for _, n := range repl {
		byKey[key(n)] = n
	}
	dropped := map[string]bool{}
	for _, d := range drop {
		dropped["HTTPRoute/"+d] = true
	}
	var items []*yaml.RNode
	for _, n := range nodes {
		switch k := n.GetKind(); {
		case k == "Kustomization" || k == "RenderConfig" || dropped[key(n)]:
		case byKey[key(n)] != nil:
			items = append(items, byKey[key(n)])
		default:
			items = append(items, n)
		}
	}
	out, err := fn.Render(append(items, extra...), cfg)
	require.NoError(t, err)
	for _, r := range out.Results {
		require.NotEqual(t, "error", string(r.Severity), "the render of examples/basic: %s", r.Message)
	}
	var buf bytes.Buffer
	require.NoError(t, kio.ByteWriter{Writer: &buf}.Write(out.Items))
	set, err := source.ReadStream(strings.NewReader(buf.String()), plan.Scope{})
	require.NoError(t, err)
	require.NotEmpty(t, set.APIs)
	r := rendered{stream: buf.String(), routes: map[string][]string{}}
	for _, a := range set.APIs {
		r.routes[a.Marker.Route] = append(r.routes[a.Marker.Route], a.ID)
	}
	return r
}

// for54 reads the stream for the sync, with the two fields a Tyk Gateway older than 5.8.0 refuses taken out of
// every document: the test Gateway is the 5.4 line (the one build the Go module proxy serves), and the render
// sets upstream.preserveHostHeader on every API. Nothing else is changed. TestRealTykSyncRefusesOlderGateway
// syncs the documents as rendered.
func for54(t *testing.T, stream string, extra ...string) *source.Set {
	t.Helper()
	set, err := source.ReadStream(strings.NewReader(strings.Join(append([]string{stream}, extra...), "---\n")), plan.Scope{})
	require.NoError(t, err)
	for i, a := range set.APIs {
		var doc map[string]any
		require.NoError(t, json.Unmarshal(a.Document, &doc))
		if tyk, ok := doc["x-tyk-api-gateway"].(map[string]any); ok {
			tykroute.RemoveNewer(tyk, tykroute.Version{Major: 5, Minor: 4})
		}
		set.APIs[i].Document, err = json.Marshal(doc)
		require.NoError(t, err)
	}
	return set
}

// observer sees every request the sync sends to the Gateway, at the sync's own HTTP transport.
type observer struct {
	mu      sync.Mutex
	calls   []string
	answers []string              // "METHOD path: status" of each request that got an answer
	before  func(r *http.Request) // called before a request is sent
	// answer, when it returns an answer, is that answer instead of the Gateway's: the request is not sent.
	answer func(r *http.Request) *http.Response
	next   http.RoundTripper
}

func newObserver() *observer {
	return &observer{next: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
}

func (o *observer) RoundTrip(r *http.Request) (*http.Response, error) {
	o.mu.Lock()
	o.calls = append(o.calls, r.Method+" "+r.URL.Path)
	before, answer := o.before, o.answer
	o.mu.Unlock()
	if before != nil {
		before(r)
	}
	if answer != nil {
		if resp := answer(r); resp != nil {
			return resp, nil
		}
	}
	resp, err := o.next.RoundTrip(r)
	if err == nil {
		o.mu.Lock()
		o.answers = append(o.answers, fmt.Sprintf("%s %s: %d", r.Method, r.URL.Path, resp.StatusCode))
		o.mu.Unlock()
	}
	return resp, err
}

// take returns the requests seen since the last take.
func (o *observer) take() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	c := o.calls
	o.calls, o.answers = nil, nil
	return c
}

// answered returns the answers since the last take.
func (o *observer) answered() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.answers...)
}

func count(calls []string, prefix string) int {
	n := 0
	for _, c := range calls {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

func writes(calls []string) []string {
	var out []string
	for _, c := range calls {
		if !strings.HasPrefix(c, "GET ") {
			out = append(out, c)
		}
	}
	return out
}

// realRun is one sync against the real Gateway and what it did there.
type realRun struct {
	name     string
	rep      *tyksync.Report
	err      error
	out, log string
	calls    []string
	// reloads are the reloads the Gateway logged during the run.
	reloads int
	// answers are the Gateway's answers to the run's writes.
	answers []string
}

func (r realRun) done(a plan.Action) int {
	n := 0
	for _, row := range r.rep.Rows {
		if row.Action == a && !row.Failed {
			n++
		}
	}
	return n
}

// ids returns "action id" of the rows that succeeded, sorted.
func (r realRun) ids(a plan.Action) []string {
	var out []string
	for _, row := range r.rep.Rows {
		if row.Action == a && !row.Failed {
			out = append(out, row.ID)
		}
	}
	sort.Strings(out)
	return out
}

type realTarget struct {
	g     *realtyk.Gateway
	obs   *observer
	table []string
}

func (rt *realTarget) client(t *testing.T, retry target.Retry) target.Target {
	tg, err := target.New(target.Settings{Mode: target.ModeCE, URL: rt.g.URL, Auth: rt.g.Secret},
		target.Options{HTTPClient: &http.Client{Transport: rt.obs}, Timeout: 10 * time.Second, Retry: retry})
	require.NoError(t, err)
	return tg
}

func (rt *realTarget) sync(t *testing.T, name string, set *source.Set, settle time.Duration) realRun {
	t.Helper()
	return rt.syncWith(t, name, set, tyksync.Options{Settle: settle}, target.Retry{})
}

// syncWith is sync with other options (the set, target, output and log are the run's own) and retries.
func (rt *realTarget) syncWith(t *testing.T, name string, set *source.Set, o tyksync.Options, retry target.Retry) realRun {
	t.Helper()
	var out, log bytes.Buffer
	rt.obs.take()
	before := rt.g.Reloads()
	o.Set, o.Target, o.Out, o.Err = set, rt.client(t, retry), &out, &log
	rep, err := tyksync.Run(context.Background(), o)
	answers := rt.obs.answered()
	r := realRun{name: name, rep: rep, err: err, out: out.String(), log: log.String(), calls: rt.obs.take(),
		reloads: rt.g.Reloads() - before, answers: writes(answers)}
	t.Logf("%s:\n%s%s", name, r.out, r.log)
	rt.row(r)
	return r
}

// row adds a run to the table: what the run reports, the reload requests it sent and the reloads the Gateway
// logged while it ran.
func (rt *realTarget) row(r realRun) {
	if r.err != nil {
		rt.table = append(rt.table, fmt.Sprintf("| %s | stopped: %s | | | | | %d | %d |", r.name, r.err,
			count(r.calls, "GET /tyk/reload"), r.reloads))
		return
	}
	rt.table = append(rt.table, fmt.Sprintf("| %s | %d | %d | %d | %d | %d | %d | %d |", r.name, r.done(plan.Create),
		r.done(plan.Update), r.done(plan.Unchanged), r.done(plan.Delete), r.rep.Failed,
		count(r.calls, "GET /tyk/reload"), r.reloads))
}

func (rt *realTarget) printTable(t *testing.T) {
	t.Logf("runs against the real Tyk Gateway %s:\n| run | created | updated | unchanged | deleted | failed | reload requests | reloads logged |\n|---|---|---|---|---|---|---|---|\n%s",
		rt.g.Version, strings.Join(rt.table, "\n"))
}

// loaded lists the Gateway's loaded APIs by ID, failing on an ID the Gateway lists twice (the client's List
// drops repeats, so the Gateway's own listing is counted).
func (rt *realTarget) loaded(t *testing.T) map[string][]byte {
	t.Helper()
	list, err := rt.client(t, target.Retry{}).List(context.Background())
	require.NoError(t, err)
	out := map[string][]byte{}
	for _, a := range list {
		out[a.ID] = a.Document
	}
	ids, err := rt.g.LoadedIDs()
	require.NoError(t, err)
	require.Len(t, ids, len(out), "the Gateway lists an API twice: %v", ids)
	return out
}

// requireServes checks that the Gateway has loaded exactly the set's APIs, as sent, and the foreign ones.
func (rt *realTarget) requireServes(t *testing.T, set *source.Set, foreign ...string) {
	t.Helper()
	got := rt.loaded(t)
	want := append([]string(nil), foreign...)
	for _, a := range set.APIs {
		want = append(want, a.ID)
		body, err := plan.Stamp(a.Document, a.Marker)
		require.NoError(t, err)
		assert.True(t, plan.Equal(body, got[a.ID]), "the Gateway serves %s as\n%s", a.ID, got[a.ID])
	}
	sort.Strings(want)
	assert.Equal(t, want, keys(got))
}

const foreignDoc = `{"openapi":"3.0.3","info":{"title":"petstore","version":"1"},"paths":{},
"x-tyk-api-gateway":{"info":{"id":"petstore","name":"petstore","state":{"active":true}},
"server":{"listenPath":{"value":"/petstore/","strip":true}},"upstream":{"url":"http://petstore.invalid"}}}`

// startReal starts a real Gateway holding one API that is not ours.
func startReal(t *testing.T) *realTarget {
	g := realtyk.Start(t, realtyk.Find(t))
	require.NoError(t, g.Replace(map[string][]byte{"petstore": []byte(foreignDoc)}))
	return &realTarget{g: g, obs: newObserver()}
}

var fastRetry = target.Retry{Attempts: 2, Base: 20 * time.Millisecond, Max: 100 * time.Millisecond}

// TestRealTykSync syncs examples/basic, then edits of it, to a real open-source Tyk Gateway and checks each run
// by what the Gateway then serves and by the requests the sync sent it.
func TestRealTykSync(t *testing.T) {
	rt := startReal(t)
	defer rt.printTable(t)
	basic := renderBasic(t, "", nil)
	v1 := for54(t, basic.stream)
	all := v1.APIs

	// The first sync creates every API and reloads once; the foreign API stays.
	r := rt.sync(t, "1 first sync of examples/basic", v1, 0)
	require.NoError(t, r.err)
	assert.Zero(t, r.rep.Failed)
	assert.Equal(t, len(all), r.done(plan.Create))
	assert.Equal(t, 1, count(r.calls, "GET /tyk/reload/group"))
	assert.Equal(t, 1, r.reloads, "the Gateway reloaded once")
	assert.Contains(t, r.out, "reload: ok (the Gateway serves the new set after")
	rt.requireServes(t, v1, "petstore")

	// The next runs, each started right after the one before, find every API unchanged: no write, no reload.
	for _, name := range []string{"2 second run, right after", "3 third run"} {
		r = rt.sync(t, name, for54(t, basic.stream), 0)
		require.NoError(t, r.err)
		assert.Zero(t, r.rep.Failed)
		assert.Equal(t, len(all), r.done(plan.Unchanged), r.out)
		assert.Empty(t, writes(r.calls))
		assert.Zero(t, count(r.calls, "GET /tyk/reload"))
		assert.Zero(t, r.reloads, "the Gateway did not reload")
	}

	// An edited route updates exactly its APIs.
	edited := renderBasic(t, ordersEdited, nil)
	v2 := for54(t, edited.stream)
	r = rt.sync(t, "4 orders route edited", v2, 0)
	require.NoError(t, r.err)
	assert.Zero(t, r.rep.Failed)
	assert.Equal(t, sorted(edited.routes["shop/orders"]), r.ids(plan.Update))
	assert.Equal(t, len(all)-len(edited.routes["shop/orders"]), r.done(plan.Unchanged))
	assert.Equal(t, 1, count(r.calls, "GET /tyk/reload/group"))
	rt.requireServes(t, v2, "petstore")

	// A listener certificate is uploaded to the Gateway's certificate store, then reused.
	cert, key := targettest.NewCertificate(t, "*.shop.example.com")
	renderSecret := targettest.TLSSecret("shop", "edge-tls", cert, nil)
	renderSecret.Annotations = map[string]string{"config.kubernetes.io/local-config": "true"}
	withTLS := renderBasic(t, ordersEdited+"---\n"+httpsListener, nil, rnode(t, renderSecret))
	syncSecret := targettest.Stream(targettest.TLSSecret("shop", "edge-tls", cert, key))
	v3 := for54(t, withTLS.stream, syncSecret)
	certID := targettest.CertID("5e9d9544a1dcd60001d0ed20", cert)
	require.Contains(t, withTLS.stream, certID, "the render names the listener's certificate")
	r = rt.sync(t, "5 HTTPS listener and its certificate", v3, 0)
	require.NoError(t, r.err)
	assert.Zero(t, r.rep.Failed)
	require.Len(t, r.rep.Certs, 1)
	assert.Equal(t, "ok: uploaded", r.rep.Certs[0].Outcome)
	assert.Equal(t, 1, count(r.calls, "POST /tyk/certs"))
	has, err := rt.client(t, target.Retry{}).CertificateExists(context.Background(), certID, "5e9d9544a1dcd60001d0ed20")
	require.NoError(t, err)
	assert.True(t, has, "the Gateway's certificate store has %s", certID)
	rt.requireServes(t, v3, "petstore")

	r = rt.sync(t, "6 again: certificate reused", for54(t, withTLS.stream, syncSecret), 0)
	require.NoError(t, r.err)
	assert.Zero(t, r.rep.Failed)
	assert.Equal(t, "ok: the target has it", r.rep.Certs[0].Outcome)
	assert.Empty(t, writes(r.calls), "no upload, no API write")
	assert.Zero(t, count(r.calls, "GET /tyk/reload"))
	assert.Zero(t, r.reloads, "the Gateway did not reload")

	// A removed route deletes exactly its APIs; the foreign API survives.
	removed := renderBasic(t, ordersEdited+"---\n"+httpsListener, []string{"shop/catalog"}, rnode(t, renderSecret))
	v4 := for54(t, removed.stream, syncSecret)
	r = rt.sync(t, "7 catalog route removed", v4, 0)
	require.NoError(t, r.err)
	assert.Zero(t, r.rep.Failed)
	assert.Equal(t, sorted(withTLS.routes["shop/catalog"]), r.ids(plan.Delete))
	assert.Equal(t, len(v4.APIs), r.done(plan.Unchanged))
	rt.requireServes(t, v4, "petstore")

	// A run that stops waiting for the reload says so; the run right after it, while the reload may still be
	// in progress (the Gateway may still list the API deleted and not yet list the one created), neither
	// duplicates nor deletes what it should not, and waits until the Gateway serves the set.
	swapped := renderBasic(t, httpsListener, []string{"shop/orders"}, rnode(t, renderSecret))
	v5 := for54(t, swapped.stream, syncSecret)
	// Every API the owner has (orders, the one left) deleted while catalog is created: the guard refuses it,
	// dry run or not, and nothing is written; --allow-empty says it is meant.
	for _, dry := range []bool{true, false} {
		r = rt.syncWith(t, fmt.Sprintf("8a orders removed, catalog back (dry run %v): refused", dry), v5,
			tyksync.Options{DryRun: dry}, target.Retry{})
		require.ErrorIs(t, r.err, tyksync.ErrDeletesAll)
		assert.Contains(t, r.err.Error(), "owner gateway2tyk: all 1 of its APIs deleted, 1 created")
		assert.Empty(t, writes(r.calls), "nothing was written")
	}
	rt.requireServes(t, v4, "petstore")
	r = rt.syncWith(t, "8 catalog back, orders removed, --allow-empty, 1 ms wait", v5,
		tyksync.Options{Settle: time.Millisecond, AllowDeleteAll: true}, target.Retry{})
	require.NoError(t, r.err)
	assert.Equal(t, sorted(swapped.routes["shop/catalog"]), r.ids(plan.Create))
	assert.Equal(t, sorted(withTLS.routes["shop/orders"]), r.ids(plan.Delete))
	assert.Contains(t, r.out, "reload: failed: the Gateway does not serve what it was given 1ms after the reload")
	assert.Equal(t, 1, r.rep.Failed, "the reload's wait counts as failed")
	// While the reload is in progress the Gateway may still list orders and not yet catalog: a plan that
	// deletes all the owner has again, so the run that means it says so again.
	r = rt.syncWith(t, "9 right after, reload in progress", for54(t, swapped.stream, syncSecret),
		tyksync.Options{AllowDeleteAll: true}, target.Retry{})
	require.NoError(t, r.err)
	t.Logf("the writes of run 9 and the Gateway's answers: %v", r.answers)
	assert.Zero(t, r.rep.Failed, "a delete the Gateway has done but not yet loaded is not a failure")
	for _, id := range r.ids(plan.Delete) {
		assert.Contains(t, withTLS.routes["shop/orders"], id, "only the removed route's APIs are deleted")
	}
	rt.requireServes(t, v5, "petstore")
	r = rt.sync(t, "10 right after", for54(t, swapped.stream, syncSecret), 0)
	require.NoError(t, r.err)
	assert.Equal(t, len(v5.APIs), r.done(plan.Unchanged))
	assert.Empty(t, writes(r.calls))
	assert.Zero(t, r.reloads, "the Gateway did not reload")
}

func rnode(t *testing.T, obj any) *yaml.RNode {
	t.Helper()
	n, err := yaml.Parse(targettest.Stream(obj))
	require.NoError(t, err)
	return n
}

// TestRealTykSyncRefusesOlderGateway syncs examples/basic as rendered (with upstream.preserveHostHeader) to the
// real Gateway (the 5.4 line, or a source build that reports v5.5.0-dev): the sync reads its version first and
// stops, on one line, before any other request.
func TestRealTykSyncRefusesOlderGateway(t *testing.T) {
	rt := startReal(t)
	set, err := source.ReadStream(strings.NewReader(renderBasic(t, "", nil).stream), plan.Scope{})
	require.NoError(t, err)
	r := rt.sync(t, "examples/basic as rendered", set, 0)
	require.Error(t, r.err)
	assert.True(t, errors.Is(r.err, tyksync.ErrTargetTooOld))
	msg := r.err.Error()
	assert.NotContains(t, msg, "\n")
	// The sync reads the release from /hello (a Gateway built from a 5.8+ source tag says v5.5.0-dev there, and
	// is refused the same way until --tyk-version states its release).
	for _, s := range []string{rt.g.Hello, "5.8", "upstream.preserveHostHeader (2 APIs)", "nothing was changed",
		"only if this one was built from Tyk 5.8 or newer, give --tyk-version", "an older Gateway refuses every API"} {
		assert.Contains(t, msg, s)
	}
	assert.Equal(t, []string{"GET /hello"}, r.calls)
	assert.Equal(t, []string{"petstore"}, keys(rt.loaded(t)))
	t.Logf("the one line: %s", msg)

	// The warning is true (issue 45 finding 6): told it is 5.8, a Gateway older than 5.8 (the 5.4 line) refuses
	// every API, and one built from a 5.8+ source tag (TYK_GATEWAY_VERSION, make e2e-tyk-source) takes them all.
	r = rt.syncWith(t, "examples/basic, --tyk-version 5.8", set, tyksync.Options{TykVersion: "5.8"}, target.Retry{})
	release, err := tykroute.ParseVersion(rt.g.Version)
	require.NoError(t, err)
	if !release.Less(tykroute.MinVersion) {
		assert.Zero(t, r.rep.Failed, "Tyk %s takes every API", rt.g.Version)
		assert.Len(t, rt.loaded(t), len(set.APIs)+1, "the APIs beside petstore")
		return
	}
	assert.Equal(t, len(set.APIs), r.rep.Failed, "every API fails")
	assert.Contains(t, r.out, "400 Bad Request: x-tyk-api-gateway.upstream: Additional property preserveHostHeader is not allowed")
	assert.Equal(t, []string{"petstore"}, keys(rt.loaded(t)))
}

// TestRealTykSyncFaults stops the real Gateway in the middle of a run, after its first write: the run reports
// what failed and deletes nothing; once the Gateway is back, the next run converges.
func TestRealTykSyncFaults(t *testing.T) {
	rt := startReal(t)
	defer rt.printTable(t)
	basic := renderBasic(t, "", nil)
	v1 := for54(t, basic.stream)
	r := rt.sync(t, "1 first sync", v1, 0)
	require.NoError(t, r.err)
	require.Zero(t, r.rep.Failed)

	// The orders route edited and the catalog route removed: one update, then one delete (one call at a time).
	edited := renderBasic(t, ordersEdited, []string{"shop/catalog"})
	v2 := for54(t, edited.stream)
	var stopped sync.Once
	rt.obs.before = func(r *http.Request) {
		if r.Method == http.MethodDelete {
			stopped.Do(rt.g.Stop)
		}
	}
	fr := rt.syncWith(t, "2 Gateway stopped before the delete", v2,
		tyksync.Options{Concurrency: 1, Settle: 2 * time.Second}, fastRetry)
	rt.obs.before = nil
	require.NoError(t, fr.err)
	log := fr.log
	assert.Equal(t, sorted(edited.routes["shop/orders"]), fr.ids(plan.Update), "the update went through before the stop")
	assert.Zero(t, fr.done(plan.Delete))
	assert.Contains(t, log, "delete "+basic.routes["shop/catalog"][0])
	assert.Contains(t, log, "connection refused")
	assert.Contains(t, log, "reload: ")
	assert.Equal(t, 2, fr.rep.Failed, "the delete and the reload failed")

	require.NoError(t, rt.g.Restart())
	// Restarted, the Gateway loads what its files hold: the update is there, nothing was deleted.
	got := rt.loaded(t)
	assert.Contains(t, got, basic.routes["shop/catalog"][0])
	assert.Contains(t, got, "petstore")

	r = rt.sync(t, "3 Gateway back: converges", for54(t, edited.stream), 0)
	require.NoError(t, r.err)
	assert.Zero(t, r.rep.Failed)
	assert.Equal(t, sorted(basic.routes["shop/catalog"]), r.ids(plan.Delete))
	rt.requireServes(t, v2, "petstore")
	r = rt.sync(t, "4 right after", for54(t, edited.stream), 0)
	require.NoError(t, r.err)
	assert.Equal(t, len(v2.APIs), r.done(plan.Unchanged))
	assert.Empty(t, writes(r.calls))
	assert.Zero(t, r.reloads, "the Gateway did not reload")
}

// lostReload answers the first group reload request itself, as the Gateway accepts a group reload it then never
// makes (its log says "Group reload accepted." and no "Reloading endpoints": the pub/sub message is lost, seen on a
// 5.4-line Gateway that had just started); the request never reaches the Gateway, which therefore does not reload.
func lostReload() func(r *http.Request) *http.Response {
	var once sync.Once
	return func(r *http.Request) *http.Response {
		var resp *http.Response
		if r.URL.Path == "/tyk/reload/group" {
			once.Do(func() {
				resp = &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
					Body: io.NopCloser(strings.NewReader(`{"status":"ok","message":""}`)), Request: r}
			})
		}
		return resp
	}
}

// TestRealTykSyncLostReload: a reload the Gateway never makes is asked for again while the Gateway shows none of
// the run's changes, and the run succeeds; on Gateways started just before the sync, every first sync succeeds.
func TestRealTykSyncLostReload(t *testing.T) {
	basic := renderBasic(t, "", nil)
	rt := startReal(t)
	defer rt.printTable(t)
	rt.obs.answer = lostReload()
	set := for54(t, basic.stream)
	r := rt.sync(t, "1 just started, the first reload lost", set, 0)
	rt.obs.answer = nil
	require.NoError(t, r.err)
	assert.Zero(t, r.rep.Failed, r.out+r.log)
	assert.Equal(t, 2, count(r.calls, "GET /tyk/reload/group"), "the reload is asked for again once")
	assert.Equal(t, 1, r.reloads, "the Gateway reloaded once: on the second request")
	assert.Contains(t, r.out, "the reload was asked for 2 times")
	rt.requireServes(t, set, "petstore")
	r = rt.sync(t, "2 right after", for54(t, basic.stream), 0)
	require.NoError(t, r.err)
	assert.Equal(t, len(set.APIs), r.done(plan.Unchanged))
	assert.Zero(t, r.reloads)

	// Gateways started just before the sync, nothing lost on purpose: a pub/sub message lost for real is asked
	// for again the same way.
	for i := range 2 {
		fresh := startReal(t)
		r := fresh.sync(t, fmt.Sprintf("fresh Gateway %d, synced as soon as /hello passes", i+1), for54(t, basic.stream), 0)
		require.NoError(t, r.err)
		assert.Zero(t, r.rep.Failed, r.out+r.log)
		fresh.requireServes(t, set, "petstore")
		rt.table = append(rt.table, fresh.table...)
	}
}

// TestRealTykSyncReplicas: two real Gateways sharing one Redis, as two replicas behind a data-plane Service. A
// sync to the first alone leaves the second without the APIs (the open-source Gateway keeps what it is given to
// itself: the finding); syncing each replica in turn, each reloaded alone, gives both the APIs, and a
// third replica added since is filled by the next run.
func TestRealTykSyncReplicas(t *testing.T) {
	bins := realtyk.Find(t)
	gs := realtyk.StartReplicas(t, bins, 2)
	set := for54(t, renderBasic(t, "", nil).stream)
	client := func(g *realtyk.Gateway, node bool) target.Target {
		tg, err := target.New(target.Settings{Mode: target.ModeCE, URL: g.URL, Auth: g.Secret, NodeReload: node}, target.Options{})
		require.NoError(t, err)
		return tg
	}
	var out, log bytes.Buffer
	base := gs[1].Reloads()
	rep, err := tyksync.Run(context.Background(), tyksync.Options{Set: set, Target: client(gs[0], false), Out: &out, Err: &log})
	require.NoError(t, err)
	require.Zero(t, rep.Failed, out.String()+log.String())
	// The group reload reaches the second replica through Redis, queued: counted only once it has begun there, so
	// that the runs below count their own reloads (under load it began after them, and they counted [0 2]).
	require.Eventually(t, func() bool { return gs[1].Reloads() > base }, 30*time.Second, 50*time.Millisecond,
		"the second replica never began the group reload")
	second, err := gs[1].LoadedIDs()
	require.NoError(t, err)
	assert.Empty(t, second, "the replica not written to lists no API, even after the group reload")
	t.Logf("one URL, the first replica: %s; the second lists %d APIs", strings.TrimSpace(out.String()[strings.LastIndex(out.String(), "sync:"):]), len(second))

	run := func(name string, gs []*realtyk.Gateway) ([]tyksync.ReplicaResult, []int) {
		t.Helper()
		var replicas []tyksync.Replica
		before := make([]int, len(gs))
		for i, g := range gs {
			replicas = append(replicas, tyksync.Replica{Name: g.URL, Target: client(g, true)})
			before[i] = g.Reloads()
		}
		out.Reset()
		log.Reset()
		res, err := tyksync.RunReplicas(context.Background(), tyksync.Options{Set: set, Out: &out, Err: &log}, replicas)
		require.NoError(t, err)
		reloads := make([]int, len(gs))
		for i, g := range gs {
			reloads[i] = g.Reloads() - before[i]
		}
		t.Logf("%s (reloads logged per replica %v):\n%s%s", name, reloads, out.String(), log.String())
		return res, reloads
	}
	res, reloads := run("each replica in turn", gs)
	for i, r := range res {
		assert.False(t, r.Failed(), "replica %d", i+1)
	}
	assert.Equal(t, 0, res[0].Report.Plan.Count(plan.Create), "the first replica had them")
	assert.Equal(t, len(set.APIs), res[1].Report.Plan.Count(plan.Create), "the second replica is given them")
	assert.Equal(t, []int{0, 1}, reloads, "the second replica alone reloads")
	for _, g := range gs {
		ids, err := g.LoadedIDs()
		require.NoError(t, err)
		assert.Len(t, ids, len(set.APIs))
	}

	gs = append(gs, gs[0].AddReplica(t, bins))
	res, reloads = run("a third replica added", gs)
	assert.Equal(t, len(set.APIs), res[2].Report.Plan.Count(plan.Create))
	assert.Equal(t, []int{0, 0, 1}, reloads)
	assert.Contains(t, out.String(), "replicas: 3 of 3 in sync")
}
