package tyksync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/sync/plan"
	"github.com/gateway2tyk/gateway2tyk/sync/source"
	"github.com/gateway2tyk/gateway2tyk/sync/target"
)

// DefaultConcurrency is how many calls to the target run at once.
const DefaultConcurrency = 4

// DefaultSettle is how long a run waits, after a Gateway reload, until the Gateway serves what it was given.
const DefaultSettle = 30 * time.Second

// Options of a run.
type Options struct {
	Set    *source.Set
	Target target.Target
	Scope  plan.Scope
	DryRun bool
	// Org is the organisation for certificate uploads to the open-source Gateway (TYK_ORG); when empty, the
	// organisation part of the certificate ID is used, which is what the render computed it with.
	Org         string
	Concurrency int
	// TykVersion, when set, is the target's release as the user states it, instead of what the target says
	// (the Dashboard's API does not say; a Gateway built from source may understate it).
	TykVersion string
	// Settle bounds the wait, after a Gateway reload, until the Gateway serves what it was given (default
	// DefaultSettle).
	Settle time.Duration
	// AllowDeleteAll lets a plan delete every API an owner has on the target (ErrDeletesAll otherwise).
	AllowDeleteAll bool
	// Out receives the table and the summary; Err the problems.
	Out, Err io.Writer
}

// Row is one API's line of the table.
type Row struct {
	Action plan.Action
	ID     string
	Route  string
	// Where is the API's hostname and path: the table's ROUTE column shows them after the route, since a route
	// has an API per hostname and path.
	Where   string
	Owner   string
	Outcome string // "" in a dry run
	Failed  bool
}

// from is where the certificate came from: "Secret ns/name", "ConfigMap ns/name" (a CA certificate), or "-".
func (c CertRow) from() string {
	switch {
	case c.Secret != "":
		return "Secret " + c.Secret
	case c.ConfigMap != "":
		return "ConfigMap " + c.ConfigMap
	}
	return "-"
}

func (r Row) where() string { return strings.TrimSpace(r.Route + " " + r.Where) }

// CertRow is one certificate's line.
type CertRow struct {
	Action string // "upload" or "check"
	ID     string
	Secret string
	// ConfigMap holds a CA certificate (its ca.crt), where Secret is "".
	ConfigMap string
	Outcome   string
	Failed    bool
}

// Report is what a run did.
type Report struct {
	Plan   *plan.Plan
	Rows   []Row
	Certs  []CertRow
	Reload string // the reload's outcome (and the wait for it), "" when none was made
	Failed int    // failed actions (APIs, certificates and the reload)

	before map[string][]byte // the target's listing the plan was made from, by API ID
}

// ErrDeletesAll is returned (wrapped), before any change and in a dry run too, for a plan that would delete every
// API one of its owners has on the target, even when it creates others for that owner: what an empty or wrong
// input asks for (a render of the wrong directory, every route renamed), far more often than what is meant.
var ErrDeletesAll = errors.New("the plan deletes every API its owner has on the target")

// ErrListing is returned (wrapped) when the target's APIs could not be listed completely.
var ErrListing = errors.New("listing the target's APIs failed")

