package tyksync_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	tyksync "github.com/gateway2tyk/gateway2tyk/sync"
	"github.com/gateway2tyk/gateway2tyk/sync/plan"
	"github.com/gateway2tyk/gateway2tyk/sync/source"
	"github.com/gateway2tyk/gateway2tyk/sync/target"
	"github.com/gateway2tyk/gateway2tyk/sync/target/targettest"
)

// shop is the rendered set the tests start from: three routes, four APIs (cart has two paths).
func shop() []targettest.API {
	return []targettest.API{
		{Route: "shop/cart", Gateway: "shop/edge", Hostname: "shop.example.com", Path: "/cart", Upstream: "http://cart.shop.svc.cluster.local:8080/cart"},
		{Route: "shop/cart", Gateway: "shop/edge", Hostname: "shop.example.com", Path: "/basket", Upstream: "http://cart.shop.svc.cluster.local:8080/basket"},
		{Route: "shop/checkout", Gateway: "shop/edge", Hostname: "shop.example.com", Path: "/checkout", Upstream: "http://checkout.shop.svc.cluster.local:8080/checkout"},
		{Route: "blog/posts", Gateway: "shop/edge", Path: "/posts", Upstream: "http://posts.blog.svc.cluster.local:80/posts"},
	}
}

var targets = map[string]func(testing.TB) *targettest.Fake{
	"dashboard": targettest.NewDashboard,
	"gateway":   targettest.NewGateway,
}

// recorder is the injected backoff: it records the waits instead of sleeping.
type recorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *recorder) sleep(_ context.Context, d time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waits = append(r.waits, d)
	return nil
}

func (r *recorder) retries() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.waits)
}

type run struct {
	rep      *tyksync.Report
	err      error
	out, log string
	backoff  *recorder
}

type runOpt func(*tyksync.Options, *target.Options)

func dryRun(o *tyksync.Options, _ *target.Options) { o.DryRun = true }
func scope(ns ...string) runOpt {
	return func(o *tyksync.Options, _ *target.Options) { o.Scope.Namespaces = ns }
}
func owner(o string) runOpt {
	return func(opts *tyksync.Options, _ *target.Options) { opts.Scope.Owner = o }
}
func allowDeleteAll() runOpt {
	return func(o *tyksync.Options, _ *target.Options) { o.AllowDeleteAll = true }
}
func retry(r target.Retry) runOpt { return func(_ *tyksync.Options, t *target.Options) { t.Retry = r } }
func concurrency(n int) runOpt {
	return func(o *tyksync.Options, _ *target.Options) { o.Concurrency = n }
}
func timeout(d time.Duration) runOpt {
	return func(_ *tyksync.Options, t *target.Options) { t.Timeout = d }
}
func stream(apis []targettest.API, extra ...any) string { return targettest.Streams(apis, extra...) }

// pipes makes the run reach the fake over in-memory connections (targettest.PipeClient), for a test in a
// testing/synctest bubble: the run's waits and timeouts then take no real time, and how long they last is the
// bubble's clock, the same on any machine.
func pipes(t *testing.T, f *targettest.Fake) runOpt {
	c := f.PipeClient(t)
	return func(_ *tyksync.Options, to *target.Options) { to.HTTPClient = c }
}

func idsOf(apis []targettest.API) []string {
	var s []string
	for _, a := range apis {
		s = append(s, a.ID())
	}
	sort.Strings(s)
	return s
}

func keys(m map[string][]byte) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

func syncRun(t *testing.T, f *targettest.Fake, in string, opts ...runOpt) run {
	t.Helper()
	rec := &recorder{}
	o := tyksync.Options{}
	to := target.Options{Retry: target.Retry{Sleep: rec.sleep}}
	for _, opt := range opts {
		opt(&o, &to)
	}
	to.Retry.Sleep = rec.sleep
	set, err := source.ReadStream(strings.NewReader(in), o.Scope)
	require.NoError(t, err)
	tgt, err := target.New(f.Settings(), to)
	require.NoError(t, err)
	var out, log bytes.Buffer
	o.Set, o.Target, o.Out, o.Err = set, tgt, &out, &log
	rep, err := tyksync.Run(context.Background(), o)
	return run{rep: rep, err: err, out: out.String(), log: log.String(), backoff: rec}
}

// actionsOf returns "action id" for the rows of one action, sorted.
func actionsOf(rep *tyksync.Report, a plan.Action) []string {
	var out []string
	for _, r := range rep.Rows {
		if r.Action == a {
			out = append(out, string(r.Action)+" "+r.ID)
		}
	}
	sort.Strings(out)
	return out
}

// actions returns "action id" for every row, sorted.
func actions(rep *tyksync.Report) []string {
	var out []string
	for _, r := range rep.Rows {
		out = append(out, string(r.Action)+" "+r.ID)
	}
	sort.Strings(out)
	return out
}

func want(action plan.Action, apis ...targettest.API) []string {
	var out []string
	for _, a := range apis {
		out = append(out, string(action)+" "+a.ID())
	}
	sort.Strings(out)
	return out
}

func sorted(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	sort.Strings(out)
	return out
}

