// Package graphtest owns the test-time checks of the graphs that package graph writes: a line grammar of the
// Mermaid flowcharts and of the DOT digraphs (each statement parsed, labels decoded back to their text), and
// the real tools where they are installed: Graphviz `dot -Tsvg`, and Mermaid's own parser under Node. It is
// for tests only; production code must not import it.
package graphtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gateway2tyk/gateway2tyk/fn/graph"
)

// Parsed is a graph read back from its text: node labels decoded into lines, edges, and styling.
type Parsed struct {
	// Nodes are the node IDs in declaration order.
	Nodes []string
	// Labels are the decoded label lines of each node.
	Labels map[string][]string
	// Shapes are the shapes (Mermaid: the opening bracket; DOT: the shape attribute).
	Shapes map[string]string
	Edges  []ParsedEdge
	// Classes are the nodes of each Mermaid class ("rejected", "degraded").
	Classes map[string][]string
	// Attrs are the attributes of each DOT node.
	Attrs map[string]map[string]string
}

// ParsedEdge is one edge read back.
type ParsedEdge struct {
	From, To string
	Lines    []string
	// Dashed is a Mermaid dotted arrow, or DOT style=dashed.
	Dashed bool
	// Color is the Mermaid linkStyle stroke, or the DOT color ("" when unset).
	Color string
	Attrs map[string]string
}

// Mermaid's lines, as package graph writes them.
var (
	mmNode      = regexp.MustCompile(`^  ([a-z]+_[A-Za-z0-9_]+)(\[\[|\[\(|\(\[|\[|\()"([^"]*)"(\]\]|\)\]|\]\)|\]|\))$`)
	mmEdge      = regexp.MustCompile(`^  ([a-z]+_[A-Za-z0-9_]+) (-->|-\.->)(?:\|"([^"]*)"\|)? ([a-z]+_[A-Za-z0-9_]+)$`)
	mmClassDef  = regexp.MustCompile(`^  classDef ([a-z]+) ([a-z-]+:[#A-Za-z0-9. ]+)(,[a-z-]+:[#A-Za-z0-9. ]+)*$`)
	mmClass     = regexp.MustCompile(`^  class ([a-z]+_[A-Za-z0-9_]+(?:,[a-z]+_[A-Za-z0-9_]+)*) ([a-z]+)$`)
	mmLinkStyle = regexp.MustCompile(`^  linkStyle (\d+(?:,\d+)*) stroke:(#[0-9a-f]{6}),color:#[0-9a-f]{6}$`)
	mmEntity    = regexp.MustCompile(`#([a-z]+|[0-9]+);`)
	closing     = map[string]string{"[": "]", "(": ")", "([": "])", "[[": "]]", "[(": ")]"}
)