// Run plans and, unless DryRun, applies. It returns an error when no plan could be made (the listing failed);
// otherwise the report, whose Failed counts the actions that failed.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	for _, p := range o.Set.Problems {
		fmt.Fprintln(o.Err, "gateway2tyk sync: cannot read", p)
	}
	if o.Settle <= 0 {
		o.Settle = DefaultSettle
	}
	if err := checkVersion(ctx, o); err != nil {
		return nil, err
	}
	actual, err := o.Target.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w (%s): %v; nothing was changed: without a complete listing the sync can tell "+
			"neither what exists nor what to delete", ErrListing, o.Target.Describe(), err)
	}
	withhold := ""
	if len(o.Set.Problems) > 0 {
		withhold = fmt.Sprintf("withheld: %d rendered ConfigMap(s) cannot be read, so the rendered set may be incomplete",
			len(o.Set.Problems))
	}
	p, err := plan.Make(plan.Input{Desired: o.Set.APIs, Actual: actual, Scope: o.Scope, WithholdDeletes: withhold})
	if err != nil {
		return nil, err
	}
	refused := deletesAll(p, o)
	if refused != nil && !o.DryRun {
		return nil, refused
	}
	rep := &Report{Plan: p, before: make(map[string][]byte, len(actual))}
	for _, a := range actual {
		rep.before[a.ID] = a.Document
	}
	certs := source.Certificates(o.Set)
	rep.Rows = make([]Row, len(p.Items))
	for i, it := range p.Items {
		rep.Rows[i] = Row{Action: it.Action, ID: it.ID, Route: it.Route, Where: it.Where, Owner: it.Owner}
	}
	rep.Certs = make([]CertRow, len(certs))
	for i, c := range certs {
		rep.Certs[i] = CertRow{Action: "upload", ID: c.ID, Secret: c.Secret, ConfigMap: c.ConfigMap}
		if c.PEM == nil {
			rep.Certs[i].Action = "check"
		}
	}
	printOwners(o.Out, p)
	if o.DryRun {
		// A refused plan is shown too, so that what it would delete can be read before anything is decided.
		printPlan(o.Out, rep, certs)
		return rep, refused
	}
	apply(ctx, o, rep, certs)
	printOutcome(o.Out, rep)
	printFailures(o.Err, rep)
	return rep, nil
}

// deletesAll is ErrDeletesAll for a plan that deletes every API of an owner, unless AllowDeleteAll.
func deletesAll(p *plan.Plan, o Options) error {
	owners := p.DeletesAll()
	if len(owners) == 0 || o.AllowDeleteAll {
		return nil
	}
	var said []string
	for _, owner := range owners {
		creates := 0
		for _, it := range p.Items {
			if it.Owner == owner && it.Action == plan.Create {
				creates++
			}
		}
		said = append(said, fmt.Sprintf("owner %s: all %d of its APIs deleted, %d created", owner, p.Had[owner], creates))
	}
	advice := "give --allow-empty if that is meant (--dry-run shows the plan)"
	if slices.Contains(owners, config.FallbackOwner) {
		// Every application rendered where the render cannot see its place in a repository (outside git, by kpt,
		// from stdin) gets this owner: the APIs it would delete may well be another application's.
		advice = fmt.Sprintf("owner %s is the fallback the render gives an application whose place in a repository "+
			"it cannot see (rendered outside a git repository, by kpt or from stdin), so these APIs may be another "+
			"application's: give each application its own owner (spec.owner in its RenderConfig, or sync --owner) "+
			"and sync again; --dry-run shows the plan", config.FallbackOwner)
	}
	return fmt.Errorf("%w (%s; on %s): nothing was changed; %s",
		ErrDeletesAll, strings.Join(said, "; "), o.Target.Describe(), advice)
}