// requireMatches checks that the target serves exactly the rendered documents, each with the marker.
func requireMatches(t *testing.T, f *targettest.Fake, apis []targettest.API, foreign ...string) {
	t.Helper()
	served := f.APIs()
	assert.Equal(t, sorted(idsOf(apis), foreign), keys(served))
	for _, a := range apis {
		body, err := plan.Stamp([]byte(a.Document()), plan.Marker{Owner: a.OwnerOf(), Route: a.Route, Gateway: a.Gateway, Hostname: a.Hostname, Path: a.Path})
		require.NoError(t, err)
		assert.True(t, plan.Equal(body, served[a.ID()]), "API %s differs:\n%s", a.ID(), served[a.ID()])
		assert.True(t, plan.Owned(served[a.ID()]))
	}
}

func TestLifecycle(t *testing.T) {
	for name, newTarget := range targets {
		t.Run(name, func(t *testing.T) {
			f := newTarget(t)
			apis := shop()

			// First sync creates everything.
			r := syncRun(t, f, stream(apis))
			require.NoError(t, r.err)
			assert.Zero(t, r.rep.Failed, r.out+r.log)
			assert.Equal(t, want(plan.Create, apis...), actions(r.rep))
			requireMatches(t, f, apis)

			// A second sync changes nothing.
			f.ResetCalls()
			r = syncRun(t, f, stream(apis))
			require.NoError(t, r.err)
			assert.Equal(t, want(plan.Unchanged, apis...), actions(r.rep))
			assert.Zero(t, f.Changes())
			assert.NotContains(t, r.out, "reload:")

			// An edited route updates exactly its APIs.
			apis[2].Upstream = "http://checkout-v2.shop.svc.cluster.local:8080/checkout"
			f.ResetCalls()
			r = syncRun(t, f, stream(apis))
			require.NoError(t, r.err)
			assert.Zero(t, r.rep.Failed, r.out+r.log)
			assert.Equal(t, sorted(want(plan.Unchanged, apis[0], apis[1], apis[3]), want(plan.Update, apis[2])), actions(r.rep))
			assert.Equal(t, 1, f.Changes())
			requireMatches(t, f, apis)

			// A removed route deletes exactly its APIs (cart has two).
			removed := apis[:2]
			kept := apis[2:]
			f.ResetCalls()
			r = syncRun(t, f, stream(kept))
			require.NoError(t, r.err)
			assert.Zero(t, r.rep.Failed, r.out+r.log)
			assert.Equal(t, sorted(want(plan.Unchanged, kept...), want(plan.Delete, removed...)), actions(r.rep))
			for _, row := range r.rep.Rows {
				if row.Action == plan.Delete {
					assert.Equal(t, "shop/cart", row.Route, "the route of a deleted API comes from its marker")
				}
			}
			assert.Equal(t, 2, f.Changes())
			requireMatches(t, f, kept)
			if name == "gateway" {
				assert.Contains(t, r.out, "reload: ok")
			}
		})
	}
}

func TestForeignAPIsSurvive(t *testing.T) {
	for name, newTarget := range targets {
		t.Run(name, func(t *testing.T) {
			f := newTarget(t)
			apis := shop()
			// Someone else's API, an API with our ID prefix but no marker, and one with a marker that says
			// another tool manages it.
			f.Put("petstore", []byte(`{"openapi":"3.0.3","info":{"title":"pets","version":"1"},"paths":{},"x-tyk-api-gateway":{"info":{"id":"petstore","name":"pets","state":{"active":true}}}}`))
			f.Put("gwapi-00000000000000000000", []byte(`{"openapi":"3.0.3","info":{"title":"x","version":"1"},"paths":{},"x-tyk-api-gateway":{"info":{"id":"gwapi-00000000000000000000","name":"x","state":{"active":true}}}}`))
			f.Put("gwapi-11111111111111111111", []byte(`{"openapi":"3.0.3","info":{"title":"y","version":"1"},"paths":{},"x-gateway2tyk":{"managedBy":"someone-else","route":"shop/old"},"x-tyk-api-gateway":{"info":{"id":"gwapi-11111111111111111111","name":"y","state":{"active":true}}}}`))
			foreign := []string{"gwapi-00000000000000000000", "gwapi-11111111111111111111", "petstore"}

			r := syncRun(t, f, stream(apis))
			require.NoError(t, r.err)
			assert.Zero(t, r.rep.Failed)
			r = syncRun(t, f, stream(nil), owner("gateway2tyk"), allowDeleteAll())
			require.NoError(t, r.err)
			assert.Equal(t, want(plan.Delete, apis...), actions(r.rep))
			assert.Equal(t, foreign, keys(f.APIs()))
		})
	}
}

// TestPlanDeletingEverythingIsRefused: a plan that would delete every API the sync manages, and keep or create
// none, changes nothing without AllowDeleteAll; one that also keeps an API goes ahead.
func TestPlanDeletingEverythingIsRefused(t *testing.T) {
	f := targettest.NewDashboard(t)
	apis := shop()
	require.NoError(t, syncRun(t, f, stream(apis)).err)
	before := keys(f.APIs())
	r := syncRun(t, f, stream(nil), owner("gateway2tyk"))
	require.ErrorIs(t, r.err, tyksync.ErrDeletesAll)
	assert.Equal(t, before, keys(f.APIs()), "nothing was deleted")
	r = syncRun(t, f, stream(apis[:1]))
	require.NoError(t, r.err)
	assert.Equal(t, want(plan.Delete, apis[1:]...), actionsOf(r.rep, plan.Delete))
}

