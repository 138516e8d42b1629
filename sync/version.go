package tyksync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
	"github.com/gateway2tyk/gateway2tyk/sync/plan"
)

// ErrTargetTooOld is what a TooOldError is (errors.Is).
var ErrTargetTooOld = errors.New("the Tyk target is older than the rendered APIs need")

// TooOldError stops a run before any write: the target is older than the rendered APIs need.
type TooOldError struct {
	Target  string   // "Tyk Gateway at http://..."
	Version string   // as the target (or --tyk-version) says it
	From    string   // where the version came from
	Need    string   // the oldest release that accepts the APIs
	Fields  []string // the fields that need it, with how many APIs set each
	// Build is set when the target said a pre-release (v5.5.0-dev): a build from source, which may understate
	// its release. Only then may --tyk-version help, and only when the build is of Need or newer.
	Build bool
}

// Error is one line. Its advice never leads to a run in which every API fails: --tyk-version is suggested only
// for a build from source, with the warning that an older Gateway refuses every API; for a release the Gateway
// said itself, the way out is a newer Gateway.
func (e *TooOldError) Error() string {
	advice := "; upgrade it to Tyk " + e.Need + " or newer"
	switch {
	case e.From == givenByFlag:
		advice = ""
	case e.Build:
		advice = fmt.Sprintf(" (a Gateway built from source may report an older release than its own: only if this "+
			"one was built from Tyk %s or newer, give --tyk-version with its release; an older Gateway refuses every API)", e.Need)
	}
	return fmt.Sprintf("%s is %s (%s), older than Tyk %s, which the rendered APIs need for %s; nothing was changed%s",
		e.Target, e.Version, e.From, e.Need, strings.Join(e.Fields, ", "), advice)
}

func (e *TooOldError) Is(target error) bool { return target == ErrTargetTooOld }

const givenByFlag = "given with --tyk-version"

// newerFields are the fields of tykroute.NewerFields the rendered APIs set, each with how many APIs set it.
type newerFields []newerField

type newerField struct {
	tykroute.NewerField
	apis int
}

func fieldsNeedingNewer(apis []plan.Desired) newerFields {
	count := make([]int, len(tykroute.NewerFields))
	for _, a := range apis {
		var probe struct {
			Tyk map[string]any `json:"x-tyk-api-gateway"`
		}
		if json.Unmarshal(a.Document, &probe) != nil {
			continue
		}
		for i, f := range tykroute.NewerFields {
			if f.SetIn(probe.Tyk) {
				count[i]++
			}
		}
	}
	var out newerFields
	for i, f := range tykroute.NewerFields {
		if count[i] > 0 {
			out = append(out, newerField{f, count[i]})
		}
	}
	return out
}

// need is the oldest release that takes every field (zero when there are none).
func (fs newerFields) need() tykroute.Version {
	var need tykroute.Version
	for _, f := range fs {
		if need.Less(f.Need) {
			need = f.Need
		}
	}
	return need
}

// refusedBy is the fields release v does not take.
func (fs newerFields) refusedBy(v tykroute.Version) newerFields {
	var out newerFields
	for _, f := range fs {
		if v.Less(f.Need) {
			out = append(out, f)
		}
	}
	return out
}

// list names each field with how many APIs set it, and with the release it needs when they do not all need the
// same one.
func (fs newerFields) list() []string {
	need, same := fs.need(), true
	for _, f := range fs {
		same = same && f.Need == need
	}
	var out []string
	for _, f := range fs {
		n := fmt.Sprintf("%d %s", f.apis, plural(f.apis, "API", "APIs"))
		if !same {
			n += "; Tyk " + f.Need.String()
		}
		out = append(out, fmt.Sprintf("%s (%s)", f.Path, n))
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// checkVersion reads the target's release before anything is written, and fails when it is older than the
// rendered APIs need. --tyk-version states the release of a target that does not say it (the Dashboard) or
// understates it (a Gateway built from source reports a pre-release such as v5.5.0-dev); a release a Gateway
// reports without a pre-release suffix is what it runs, and the flag cannot make it load fields it lacks, so that
// release is checked even when the flag says otherwise. A target that says nothing is noted, not refused.
func checkVersion(ctx context.Context, o Options) error {
	var given tykroute.Version
	if o.TykVersion != "" {
		v, err := tykroute.ParseVersion(o.TykVersion)
		if err != nil {
			return fmt.Errorf("--tyk-version: %v", err)
		}
		given = v
	}
	fields := fieldsNeedingNewer(o.Set.APIs)
	if len(fields) == 0 {
		return nil
	}
	said, err := o.Target.Version(ctx)
	if err != nil {
		if o.TykVersion == "" {
			return fmt.Errorf("reading the version of %s: %v; nothing was changed", o.Target.Describe(), err)
		}
		said = "" // the flag says it
	}
	reported, parseErr := tykroute.ParseVersion(said)
	release := said != "" && parseErr == nil && !strings.Contains(said, "-")
	if refused := fields.refusedBy(reported); release && len(refused) > 0 {
		from := "as it reports"
		if o.TykVersion != "" {
			from += ", a release, not a build from source: --tyk-version " + o.TykVersion + " does not change what it loads"
		}
		return &TooOldError{Target: o.Target.Describe(), Version: said, From: from, Need: refused.need().String(),
			Fields: refused.list()}
	}
	if o.TykVersion != "" {
		if refused := fields.refusedBy(given); len(refused) > 0 {
			return &TooOldError{Target: o.Target.Describe(), Version: o.TykVersion, From: givenByFlag,
				Need: refused.need().String(), Fields: refused.list()}
		}
		return nil
	}
	if said == "" {
		fmt.Fprintf(o.Err, "gateway2tyk sync: %s does not say its version: the rendered APIs need Tyk %s or newer "+
			"for %s (give --tyk-version to have it checked before any write)\n", o.Target.Describe(), fields.need(),
			strings.Join(fields.list(), ", "))
		return nil
	}
	if parseErr != nil {
		fmt.Fprintf(o.Err, "gateway2tyk sync: %s says version %q, which is not a Tyk release: not checked\n", o.Target.Describe(), said)
		return nil
	}
	if refused := fields.refusedBy(reported); len(refused) > 0 {
		return &TooOldError{Target: o.Target.Describe(), Version: said, From: "as it reports", Need: refused.need().String(),
			Fields: refused.list(), Build: true}
	}
	return nil
}
