package apidiff

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes the report for a terminal: sections only when they have something, the summary last.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	failing := r.failingKinds()
	mark := func(kind RiskKind) string {
		if kind == "" {
			return ""
		}
		if failing[kind] {
			return "  [risk: " + string(kind) + ", fails]"
		}
		return "  [risk: " + string(kind) + "]"
	}
	if len(r.Removed) > 0 {
		fmt.Fprintf(&b, "APIs removed (%d)\n", len(r.Removed))
		for _, a := range r.Removed {
			if a.Internal() {
				fmt.Fprintf(&b, "  - %s\n", a)
				continue
			}
			fmt.Fprintf(&b, "  - %s%s\n", a, mark(RiskAPIRemoved))
		}
	}
	if len(r.Added) > 0 {
		fmt.Fprintf(&b, "APIs added (%d)\n", len(r.Added))
		for _, a := range r.Added {
			fmt.Fprintf(&b, "  + %s\n", a)
		}
	}
	if len(r.Changed) > 0 {
		fmt.Fprintf(&b, "APIs changed (%d)\n", len(r.Changed))
		for _, c := range r.Changed {
			fmt.Fprintf(&b, "  ~ %s\n", c.Ref)
			for _, a := range c.Aspects {
				fmt.Fprintf(&b, "      %s%s\n", a.Aspect, mark(a.Risk))
				for _, l := range a.Removed {
					fmt.Fprintf(&b, "        - %s\n", l)
				}
				for _, l := range a.Added {
					fmt.Fprintf(&b, "        + %s\n", l)
				}
			}
		}
	}
	if len(r.Status) > 0 {
		fmt.Fprintf(&b, "Status changes (%d %s)\n", len(r.Status), plural(len(r.Status), "object", "objects"))
		for _, s := range r.Status {
			fmt.Fprintf(&b, "  %s\n", s.Object)
			for _, c := range s.Changes {
				fmt.Fprintf(&b, "      %s: %s -> %s%s\n", c.Subject, c.Old, c.New, mark(c.Risk))
			}
		}
	}
	if len(r.Results.Appeared)+len(r.Results.Disappeared) > 0 {
		b.WriteString("Results\n")
		for _, l := range r.Results.Disappeared {
			fmt.Fprintf(&b, "  - %s\n", l)
		}
		for _, l := range r.Results.Appeared {
			risk := RiskKind("")
			if isErrorResult(l) {
				risk = RiskNewError
			}
			fmt.Fprintf(&b, "  + %s%s\n", l, mark(risk))
		}
	}
	if !r.Results.Known {
		// The old side carries no results: the new side's errors are the risks that say so.
		header := false
		for _, risk := range r.Risks {
			if risk.Kind != RiskNewError {
				continue
			}
			if !header {
				b.WriteString("Errors of NEW (OLD is a rendered stream, which carries no results)\n")
				header = true
			}
			fmt.Fprintf(&b, "  + %s%s\n", strings.TrimPrefix(risk.Subject, "result "), mark(RiskNewError))
		}
	}
	fmt.Fprintf(&b, "Unchanged APIs: %d\n", r.Unchanged)
	b.WriteString(r.Summary() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// failingKinds are the kinds of risk that fail (--fail-on selects kinds, so a risk fails by its kind).
func (r *Report) failingKinds() map[RiskKind]bool {
	out := map[RiskKind]bool{}
	for _, risk := range r.Risks {
		if risk.Failing {
			out[risk.Kind] = true
		}
	}
	return out
}
