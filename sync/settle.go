package sync

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gateway2tyk/gateway2tyk/sync/plan"
)

// settle waits until the Gateway serves what the run gave it, and returns the reload's outcome. The Gateway
// lists what it has loaded, and its reload is asynchronous: a run that ended at the reload would leave the next
// run (an Argo CD sync right after this one) a listing without the APIs just created, and that run would create
// them again. So the run lists the Gateway until every API it created or updated is listed as sent, every API
// it deleted is gone and every unchanged one is still there, polling with a growing pause, for at most
// o.Settle. Actions that failed are not waited for: their outcome is unknown, and already reported.
func settle(ctx context.Context, o Options, rep *Report) string {
	start := time.Now()
	deadline := start.Add(o.Settle)
	pause := 50 * time.Millisecond
	var pending []string
	for {
		actual, err := o.Target.List(ctx)
		if err == nil {
			pending = notServed(rep, actual)
			if len(pending) == 0 {
				return fmt.Sprintf("ok (the Gateway serves the new set after %s)", time.Since(start).Round(10*time.Millisecond))
			}
		} else {
			pending = []string{"listing: " + err.Error()}
		}
		if ctx.Err() != nil || time.Now().Add(pause).After(deadline) {
			break
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		pause = min(2*pause, time.Second)
	}
	return fmt.Sprintf("failed: the Gateway does not serve what it was given %s after the reload, and the run "+
		"stopped waiting: %s", o.Settle, strings.Join(pending, "; "))
}

// notServed lists what the listing does not show yet of what the run did.
func notServed(rep *Report, actual []plan.Actual) []string {
	listed := make(map[string][]byte, len(actual))
	for _, a := range actual {
		listed[a.ID] = a.Document
	}
	var out []string
	for i, it := range rep.Plan.Items {
		if rep.Rows[i].Failed {
			continue
		}
		doc, ok := listed[it.ID]
		switch it.Action {
		case plan.Create, plan.Update:
			if !ok {
				out = append(out, it.ID+" not loaded")
			} else if !plan.Equal(it.Body, doc) {
				out = append(out, it.ID+" loaded, but not as sent")
			}
		case plan.Unchanged:
			if !ok {
				out = append(out, it.ID+" no longer loaded")
			}
		case plan.Delete:
			if ok {
				out = append(out, it.ID+" still loaded")
			}
		}
	}
	sort.Strings(out)
	return out
}
