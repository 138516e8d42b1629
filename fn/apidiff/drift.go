package apidiff

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Drift is what `gateway2tyk sync --check` reports: how what a Tyk target serves differs from the render, API by
// API, in diff's terms. The render is the old side and the target the new one, so an aspect's removed lines are
// as rendered and its added lines as served.
type Drift struct {
	// Target names the Dashboard or Gateway compared.
	Target string `json:"target"`
	// Owners are the owners the render's APIs belong to: the check (like the sync) is about their APIs.
	Owners []string `json:"owners"`
	// Changed are APIs the target serves differently from the render: changed behind sync's back.
	Changed []APIChange `json:"changed"`
	// Missing are rendered APIs the target does not serve.
	Missing []Ref `json:"missing"`
	// NotRendered are APIs the target serves with gateway2tyk's ownership marker that the render no longer has.
	NotRendered []Ref `json:"notRendered"`
	// Foreign are rendered APIs whose ID the target gives to an API without the marker (sync will not overwrite it).
	Foreign []Ref `json:"foreign"`
	// Conflicts are rendered APIs whose ID the target gives to another owner's API (Owner is that owner; the sync
	// will not overwrite it).
	Conflicts []Ref `json:"conflicts"`
	// OtherOwners are the target's APIs of other owners (or made before owners: Owner ""), which the render
	// does not have and its sync never touches: not drift.
	OtherOwners []Ref `json:"otherOwners"`
	// InSync counts the rendered APIs the target serves as rendered.
	InSync int `json:"inSync"`
}

// Drifted reports whether the target differs from the render in any way.
func (d *Drift) Drifted() bool {
	return len(d.Changed)+len(d.Missing)+len(d.NotRendered)+len(d.Foreign)+len(d.Conflicts) > 0
}

// AddChanged records an API the target serves differently: rendered and served are both documents as the sync
// compares them (normalised the same way), so that what the target adds by itself is not reported. When the
// facts of the two are the same (a difference no aspect names), the API is reported with one line that says so.
func (d *Drift) AddChanged(ref Ref, rendered, served string) error {
	aspects, err := compareAPI(&API{Ref: ref, Document: rendered}, &API{Ref: ref, Document: served})
	if err != nil {
		return err
	}
	if len(aspects) == 0 {
		aspects = []AspectChange{{Aspect: AspectOther, Added: []string{"the document differs from the render in how it is written"}}}
	}
	d.Changed = append(d.Changed, APIChange{Ref: ref, Aspects: aspects})
	return nil
}

// Sort orders every list, so that the same state gives the same report.
func (d *Drift) Sort() {
	sort.Slice(d.Changed, func(i, j int) bool { return refLess(d.Changed[i].Ref, d.Changed[j].Ref) })
	sortRefs(d.Missing)
	sortRefs(d.NotRendered)
	sortRefs(d.Foreign)
	sortRefs(d.Conflicts)
	sortRefs(d.OtherOwners)
}

// Summary is the one line that ends every drift report.
func (d *Drift) Summary() string {
	verdict := "in sync"
	if d.Drifted() {
		verdict = "drift"
	}
	return fmt.Sprintf("gateway2tyk sync --check: %s: %d %s changed on the target, %d missing, %d no longer rendered, "+
		"%d held by an API gateway2tyk did not create, %d in sync, %d in conflict with another owner's, %d of other "+
		"owners left alone (%s; %s)", verdict, len(d.Changed), plural(len(d.Changed), "API", "APIs"), len(d.Missing),
		len(d.NotRendered), len(d.Foreign), d.InSync, len(d.Conflicts), len(d.OtherOwners), d.ownersText(), d.Target)
}

// ownersText names the owners the report is about.
func (d *Drift) ownersText() string {
	switch len(d.Owners) {
	case 0:
		return "no owner"
	case 1:
		return "owner " + d.Owners[0]
	}
	return "owners " + strings.Join(d.Owners, ", ")
}

// ownedBy is a ref with the owner it is listed for.
func ownedBy(r Ref) string {
	if r.Owner == "" {
		return r.String() + ", made before owners"
	}
	return r.String() + ", owner " + r.Owner
}

// The section titles, shared by the text and markdown reports.
const (
	driftChanged     = "APIs changed on the target"
	driftMissing     = "APIs missing on the target"
	driftNotRendered = "APIs on the target no longer rendered"
	driftForeign     = "APIs held by an API gateway2tyk did not create"
	driftConflicts   = "APIs in conflict: the target's API of this ID is another owner's"
	driftOthers      = "APIs of other owners, left alone (not drift)"
)