// TestRefusalOfTheFallbackOwner (issue 45 finding 3): two applications rendered outside a git repository share the
// fallback owner; the refusal of the second's plan says the owner is a fallback and how to give each application
// its own, and never suggests --allow-empty, which would delete the first's APIs. --dry-run shows the plan it
// refuses (every delete), still refusing, nothing changed. Another owner's refusal names --allow-empty.
func TestRefusalOfTheFallbackOwner(t *testing.T) {
	f := targettest.NewDashboard(t)
	apis := shop()
	require.NoError(t, syncRun(t, f, stream(apis)).err)
	before := keys(f.APIs())

	r := syncRun(t, f, stream(nil), owner("gateway2tyk"))
	require.ErrorIs(t, r.err, tyksync.ErrDeletesAll)
	assert.Contains(t, r.err.Error(), "owner gateway2tyk is the fallback the render gives an application whose place "+
		"in a repository it cannot see")
	assert.Contains(t, r.err.Error(), "spec.owner in its RenderConfig, or sync --owner")
	assert.NotContains(t, r.err.Error(), "--allow-empty")

	r = syncRun(t, f, stream(nil), owner("gateway2tyk"), dryRun)
	require.ErrorIs(t, r.err, tyksync.ErrDeletesAll, "a dry run of a refused plan is refused too")
	require.NotNil(t, r.rep, "the dry run shows the plan")
	assert.Equal(t, want(plan.Delete, apis...), actions(r.rep))
	for _, a := range apis {
		assert.Contains(t, r.out, a.ID(), "the plan printed names every API it would delete")
	}
	assert.Equal(t, before, keys(f.APIs()), "nothing was deleted")

	g := targettest.NewDashboard(t)
	owned := shop()
	for i := range owned {
		owned[i].Owner = "shop-apis"
	}
	require.NoError(t, syncRun(t, g, stream(owned)).err)
	r = syncRun(t, g, stream(nil), owner("shop-apis"))
	require.ErrorIs(t, r.err, tyksync.ErrDeletesAll)
	assert.Contains(t, r.err.Error(), "give --allow-empty if that is meant")
}

func TestScopeLimitsDeletes(t *testing.T) {
	f := targettest.NewDashboard(t)
	apis := shop()
	r := syncRun(t, f, stream(apis))
	require.NoError(t, r.err)
	// A sync of namespace shop with nothing rendered deletes shop's APIs only; blog's stay.
	r = syncRun(t, f, stream(nil), owner("gateway2tyk"), scope("shop"), allowDeleteAll())
	require.NoError(t, r.err)
	assert.Equal(t, want(plan.Delete, apis[0], apis[1], apis[2]), actions(r.rep))
	assert.Equal(t, idsOf(apis[3:]), keys(f.APIs()))
	// Out-of-scope ConfigMaps in the stream are not synced either.
	r = syncRun(t, f, stream(apis), scope("blog"))
	require.NoError(t, r.err)
	assert.Equal(t, want(plan.Unchanged, apis[3]), actions(r.rep))
}

func TestCollisionWithForeignAPIIsNotOverwritten(t *testing.T) {
	f := targettest.NewGateway(t)
	apis := shop()
	foreignDoc := fmt.Sprintf(`{"openapi":"3.0.3","info":{"title":"x","version":"1"},"paths":{},"x-tyk-api-gateway":{"info":{"id":%q,"name":"x","state":{"active":true}}}}`, apis[0].ID())
	f.Put(apis[0].ID(), []byte(foreignDoc))
	r := syncRun(t, f, stream(apis))
	require.NoError(t, r.err)
	assert.Equal(t, 1, r.rep.Failed)
	assert.Contains(t, r.out, "not overwritten")
	assert.Contains(t, r.log, "gateway2tyk sync: 1 action(s) failed:")
	assert.JSONEq(t, foreignDoc, string(f.APIs()[apis[0].ID()]))
}

func TestFlakyTargetConverges(t *testing.T) {
	for name, newTarget := range targets {
		t.Run(name, func(t *testing.T) {
			f := newTarget(t)
			f.FailRate, f.Seed = 0.3, 7
			apis := append(shop(),
				targettest.API{Route: "shop/search", Gateway: "shop/edge", Hostname: "shop.example.com", Path: "/search", Upstream: "http://search.shop.svc.cluster.local:8080/search"},
				targettest.API{Route: "shop/reviews", Gateway: "shop/edge", Hostname: "shop.example.com", Path: "/reviews", Upstream: "http://reviews.shop.svc.cluster.local:8080/reviews"},
				targettest.API{Route: "shop/users", Gateway: "shop/edge", Hostname: "shop.example.com", Path: "/users", Upstream: "http://users.shop.svc.cluster.local:8080/users"},
			)
			budget := target.Retry{Attempts: 6, Budget: 40}
			r := syncRun(t, f, stream(apis), retry(budget))
			require.NoError(t, r.err)
			assert.Zero(t, r.rep.Failed, r.out+r.log)
			injected := 0
			for _, c := range f.Calls() {
				if c.Injected {
					injected++
				}
			}
			assert.Positive(t, injected, "the fake must really fail calls")
			assert.LessOrEqual(t, r.backoff.retries(), budget.Budget)
			requireMatches(t, f, apis)

			// Edited and removed routes, still flaky: converges, then a last sync changes nothing.
			apis[0].Upstream += "-v2"
			apis = apis[1:]
			r = syncRun(t, f, stream(apis), retry(budget))
			require.NoError(t, r.err)
			assert.Zero(t, r.rep.Failed, r.out+r.log)
			requireMatches(t, f, apis)

			r = syncRun(t, f, stream(apis), retry(budget))
			require.NoError(t, r.err)
			assert.Zero(t, r.rep.Failed, r.out+r.log)
			assert.Equal(t, want(plan.Unchanged, apis...), actions(r.rep))
		})
	}
}

