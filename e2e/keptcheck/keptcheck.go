// Package keptcheck holds the render to what a real Tyk Gateway keeps: it syncs a render's APIs to a real Gateway
// the way `gateway2tyk sync` does (sync.Run against the Gateway's API), reads every API back, and checks that the
// Gateway lists each document as it was sent (less the `servers` it regenerates and the `components: {}` it adds:
// sync/plan's comparison), and that a second sync is a no-op: every API unchanged, nothing written, no reload.
//
// A difference is reported by the paths of the fields that differ, so that a new normalisation of Tyk's is named
// at once; the render then writes it the way Tyk keeps it (tykroute.Normalisations).
package keptcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
	tyksync "github.com/gateway2tyk/gateway2tyk/sync"
	"github.com/gateway2tyk/gateway2tyk/sync/plan"
	"github.com/gateway2tyk/gateway2tyk/sync/source"
	"github.com/gateway2tyk/gateway2tyk/sync/target"
)

// Tally counts the APIs sent, those the Gateway listed as sent, those it listed with only differences tykroute
// knows for its release (Known: only on releases older than tykroute.MinVersion), and the syncs run.
type Tally struct{ Sent, Kept, Known, Syncs int }

// Add adds another tally.
func (t *Tally) Add(o Tally) {
	t.Sent, t.Kept, t.Known, t.Syncs = t.Sent+o.Sent, t.Kept+o.Kept, t.Known+o.Known, t.Syncs+o.Syncs
}

// Check syncs the rendered APIs among items (the render's output) to g, then checks what g lists and syncs again.
// The APIs of the previous Check on g that items do not have are deleted by the first sync (they carry the
// ownership marker), so a test can check one render after another on one Gateway. It fails t on any difference,
// except, on a release older than tykroute.MinVersion (which refuses the rendered APIs as they are), the
// differences a tykroute.Normalisation of that release names: the APIs with such a difference are not listed as
// sent, so the first sync's wait for them runs out and the second sync updates them again, and both are expected.
func Check(t *testing.T, g *realtyk.Gateway, items []*yaml.RNode) Tally {
	t.Helper()
	var buf bytes.Buffer
	if err := (kio.ByteWriter{Writer: &buf}).Write(items); err != nil {
		t.Fatalf("writing the render's output: %v", err)
	}
	set, err := source.ReadStream(&buf, plan.Scope{})
	if err != nil {
		t.Fatalf("reading the rendered APIs: %v", err)
	}
	version, err := tykroute.ParseVersion(g.Version)
	if err != nil {
		t.Fatalf("the Gateway's version (/hello, or TYK_GATEWAY_VERSION): %v", err)
	}
	ForVersion(t, set, version)
	// Each Gateway of the render has Tyk Gateways of its own: two of them may well have APIs with the same
	// host and listen path, which one Tyk Gateway would not keep as sent (it renames the later one's listen
	// path). So the APIs are synced Gateway by Gateway, as explaincheck loads them.
	byGateway := map[string][]plan.Desired{}
	var gateways []string
	for _, a := range set.APIs {
		if _, ok := byGateway[a.Marker.Gateway]; !ok {
			gateways = append(gateways, a.Marker.Gateway)
		}
		byGateway[a.Marker.Gateway] = append(byGateway[a.Marker.Gateway], a)
	}
	sort.Strings(gateways)
	var tally Tally
	for _, gw := range gateways {
		tally.Add(checkSet(t, g, version, &source.Set{APIs: byGateway[gw], TLS: set.TLS}))
	}
	return tally
}

