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
}

// Error is one line.
func (e *TooOldError) Error() string {
	hint := ""
	if e.From != givenByFlag {
		hint = " (when it understates the release, as a Gateway built from source may, give --tyk-version)"
	}
	return fmt.Sprintf("%s is %s (%s), older than Tyk %s, which the rendered APIs need for %s; nothing was changed%s",
		e.Target, e.Version, e.From, e.Need, strings.Join(e.Fields, ", "), hint)
}

func (e *TooOldError) Is(target error) bool { return target == ErrTargetTooOld }

const givenByFlag = "given with --tyk-version"

// fieldsNeedingNewer returns the fields of tykroute.NewerFields the rendered APIs set, with how many APIs set each.
func fieldsNeedingNewer(apis []plan.Desired) []string {
	count := map[string]int{}
	for _, a := range apis {
		var probe struct {
			Tyk struct {
				Upstream map[string]json.RawMessage `json:"upstream"`
				Server   map[string]json.RawMessage `json:"server"`
			} `json:"x-tyk-api-gateway"`
		}
		if json.Unmarshal(a.Document, &probe) != nil {
			continue
		}
		set := map[string]map[string]json.RawMessage{"upstream": probe.Tyk.Upstream, "server": probe.Tyk.Server}
		for _, s := range tykroute.NewerFields {
			for _, f := range s.Fields {
				if _, ok := set[s.Section][f]; ok {
					count[s.Section+"."+f]++
				}
			}
		}
	}
	var out []string
	for _, s := range tykroute.NewerFields {
		for _, f := range s.Fields {
			if n := count[s.Section+"."+f]; n > 0 {
				out = append(out, fmt.Sprintf("%s.%s (%d %s)", s.Section, f, n, plural(n, "API", "APIs")))
			}
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// checkVersion reads the target's release (or takes o.TykVersion) before anything is written, and fails when
// it is older than the rendered APIs need. A target whose API does not say its release (the Dashboard) is
// noted, not refused.
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
	need := tykroute.MinVersion
	said, from := o.TykVersion, givenByFlag
	if said == "" {
		v, err := o.Target.Version(ctx)
		if err != nil {
			return fmt.Errorf("reading the version of %s: %v; nothing was changed", o.Target.Describe(), err)
		}
		said, from = v, "as it reports"
	}
	if said == "" {
		fmt.Fprintf(o.Err, "gateway2tyk sync: %s does not say its version: the rendered APIs need Tyk %s or newer "+
			"for %s (give --tyk-version to have it checked before any write)\n", o.Target.Describe(), need, strings.Join(fields, ", "))
		return nil
	}
	v := given
	if o.TykVersion == "" {
		var err error
		if v, err = tykroute.ParseVersion(said); err != nil {
			fmt.Fprintf(o.Err, "gateway2tyk sync: %s says version %q, which is not a Tyk release: not checked\n", o.Target.Describe(), said)
			return nil
		}
	}
	if v.Less(need) {
		return &TooOldError{Target: o.Target.Describe(), Version: said, From: from, Need: need.String(), Fields: fields}
	}
	return nil
}