func apply(ctx context.Context, o Options, rep *Report, certs []source.Certificate) {
	// 1. Certificates.
	forEach(o.Concurrency, len(certs), func(i int) {
		c := certs[i]
		row := &rep.Certs[i]
		org := o.Org
		if org == "" {
			org = source.Org(c.ID)
		}
		// A certificate the store has is reused, never uploaded again.
		ok, err := o.Target.CertificateExists(ctx, c.ID, org)
		switch {
		case err == nil && ok:
			row.Outcome = "ok: the target has it"
			return
		case c.PEM != nil:
			// Not there, or the check failed: the upload says which.
		case err != nil:
			row.Outcome, row.Failed = "failed: "+c.Missing+", and checking the target failed: "+err.Error(), true
			return
		default:
			row.Outcome, row.Failed = "failed: "+c.Missing+", and the target does not have it", true
			return
		}
		id, existed, err := o.Target.UploadCertificate(ctx, c.PEM, org)
		switch {
		case err != nil:
			row.Outcome, row.Failed = "failed: "+err.Error(), true
		case existed:
			row.Outcome = "ok: the target has it"
		case id != "" && id != c.ID:
			row.Outcome, row.Failed = fmt.Sprintf("failed: the target stored it as %s, but the APIs name %s "+
				"(the target's organisation differs from the one the render used: set env.org or TYK_ORG)", id, c.ID), true
		default:
			row.Outcome = "ok: uploaded"
		}
	})
	// 2. Creates and updates, then 3. deletes.
	for _, phase := range [][]plan.Action{{plan.Create, plan.Update, plan.Unchanged, plan.Conflict}, {plan.Delete}} {
		var idx []int
		for i, it := range rep.Plan.Items {
			for _, a := range phase {
				if it.Action == a {
					idx = append(idx, i)
				}
			}
		}
		forEach(o.Concurrency, len(idx), func(k int) {
			i := idx[k]
			it := rep.Plan.Items[i]
			row := &rep.Rows[i]
			if it.Blocked != "" {
				row.Outcome, row.Failed = "failed: "+it.Blocked, true
				return
			}
			var err error
			switch it.Action {
			case plan.Unchanged:
				row.Outcome = "ok"
				return
			case plan.Create:
				err = o.Target.Create(ctx, it.ID, it.Body)
			case plan.Update:
				err = o.Target.Update(ctx, it.ID, it.Body)
			case plan.Delete:
				err = o.Target.Delete(ctx, it.ID)
			}
			if err != nil {
				row.Outcome, row.Failed = "failed: "+err.Error(), true
				return
			}
			row.Outcome = "ok"
		})
	}
	// 4. Reload (the Gateway; the Dashboard pushes changes to its Gateways itself), when anything may have
	// changed: a call that failed may still have reached the target.
	changed := false
	for _, it := range rep.Plan.Items {
		changed = changed || (it.Action != plan.Unchanged && it.Blocked == "")
	}
	for _, c := range rep.Certs {
		changed = changed || c.Outcome == "ok: uploaded"
	}
	if changed && o.Target.Mode() == target.ModeCE {
		if err := o.Target.Reload(ctx); err != nil {
			rep.Reload = "failed: " + err.Error()
		} else {
			rep.Reload = settle(ctx, o, rep)
		}
	}
	for _, r := range rep.Rows {
		if r.Failed {
			rep.Failed++
		}
	}
	for _, c := range rep.Certs {
		if c.Failed {
			rep.Failed++
		}
	}
	if strings.HasPrefix(rep.Reload, "failed") {
		rep.Failed++
	}
}

// forEach runs fn(0..n-1) with at most limit running at once, and waits for all.
func forEach(limit, n int, fn func(int)) {
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			fn(i)
		}(i)
	}
	wg.Wait()
}

func printPlan(w io.Writer, rep *Report, certs []source.Certificate) {
	rows := make([][]string, len(rep.Rows))
	for i, r := range rep.Rows {
		note := ""
		if b := rep.Plan.Items[i].Blocked; b != "" {
			note = "blocked: " + strings.TrimPrefix(b, "withheld: ")
		} else if rep.Plan.Items[i].Adopts {
			note = "adopts an API made before owners"
		}
		rows[i] = []string{string(r.Action), r.ID, r.where(), note}
	}
	table(w, []string{"ACTION", "API ID", "ROUTE", ""}, rows)
	if len(rep.Certs) > 0 {
		fmt.Fprintln(w)
		rows = make([][]string, len(rep.Certs))
		for i, c := range rep.Certs {
			rows[i] = []string{c.ID, c.Action, c.from(), certs[i].Missing}
		}
		table(w, []string{"CERTIFICATE", "ACTION", "FROM", ""}, rows)
	}
	p := rep.Plan
	conflicts := ""
	if n := p.Count(plan.Conflict); n > 0 {
		conflicts = fmt.Sprintf(", %d in conflict with another owner's", n)
	}
	fmt.Fprintf(w, "plan: %d to create, %d to update, %d to delete, %d unchanged%s (dry run: nothing was changed)\n",
		p.Count(plan.Create), p.Count(plan.Update), p.Count(plan.Delete), p.Count(plan.Unchanged), conflicts)
}

