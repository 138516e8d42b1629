package graph

import (
	"fmt"
	"strings"
)

// Colours of the marked states, the same in both syntaxes.
const (
	rejectedColor = "#c62828"
	degradedColor = "#ef6c00"
)

// Mermaid writes the graph as a Mermaid flowchart, for Markdown and pull requests. Labels are double-quoted
// strings in which every character Mermaid could read as syntax is written as an entity code (#quot; and
// the like); lines are joined with <br/>.
func (g *Graph) Mermaid() string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	for _, n := range g.Nodes {
		open, close := mermaidShape(n.Kind)
		fmt.Fprintf(&b, "  %s%s\"%s\"%s\n", n.ID, open, mermaidLabel(n.Lines), close)
	}
	var marked = map[State][]int{}
	for i, e := range g.Edges {
		arrow := "-->"
		if e.State != OK {
			arrow = "-.->"
			marked[e.State] = append(marked[e.State], i)
		}
		if len(e.Lines) > 0 {
			fmt.Fprintf(&b, "  %s %s|\"%s\"| %s\n", e.From, arrow, mermaidLabel(e.Lines), e.To)
		} else {
			fmt.Fprintf(&b, "  %s %s %s\n", e.From, arrow, e.To)
		}
	}
	fmt.Fprintf(&b, "  classDef rejected stroke:%s,stroke-width:2px,stroke-dasharray:5 5,color:%s\n", rejectedColor, rejectedColor)
	fmt.Fprintf(&b, "  classDef degraded stroke:%s,stroke-width:2px,stroke-dasharray:5 5\n", degradedColor)
	for _, s := range []State{Rejected, Degraded} {
		var ids []string
		for _, n := range g.Nodes {
			if n.State == s {
				ids = append(ids, n.ID)
			}
		}
		if len(ids) > 0 {
			fmt.Fprintf(&b, "  class %s %s\n", strings.Join(ids, ","), s)
		}
	}
	for _, s := range []State{Rejected, Degraded} {
		if idx := marked[s]; len(idx) > 0 {
			var parts []string
			for _, i := range idx {
				parts = append(parts, fmt.Sprint(i))
			}
			fmt.Fprintf(&b, "  linkStyle %s stroke:%s,color:%s\n", strings.Join(parts, ","), stateColor(s), stateColor(s))
		}
	}
	return b.String()
}

func stateColor(s State) string {
	if s == Degraded {
		return degradedColor
	}
	return rejectedColor
}

func mermaidShape(k Kind) (string, string) {
	switch k {
	case KindListener:
		return "(", ")"
	case KindRoute:
		return "([", "])"
	case KindAPI:
		return "[[", "]]"
	case KindService, KindBackend:
		return "[(", ")]"
	}
	return "[", "]"
}

// mermaidLabel escapes each line for a double-quoted Mermaid string and joins them with <br/>.
func mermaidLabel(lines []string) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = MermaidEscape(l)
	}
	return strings.Join(parts, "<br/>")
}

// MermaidEscape makes text safe inside a double-quoted Mermaid label: quotes and the characters Mermaid or its
// HTML labels would read as syntax become entity codes, control characters become spaces.
func MermaidEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString("#quot;")
		case '#':
			b.WriteString("#35;")
		case '&':
			b.WriteString("#amp;")
		case '<':
			b.WriteString("#lt;")
		case '>':
			b.WriteString("#gt;")
		case '`':
			b.WriteString("#96;")
		case '|':
			b.WriteString("#124;")
		case ';':
			b.WriteString("#59;")
		case '%':
			b.WriteString("#37;")
		default:
			if r < 0x20 || r == 0x7f {
				b.WriteByte(' ')
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// DOT writes the graph in the Graphviz DOT language. Every ID and label is a double-quoted string with
// backslashes and quotes escaped; lines are joined with \n.
func (g *Graph) DOT() string {
	var b strings.Builder
	b.WriteString("digraph \"gateway2tyk\" {\n")
	b.WriteString("  rankdir=LR;\n")
	b.WriteString("  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n")
	b.WriteString("  edge [fontname=\"Helvetica\", fontsize=9];\n")
	for _, n := range g.Nodes {
		attrs := []string{"label=" + dotLabel(n.Lines)}
		shape, style := dotShape(n.Kind)
		if shape != "" {
			attrs = append(attrs, "shape="+shape)
		}
		switch n.State {
		case Rejected, Degraded:
			style = strings.TrimPrefix(style+",dashed", ",")
			c := DOTQuote(stateColor(n.State))
			attrs = append(attrs, "color="+c, "fontcolor="+c, "penwidth=2")
		}
		if style != "" {
			attrs = append(attrs, "style="+DOTQuote(style))
		}
		fmt.Fprintf(&b, "  %s [%s];\n", DOTQuote(n.ID), strings.Join(attrs, ", "))
	}
	for _, e := range g.Edges {
		var attrs []string
		if len(e.Lines) > 0 {
			attrs = append(attrs, "label="+dotLabel(e.Lines))
		}
		if e.State != OK {
			c := DOTQuote(stateColor(e.State))
			attrs = append(attrs, "style=dashed", "color="+c, "fontcolor="+c)
		}
		if len(attrs) > 0 {
			fmt.Fprintf(&b, "  %s -> %s [%s];\n", DOTQuote(e.From), DOTQuote(e.To), strings.Join(attrs, ", "))
		} else {
			fmt.Fprintf(&b, "  %s -> %s;\n", DOTQuote(e.From), DOTQuote(e.To))
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// dotShape is the shape and base style of a kind ("" for the defaults: a rounded box).
func dotShape(k Kind) (shape, style string) {
	switch k {
	case KindGatewayClass:
		return "box3d", ""
	case KindGateway:
		return "box", "bold"
	case KindListener:
		return "ellipse", ""
	case KindAPI:
		return "component", ""
	case KindService, KindBackend:
		return "cylinder", ""
	}
	return "", "rounded"
}

func dotLabel(lines []string) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = dotEscape(l)
	}
	return "\"" + strings.Join(parts, `\n`) + "\""
}

// DOTQuote is s as a DOT double-quoted string.
func DOTQuote(s string) string { return "\"" + dotEscape(s) + "\"" }

// dotEscape escapes backslashes (so that no \n, \l or \N of the input is read as a DOT escape) and quotes,
// and turns control characters into spaces.
func dotEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