func TestFailedListingDeletesNothing(t *testing.T) {
	for name, newTarget := range targets {
		t.Run(name, func(t *testing.T) {
			f := newTarget(t)
			apis := shop()
			require.NoError(t, syncRun(t, f, stream(apis)).err)
			before := f.APIs()

			f.FailListing = true
			f.ResetCalls()
			r := syncRun(t, f, stream(apis[:1]), retry(target.Retry{Attempts: 3}))
			require.Error(t, r.err)
			assert.True(t, errors.Is(r.err, tyksync.ErrListing))
			assert.Contains(t, r.err.Error(), "nothing was changed")
			assert.Equal(t, before, f.APIs())
			listings := 0
			for _, c := range f.Calls() {
				assert.Equal(t, http.MethodGet, c.Method, "only reads: %s %s", c.Method, c.Path)
				if c.Path != "/hello" { // the Gateway's version is read first
					listings++
				}
			}
			assert.Equal(t, 3, listings, "the listing is retried up to the attempts")
			assert.Empty(t, r.out)
		})
	}
}

func TestPartialListingDeletesNothing(t *testing.T) {
	f := targettest.NewDashboard(t)
	apis := shop()
	f.PageSize = 3
	require.NoError(t, syncRun(t, f, stream(apis)).err) // 4 APIs, page size 3: two pages
	before := f.APIs()
	f.FailPage = 2
	r := syncRun(t, f, stream(nil), retry(target.Retry{Attempts: 2}))
	require.Error(t, r.err)
	assert.Contains(t, r.err.Error(), "p=2")
	assert.Equal(t, before, f.APIs())
}

func TestUnreadableConfigMapWithholdsDeletes(t *testing.T) {
	f := targettest.NewGateway(t)
	apis := shop()
	require.NoError(t, syncRun(t, f, stream(apis)).err)
	broken := apis[0].ConfigMap()
	broken.Data["tyk-oas.json"] = "{not json"
	r := syncRun(t, f, targettest.Stream(broken, apis[2].ConfigMap()))
	require.NoError(t, r.err)
	assert.Contains(t, r.log, "cannot read ConfigMap shop/"+apis[0].ID())
	// apis[1] and apis[3] are no longer rendered, and apis[0]'s ConfigMap cannot be read: nothing is deleted
	// while a ConfigMap cannot be read, and the three withheld deletes fail the run.
	assert.Equal(t, 3, r.rep.Failed)
	assert.Equal(t, idsOf(apis), keys(f.APIs()))
	assert.Contains(t, r.out, "failed: withheld")
}

func TestWritesFailingAreReportedAfterTryingAll(t *testing.T) {
	f := targettest.NewDashboard(t)
	f.Inject = func(method, path string) int {
		if method == http.MethodPost && path == "/api/apis/oas" {
			return http.StatusBadGateway
		}
		return 0
	}
	apis := shop()
	r := syncRun(t, f, stream(apis), retry(target.Retry{Attempts: 3, Budget: 5}))
	require.NoError(t, r.err)
	assert.Equal(t, len(apis), r.rep.Failed, "every create was tried and failed")
	posts := 0
	for _, c := range f.Calls() {
		if c.Method == http.MethodPost {
			posts++
		}
	}
	assert.Equal(t, len(apis)+5, posts, "one attempt per API plus the run's retry budget")
	assert.Equal(t, 5, r.backoff.retries())
	assert.Contains(t, r.out, "502 Bad Gateway")
	assert.Contains(t, r.out, "sync: 0 created, 0 updated, 0 deleted, 0 unchanged, 4 failed")
}

func TestBackoffGrowsAndHonoursRetryAfter(t *testing.T) {
	f := targettest.NewGateway(t)
	calls := 0
	f.Inject = func(method, path string) int {
		if method == http.MethodGet && path == "/tyk/apis/oas" {
			calls++
			if calls == 1 {
				return http.StatusTooManyRequests
			}
			if calls < 5 {
				return http.StatusInternalServerError
			}
		}
		return 0
	}
	r := syncRun(t, f, stream(nil), retry(target.Retry{Attempts: 5, Base: 100 * time.Millisecond, Max: 2 * time.Second}), concurrency(1))
	require.NoError(t, r.err)
	w := r.backoff.waits
	require.Len(t, w, 4)
	// The 429 from the fake carries no Retry-After (only the random failures do): plain backoff, with jitter
	// between half and all of Base·2^(n-1).
	for i, d := range w {
		full := 100 * time.Millisecond << i
		assert.GreaterOrEqual(t, d, full/2, "wait %d", i)
		assert.LessOrEqual(t, d, full, "wait %d", i)
	}
}