// printOwners names the owners the run acts for, and what of the target it leaves alone, before the table.
func printOwners(w io.Writer, p *plan.Plan) {
	others, unowned := map[string]int{}, 0
	for _, o := range p.Others {
		if o.Owner == "" {
			unowned++
		} else {
			others[o.Owner]++
		}
	}
	line := "owner: " + strings.Join(p.Owners, ", ")
	if len(p.Owners) != 1 {
		line = "owners: " + strings.Join(p.Owners, ", ")
	}
	if len(p.Owners) == 0 {
		line = "owners: none (the input holds no API; give --owner to act for one)"
	}
	var left []string
	if len(others) > 0 {
		n := 0
		for _, c := range others {
			n += c
		}
		left = append(left, fmt.Sprintf("%d of %d %s", n, len(others), plural(len(others), "other owner", "other owners")))
	}
	if unowned > 0 {
		left = append(left, fmt.Sprintf("%d made before owners", unowned))
	}
	if len(left) > 0 {
		line += " (APIs left alone: " + strings.Join(left, ", ") + ")"
	}
	fmt.Fprintln(w, line)
}

func printOutcome(w io.Writer, rep *Report) {
	rows := make([][]string, len(rep.Rows))
	for i, r := range rep.Rows {
		rows[i] = []string{string(r.Action), r.ID, r.where(), r.Outcome}
	}
	table(w, []string{"ACTION", "API ID", "ROUTE", "OUTCOME"}, rows)
	if len(rep.Certs) > 0 {
		fmt.Fprintln(w)
		rows = make([][]string, len(rep.Certs))
		for i, c := range rep.Certs {
			rows[i] = []string{c.ID, c.Action, c.from(), c.Outcome}
		}
		table(w, []string{"CERTIFICATE", "ACTION", "FROM", "OUTCOME"}, rows)
	}
	if rep.Reload != "" {
		fmt.Fprintln(w, "reload:", rep.Reload)
	}
	done := map[plan.Action]int{}
	for _, r := range rep.Rows {
		if !r.Failed {
			done[r.Action]++
		}
	}
	fmt.Fprintf(w, "sync: %d created, %d updated, %d deleted, %d unchanged, %d failed\n",
		done[plan.Create], done[plan.Update], done[plan.Delete], done[plan.Unchanged], rep.Failed)
}

// table writes aligned columns separated by two spaces, without trailing blanks; a column empty in every row
// and in the header is left out.
func table(w io.Writer, header []string, rows [][]string) {
	all := append([][]string{header}, rows...)
	width := make([]int, len(header))
	used := make([]bool, len(header))
	for _, r := range all {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
			used[i] = used[i] || c != ""
		}
	}
	for _, r := range all {
		var b strings.Builder
		for i, c := range r {
			if !used[i] {
				continue
			}
			if b.Len() > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c + strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)))
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// printFailures lists what failed, one line each, so that a log shows it without the table.
func printFailures(w io.Writer, rep *Report) {
	if rep.Failed == 0 {
		return
	}
	var lines []string
	for _, r := range rep.Rows {
		if r.Failed {
			lines = append(lines, fmt.Sprintf("%s %s (route %s): %s", r.Action, r.ID, r.Route, strings.TrimPrefix(r.Outcome, "failed: ")))
		}
	}
	sort.Strings(lines)
	for _, c := range rep.Certs {
		if c.Failed {
			lines = append(lines, fmt.Sprintf("certificate %s: %s", c.ID, strings.TrimPrefix(c.Outcome, "failed: ")))
		}
	}
	if strings.HasPrefix(rep.Reload, "failed") {
		lines = append(lines, "reload: "+strings.TrimPrefix(rep.Reload, "failed: "))
	}
	fmt.Fprintf(w, "gateway2tyk sync: %d action(s) failed:\n", rep.Failed)
	for _, l := range lines {
		fmt.Fprintln(w, "  "+l)
	}
}
