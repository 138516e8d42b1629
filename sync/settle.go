package tyksync

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gateway2tyk/gateway2tyk/sync/plan"
)

// reloadAgainAt are the points of the wait, as shares of o.Settle, at which the run asks for the reload again
// when the Gateway still shows none of the run's changes (5 s, 10 s and 15 s into the default 30 s wait; a
// reload the 5.4 line makes shows after 0.35 s to 1.6 s, its reload loop ticking every second): a
// Gateway that has just started can accept a group reload and never make it (its pub/sub subscription is not up
// yet; seen on the 5.4 line, docs/tyk-releases.md), and asking again is harmless, since a reload only loads
// the files the Gateway has. Three more requests at most.
var reloadAgainAt = []float64{1.0 / 6, 1.0 / 3, 1.0 / 2}

// settle waits until the Gateway serves what the run gave it, and returns the reload's outcome. The Gateway
// lists what it has loaded, and its reload is asynchronous: a run that ended at the reload would leave the next
// run (an Argo CD sync right after this one) a listing without the APIs just created, and that run would create
// them again. So the run lists the Gateway until every API it created or updated is listed as sent, every API
// it deleted is gone and every unchanged one is still there, polling with a growing pause, for at most
// o.Settle; while the listing shows none of its changes, it asks for the reload again (reloadAgainAt). Actions
// that failed are not waited for: their outcome is unknown, and already reported.
func settle(ctx context.Context, o Options, rep *Report) string {
	start := time.Now()
	deadline := start.Add(o.Settle)
	pause := 50 * time.Millisecond
	requests, again := 1, 0
	var pending, notes []string
	for {
		actual, err := o.Target.List(ctx)
		shown := -1
		if err == nil {
			pending, shown = notServed(rep, actual)
			if len(pending) == 0 {
				return fmt.Sprintf("ok (the Gateway serves the new set after %s)%s",
					time.Since(start).Round(10*time.Millisecond), asked(requests, notes))
			}
		} else {
			pending = []string{"listing: " + err.Error()}
		}
		if shown == 0 && again < len(reloadAgainAt) &&
			time.Since(start) >= time.Duration(reloadAgainAt[again]*float64(o.Settle)) {
			again++
			// The reload shows nothing yet: it may have been lost.
			if err := o.Target.Reload(ctx); err != nil {
				notes = append(notes, "asking again failed: "+err.Error())
			} else {
				requests++
			}
			continue
		}
		if ctx.Err() != nil || !time.Now().Before(deadline) {
			break
		}
		next := min(pause, time.Until(deadline))
		if again < len(reloadAgainAt) {
			next = min(next, max(time.Until(start.Add(time.Duration(reloadAgainAt[again]*float64(o.Settle)))), time.Millisecond))
		}
		t := time.NewTimer(next)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		pause = min(2*pause, time.Second)
	}
	return fmt.Sprintf("failed: the Gateway does not serve what it was given %s after the reload%s, and the run "+
		"stopped waiting: %s", o.Settle, asked(requests, notes), strings.Join(pending, "; "))
}

// asked says how often the reload was asked for, when more than once.
func asked(requests int, notes []string) string {
	var parts []string
	if requests > 1 {
		parts = append(parts, fmt.Sprintf("the reload was asked for %d times, the Gateway showing none of the changes until then", requests))
	}
	parts = append(parts, notes...)
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// notServed lists what the listing does not show yet of what the run did, and how many of the run's changes
// it shows at all: an API created that is listed, one updated that is listed otherwise than before the run, one
// deleted that is gone (an API that Tyk lists otherwise than it was sent, as some releases do, counts as shown).
func notServed(rep *Report, actual []plan.Actual) (pending []string, shown int) {
	listed := make(map[string][]byte, len(actual))
	for _, a := range actual {
		listed[a.ID] = a.Document
	}
	for i, it := range rep.Plan.Items {
		if rep.Rows[i].Failed {
			continue
		}
		doc, ok := listed[it.ID]
		before, was := rep.before[it.ID]
		switch it.Action {
		case plan.Create, plan.Update:
			if !ok {
				pending = append(pending, it.ID+" not loaded")
			} else if !plan.Equal(it.Body, doc) {
				pending = append(pending, it.ID+" loaded, but not as sent")
			}
			if ok && (!was || !bytes.Equal(before, doc)) {
				shown++
			}
		case plan.Unchanged:
			if !ok {
				pending = append(pending, it.ID+" no longer loaded")
			}
		case plan.Delete:
			if ok {
				pending = append(pending, it.ID+" still loaded")
			} else {
				shown++
			}
		}
	}
	sort.Strings(pending)
	return pending, shown
}