// checkSet is Check for the APIs of one Gateway.
func checkSet(t *testing.T, g *realtyk.Gateway, version tykroute.Version, set *source.Set) Tally {
	t.Helper()
	older := version.Less(tykroute.MinVersion)
	rec := &recorder{next: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	tgt, err := target.New(target.Settings{Mode: target.ModeCE, URL: g.URL, Auth: g.Secret},
		target.Options{HTTPClient: &http.Client{Transport: rec}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	settle := 20 * time.Second
	if older {
		settle = 5 * time.Second // the APIs with known differences are waited for in vain
	}
	known := map[string]bool{}
	run := func() *tyksync.Report {
		var out, errs bytes.Buffer
		// One render replaces the one before on the Gateway: deleting every API of the owner is meant.
		rep, err := tyksync.Run(ctx, tyksync.Options{Set: set, Target: tgt, TykVersion: g.Version,
			Settle: settle, AllowDeleteAll: true, Out: &out, Err: &errs})
		if err != nil {
			t.Fatalf("sync: %v\n%s", err, errs.String())
		}
		return rep
	}
	// judge fails t on the actions that failed, and on a wait that ran out for anything but the APIs with
	// known differences. Certificates are not this check's concern: the Gateway stores an API whose
	// certificate it lacks.
	judge := func(rep *tyksync.Report) {
		for _, r := range rep.Rows {
			if r.Failed {
				t.Errorf("sync: %s %s (route %s): %s", r.Action, r.ID, r.Route, r.Outcome)
			}
		}
		if pending, failed := strings.CutPrefix(rep.Reload, "failed: "); failed && !onlyKnown(pending, known) {
			t.Errorf("sync: reload: %s", pending)
		}
	}
	tally := Tally{Sent: len(set.APIs)}
	// Which APIs have known differences is learnt from the listing after the first sync, so the first sync is
	// judged after that.
	first := run()
	tally.Syncs++
	listed, err := tgt.List(ctx)
	if err != nil {
		t.Fatalf("listing the Gateway's APIs: %v", err)
	}
	byID := map[string][]byte{}
	for _, a := range listed {
		byID[a.ID] = a.Document
	}
	for _, d := range set.APIs {
		body, err := plan.Stamp(d.Document, d.Marker)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := byID[d.ID]
		if !ok {
			t.Errorf("API %s (route %s): the Gateway (%s) does not list it after the sync", d.ID, d.Marker.Route, g.Version)
			continue
		}
		if plan.Equal(body, got) {
			tally.Kept++
			continue
		}
		all := differences(body, got)
		var unknown []string
		for _, diff := range all {
			if !older || !knownAt(version, diff.path) {
				unknown = append(unknown, diff.text)
			}
		}
		if len(unknown) > 0 {
			t.Errorf("API %s (route %s): the Gateway (%s) lists it not as sent: %s", d.ID, d.Marker.Route, g.Version,
				strings.Join(shorten(unknown), "; "))
			continue
		}
		known[d.ID] = true
		tally.Known++
	}
	judge(first)
	rec.take()
	second := run()
	judge(second)
	tally.Syncs++
	var again []string
	for _, it := range second.Plan.Items {
		if it.Action != plan.Unchanged && !known[it.ID] {
			again = append(again, string(it.Action)+" "+it.ID)
		}
	}
	if len(again) > 0 || second.Plan.Count(plan.Unchanged) != len(set.APIs)-len(known) {
		t.Errorf("the second sync is not a no-op: %d of %d APIs unchanged (%d with differences Tyk %s is known for), %s",
			second.Plan.Count(plan.Unchanged), len(set.APIs), len(known), version, strings.Join(again, ", "))
	}
	if len(known) == 0 {
		for _, c := range rec.take() {
			if !strings.HasPrefix(c, "GET ") || strings.HasPrefix(c, "GET /tyk/reload") {
				t.Errorf("the second sync wrote to the Gateway: %s", c)
			}
		}
	}
	return tally
}

// knownAt reports whether a tykroute.Normalisation of release v names the field path.
func knownAt(v tykroute.Version, path string) bool {
	for _, n := range tykroute.Normalisations {
		if n.AppliesTo(v) && n.Covers(path) {
			return true
		}
	}
	return false
}

// onlyKnown reports whether a failed wait's pending list ("ID loaded, but not as sent; ...") names only APIs
// with known differences.
func onlyKnown(pending string, known map[string]bool) bool {
	_, list, _ := strings.Cut(pending, "stopped waiting: ")
	for _, p := range strings.Split(list, "; ") {
		id, ok := strings.CutSuffix(p, " loaded, but not as sent")
		if !ok || !known[id] {
			return false
		}
	}
	return list != ""
}

// ForVersion takes out of every document the fields release v refuses (tykroute.NewerFields: the 5.4 line, which
// CI builds, refuses those of 5.8, and every release before 5.14 an operation's enforceTimeout.duration). Nothing
// else is changed, and a document that sets none of them is sent as rendered.
func ForVersion(t *testing.T, set *source.Set, v tykroute.Version) {
	t.Helper()
	for i, a := range set.APIs {
		var doc map[string]any
		if err := json.Unmarshal(a.Document, &doc); err != nil {
			t.Fatalf("API %s: %v", a.ID, err)
		}
		tyk, ok := doc["x-tyk-api-gateway"].(map[string]any)
		if !ok || !refuses(tyk, v) {
			continue
		}
		tykroute.RemoveNewer(tyk, v)
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		set.APIs[i].Document = b
	}
}

// refuses reports whether release v refuses a field tyk sets.
func refuses(tyk map[string]any, v tykroute.Version) bool {
	for _, f := range tykroute.NewerFields {
		if v.Less(f.Need) && f.SetIn(tyk) {
			return true
		}
	}
	return false
}

// Differences lists the paths where the document sent and the one listed differ, after sync/plan's
// normalisation, each with both values (at most a few).
func Differences(sent, listed []byte) []string {
	var out []string
	for _, d := range differences(sent, listed) {
		out = append(out, d.text)
	}
	return shorten(out)
}

// difference is one field that differs: its path and how.
type difference struct{ path, text string }

func differences(sent, listed []byte) []difference {
	s, l, err := plan.Normalised(sent, listed)
	if err != nil {
		return []difference{{text: err.Error()}}
	}
	var a, b any
	_ = json.Unmarshal(s, &a)
	_ = json.Unmarshal(l, &b)
	var out []difference
	walk("", a, b, &out)
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

func shorten(out []string) []string {
	if len(out) > 8 {
		out = append(out[:8:8], fmt.Sprintf("and %d more", len(out)-8))
	}
	return out
}

func walk(path string, a, b any, out *[]difference) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		for k := range keys {
			walk(path+"."+k, am[k], bm[k], out)
		}
		return
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok && len(as) == len(bs) {
		for i := range as {
			walk(fmt.Sprintf("%s[%d]", path, i), as[i], bs[i], out)
		}
		return
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		p := strings.TrimPrefix(path, ".")
		*out = append(*out, difference{path: p, text: fmt.Sprintf("%s: sent %s, listed %s", p, short(ja), short(jb))})
	}
}

func short(b []byte) string {
	if len(b) == 0 || string(b) == "null" {
		return "(absent)"
	}
	if len(b) > 160 {
		return string(b[:160]) + "…"
	}
	return string(b)
}

// recorder sees every request the sync sends.
type recorder struct {
	mu    sync.Mutex
	calls []string
	next  http.RoundTripper
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.calls = append(r.calls, req.Method+" "+req.URL.Path)
	r.mu.Unlock()
	return r.next.RoundTrip(req)
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.calls
	r.calls = nil
	return c
}