// TestEveryCallHasATimeout: a target that never answers costs each call its attempts' timeouts, no more (the
// first call, the version check, fails the run). In a synctest bubble, so the 40 ms are the bubble's clock.
func TestEveryCallHasATimeout(t *testing.T) {
	f := targettest.NewGateway(t)
	synctest.Test(t, func(t *testing.T) {
		block := make(chan struct{})
		defer close(block)
		f.Inject = func(string, string) int { <-block; return 0 }
		start := time.Now()
		r := syncRun(t, f, stream(nil), retry(target.Retry{Attempts: 2}), timeout(20*time.Millisecond), pipes(t, f))
		require.Error(t, r.err)
		assert.Contains(t, r.err.Error(), "deadline exceeded")
		assert.Equal(t, 2*20*time.Millisecond, time.Since(start), "two attempts of 20 ms")
	})
}

func TestDryRun(t *testing.T) {
	f := targettest.NewDashboard(t)
	apis := shop()
	require.NoError(t, syncRun(t, f, stream(apis[1:])).err)
	apis[2].Upstream = "http://changed"
	// Plan: create apis[0], update apis[2], delete apis[3], apis[1] unchanged.
	f.ResetCalls()
	r := syncRun(t, f, stream(apis[:3]), dryRun)
	require.NoError(t, r.err)
	assert.Zero(t, f.Changes())
	for _, c := range f.Calls() {
		assert.Equal(t, http.MethodGet, c.Method)
	}
	rows := map[string]string{
		apis[0].ID(): "create", apis[1].ID(): "unchanged", apis[2].ID(): "update", apis[3].ID(): "delete",
	}
	// Rows are sorted by route, then API ID; each names its route, hostname and path, so that the two APIs of
	// shop/cart can be told apart.
	order := []targettest.API{apis[3]}
	if apis[1].ID() < apis[0].ID() {
		order = append(order, apis[1], apis[0])
	} else {
		order = append(order, apis[0], apis[1])
	}
	order = append(order, apis[2])
	var b strings.Builder
	b.WriteString("owner: gateway2tyk\n")
	fmt.Fprintf(&b, "%-9s  %-26s  %s\n", "ACTION", "API ID", "ROUTE")
	for _, a := range order {
		fmt.Fprintf(&b, "%-9s  %-26s  %s %s%s\n", rows[a.ID()], a.ID(), a.Route, a.Hostname, a.Path)
	}
	b.WriteString("plan: 1 to create, 1 to update, 1 to delete, 1 unchanged (dry run: nothing was changed)\n")
	assert.Equal(t, b.String(), r.out)
}

func TestCertificates(t *testing.T) {
	for name, newTarget := range targets {
		t.Run(name, func(t *testing.T) {
			f := newTarget(t)
			cert, key := targettest.NewCertificate(t, "shop.example.com")
			other, _ := targettest.NewCertificate(t, "other.example.com")
			certID, otherID := targettest.CertID(f.Org, cert), targettest.CertID(f.Org, other)
			apis := shop()
			apis[0].Certificates = []string{certID}
			apis[2].Certificates = []string{certID}
			apis[1].Certificates = []string{otherID}

			// The Secret of cert has its key; other's has only tls.crt (as a render's local-config Secret).
			in := stream(apis, targettest.TLSSecret("shop", "shop-tls", cert, key), targettest.TLSSecret("shop", "other-tls", other, nil))
			r := syncRun(t, f, in)
			require.NoError(t, r.err)
			assert.Equal(t, []string{certID}, f.Certificates())
			assert.Equal(t, 1, r.rep.Failed, r.out)
			assert.Contains(t, r.out, "Secret shop/other-tls has no tls.key, and the target does not have it")
			assert.Equal(t, []string{certID, "upload", "Secret", "shop/shop-tls", "ok:", "uploaded"}, line(r.out, certID))

			// Once the target has it, a certificate without a Secret only needs checking, and a re-upload of an
			// existing one is not an error.
			tgt, err := target.New(f.Settings(), target.Options{})
			require.NoError(t, err)
			_, _, err = tgt.UploadCertificate(context.Background(), other, f.Org)
			require.NoError(t, err)
			r = syncRun(t, f, in)
			require.NoError(t, r.err)
			assert.Zero(t, r.rep.Failed, r.out)
			assert.Equal(t, []string{certID, "upload", "Secret", "shop/shop-tls", "ok:", "the", "target", "has", "it"}, line(r.out, certID))
			assert.Equal(t, []string{otherID, "check", "Secret", "shop/other-tls", "ok:", "the", "target", "has", "it"}, line(r.out, otherID))
		})
	}
}

