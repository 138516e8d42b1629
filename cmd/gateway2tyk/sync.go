package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gateway2tyk/gateway2tyk/fn/apidiff"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/tykapi"
	tyksync "github.com/gateway2tyk/gateway2tyk/sync"
	"github.com/gateway2tyk/gateway2tyk/sync/kube"
	"github.com/gateway2tyk/gateway2tyk/sync/plan"
	"github.com/gateway2tyk/gateway2tyk/sync/source"
	"github.com/gateway2tyk/gateway2tyk/sync/target"
)

// Seams for the tests: the cluster connection, the target clients' options and the environment.
var (
	connectCluster = kube.Connect
	targetOptions  = target.Options{}
	getenv         = os.Getenv
)

type syncFlags struct {
	from, kubeconfig, context, owner string
	namespaces, urls                 []string
	dryRun, check, allowEmpty        bool
	output                           string
	target                           tyksync.Flags
	tykVersion                       string
	wait                             time.Duration
	writeStatus                      bool
	statusObjects                    []string
}

func newSyncCommand() *cobra.Command {
	var f syncFlags
	cmd := &cobra.Command{
		Use: "sync [--from FILE|-] [--owner OWNER] [--mode pro|ce] [--url URL] [--auth KEY] [--org ORG] [--operator-context NS/NAME] [--dry-run] [--tyk-version V] [--wait D]\n" +
			"  sync --check [-o text|markdown|json] [--from FILE|-] [--mode pro|ce] [--url URL] [--auth KEY] [--operator-context NS/NAME]",
		Short: "Push the rendered APIs to Tyk Dashboard or the open-source Tyk Gateway, and prune the ones gone",
		Long: "sync reads the rendered APIs (--from FILE or - for stdin: the render's output as a YAML stream or a\n" +
			"ResourceList; without --from, the ConfigMaps labelled app.kubernetes.io/managed-by=gateway2tyk in the\n" +
			"cluster), lists the target's APIs, and creates what is missing, updates what changed, uploads the listener\n" +
			"certificates and deletes the APIs it created that are no longer rendered. Many applications can share one\n" +
			"Tyk: every rendered API has an owner (its application, the label gateway2tyk.io/owner), and sync creates,\n" +
			"updates and deletes only the APIs of its input's owners (with --owner, of that one owner): another owner's\n" +
			"API is never touched, and one the input renders too is a conflict (reported, exit 1). A plan that would\n" +
			"delete every API an owner has on the target is refused (exit 2) unless --allow-empty. It prints one row per API and\n" +
			"exits non-zero when any action failed. The target comes from the flags, else TYK_MODE, TYK_URL, TYK_AUTH,\n" +
			"TYK_ORG, else the OperatorContext of --operator-context (read from the cluster, with its Secret).\n\n" +
			"sync --check changes nothing: it compares what the target serves with the rendered APIs and reports, per\n" +
			"API in diff's terms, the APIs changed on the target behind sync's back (what changed), those missing, and\n" +
			"those it created that are no longer rendered; the APIs of other owners are listed as such, not as drift. It only\n" +
			"reads the target (no write, no reload): exit status 1 on drift.",
		Args:          cobra.NoArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runSync(ctx, cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.from, "from", "", "read the rendered objects from FILE, or - for stdin, instead of the cluster")
	fl.StringVar(&f.target.Mode, "mode", "", "the target: pro (Tyk Dashboard) or ce (open-source Tyk Gateway)")
	fl.StringArrayVar(&f.urls, "url", nil, "the Dashboard's or the Gateway's URL; in ce mode, repeat it to sync "+
		"several Gateways (replicas) each in turn")
	fl.StringVar(&f.target.Auth, "auth", "", "the Dashboard API key or the Gateway secret (prefer TYK_AUTH: flags show in process lists)")
	fl.StringVar(&f.target.Org, "org", "", "the Tyk organisation ID")
	// --operator-context, not --context: beside --kubeconfig, a kubectl user reads --context as a kubeconfig
	// context. --context is still read, and says it is deprecated.
	fl.StringVar(&f.context, "operator-context", "", "the OperatorContext NAMESPACE/NAME whose settings (env, or its Secret) to use")
	fl.StringVar(&f.context, "context", "", "the OperatorContext NAMESPACE/NAME (deprecated: --operator-context)")
	_ = fl.MarkDeprecated("context", "use --operator-context (the same OperatorContext NAMESPACE/NAME; it is no kubeconfig context)")
	fl.StringVar(&f.owner, "owner", "", "sync only the APIs of this owner (the label gateway2tyk.io/owner of the rendered "+
		"ConfigMaps): read only its ConfigMaps, and create, update and delete only its APIs, even when the input holds none")
	fl.StringSliceVarP(&f.namespaces, "namespace", "n", nil,
		"sync only the APIs of routes in these namespaces (repeatable); deletes are limited to them too")
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "the kubeconfig file (default: in-cluster config, KUBECONFIG or ~/.kube/config)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the plan and change nothing")
	fl.BoolVar(&f.allowEmpty, "allow-empty", false, "sync even an input that holds no rendered API, or a plan that "+
		"deletes every API an owner has on the target, even while it creates others (without it, both are refused, exit status 2)")
	fl.BoolVar(&f.check, "check", false,
		"report the drift between what the target serves and the rendered APIs, changing nothing (exit 1 on drift)")
	fl.StringVarP(&f.output, "output", "o", "", "with --check: text (the default), markdown or json")
	fl.StringVar(&f.tykVersion, "tyk-version", "",
		"the target's Tyk release (e.g. 5.8.1), checked before any write instead of what the Gateway's /hello says "+
			"(the Dashboard's API does not say it)")
	fl.DurationVar(&f.wait, "wait", tyksync.DefaultSettle,
		"after a Gateway reload, how long to wait until the Gateway serves what it was given")
	statusFlags(fl, &f)
	return cmd
}