// ParseMermaid reads a flowchart by the line grammar of package graph's writer: the header `flowchart LR`,
// then node, edge, classDef, class and linkStyle lines. It checks what a Mermaid parser would reject or
// misread: a label with a raw quote, a bracket pair that does not close, an edge or class naming an
// undeclared node, a class that is not defined, a linkStyle past the last edge, a # that is not an entity.
func ParseMermaid(text string) (*Parsed, error) {
	if !strings.HasSuffix(text, "\n") {
		return nil, errors.New("the text does not end with a newline")
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if lines[0] != "flowchart LR" {
		return nil, fmt.Errorf("line 1: %q, want the header %q", lines[0], "flowchart LR")
	}
	p := &Parsed{Labels: map[string][]string{}, Shapes: map[string]string{}, Classes: map[string][]string{}}
	defined := map[string]bool{}
	var styled [][2]string // linkStyle indexes and colours, checked at the end
	for i, line := range lines[1:] {
		n := i + 2
		switch {
		case mmNode.MatchString(line):
			m := mmNode.FindStringSubmatch(line)
			if closing[m[2]] != m[4] {
				return nil, fmt.Errorf("line %d: node %s opens with %s and closes with %s", n, m[1], m[2], m[4])
			}
			if _, dup := p.Labels[m[1]]; dup {
				return nil, fmt.Errorf("line %d: node %s declared twice", n, m[1])
			}
			if len(p.Edges) > 0 {
				return nil, fmt.Errorf("line %d: node %s declared after the first edge", n, m[1])
			}
			label, err := decodeMermaid(m[3])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			p.Nodes = append(p.Nodes, m[1])
			p.Labels[m[1]], p.Shapes[m[1]] = label, m[2]
		case mmEdge.MatchString(line):
			m := mmEdge.FindStringSubmatch(line)
			for _, id := range []string{m[1], m[4]} {
				if _, ok := p.Labels[id]; !ok {
					return nil, fmt.Errorf("line %d: edge end %s is not a declared node", n, id)
				}
			}
			e := ParsedEdge{From: m[1], To: m[4], Dashed: m[2] == "-.->"}
			if strings.Contains(line, `|"`) {
				label, err := decodeMermaid(m[3])
				if err != nil {
					return nil, fmt.Errorf("line %d: %w", n, err)
				}
				e.Lines = label
			}
			p.Edges = append(p.Edges, e)
		case mmClassDef.MatchString(line):
			defined[mmClassDef.FindStringSubmatch(line)[1]] = true
		case mmClass.MatchString(line):
			m := mmClass.FindStringSubmatch(line)
			if !defined[m[2]] {
				return nil, fmt.Errorf("line %d: class %s is not defined by a classDef before it", n, m[2])
			}
			for _, id := range strings.Split(m[1], ",") {
				if _, ok := p.Labels[id]; !ok {
					return nil, fmt.Errorf("line %d: class of %s, which is not a declared node", n, id)
				}
				p.Classes[m[2]] = append(p.Classes[m[2]], id)
			}
		case mmLinkStyle.MatchString(line):
			m := mmLinkStyle.FindStringSubmatch(line)
			styled = append(styled, [2]string{m[1], m[2]})
		default:
			return nil, fmt.Errorf("line %d: %q is not a node, edge, classDef, class or linkStyle line", n, line)
		}
	}
	for _, s := range styled {
		for _, is := range strings.Split(s[0], ",") {
			i, _ := strconv.Atoi(is)
			if i >= len(p.Edges) {
				return nil, fmt.Errorf("linkStyle %d: there are %d edges", i, len(p.Edges))
			}
			p.Edges[i].Color = s[1]
		}
	}
	return p, nil
}

// decodeMermaid splits a label into its lines and decodes the entity codes, refusing the characters that
// must have been written as entities.
func decodeMermaid(label string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(label, "<br/>") {
		rest := mmEntity.ReplaceAllString(part, "")
		if i := strings.IndexAny(rest, "\"<>`|;%\n\r\t"); i >= 0 {
			return nil, fmt.Errorf("label %q holds %q, which must be an entity code", label, rest[i])
		}
		if strings.Contains(rest, "#") {
			return nil, fmt.Errorf("label %q holds a # that does not start an entity code", label)
		}
		var err error
		text := mmEntity.ReplaceAllStringFunc(part, func(e string) string {
			name := e[1 : len(e)-1]
			if n, convErr := strconv.Atoi(name); convErr == nil {
				return string(rune(n))
			}
			if r, ok := map[string]string{"quot": `"`, "amp": "&", "lt": "<", "gt": ">"}[name]; ok {
				return r
			}
			err = fmt.Errorf("label %q: unknown entity %s", label, e)
			return e
		})
		if err != nil {
			return nil, err
		}
		out = append(out, text)
	}
	return out, nil
}

// DOT's statements, as package graph writes them.
var (
	dotQuoted = `"(?:[^"\\]|\\.)*"`
	dotNode   = regexp.MustCompile(`^  (` + dotQuoted + `) \[(.*)\];$`)
	dotEdge   = regexp.MustCompile(`^  (` + dotQuoted + `) -> (` + dotQuoted + `)(?: \[(.*)\])?;$`)
	dotAttr   = regexp.MustCompile(`^([a-z]+)=(` + dotQuoted + `|[A-Za-z0-9_.]+)(?:, |$)`)
)

// ParseDOT reads a digraph by the statement grammar of package graph's writer: `digraph "gateway2tyk" {`,
// the graph, node and edge defaults, one node or edge statement a line, `}`. Every ID must match
// graph.SafeID, every edge end must be a declared node, and every string must be properly quoted.
func ParseDOT(text string) (*Parsed, error) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) < 5 || lines[0] != `digraph "gateway2tyk" {` || lines[len(lines)-1] != "}" {
		return nil, errors.New(`want digraph "gateway2tyk" { ... } around the statements`)
	}
	p := &Parsed{Labels: map[string][]string{}, Shapes: map[string]string{}, Attrs: map[string]map[string]string{}}
	for i, line := range lines[1 : len(lines)-1] {
		n := i + 2
		switch {
		case line == "  rankdir=LR;" || strings.HasPrefix(line, "  node [") || strings.HasPrefix(line, "  edge ["):
			if i > 2 {
				return nil, fmt.Errorf("line %d: defaults after the first statement", n)
			}
		case dotEdge.MatchString(line):
			m := dotEdge.FindStringSubmatch(line)
			e := ParsedEdge{}
			for j, q := range []string{m[1], m[2]} {
				id := unquoteDOT(q)
				if _, ok := p.Labels[id]; !ok {
					return nil, fmt.Errorf("line %d: edge end %s is not a declared node", n, q)
				}
				if j == 0 {
					e.From = id
				} else {
					e.To = id
				}
			}
			attrs, err := parseAttrs(m[3])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			e.Attrs, e.Dashed, e.Color = attrs, attrs["style"] == "dashed", attrs["color"]
			if l, ok := attrs["label"]; ok {
				e.Lines = labelLines(l)
			}
			p.Edges = append(p.Edges, e)
		case dotNode.MatchString(line):
			m := dotNode.FindStringSubmatch(line)
			id := unquoteDOT(m[1])
			if !graph.SafeID.MatchString(id) {
				return nil, fmt.Errorf("line %d: node ID %q does not match %s", n, id, graph.SafeID)
			}
			if _, dup := p.Labels[id]; dup {
				return nil, fmt.Errorf("line %d: node %s declared twice", n, id)
			}
			attrs, err := parseAttrs(m[2])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			l, ok := attrs["label"]
			if !ok {
				return nil, fmt.Errorf("line %d: node %s has no label", n, id)
			}
			p.Nodes = append(p.Nodes, id)
			p.Labels[id], p.Shapes[id], p.Attrs[id] = labelLines(l), attrs["shape"], attrs
		default:
			return nil, fmt.Errorf("line %d: %q is not a node or edge statement", n, line)
		}
	}
	return p, nil
}

