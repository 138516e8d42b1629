package tyksync

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
// is held by an API gateway2tyk did not create, and one it would not write because another owner has it is a
// conflict. The APIs of other owners (and those made before owners) that the input does not render are listed as
// such: they are not drift, since this input's sync never touches them. Certificates are not compared.
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
	d := &apidiff.Drift{Target: tgt.Describe(), Owners: p.Owners}
	refOf := func(id string, m plan.Marker) apidiff.Ref {
		return apidiff.Ref{ID: id, Route: m.Route, Gateway: m.Gateway, Hostname: m.Hostname, Path: m.Path, Owner: m.Owner}
	}
	for _, o := range p.Others {
		m, _ := plan.ReadMarker(served[o.ID])
		d.OtherOwners = append(d.OtherOwners, refOf(o.ID, m))
	}
	for _, it := range p.Items {
		m, rendered := markers[it.ID]
		if !rendered {
			m, _ = plan.ReadMarker(served[it.ID])
		}
		ref := refOf(it.ID, m)
		switch {
		case it.Action == plan.Unchanged:
			d.InSync++
		case it.Action == plan.Create:
			d.Missing = append(d.Missing, ref)
		case it.Action == plan.Delete:
			d.NotRendered = append(d.NotRendered, ref)
		case it.Action == plan.Conflict:
			theirs, _ := plan.ReadMarker(served[it.ID])
			ref.Owner = theirs.Owner
			d.Conflicts = append(d.Conflicts, ref)
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