// TestCACertificates: the CA certificate an API's clientCertificates allowlist names is uploaded from the
// stream's ConfigMap that holds it, before the API that needs it, and the table says where it came from.
func TestCACertificates(t *testing.T) {
	for name, newTarget := range targets {
		t.Run(name, func(t *testing.T) {
			f := newTarget(t)
			ca := targettest.NewCA(t, "clients")
			caID := targettest.CertID(f.Org, ca)
			apis := shop()
			apis[0].ClientCAs = []string{caID}
			r := syncRun(t, f, stream(apis, targettest.CAConfigMap("shop", "client-ca", ca)))
			require.NoError(t, r.err)
			assert.Zero(t, r.rep.Failed, r.out)
			assert.Equal(t, []string{caID}, f.Certificates())
			assert.Equal(t, []string{caID, "upload", "ConfigMap", "shop/client-ca", "ok:", "uploaded"}, line(r.out, caID))
		})
	}
}

func TestCertificateStoredUnderAnotherOrgFails(t *testing.T) {
	f := targettest.NewDashboard(t)
	cert, key := targettest.NewCertificate(t, "shop.example.com")
	wrong := targettest.CertID("000000000000000000000000", cert)
	apis := shop()[:1]
	apis[0].Certificates = []string{wrong}
	r := syncRun(t, f, stream(apis, targettest.TLSSecret("shop", "shop-tls", cert, key)))
	require.NoError(t, r.err)
	assert.Equal(t, 1, r.rep.Failed)
	assert.Contains(t, r.out, "the target's organisation differs")
}

func TestMarkerIsStampedIntoWhatIsSent(t *testing.T) {
	f := targettest.NewGateway(t)
	apis := shop()[:1]
	require.NoError(t, syncRun(t, f, stream(apis)).err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(f.APIs()[apis[0].ID()], &doc))
	assert.Equal(t, map[string]any{"managedBy": "gateway2tyk", "owner": "gateway2tyk", "route": "shop/cart",
		"gateway": "shop/edge", "hostname": "shop.example.com", "path": "/cart"}, doc["x-gateway2tyk"])
}

// line returns the fields of the first output line that starts with prefix.
func line(out, prefix string) []string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return strings.Fields(l)
		}
	}
	return nil
}

// TestConcurrencyLimit: twelve creates, each taking 3 ms on the target, run three at a time. In a synctest
// bubble the 3 ms pass only once every goroutine waits, so all the calls the limit lets start are in flight
// together: the peak is the limit exactly, and four rounds of 3 ms are the whole wait.
func TestConcurrencyLimit(t *testing.T) {
	f := targettest.NewGateway(t)
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		inFlight, peak := 0, 0
		f.Inject = func(method, _ string) int {
			if method != http.MethodPost {
				return 0
			}
			mu.Lock()
			inFlight++
			peak = max(peak, inFlight)
			mu.Unlock()
			time.Sleep(3 * time.Millisecond)
			mu.Lock()
			inFlight--
			mu.Unlock()
			return 0
		}
		var apis []targettest.API
		for i := range 12 {
			apis = append(apis, targettest.API{Route: "shop/r", Gateway: "shop/edge", Path: fmt.Sprintf("/p%d", i), Upstream: "http://u"})
		}
		start := time.Now()
		r := syncRun(t, f, stream(apis), concurrency(3), pipes(t, f))
		require.NoError(t, r.err)
		assert.Zero(t, r.rep.Failed)
		assert.Equal(t, 3, peak, "three calls at a time, never more")
		assert.Equal(t, 4*3*time.Millisecond, time.Since(start), "twelve calls of 3 ms, three at a time")
	})
}

func tykVersion(v string) runOpt {
	return func(o *tyksync.Options, _ *target.Options) { o.TykVersion = v }
}

