package apidiff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// collapseAfter is the length of a list above which the markdown report folds it into <details>, so that a
// pull request comment stays short.
const collapseAfter = 10

// WriteMarkdown writes the report as a pull request comment: risks first, tables of APIs, changes as diff
// blocks, long lists folded, the summary last.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("### gateway2tyk diff\n\n")
	fmt.Fprintf(&b, "**APIs:** %d added, %d removed, %d changed, %d unchanged. **Status changes:** %d %s.\n\n",
		len(r.Added), len(r.Removed), len(r.Changed), r.Unchanged, len(r.Status), plural(len(r.Status), "object", "objects"))
	if len(r.Risks) > 0 {
		fmt.Fprintf(&b, "#### :warning: Risky changes (%d, %d failing)\n\n", len(r.Risks), r.Failing)
		folded(&b, len(r.Risks), "risky changes", func(b *strings.Builder) {
			for _, risk := range r.Risks {
				fails := ""
				if risk.Failing {
					fails = " (fails the check)"
				}
				fmt.Fprintf(b, "- **%s**%s: %s\n", risk.Kind, fails, code(risk.Subject))
			}
		})
	}
	refTable := func(title string, refs []Ref) {
		if len(refs) == 0 {
			return
		}
		fmt.Fprintf(&b, "#### %s (%d)\n\n", title, len(refs))
		folded(&b, len(refs), strings.ToLower(title[:1])+title[1:], func(b *strings.Builder) {
			b.WriteString("| Route | Gateway | Hostname | Path | API ID |\n|---|---|---|---|---|\n")
			for _, a := range refs {
				path := code(a.Path)
				if w := a.RoleWords(); w != "" {
					path += " (" + w + ")"
				}
				fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", code(a.Route), code(a.Gateway), code(a.Hostname),
					path, code(a.ID))
			}
		})
	}
	refTable("Removed APIs", r.Removed)
	refTable("Added APIs", r.Added)
	if len(r.Changed) > 0 {
		fmt.Fprintf(&b, "#### Changed APIs (%d)\n\n", len(r.Changed))
		folded(&b, len(r.Changed), "changed APIs", func(b *strings.Builder) {
			for _, c := range r.Changed {
				fmt.Fprintf(b, "%s on %s, %s (%s)\n\n```diff\n", code(c.Route), code(c.Gateway),
					code(c.Hostname+c.Path), code(c.ID))
				for _, a := range c.Aspects {
					risk := ""
					if a.Risk != "" {
						risk = "   [risk: " + string(a.Risk) + "]"
					}
					fmt.Fprintf(b, "# %s%s\n", a.Aspect, risk)
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
	if len(r.Status) > 0 {
		fmt.Fprintf(&b, "#### Status changes (%d %s)\n\n", len(r.Status), plural(len(r.Status), "object", "objects"))
		folded(&b, len(r.Status), "status changes", func(b *strings.Builder) {
			for _, s := range r.Status {
				fmt.Fprintf(b, "- %s\n", code(s.Object.String()))
				for _, c := range s.Changes {
					risk := ""
					if c.Risk != "" {
						risk = " **" + string(c.Risk) + "**"
					}
					fmt.Fprintf(b, "  - %s: %s → %s%s\n", c.Subject, code(c.Old), code(c.New), risk)
				}
			}
		})
	}
	if n := len(r.Results.Appeared) + len(r.Results.Disappeared); n > 0 {
		fmt.Fprintf(&b, "#### Results (%d appeared, %d disappeared)\n\n", len(r.Results.Appeared), len(r.Results.Disappeared))
		folded(&b, n, "results", func(b *strings.Builder) {
			b.WriteString("```diff\n")
			for _, l := range r.Results.Disappeared {
				fmt.Fprintf(b, "- %s\n", l)
			}
			for _, l := range r.Results.Appeared {
				fmt.Fprintf(b, "+ %s\n", l)
			}
			b.WriteString("```\n\n")
		})
	}
	b.WriteString(r.Summary() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// folded writes a list as it is when it is short, inside a collapsed <details> when it is long.
func folded(b *strings.Builder, n int, what string, body func(*strings.Builder)) {
	if n <= collapseAfter {
		body(b)
		b.WriteString("\n")
		return
	}
	fmt.Fprintf(b, "<details><summary>%d %s</summary>\n\n", n, what)
	body(b)
	b.WriteString("\n</details>\n\n")
}

// code writes s as inline code that survives a table cell: a pipe is escaped, and the fence is longer than
// any run of backticks in s.
func code(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// WriteJSON writes the report as one JSON object, with the summary line.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		*Report
		Summary string `json:"summary"`
	}{r, r.Summary()})
}