func runSync(ctx context.Context, cmd *cobra.Command, f syncFlags) error {
	stderr := cmd.ErrOrStderr()
	var ctxNS, ctxName string
	if f.context != "" {
		var ok bool
		ctxNS, ctxName, ok = strings.Cut(f.context, "/")
		if !ok || len(validation.IsDNS1123Label(ctxNS)) > 0 || len(validation.IsDNS1123Subdomain(ctxName)) > 0 {
			return usage("sync: --operator-context must be NAMESPACE/NAME of an OperatorContext (got %q)", f.context)
		}
	}
	for _, ns := range f.namespaces {
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return usage("sync: --namespace %q: %s", ns, strings.Join(errs, "; "))
		}
	}
	if f.owner != "" {
		if msg := config.OwnerError(f.owner); msg != "" {
			return usage("sync: --owner %q: %s", f.owner, msg)
		}
	}
	if f.check && f.dryRun {
		return usage("sync: --check and --dry-run cannot be combined (--check changes nothing by itself)")
	}
	if f.output != "" && !f.check {
		return usage("sync: -o is for --check's report (got -o %q without --check)", f.output)
	}
	switch f.output {
	case "", "text", "markdown", "json":
	default:
		return usage("sync: -o must be text, markdown or json (got %q)", f.output)
	}
	if err := checkStatusFlags(f); err != nil {
		return err
	}
	scope := plan.Scope{Namespaces: f.namespaces, Owner: f.owner}

	var cluster *kube.Cluster
	needCluster := f.from == "" || f.context != "" || f.writeStatus
	if needCluster {
		var err error
		// Where the cluster is, is a setting: without one, the command cannot run as asked (exit status 2).
		if cluster, err = connectCluster(f.kubeconfig); errors.Is(err, kube.ErrNoCluster) && f.from == "" {
			return usage("sync: %v: give the rendered objects with --from FILE (or - for stdin), or a kubeconfig", err)
		} else if err != nil && f.writeStatus && f.context == "" {
			return usage("sync: --write-status needs the cluster that holds the objects: %v", err)
		} else if err != nil {
			return usage("sync: %v", err)
		}
	}

	if len(f.urls) > 0 {
		f.target.URL = f.urls[0]
	}
	var fromContext map[string]string
	var oc *tykapi.OperatorContext
	if f.context != "" {
		var err error
		oc, err = cluster.OperatorContext(ctx, ctxNS, ctxName)
		if err != nil {
			return failed(stderr, "sync: --operator-context: %v", err)
		}
		if oc.Spec.Env == nil && oc.Spec.SecretRef == nil {
			return usage("sync: --operator-context: OperatorContext %s sets neither env nor secretRef", f.context)
		}
		values := tyksync.ContextValues(oc, nil)
		if ref := oc.Spec.SecretRef; ref != nil {
			ns := ref.Namespace
			if ns == "" {
				ns = ctxNS
			}
			secret, err := cluster.Secret(ctx, ns, ref.Name)
			if err != nil {
				return failed(stderr, "sync: --operator-context: OperatorContext %s, spec.secretRef: %v", f.context, err)
			}
			values = tyksync.ContextValues(oc, secret)
		}
		fromContext = values
	}

	settings, err := tyksync.Resolve(f.target, getenv, fromContext)
	if err != nil {
		return usage("sync: %v", err)
	}
	tgt, err := target.New(settings, targetOptions)
	if err != nil {
		return usage("sync: %v", err)
	}
	for _, u := range f.urls[min(1, len(f.urls)):] {
		s := settings
		s.URL = u
		if _, err := target.New(s, targetOptions); err != nil {
			return usage("sync: --url %s: %v", u, err)
		}
	}
	if len(f.urls) > 1 && settings.Mode != target.ModeCE {
		return usage("sync: several --url are for open-source Gateways (mode ce); the Dashboard (mode pro) pushes to its Gateways itself")
	}
	if len(f.urls) > 1 && f.check {
		return usage("sync: --check compares one target: give one --url")
	}

	var set *source.Set
	var stream []byte // the --from input, kept for the status writer
	switch f.from {
	case "":
		set, err = source.ReadCluster(ctx, cluster, scope)
		if err != nil {
			return failed(stderr, "sync: %v", err)
		}
	default:
		var r io.Reader = cmd.InOrStdin()
		if f.from != "-" {
			file, err := os.Open(f.from)
			if err != nil {
				return usage("sync: --from: %v", err)
			}
			defer file.Close()
			if info, err := file.Stat(); err == nil && info.IsDir() {
				return usage("sync: --from %s is a directory: give the render's output (gateway2tyk render %s > apis.yaml, "+
					"then --from apis.yaml), or - for stdin", f.from, f.from)
			}
			r = file
		}
		if f.writeStatus {
			if stream, err = io.ReadAll(r); err != nil {
				return failed(stderr, "sync: reading --from %s: %v", f.from, err)
			}
			r = bytes.NewReader(stream)
		}
		// What cannot be read as the render's output (or is a failed render's) is bad input: nothing was asked
		// of Tyk yet.
		if set, err = source.ReadStream(r, scope); err != nil {
			return usage("sync: --from %s: %v; nothing was changed", fileName(f.from), err)
		}
	}

	if f.check {
		return runCheck(ctx, cmd, f, set, tgt, scope)
	}
	replicas, err := syncReplicas(ctx, cmd, f, cluster, oc, ctxNS, settings)
	if err != nil {
		return err
	}
	// A failed render prints nothing, and a pipeline without pipefail hands sync the empty stream: pruning to it
	// would delete every API. Nothing has been asked of Tyk yet.
	if len(set.APIs) == 0 && len(set.Problems) == 0 && !f.allowEmpty {
		from := "the cluster's rendered ConfigMaps"
		if f.from != "" {
			from = "--from " + f.from
		}
		what := "--allow-empty --owner OWNER syncs it, deleting every API of that owner"
		switch {
		case f.owner == config.FallbackOwner:
			// Every application rendered where its place in a repository cannot be seen has this owner: deleting
			// all of its APIs may delete another application's.
			from += " of owner " + f.owner
			what = "owner " + f.owner + " is the fallback of every application rendered outside a git repository, by " +
				"kpt or from stdin, so its APIs may be another application's: give each application its own owner " +
				"(spec.owner in its RenderConfig, or sync --owner) before deleting anything"
		case f.owner != "":
			from += " of owner " + f.owner
			what = "--allow-empty syncs it, deleting every API of owner " + f.owner
		}
		return usage("sync: %s holds no rendered API (an empty stream, a failed render, or objects that are not "+
			"gateway2tyk's output): nothing was changed; %s on the target", from, what)
	}
	opts := tyksync.Options{
		Set: set, Target: tgt, Scope: scope, DryRun: f.dryRun, Org: settings.Org, TykVersion: f.tykVersion, Settle: f.wait,
		AllowDeleteAll: f.allowEmpty, Out: cmd.OutOrStdout(), Err: stderr,
	}
	if replicas != nil {
		results, err := tyksync.RunReplicas(ctx, opts, replicas)
		if errors.Is(err, tyksync.ErrDeletesAll) {
			return usage("sync: %v", err)
		}
		pushed := true
		for _, r := range results {
			pushed = pushed && !r.Failed()
		}
		statusErr := writeStatus(ctx, cmd, f, cluster, stream, scope, pushed)
		if !pushed {
			return &reportedError{errors.New("sync: some replicas failed")}
		}
		if len(set.Problems) > 0 && !f.dryRun {
			return &reportedError{errors.New("sync: some rendered ConfigMaps cannot be read")}
		}
		return statusErr
	}
	rep, err := tyksync.Run(ctx, opts)
	if errors.Is(err, tyksync.ErrDeletesAll) {
		return usage("sync: %v", err)
	}
	if err != nil {
		_ = writeStatus(ctx, cmd, f, cluster, stream, scope, false) // says that no status was written
		return failed(stderr, "sync: %v", err)
	}
	statusErr := writeStatus(ctx, cmd, f, cluster, stream, scope, rep.Failed == 0)
	if rep.Failed > 0 || (!f.dryRun && len(set.Problems) > 0) {
		return &reportedError{errors.New("sync: some actions failed")}
	}
	return statusErr
}

