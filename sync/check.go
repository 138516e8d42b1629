package sync

import (
	"context"
	"fmt"

	"github.com/gateway2tyk/gateway2tyk/fn/apidiff"
	"github.com/gateway2tyk/gateway2tyk/sync/plan"
	"github.com/gateway2tyk/gateway2tyk/sync/source"
	"github.com/gateway2tyk/gateway2tyk/sync/target"
)

// Check is `gateway2tyk sync --check`: it compares what the target serves with the rendered APIs and reports the
// drift API by API, in diff's terms (apidiff.Drift). It is read-only: it lists the target (GET requests only) and
// writes, uploads, deletes and reloads nothing. The comparison is the sync's own (plan.Make): an API the sync
// would create is missing, one it would update has changed on the target (its aspects, from the documents as the
// plan compares them), one it would delete is ours but no longer rendered, and one it would refuse to overwrite
// is held by an API gateway2tyk did not create. Certificates are not compared.
func Check(ctx context.Context, set *source.Set, tgt target.Target, scope plan.Scope) (*apidiff.Drift, error) {
	actual, err := tgt.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w (%s): %v", ErrListing, tgt.Describe(), err)
	}
	p, err := plan.Make(plan.Input{Desired: set.APIs, Actual: actual, Scope: scope})
	if err != nil {
		return nil, err
	}
	served := make(map[string][]byte, len(actual))
	for _, a := range actual {
		served[a.ID] = a.Document
	}
	markers := make(map[string]plan.Marker, len(set.APIs))
	for _, d := range set.APIs {
		markers[d.ID] = d.Marker
	}
	d := &apidiff.Drift{Target: tgt.Describe()}
	for _, it := range p.Items {
		m, rendered := markers[it.ID]
		if !rendered {
			m, _ = plan.ReadMarker(served[it.ID])
		}
		ref := apidiff.Ref{ID: it.ID, Route: m.Route, Gateway: m.Gateway, Hostname: m.Hostname, Path: m.Path}
		switch {
		case it.Action == plan.Unchanged:
			d.InSync++
		case it.Action == plan.Create:
			d.Missing = append(d.Missing, ref)
		case it.Action == plan.Delete:
			d.NotRendered = append(d.NotRendered, ref)
		case it.Blocked != "":
			d.Foreign = append(d.Foreign, ref)
		default:
			want, got, err := plan.Normalised(it.Body, served[it.ID])
			if err != nil {
				return nil, fmt.Errorf("API %s: %v", it.ID, err)
			}
			if err := d.AddChanged(ref, string(want), string(got)); err != nil {
				return nil, fmt.Errorf("API %s on %s: %v", it.ID, tgt.Describe(), err)
			}
		}
	}
	d.Sort()
	return d, nil
}