// TestVersionIsCheckedBeforeAnyWrite: the rendered APIs set upstream.preserveHostHeader, which a Tyk older than
// 5.8 refuses.
func TestVersionIsCheckedBeforeAnyWrite(t *testing.T) {
	apis := shop()
	t.Run("gateway older than 5.8", func(t *testing.T) {
		f := targettest.NewGateway(t)
		f.Version = "v5.7.2"
		r := syncRun(t, f, stream(apis))
		require.Error(t, r.err)
		assert.True(t, errors.Is(r.err, tyksync.ErrTargetTooOld))
		assert.Equal(t, "Tyk Gateway at "+f.Server.URL+" is v5.7.2 (as it reports), older than Tyk 5.8, which the "+
			"rendered APIs need for upstream.preserveHostHeader (4 APIs); nothing was changed; upgrade it to Tyk 5.8 "+
			"or newer", r.err.Error())
		require.Len(t, f.Calls(), 1)
		assert.Equal(t, "GET /hello", f.Calls()[0].Method+" "+f.Calls()[0].Path)
		assert.Empty(t, f.APIs())
	})
	// Issue 45 finding 6: the advice to give --tyk-version led, on a 5.4 Gateway, to a run in which every API
	// failed with 400. It is given only for a build from source, and warns.
	t.Run("build from source that reports an older release", func(t *testing.T) {
		f := targettest.NewGateway(t)
		f.Version = "v5.5.0-dev"
		r := syncRun(t, f, stream(apis))
		require.Error(t, r.err)
		assert.Equal(t, "Tyk Gateway at "+f.Server.URL+" is v5.5.0-dev (as it reports), older than Tyk 5.8, which the "+
			"rendered APIs need for upstream.preserveHostHeader (4 APIs); nothing was changed (a Gateway built from "+
			"source may report an older release than its own: only if this one was built from Tyk 5.8 or newer, give "+
			"--tyk-version with its release; an older Gateway refuses every API)", r.err.Error())
		assert.Empty(t, f.APIs())
	})
	t.Run("build from source, its release given with --tyk-version", func(t *testing.T) {
		f := targettest.NewGateway(t)
		f.Version = "v5.5.0-dev"
		r := syncRun(t, f, stream(apis), tykVersion("5.11.1"))
		require.NoError(t, r.err)
		assert.Equal(t, want(plan.Create, apis...), actions(r.rep))
	})
	t.Run("release older than 5.8, said newer with --tyk-version", func(t *testing.T) {
		f := targettest.NewGateway(t)
		f.Version = "v5.4.2"
		r := syncRun(t, f, stream(apis), tykVersion("5.8"))
		require.Error(t, r.err)
		assert.True(t, errors.Is(r.err, tyksync.ErrTargetTooOld))
		assert.Equal(t, "Tyk Gateway at "+f.Server.URL+" is v5.4.2 (as it reports, a release, not a build from source: "+
			"--tyk-version 5.8 does not change what it loads), older than Tyk 5.8, which the rendered APIs need for "+
			"upstream.preserveHostHeader (4 APIs); nothing was changed; upgrade it to Tyk 5.8 or newer", r.err.Error())
		assert.Empty(t, f.APIs(), "nothing was written")
	})
	t.Run("gateway 5.8", func(t *testing.T) {
		f := targettest.NewGateway(t)
		f.Version = "v5.8.0"
		r := syncRun(t, f, stream(apis))
		require.NoError(t, r.err)
		assert.Zero(t, r.rep.Failed)
	})
	t.Run("dashboard without --tyk-version", func(t *testing.T) {
		f := targettest.NewDashboard(t)
		r := syncRun(t, f, stream(apis))
		require.NoError(t, r.err)
		assert.Zero(t, r.rep.Failed)
		assert.Contains(t, r.log, "Tyk Dashboard at "+f.Server.URL+" does not say its version: the rendered APIs need "+
			"Tyk 5.8 or newer for upstream.preserveHostHeader (4 APIs) (give --tyk-version")
	})
	t.Run("dashboard with an older --tyk-version", func(t *testing.T) {
		f := targettest.NewDashboard(t)
		r := syncRun(t, f, stream(apis), tykVersion("5.4"))
		require.Error(t, r.err)
		assert.True(t, errors.Is(r.err, tyksync.ErrTargetTooOld))
		assert.Contains(t, r.err.Error(), "is 5.4 (given with --tyk-version), older than Tyk 5.8")
		assert.Empty(t, f.Calls(), "nothing at all was asked of the Dashboard")
	})
	t.Run("bad --tyk-version", func(t *testing.T) {
		f := targettest.NewDashboard(t)
		r := syncRun(t, f, stream(apis), tykVersion("five"))
		require.Error(t, r.err)
		assert.Contains(t, r.err.Error(), `--tyk-version: "five" is not a Tyk version`)
		assert.Empty(t, f.Calls())
	})
	t.Run("bad --tyk-version, no API needing a newer Tyk", func(t *testing.T) {
		f := targettest.NewDashboard(t)
		r := syncRun(t, f, stream(nil), tykVersion("five"))
		require.Error(t, r.err)
		assert.Contains(t, r.err.Error(), `--tyk-version: "five" is not a Tyk version`)
		assert.Empty(t, f.Calls())
	})
}

// TestDashboardListingWithoutDocuments: where the Dashboard's listing does not carry an API's OAS document,
// the sync reads it, so that ownership and changes are still seen.
func TestDashboardListingWithoutDocuments(t *testing.T) {
	f := targettest.NewDashboard(t)
	apis := shop()
	require.NoError(t, syncRun(t, f, stream(apis)).err)
	f.OmitListedOAS = true
	f.ResetCalls()
	apis[0].Upstream += "-v2"
	r := syncRun(t, f, stream(apis[:3]))
	require.NoError(t, r.err)
	assert.Zero(t, r.rep.Failed)
	assert.Equal(t, sorted(want(plan.Update, apis[0]), want(plan.Unchanged, apis[1], apis[2]), want(plan.Delete, apis[3])),
		actions(r.rep))
	gets := 0
	for _, c := range f.Calls() {
		if c.Method == http.MethodGet && strings.HasPrefix(c.Path, "/api/apis/oas/") {
			gets++
		}
	}
	assert.Equal(t, len(apis), gets, "one document read per listed API")
}

// TestDeleteDoneButNotYetLoaded: a Gateway still lists an API whose file a delete removed until it reloads,
// and answers another delete of it with 500 "Delete failed" (the 5.4 line does): the delete is done, not failed,
// and it is not retried.
func TestDeleteDoneButNotYetLoaded(t *testing.T) {
	f := targettest.NewGateway(t)
	apis := shop()
	require.NoError(t, syncRun(t, f, stream(apis)).err)
	tgt, err := target.New(f.Settings(), target.Options{})
	require.NoError(t, err)
	require.NoError(t, tgt.Delete(context.Background(), apis[3].ID())) // the file is gone, the API still loaded
	f.ResetCalls()
	r := syncRun(t, f, stream(apis[:3]))
	require.NoError(t, r.err)
	assert.Zero(t, r.rep.Failed, r.out+r.log)
	assert.Equal(t, sorted(want(plan.Unchanged, apis[:3]...), want(plan.Delete, apis[3])), actions(r.rep))
	var deletes []int
	for _, c := range f.Calls() {
		if c.Method == http.MethodDelete {
			deletes = append(deletes, c.Status)
		}
	}
	assert.Equal(t, []int{http.StatusInternalServerError}, deletes)
	assert.Equal(t, idsOf(apis[:3]), keys(f.APIs()))
}