func parseAttrs(s string) (map[string]string, error) {
	out := map[string]string{}
	for s != "" {
		m := dotAttr.FindStringSubmatch(s)
		if m == nil {
			return nil, fmt.Errorf("attributes %q: not key=value pairs separated by \", \"", s)
		}
		v := m[2]
		if strings.HasPrefix(v, `"`) {
			v = unquoteDOT(v)
		}
		out[m[1]] = v
		s = s[len(m[0]):]
	}
	return out, nil
}

// unquoteDOT undoes the lexical quoting of a DOT string: only \" is an escape there; every other backslash
// stays for the escString of a label.
func unquoteDOT(q string) string {
	s := q[1 : len(q)-1]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			if s[i+1] == '"' {
				b.WriteByte('"')
			} else {
				b.WriteString(s[i : i+2])
			}
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// labelLines reads a label as Graphviz does: \n, \l and \r end a line and \\ is a backslash.
func labelLines(s string) []string {
	var out []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n', 'l', 'r':
				out = append(out, b.String())
				b.Reset()
			default:
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return append(out, b.String())
}

// DotSVG renders a DOT text with the real Graphviz `dot -Tsvg` and returns the SVG; it fails t on any error or
// warning of dot, and skips t when dot is not on PATH.
func DotSVG(t testing.TB, dot string) []byte {
	t.Helper()
	bin, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("SKIPPED: Graphviz `dot` is not on PATH (install it with `apt-get install graphviz`; .ci/run does)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-Tsvg")
	cmd.Stdin = strings.NewReader(dot)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("dot -Tsvg: %v\n%s\ninput:\n%s", err, stderr.Bytes(), dot)
	}
	if stderr.Len() > 0 {
		t.Fatalf("dot -Tsvg warned:\n%s\ninput:\n%s", stderr.Bytes(), dot)
	}
	if !bytes.Contains(stdout.Bytes(), []byte("<svg")) {
		t.Fatalf("dot -Tsvg printed no SVG:\n%s", stdout.Bytes())
	}
	return stdout.Bytes()
}