// syncReplicas returns the Gateways to sync each in turn, or nil for the one target of the settings: in ce mode,
// the URLs of several --url flags, or else, when the OperatorContext of --operator-context names a data-plane Service
// (spec.dataPlane.serviceRef, in its own namespace) and no --url is given, the ready endpoints of that Service
// read in the cluster. An open-source Gateway keeps what it is given to itself, so that a write through the
// Service reaches one replica only.
func syncReplicas(ctx context.Context, cmd *cobra.Command, f syncFlags, cluster *kube.Cluster, oc *tykapi.OperatorContext,
	ctxNS string, settings target.Settings) ([]tyksync.Replica, error) {
	var eps []kube.Endpoint
	switch {
	case len(f.urls) > 1:
		for _, u := range f.urls {
			eps = append(eps, kube.Endpoint{URL: u, From: "--url"})
		}
	case len(f.urls) == 0 && settings.Mode == target.ModeCE && oc != nil && oc.Spec.DataPlane != nil &&
		oc.Spec.DataPlane.ServiceRef != nil && oc.Spec.DataPlane.ServiceRef.Name != "":
		base, err := url.Parse(settings.URL)
		if err != nil {
			return nil, usage("sync: the Tyk URL %q: %v", settings.URL, err)
		}
		svc := oc.Spec.DataPlane.ServiceRef.Name
		ready, notReady, err := cluster.Replicas(ctx, ctxNS, svc, base)
		if err != nil {
			return nil, failed(cmd.ErrOrStderr(), "sync: --operator-context %s, spec.dataPlane.serviceRef: %v; nothing was changed", f.context, err)
		}
		for _, n := range notReady {
			fmt.Fprintf(cmd.ErrOrStderr(), "gateway2tyk sync: %s is not ready: not synced (the next run syncs it once it is)\n", n)
		}
		if len(ready) == 0 {
			return nil, failed(cmd.ErrOrStderr(), "sync: --operator-context %s: Service %s/%s has no ready endpoint: nothing was changed",
				f.context, ctxNS, svc)
		}
		eps = ready
	default:
		return nil, nil
	}
	replicas := make([]tyksync.Replica, len(eps))
	for i, ep := range eps {
		s := settings
		s.URL, s.NodeReload = ep.URL, true
		tgt, err := target.New(s, targetOptions)
		if err != nil {
			return nil, usage("sync: %s: %v", ep.From, err)
		}
		replicas[i] = tyksync.Replica{Name: tgt.Describe() + " (" + ep.From + ")", Target: tgt}
	}
	return replicas, nil
}

