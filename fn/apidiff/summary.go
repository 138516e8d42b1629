package apidiff

import (
	"fmt"
	"strings"
)

// Summary is the one line that ends every report.
func (r *Report) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gateway2tyk diff: %d %s added, %d removed, %d changed, %d unchanged; %d %s with status changes; ",
		len(r.Added), plural(len(r.Added), "API", "APIs"), len(r.Removed), len(r.Changed), r.Unchanged,
		len(r.Status), plural(len(r.Status), "object", "objects"))
	if r.Results.Known {
		fmt.Fprintf(&b, "results %d appeared, %d disappeared; ", len(r.Results.Appeared), len(r.Results.Disappeared))
	} else {
		b.WriteString("results not compared (rendered input); ")
	}
	fmt.Fprintf(&b, "%d risky %s", len(r.Risks), plural(len(r.Risks), "change", "changes"))
	if len(r.Risks) > 0 {
		fmt.Fprintf(&b, " (%s), %d failing", r.riskKinds(), r.Failing)
	}
	old, new := strings.Join(r.OldOwners, ", "), strings.Join(r.NewOwners, ", ")
	switch {
	case old == new && new != "":
		fmt.Fprintf(&b, "; %s %s", plural(len(r.NewOwners), "owner", "owners"), new)
	case old != new:
		fmt.Fprintf(&b, "; owners: OLD %s, NEW %s", dashIfEmpty(old), dashIfEmpty(new))
	}
	return b.String()
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// riskKinds lists the kinds of the risks, each once, in the order of RiskKinds.
func (r *Report) riskKinds() string {
	var kinds []string
	for _, k := range RiskKinds {
		for _, risk := range r.Risks {
			if risk.Kind == k {
				kinds = append(kinds, string(k))
				break
			}
		}
	}
	return strings.Join(kinds, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
