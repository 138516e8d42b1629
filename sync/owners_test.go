package tyksync_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
	tyksync "github.com/gateway2tyk/gateway2tyk/sync"
	"github.com/gateway2tyk/gateway2tyk/sync/plan"
	"github.com/gateway2tyk/gateway2tyk/sync/source"
	"github.com/gateway2tyk/gateway2tyk/sync/target"
)

// Two applications share one Tyk: examples/basic (routes shop/orders and shop/catalog, owned by its directory,
// examples.basic, the default) and team B's, in the same namespace and on the same Gateway (routes shop/returns
// and shop/reviews, owned by spec.owner shop-returns).
const teamBRoutes = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: returns, namespace: shop}
spec:
  parentRefs: [{name: edge}]
  hostnames: [returns.shop.example.com]
  rules:
    - matches: [{path: {type: PathPrefix, value: /returns}}]
      backendRefs: [{name: returns, port: 8080}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: reviews, namespace: shop}
spec:
  parentRefs: [{name: edge}]
  hostnames: [reviews.shop.example.com]
  rules:
    - matches: [{path: {type: PathPrefix, value: /reviews}}]
      backendRefs: [{name: reviews, port: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: returns, namespace: shop}
spec: {ports: [{port: 8080}]}
---
apiVersion: v1
kind: Service
metadata: {name: reviews, namespace: shop}
spec: {ports: [{port: 8080}]}
`

// team is one application: its renders with all its routes and without one of them.
type team struct {
	name      string
	owner     string
	all, less *source.Set
	// removed is the route left out of less, and its APIs.
	removed    string
	removedIDs []string
}

func ids(set *source.Set) []string {
	var out []string
	for _, a := range set.APIs {
		out = append(out, a.ID)
	}
	sort.Strings(out)
	return out
}

// teams renders both applications as their repositories would: A with the default owner of its directory.
func teams(t *testing.T) (a, b team) {
	t.Helper()
	aCfg := config.Default().WithOwner(filepath.Join("..", "examples", "basic"))
	require.Equal(t, "examples.basic", aCfg.Owner, "the default owner of examples/basic is its directory in the repository")
	a = team{name: "A (examples/basic)", owner: aCfg.Owner, removed: "shop/catalog"}
	allA := renderBasicAs(t, aCfg, "", nil)
	a.all, a.less = for54(t, allA.stream), for54(t, renderBasicAs(t, aCfg, "", []string{"shop/catalog"}).stream)
	a.removedIDs = sorted(allA.routes["shop/catalog"])

	bCfg := config.Default()
	bCfg.Owner = "shop-returns"
	b = team{name: "B (team B)", owner: bCfg.Owner, removed: "shop/reviews"}
	var extra, extraLess []*yaml.RNode
	for _, doc := range strings.Split(teamBRoutes, "---\n") {
		n, err := yaml.Parse(doc)
		require.NoError(t, err)
		extra = append(extra, n)
		if n.GetName() != "reviews" || n.GetKind() != "HTTPRoute" {
			extraLess = append(extraLess, n)
		}
	}
	drop := []string{"shop/orders", "shop/catalog"}
	allB := renderBasicAs(t, bCfg, "", drop, extra...)
	b.all, b.less = for54(t, allB.stream), for54(t, renderBasicAs(t, bCfg, "", drop, extraLess...).stream)
	b.removedIDs = sorted(allB.routes["shop/reviews"])
	require.Len(t, b.all.APIs, 2)
	require.Len(t, a.all.APIs, 2)
	for _, s := range []*source.Set{a.all, a.less} {
		for _, api := range s.APIs {
			require.Equal(t, a.owner, api.Marker.Owner)
		}
	}
	return a, b
}

// ownerRun is one sync of one application.
type ownerRun struct {
	rep      *tyksync.Report
	err      error
	out, log string
}

func (r ownerRun) ids(a plan.Action) []string {
	var out []string
	for _, row := range r.rep.Rows {
		if row.Action == a && !row.Failed {
			out = append(out, row.ID)
		}
	}
	sort.Strings(out)
	return out
}

// shared is a Tyk the applications share: a real Gateway or a fake held to Tyk's published API.
type shared struct {
	target func(t *testing.T) target.Target
	// served lists what the target serves, by API ID.
	served func(t *testing.T) map[string][]byte
	// foreign are the IDs of APIs on the target that gateway2tyk did not create.
	foreign []string
	table   *[]string
	mu      *sync.Mutex // guards table: concurrent runs add rows
}

func (s shared) sync(t *testing.T, name string, set *source.Set, o tyksync.Options) ownerRun {
	t.Helper()
	var out, log bytes.Buffer
	o.Set, o.Target, o.Out, o.Err = set, s.target(t), &out, &log
	rep, err := tyksync.Run(context.Background(), o)
	r := ownerRun{rep: rep, err: err, out: out.String(), log: log.String()}
	t.Logf("%s:\n%s%s", name, r.out, r.log)
	if s.table != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		row := fmt.Sprintf("| %s | stopped: %v | | | | |", name, err)
		if err == nil {
			row = fmt.Sprintf("| %s | %d | %d | %d | %d | %d |", name, len(r.ids(plan.Create)), len(r.ids(plan.Update)),
				len(r.ids(plan.Unchanged)), len(r.ids(plan.Delete)), rep.Failed)
		}
		*s.table = append(*s.table, row)
	}
	return r
}

// requireServes checks that the target serves exactly the sets' APIs, each as its owner sent it, and the
// foreign APIs.
func (s shared) requireServes(t *testing.T, when string, sets ...*source.Set) {
	t.Helper()
	got := s.served(t)
	want := append([]string(nil), s.foreign...)
	for _, set := range sets {
		for _, a := range set.APIs {
			want = append(want, a.ID)
			body, err := plan.Stamp(a.Document, a.Marker)
			require.NoError(t, err)
			assert.True(t, plan.Equal(body, got[a.ID]), "%s: the target serves %s as\n%s", when, a.ID, got[a.ID])
		}
	}
	sort.Strings(want)
	assert.Equal(t, want, keys(got), when)
}

// twoApplications is the story of two applications that share a Tyk, on a fresh target each time newShared is
// called: they sync in turn, in both orders, and concurrently, and neither loses an API; each one's removed route
// deletes exactly its APIs; a route both render is a conflict that leaves the other owner's API as it was; sync
// --check of one lists the other's APIs as another owner's, not as drift.
func twoApplications(t *testing.T, newShared func(t *testing.T) shared) {
	a, b := teams(t)
	for _, order := range [][2]team{{a, b}, {b, a}} {
		first, second := order[0], order[1]
		t.Run(first.owner+" then "+second.owner, func(t *testing.T) {
			s := newShared(t)
			r := s.sync(t, "1 "+first.name+" syncs", first.all, tyksync.Options{})
			require.NoError(t, r.err)
			assert.Equal(t, ids(first.all), r.ids(plan.Create))
			r = s.sync(t, "2 "+second.name+" syncs", second.all, tyksync.Options{})
			require.NoError(t, r.err)
			assert.Zero(t, r.rep.Failed, r.out)
			assert.Equal(t, ids(second.all), r.ids(plan.Create))
			assert.Empty(t, r.ids(plan.Delete), "the second application deletes none of the first's APIs")
			assert.Contains(t, r.out, "owner: "+second.owner+" (APIs left alone: 2 of 1 other owner)\n")
			s.requireServes(t, "after both synced", first.all, second.all)

			r = s.sync(t, "3 "+first.name+" again", first.all, tyksync.Options{})
			require.NoError(t, r.err)
			assert.Equal(t, ids(first.all), r.ids(plan.Unchanged))
			assert.Len(t, r.rep.Rows, len(first.all.APIs), "the other owner's APIs are not in the plan")

			d, err := tyksync.Check(context.Background(), first.all, s.target(t), plan.Scope{})
			require.NoError(t, err)
			assert.False(t, d.Drifted(), "the other owner's APIs are not drift: %s", d.Summary())
			assert.Len(t, d.OtherOwners, len(second.all.APIs))
			for _, o := range d.OtherOwners {
				assert.Equal(t, second.owner, o.Owner)
			}
			assert.Empty(t, d.NotRendered)

			// Each one's removed route deletes exactly its APIs.
			for i, tm := range []team{first, second} {
				r = s.sync(t, fmt.Sprintf("%d %s without %s", 4+i, tm.name, tm.removed), tm.less, tyksync.Options{})
				require.NoError(t, r.err)
				assert.Zero(t, r.rep.Failed, r.out)
				assert.Equal(t, tm.removedIDs, r.ids(plan.Delete))
			}
			s.requireServes(t, "after each removed a route", first.less, second.less)

			// The second renders a route of the first's (the same identity, so the same API ID): a conflict,
			// reported as failed, and the first's API stays as it was; nothing else changes.
			theirs := first.less.APIs[0]
			before := s.served(t)[theirs.ID]
			mine := theirs
			mine.Marker.Owner = second.owner
			clash := &source.Set{APIs: append(append([]plan.Desired(nil), second.less.APIs...), mine)}
			r = s.sync(t, "6 "+second.name+" renders "+theirs.Marker.Route+" too", clash, tyksync.Options{})
			require.NoError(t, r.err)
			assert.Equal(t, 1, r.rep.Failed)
			assert.Contains(t, r.out, "conflict")
			assert.Contains(t, r.log, "is owner "+first.owner+"'s (route "+theirs.Marker.Route+")")
			assert.Equal(t, before, s.served(t)[theirs.ID], "the other owner's API is untouched")
			s.requireServes(t, "after the conflict", first.less, second.less)
		})
	}

	t.Run("concurrently", func(t *testing.T) {
		s := newShared(t)
		both := func(name string, sa, sb *source.Set) (ra, rb ownerRun) {
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); ra = s.sync(t, name+": "+a.name, sa, tyksync.Options{}) }()
			go func() { defer wg.Done(); rb = s.sync(t, name+": "+b.name, sb, tyksync.Options{}) }()
			wg.Wait()
			return ra, rb
		}
		ra, rb := both("7 both sync at once", a.all, b.all)
		for _, r := range []ownerRun{ra, rb} {
			require.NoError(t, r.err)
			assert.Zero(t, r.rep.Failed, r.out+r.log)
			assert.Empty(t, r.ids(plan.Delete))
		}
		s.requireServes(t, "after both synced at once", a.all, b.all)
		ra, rb = both("8 both remove a route at once", a.less, b.less)
		for i, r := range []ownerRun{ra, rb} {
			require.NoError(t, r.err)
			assert.Zero(t, r.rep.Failed, r.out+r.log)
			assert.Equal(t, []team{a, b}[i].removedIDs, r.ids(plan.Delete))
		}
		s.requireServes(t, "after both removed a route at once", a.less, b.less)
	})
}

// TestTwoApplicationsShareATarget is twoApplications on the fake Dashboard (held to Tyk's published Dashboard
// API) and the fake open-source Gateway.
func TestTwoApplicationsShareATarget(t *testing.T) {
	for name, newTarget := range targets {
		t.Run(name, func(t *testing.T) {
			twoApplications(t, func(t *testing.T) shared {
				f := newTarget(t)
				f.Put("petstore", []byte(foreignDoc))
				return shared{
					target: func(t *testing.T) target.Target {
						tg, err := target.New(f.Settings(), target.Options{})
						require.NoError(t, err)
						return tg
					},
					served:  func(*testing.T) map[string][]byte { return f.APIs() },
					foreign: []string{"petstore"},
				}
			})
		})
	}
}