// runCheck is sync --check: the drift report in the format -o names; exit status 1 on drift, or when a rendered
// ConfigMap could not be read (the rendered set may then be incomplete, so "in sync" cannot be said).
func runCheck(ctx context.Context, cmd *cobra.Command, f syncFlags, set *source.Set, tgt target.Target, scope plan.Scope) error {
	stderr := cmd.ErrOrStderr()
	for _, p := range set.Problems {
		fmt.Fprintln(stderr, "gateway2tyk sync --check: cannot read", p)
	}
	drift, err := tyksync.Check(ctx, set, tgt, scope)
	if err != nil {
		return failed(stderr, "sync --check: %v", err)
	}
	if err := apidiff.WriteFormat(cmd.OutOrStdout(), f.output, drift); err != nil {
		return failed(stderr, "sync --check: writing the report: %v", err)
	}
	switch {
	case drift.Drifted():
		return &reportedError{errors.New("sync --check: the target differs from the render")}
	case len(set.Problems) > 0:
		return &reportedError{fmt.Errorf("sync --check: %d rendered ConfigMap(s) cannot be read", len(set.Problems))}
	}
	return nil
}

// failed prints a failure of the target or the cluster on one line and returns it as already reported (exit
// status 4: no answer could be given, which sync --check must not report as drift).
func failed(w io.Writer, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	fmt.Fprintln(w, "gateway2tyk:", strings.ReplaceAll(err.Error(), "\n", " "))
	return &unreachableError{err}
}