// WriteText writes the drift report for a terminal: sections only when they have something, the summary last.
// An aspect's "-" lines are as rendered, its "+" lines as the target serves them.
func (d *Drift) WriteText(w io.Writer) error {
	var b strings.Builder
	refs := func(title, sign string, refs []Ref) {
		if len(refs) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s (%d)\n", title, len(refs))
		for _, a := range refs {
			fmt.Fprintf(&b, "  %s %s\n", sign, a)
		}
	}
	if len(d.Changed) > 0 {
		fmt.Fprintf(&b, "%s (%d; - as rendered, + as served)\n", driftChanged, len(d.Changed))
		for _, c := range d.Changed {
			fmt.Fprintf(&b, "  ~ %s\n", c.Ref)
			for _, a := range c.Aspects {
				fmt.Fprintf(&b, "      %s\n", a.Aspect)
				for _, l := range a.Removed {
					fmt.Fprintf(&b, "        - %s\n", l)
				}
				for _, l := range a.Added {
					fmt.Fprintf(&b, "        + %s\n", l)
				}
			}
		}
	}
	refs(driftMissing, "-", d.Missing)
	refs(driftNotRendered, "+", d.NotRendered)
	refs(driftForeign, "!", d.Foreign)
	for _, s := range []struct {
		title, sign string
		refs        []Ref
	}{{driftConflicts, "!", d.Conflicts}, {driftOthers, "=", d.OtherOwners}} {
		if len(s.refs) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s (%d)\n", s.title, len(s.refs))
		for _, a := range s.refs {
			fmt.Fprintf(&b, "  %s %s\n", s.sign, ownedBy(a))
		}
	}
	b.WriteString(d.Summary() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the drift report as an issue or job summary, in diff's markdown layout.
func (d *Drift) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("### gateway2tyk sync --check\n\n")
	fmt.Fprintf(&b, "**%s** (%s): %d changed on the target, %d missing, %d no longer rendered, %d held by another API, "+
		"%d in sync, %d in conflict with another owner's, %d of other owners left alone.\n\n",
		code(d.Target), d.ownersText(), len(d.Changed), len(d.Missing), len(d.NotRendered), len(d.Foreign), d.InSync,
		len(d.Conflicts), len(d.OtherOwners))
	if len(d.Changed) > 0 {
		fmt.Fprintf(&b, "#### %s (%d)\n\n", driftChanged, len(d.Changed))
		folded(&b, len(d.Changed), "changed APIs", func(b *strings.Builder) {
			for _, c := range d.Changed {
				fmt.Fprintf(b, "%s on %s, %s (%s)\n\n```diff\n", code(c.Route), code(c.Gateway),
					code(c.Hostname+c.Path), code(c.ID))
				for _, a := range c.Aspects {
					fmt.Fprintf(b, "# %s (- as rendered, + as served)\n", a.Aspect)
					for _, l := range a.Removed {
						fmt.Fprintf(b, "- %s\n", l)
					}
					for _, l := range a.Added {
						fmt.Fprintf(b, "+ %s\n", l)
					}
				}
				b.WriteString("```\n\n")
			}
		})
	}
	for _, s := range []struct {
		title string
		refs  []Ref
	}{{driftMissing, d.Missing}, {driftNotRendered, d.NotRendered}, {driftForeign, d.Foreign},
		{driftConflicts, d.Conflicts}, {driftOthers, d.OtherOwners}} {
		if len(s.refs) == 0 {
			continue
		}
		fmt.Fprintf(&b, "#### %s (%d)\n\n", s.title, len(s.refs))
		folded(&b, len(s.refs), strings.ToLower(s.title), func(b *strings.Builder) {
			b.WriteString("| Route | Gateway | Hostname | Path | API ID | Owner |\n|---|---|---|---|---|---|\n")
			for _, a := range s.refs {
				fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", code(a.Route), code(a.Gateway), code(a.Hostname),
					code(a.Path), code(a.ID), code(a.Owner))
			}
		})
	}
	b.WriteString(d.Summary() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the drift report as one JSON object, with the summary line and whether it drifted.
func (d *Drift) WriteJSON(w io.Writer) error {
	if d.Owners == nil {
		d.Owners = []string{}
	}
	for _, l := range []*[]Ref{&d.Missing, &d.NotRendered, &d.Foreign, &d.Conflicts, &d.OtherOwners} {
		if *l == nil {
			*l = []Ref{}
		}
	}
	if d.Changed == nil {
		d.Changed = []APIChange{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		*Drift
		Drifted bool   `json:"drifted"`
		Summary string `json:"summary"`
	}{d, d.Drifted(), d.Summary()})
}