// MermaidPackages are the npm packages MermaidJS runs, pinned; make test installs them into bin/mermaid-js (make bin/mermaid-js).
const MermaidPackages = "mermaid@11.17.2 jsdom@29.1.1"

// mermaidScript parses each diagram of a JSON array on stdin with mermaid.parse and prints one line per
// diagram: "ok" or the parser's error.
const mermaidScript = `
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';
const require = createRequire(path.join(process.argv[2], 'package.json'));
const { JSDOM } = require('jsdom');
const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import(pathToFileURL(require.resolve('mermaid')).href);
mermaid.initialize({ startOnLoad: false });
const diagrams = JSON.parse(fs.readFileSync(0, 'utf8'));
for (const d of diagrams) {
  try { await mermaid.parse(d); console.log('ok'); }
  catch (e) { console.log(JSON.stringify(String(e && e.message || e))); }
}
`

// MermaidJS parses each diagram with Mermaid's own parser (mermaid.parse under Node, with jsdom for the DOM it
// expects) and fails t on a parse error. It skips t when node is not on PATH or the packages are not
// installed in $MERMAID_JS_DIR (default: <repository>/bin/mermaid-js, where .ci/run installs them with
// `npm install --prefix bin/mermaid-js mermaid jsdom`). It never reaches the network.
func MermaidJS(t testing.TB, diagrams ...string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("SKIPPED: node is not on PATH, so Mermaid's own parser cannot run (the line grammar still checks the syntax)")
	}
	dir := os.Getenv("MERMAID_JS_DIR")
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			t.Skipf("SKIPPED: %v", err)
		}
		dir = filepath.Join(root, "bin", "mermaid-js")
	}
	for _, pkg := range []string{"mermaid", "jsdom"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
			t.Skipf("SKIPPED: npm package %s is not installed in %s (npm install --prefix %s %s)", pkg, dir, dir, MermaidPackages)
		}
	}
	script := filepath.Join(t.TempDir(), "parse.mjs")
	if err := os.WriteFile(script, []byte(mermaidScript), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := json.Marshal(diagrams)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, dir)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node (mermaid.parse): %v\n%s", err, stderr.Bytes())
	}
	answers := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(answers) != len(diagrams) {
		t.Fatalf("mermaid.parse answered %d times for %d diagrams:\n%s\n%s", len(answers), len(diagrams), stdout.Bytes(), stderr.Bytes())
	}
	for i, a := range answers {
		if a != "ok" {
			t.Errorf("mermaid.parse rejects diagram %d: %s\n%s", i, a, diagrams[i])
		}
	}
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the working directory")
		}
		dir = parent
	}
}
