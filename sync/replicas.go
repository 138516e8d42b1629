package tyksync

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gateway2tyk/gateway2tyk/sync/target"
)

// Replica is one Gateway of a data plane that the sync writes to itself: an open-source Gateway keeps what it is
// given to itself (its API files), so that behind a Service each replica must be given the APIs (seen with two
// real Gateways sharing one Redis: the one not written to listed none and answered 404).
type Replica struct {
	// Name says which replica it is: its URL, and the endpoint it came from.
	Name   string
	Target target.Target
}

// ReplicaResult is what a run did on one replica: its report, or why no plan was made there.
type ReplicaResult struct {
	Replica Replica
	Report  *Report
	Err     error
}

// Failed says whether the run failed on the replica.
func (r ReplicaResult) Failed() bool { return r.Err != nil || r.Report.Failed > 0 }

// RunReplicas runs the sync on each replica in turn, each with a plan of its own (each replica lists what it has
// loaded, and a replica that started after the last run has nothing), and reloads and checks each (the targets
// reload their own Gateway alone: target.Settings.NodeReload). It writes each replica's table under a line
// naming the replica, then one line for all. A replica that cannot be reached, or whose run stops before a
// plan, is a failed replica; the others are still synced. The error is ErrDeletesAll when a replica's plan
// would delete every API it manages there (nothing is changed on it, nor on the replicas after it).
func RunReplicas(ctx context.Context, o Options, replicas []Replica) ([]ReplicaResult, error) {
	results := make([]ReplicaResult, 0, len(replicas))
	for i, r := range replicas {
		fmt.Fprintf(o.Out, "replica %d of %d: %s\n", i+1, len(replicas), r.Name)
		ro := o
		ro.Target = r.Target
		rep, err := Run(ctx, ro)
		if errors.Is(err, ErrDeletesAll) {
			return results, fmt.Errorf("replica %s: %w", r.Name, err)
		}
		if err != nil {
			fmt.Fprintf(o.Out, "failed: %v\n", err)
			fmt.Fprintf(o.Err, "gateway2tyk sync: replica %s: %v\n", r.Name, err)
		}
		fmt.Fprintln(o.Out)
		results = append(results, ReplicaResult{Replica: r, Report: rep, Err: err})
	}
	var failed []string
	for _, r := range results {
		if r.Failed() {
			why := ""
			if r.Err != nil {
				why = ": not synced"
			} else {
				why = fmt.Sprintf(": %d action(s) failed", r.Report.Failed)
			}
			failed = append(failed, r.Replica.Name+why)
		}
	}
	line := fmt.Sprintf("replicas: %d of %d in sync", len(results)-len(failed), len(results))
	if len(failed) > 0 {
		line += "; failed: " + strings.Join(failed, ", ")
	}
	fmt.Fprintln(o.Out, line)
	return results, nil
}
