package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/gateway2tyk/gateway2tyk/sync/kube"
	"github.com/gateway2tyk/gateway2tyk/sync/plan"
	"github.com/gateway2tyk/gateway2tyk/sync/status"
)

// statusNow is the status writer's clock (a seam for the tests).
var statusNow = time.Now

// statusNotWritten says why a failed push writes no status.
const statusNotWritten = "gateway2tyk sync: --write-status: no status was written: the push to Tyk failed, and the " +
	"status would say Programmed of APIs that Tyk may not serve (the next successful run writes it)"

func statusFlags(fl *pflag.FlagSet, f *syncFlags) {
	fl.BoolVar(&f.writeStatus, "write-status", false, "after a successful push, write the render's would-be status "+
		"(annotation gateway2tyk.io/status) of each GatewayClass, Gateway and HTTPRoute to its status subresource "+
		"in the cluster of the kubeconfig (server-side apply, field manager gateway2tyk): with --from, of the "+
		"objects of the stream, taken from the stream; else of those of --status-object, or of every one of the "+
		"--namespace scope that carries the annotation, taken from the live object")
	fl.StringArrayVar(&f.statusObjects, "status-object", nil, "with --write-status and no --from: write the status "+
		"of this object only (repeatable): GatewayClass/NAME, Gateway/NAMESPACE/NAME or HTTPRoute/NAMESPACE/NAME")
}

func checkStatusFlags(f syncFlags) error {
	switch {
	case f.writeStatus && f.check:
		return usage("sync: --write-status and --check cannot be combined (--check changes nothing)")
	case len(f.statusObjects) > 0 && !f.writeStatus:
		return usage("sync: --status-object names the objects of --write-status: give --write-status")
	case len(f.statusObjects) > 0 && f.from != "":
		return usage("sync: --status-object is for a cluster's objects (no --from); with --from the stream's objects are written")
	}
	for _, s := range f.statusObjects {
		if _, err := status.ParseObject(s); err != nil {
			return usage("sync: --status-object %v", err)
		}
	}
	return nil
}

// writeStatus writes the statuses when --write-status asks for it and the push succeeded (pushed); a dry run
// writes nothing. It returns a reportedError when a status was not written, after the report.
func writeStatus(ctx context.Context, cmd *cobra.Command, f syncFlags, cluster *kube.Cluster, stream []byte,
	scope plan.Scope, pushed bool) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	switch {
	case !f.writeStatus:
		return nil
	case f.dryRun:
		fmt.Fprintln(stdout, "status: not written (dry run)")
		return nil
	case !pushed:
		fmt.Fprintln(stderr, statusNotWritten)
		return nil
	}
	var objects []status.Object
	switch {
	case f.from != "":
		nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(stream), OmitReaderAnnotations: true}).Read()
		if err != nil {
			return failed(stderr, "sync: --write-status: reading --from %s: %v", f.from, err)
		}
		objects = status.FromStream(nodes, scope.Contains)
	case len(f.statusObjects) > 0:
		for _, s := range f.statusObjects {
			o, _ := status.ParseObject(s) // checked by checkStatusFlags
			objects = append(objects, o)
		}
	default:
		var err error
		if objects, err = status.Discover(ctx, cluster, f.namespaces); err != nil {
			return failed(stderr, "sync: --write-status: %v; no status was written", err)
		}
	}
	rep := (&status.Writer{Client: cluster, Now: statusNow}).Write(ctx, objects)
	rep.Print(stdout, stderr)
	if n := rep.Failed(); n > 0 {
		return &reportedError{errors.New("sync: --write-status: some statuses were not written")}
	}
	return nil
}