// TestDashboardClassicAPIs: a classic API on the Dashboard is never ours: not deleted, and one with a rendered
// API's ID is not overwritten.
func TestDashboardClassicAPIs(t *testing.T) {
	f := targettest.NewDashboard(t)
	apis := shop()
	f.PutClassic("classic-orders", "orders (classic)")
	f.PutClassic(apis[0].ID(), "taken")
	r := syncRun(t, f, stream(apis))
	require.NoError(t, r.err)
	assert.Equal(t, 1, r.rep.Failed)
	assert.Contains(t, r.out, "exists on the target without the x-gateway2tyk marker")
	assert.Equal(t, idsOf(apis[1:]), keys(f.APIs()))
	r = syncRun(t, f, stream(nil), owner("gateway2tyk"), allowDeleteAll())
	require.NoError(t, r.err)
	assert.Equal(t, want(plan.Delete, apis[1:]...), actions(r.rep))
	assert.Equal(t, []string{"classic-orders", apis[0].ID()}, f.Classic())
}

func settleFor(d time.Duration) runOpt {
	return func(o *tyksync.Options, _ *target.Options) { o.Settle = d }
}

// lostReloads makes the fake Gateway accept the first n group reloads without making them, as a Gateway that has
// just started can (its pub/sub subscription not up yet); it returns when each reload request came, measured
// from the first (the bubble's clock, in the tests below).
func lostReloads(f *targettest.Fake, n int) func() []time.Duration {
	var mu sync.Mutex
	var seen []time.Time
	f.Inject = func(method, path string) int {
		if path != "/tyk/reload/group" {
			return 0
		}
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, time.Now())
		if len(seen) <= n {
			return http.StatusOK
		}
		return 0
	}
	return func() []time.Duration {
		mu.Lock()
		defer mu.Unlock()
		var out []time.Duration
		for _, at := range seen {
			out = append(out, at.Sub(seen[0]))
		}
		return out
	}
}

// The tests of the wait run in a synctest bubble: the seconds they wait are the bubble's clock, so they take no
// real time and give the same answer on any machine.

// TestLostReloadAskedAgain: while the Gateway shows none of the run's changes, the run asks for the reload
// again (at a sixth and a third of the wait), and the run succeeds once a reload is made.
func TestLostReloadAskedAgain(t *testing.T) {
	f := targettest.NewGateway(t)
	synctest.Test(t, func(t *testing.T) {
		requests := lostReloads(f, 2)
		r := syncRun(t, f, stream(shop()), settleFor(3*time.Second), pipes(t, f))
		require.NoError(t, r.err)
		assert.Zero(t, r.rep.Failed, r.out+r.log)
		assert.Equal(t, []time.Duration{0, 500 * time.Millisecond, time.Second}, requests(), "the reload is asked for again twice")
		assert.Contains(t, r.rep.Reload, "the reload was asked for 3 times")
		assert.Contains(t, r.rep.Reload, "ok (the Gateway serves the new set after 1s)")
		requireMatches(t, f, shop())
	})
}

// TestLostReloadAskedAgainBounded: a Gateway that never reloads is asked four times in all (at the start, a
// sixth, a third and half of the wait), then the run fails at the end of the wait.
func TestLostReloadAskedAgainBounded(t *testing.T) {
	f := targettest.NewGateway(t)
	synctest.Test(t, func(t *testing.T) {
		requests := lostReloads(f, 100)
		start := time.Now()
		r := syncRun(t, f, stream(shop()), settleFor(600*time.Millisecond), pipes(t, f))
		require.NoError(t, r.err)
		assert.Equal(t, []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond}, requests())
		assert.Equal(t, 600*time.Millisecond, time.Since(start), "the run waits the whole wait, and no longer")
		assert.Equal(t, 1, r.rep.Failed)
		assert.Contains(t, r.rep.Reload, "failed: the Gateway does not serve what it was given 600ms after the reload")
		assert.Contains(t, r.rep.Reload, "asked for 4 times")
	})
}

// TestReloadNotAskedAgainWhenShown: a reload that shows is not asked for again, even when the wait is long.
func TestReloadNotAskedAgainWhenShown(t *testing.T) {
	f := targettest.NewGateway(t)
	synctest.Test(t, func(t *testing.T) {
		requests := lostReloads(f, 0)
		r := syncRun(t, f, stream(shop()), settleFor(3*time.Second), pipes(t, f))
		require.NoError(t, r.err)
		assert.Zero(t, r.rep.Failed)
		assert.Equal(t, []time.Duration{0}, requests())
		assert.NotContains(t, r.rep.Reload, "asked for")
	})
}
