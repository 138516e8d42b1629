// Package graph draws the topology of a render: GatewayClass → Gateways → listeners → routes → APIs →
// Services, as Mermaid or Graphviz DOT.
//
// It is a read-only view of the render's decisions (attachment.Result and translate.Output): it never decides
// anything itself. A route is drawn from the listeners it attaches to when its final Accepted condition for
// that parent is True, and from its Gateway, with the reason on the edge, when it is not. Whatever is not as
// it should be (a class, Gateway or listener that is not accepted, a rejected route, an unresolved backend) is
// marked: Rejected (red, dashed) when it is not served at all, Degraded (orange, dashed) when it is served in
// part.
package graph

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/status"
	"github.com/gateway2tyk/gateway2tyk/fn/translate"
)

// Kind is what a node stands for.
type Kind string

// The kinds of node, in the order the writers declare them.
const (
	KindGatewayClass Kind = "GatewayClass"
	KindGateway      Kind = "Gateway"
	KindListener     Kind = "Listener"
	KindRoute        Kind = "HTTPRoute"
	KindAPI          Kind = "API"
	KindService      Kind = "Service"
	// KindBackend is a backendRef that does not resolve to a Service.
	KindBackend Kind = "Backend"
)

var kindOrder = map[Kind]int{KindGatewayClass: 0, KindGateway: 1, KindListener: 2, KindRoute: 3, KindAPI: 4,
	KindService: 5, KindBackend: 6}

// State is how a node or an edge is drawn.
type State int

const (
	// OK is drawn plain.
	OK State = iota
	// Degraded is served in part (a listener with an unresolved reference, a partially invalid route).
	Degraded
	// Rejected is not served at all (not accepted, conflicted, unresolved).
	Rejected
)

func (s State) String() string {
	switch s {
	case Degraded:
		return "degraded"
	case Rejected:
		return "rejected"
	}
	return "ok"
}

// Node is one object of the topology. Lines are plain text, unescaped: the writers escape them.
type Node struct {
	ID    string
	Kind  Kind
	Lines []string
	State State
}

// Edge connects two declared nodes, with optional label lines (plain text).
type Edge struct {
	From, To string
	Lines    []string
	State    State
}

// Graph is the topology, nodes in declaration order (by kind, then by name) and edges sorted by their ends.
type Graph struct {
	Nodes []Node
	Edges []Edge
}

// SafeID is the pattern every node ID matches: valid unquoted in both Mermaid and DOT, never a keyword of
// either (every ID has a kind prefix and an underscore).
var SafeID = regexp.MustCompile(`^[a-z]+_[A-Za-z0-9_]+$`)

// builder assigns IDs and collects nodes and edges.
type builder struct {
	nodes    []Node
	keyOrder []string // the key of each node, for sorting
	byKey    map[string]int
	usedIDs  map[string]bool
	edges    []Edge
	edgeSeen map[string]bool
}

// Build draws the topology of a render from its decisions.
func Build(att *attachment.Result, tr *translate.Output) *Graph {
	b := &builder{byKey: map[string]int{}, usedIDs: map[string]bool{}, edgeSeen: map[string]bool{}}
	if att == nil {
		return &Graph{}
	}

	classNames := make([]string, 0, len(att.Classes))
	for name := range att.Classes {
		classNames = append(classNames, name)
	}
	sort.Strings(classNames)
	for _, name := range classNames {
		b.class(att.Classes[name])
	}
	for _, g := range att.Gateways {
		b.gateway(g)
	}

	final := map[*attachment.Route][][]metav1.Condition{}
	if tr != nil {
		for _, r := range tr.Routes {
			final[r.Route] = r.Conditions
		}
	}
	for _, r := range att.Routes {
		b.route(r, final[r])
	}
	for _, m := range att.MissingParents {
		b.missingParent(m)
	}
	if tr != nil {
		for _, api := range tr.APIs {
			b.api(api)
		}
	}
	return b.graph()
}

func (b *builder) class(c *attachment.Class) {
	n := Node{Kind: KindGatewayClass, Lines: []string{"GatewayClass " + c.Class.Name}}
	if !c.Accepted {
		n.State = Rejected
		n.Lines = append(n.Lines, problemLines(c.Conditions, string(gwv1.GatewayClassConditionStatusAccepted))...)
	}
	b.node("gc", c.Class.Name, n)
}

func (b *builder) gateway(g *attachment.Gateway) {
	key := g.Key().String()
	n := Node{Kind: KindGateway, Lines: []string{"Gateway " + key}}
	var addrs []string
	for _, a := range g.Addresses {
		addrs = append(addrs, a.Value)
	}
	if len(addrs) > 0 {
		n.Lines = append(n.Lines, strings.Join(addrs, ", "))
	}
	if own, dp := g.Infrastructure.Service, g.Infrastructure.DataPlane; own != nil && dp != nil && own != dp {
		// a Gateway's own Service (gateway-api profile): its listeners reach the Tyk Pods on ports of their own,
		// which the API nodes name (Tyk port)
		n.Lines = append(n.Lines, fmt.Sprintf("own Service %s/%s", own.Namespace, own.Name))
	}
	if bad := problemLines(g.Conditions, string(gwv1.GatewayConditionAccepted), string(gwv1.GatewayConditionProgrammed)); len(bad) > 0 || !g.Usable {
		n.State = Rejected
		n.Lines = append(n.Lines, bad...)
	}
	gwID := b.node("gw", key, n)
	if g.Class != nil {
		if classID, ok := b.id("gc", g.Class.Class.Name); ok {
			b.edge(Edge{From: classID, To: gwID})
		}
	}
	for _, l := range g.AllListeners() {
		name := "listener " + string(l.Listener.Name)
		if l.Set != nil {
			name += " of " + l.Set.Description()
		}
		ln := Node{Kind: KindListener, Lines: append([]string{name, listenerAddress(l)}, clientCALines(l)...)}
		bad := problemLines(l.Conditions, string(gwv1.ListenerConditionAccepted), string(gwv1.ListenerConditionConflicted),
			string(gwv1.ListenerConditionResolvedRefs), string(gwv1.ListenerConditionProgrammed))
		switch {
		case !l.Serving:
			ln.State = Rejected
		case !l.Valid:
			ln.State = Degraded
		}
		if ln.State != OK {
			ln.Lines = append(ln.Lines, bad...)
		}
		lID := b.node("l", listenerKey(g, l), ln)
		b.edge(Edge{From: gwID, To: lID})
	}
}

// clientCALines say that a listener takes only clients whose certificate a CA of these ConfigMaps signed (its
// Gateway's spec.tls.frontend), one line per ConfigMap.
func clientCALines(l *attachment.Listener) []string {
	var out []string
	for _, cm := range l.ClientCAConfigMaps() {
		out = append(out, "client certificate: a CA of ConfigMap "+cm.String())
	}
	return out
}

func listenerKey(g *attachment.Gateway, l *attachment.Listener) string {
	if l.Set != nil { // listener names are unique within a Gateway or a ListenerSet only
		return g.Key().String() + "/" + l.Set.Key().String() + "/" + string(l.Listener.Name)
	}
	return g.Key().String() + "/" + string(l.Listener.Name)
}

func listenerAddress(l *attachment.Listener) string {
	s := fmt.Sprintf("%s :%d", l.Listener.Protocol, l.Listener.Port)
	if h := l.Hostname(); h != "" {
		s += " " + h
	}
	return s
}

// route draws a route and its attachment to each parent, with conds the final conditions of each parent (nil
// when the translation did not see the route: then attachment's Accepted is the final one).
func (b *builder) route(r *attachment.Route, conds [][]metav1.Condition) {
	key := r.Route.Namespace + "/" + r.Route.Name
	accepted := string(gwv1.RouteConditionAccepted)
	parentConds := func(i int) []metav1.Condition {
		if i < len(conds) {
			return conds[i]
		}
		return []metav1.Condition{r.Parents[i].Accepted, r.ResolvedRefs}
	}

	n := Node{Kind: KindRoute, Lines: []string{"HTTPRoute " + key}}
	nAccepted := 0
	var rejections []metav1.Condition
	var partial *metav1.Condition
	for i := range r.Parents {
		c := parentConds(i)
		if status.IsTrue(c, accepted) {
			nAccepted++
			if p := status.Find(c, string(gwv1.RouteConditionPartiallyInvalid)); p != nil && p.Status == metav1.ConditionTrue && partial == nil {
				partial = p
			}
		} else if a := status.Find(c, accepted); a != nil {
			rejections = append(rejections, *a)
		}
	}
	switch {
	case len(r.Parents) > 0 && nAccepted == len(r.Parents):
		n.Lines = append(n.Lines, "Accepted")
	case nAccepted == 0:
		n.State = Rejected
		line := "not Accepted"
		if len(rejections) > 0 && sameReason(rejections) {
			line = "Accepted False: " + rejections[0].Reason
		}
		n.Lines = append(n.Lines, line)
	default:
		n.State = Degraded
		n.Lines = append(n.Lines, fmt.Sprintf("Accepted by %d of %d parents", nAccepted, len(r.Parents)))
	}
	if partial != nil {
		n.State = max(n.State, Degraded)
		n.Lines = append(n.Lines, "PartiallyInvalid: "+partial.Reason, Short(partial.Message))
	}
	if r.ResolvedRefs.Type != "" && r.ResolvedRefs.Status != metav1.ConditionTrue {
		n.State = max(n.State, Degraded)
		n.Lines = append(n.Lines, "ResolvedRefs False: "+r.ResolvedRefs.Reason)
	}
	rID := b.node("r", key, n)

	for i, p := range r.Parents {
		gwID, ok := b.id("gw", p.Gateway.Key().String())
		if !ok {
			continue
		}
		c := parentConds(i)
		if status.IsTrue(c, accepted) && len(p.Listeners) > 0 {
			for _, al := range p.Listeners {
				if lID, ok := b.id("l", listenerKey(p.Gateway, al.Listener)); ok {
					b.edge(Edge{From: lID, To: rID})
				}
			}
			continue
		}
		e := Edge{From: gwID, To: rID, State: Rejected}
		if a := status.Find(c, accepted); a != nil {
			e.Lines = []string{"Accepted " + string(a.Status) + ": " + a.Reason, Short(a.Message)}
		}
		b.edge(e)
	}
}

// missingParent draws a parentRef to a Gateway that is not in the input (a typo, or the Gateway left out): the
// route attaches to nothing through it, which the graph would otherwise not show at all.
func (b *builder) missingParent(m attachment.MissingParent) {
	key := m.Route.Namespace + "/" + m.Route.Name
	rID := b.node("r", key, Node{Kind: KindRoute, State: Rejected, Lines: []string{"HTTPRoute " + key, "attached to nothing"}})
	gwID := b.node("gw", m.Gateway.String(), Node{Kind: KindGateway, State: Rejected,
		Lines: []string{"Gateway " + m.Gateway.String(), "not in the input"}})
	b.edge(Edge{From: gwID, To: rID, State: Rejected, Lines: []string{fmt.Sprintf("spec.parentRefs[%d]", m.Index)}})
}

func sameReason(cs []metav1.Condition) bool {
	for _, c := range cs[1:] {
		if c.Reason != cs[0].Reason {
			return false
		}
	}
	return true
}

func (b *builder) api(api *translate.API) {
	host := api.Hostname
	if host == "" {
		host = "(any host)"
	}
	where := host + " " + api.Path
	switch {
	case api.Regex:
		where += " (RegularExpression)"
	case api.Exact:
		where += " (Exact)" // beside the PathPrefix of the same value, which is another API
	}
	if p := api.TykPort(); p != 0 {
		where += fmt.Sprintf(", Tyk port %d", p) // a listener's own port (gateway-api profile), not listen_port
	}
	lines := []string{"API " + api.ID, where}
	switch api.Role {
	case translate.RoleRouter:
		lines = append(lines, "router: sends each request to the rule whose match takes it")
	case translate.RoleInternal:
		line := fmt.Sprintf("internal: spec.rules[%d], reached through the router", api.Rules[0])
		if part := api.Part(); part != "" {
			line += ", for " + part // which requests of the rule (a CORS filter's preflights, ...)
		}
		lines = append(lines, line)
	case translate.RoleNoRule:
		lines = append(lines, "internal: 404 for what no rule matches")
	}
	n := Node{Kind: KindAPI, Lines: lines}
	apiID := b.node("api", api.ID, n)
	r := api.Route
	if rID, ok := b.id("r", r.Route.Namespace+"/"+r.Route.Name); ok {
		b.edge(Edge{From: rID, To: apiID})
	}
	for _, rule := range api.Rules {
		if rule < 0 || rule >= len(r.Backends) {
			continue
		}
		backends := r.Backends[rule]
		for _, be := range backends {
			var e Edge
			if len(backends) > 1 {
				w := int32(1)
				if be.Ref.Weight != nil {
					w = *be.Ref.Weight
				}
				e.Lines = []string{fmt.Sprintf("weight %d", w)}
			}
			if be.H2C {
				e.Lines = append(e.Lines, "h2c (HTTP/2 without TLS)") // else Tyk speaks HTTP/1.1 to it
			}
			e.From = apiID
			e.To = b.backend(be)
			if !be.Resolved() {
				e.State = Rejected
			}
			b.edge(e)
		}
	}
}

// backend declares the node of a backendRef: its Service when it resolves, else a marked node with the reason.
func (b *builder) backend(be attachment.Backend) string {
	ref := be.Ref.BackendRef.BackendObjectReference
	name := be.Namespace + "/" + string(ref.Name)
	if ref.Port != nil {
		name += fmt.Sprintf(":%d", *ref.Port)
	}
	if be.Resolved() {
		return b.node("svc", name, Node{Kind: KindService, Lines: []string{"Service " + name}})
	}
	kind := "Service"
	if ref.Kind != nil {
		kind = string(*ref.Kind)
	}
	if ref.Group != nil && *ref.Group != "" {
		kind = string(*ref.Group) + "/" + kind
	}
	n := Node{Kind: KindBackend, State: Rejected, Lines: []string{
		kind + " " + name, "ResolvedRefs False: " + string(be.Reason), Short(be.Message)}}
	return b.node("be", kind+" "+name+" "+string(be.Reason), n)
}

// problemLines describes the first condition of the given types (in that order) that is not as it should be:
// its type, status and reason, and its message shortened. Conflicted is the one type that should be False.
func problemLines(conds []metav1.Condition, types ...string) []string {
	for _, typ := range types {
		c := status.Find(conds, typ)
		if c == nil {
			continue
		}
		want := metav1.ConditionTrue
		if typ == string(gwv1.ListenerConditionConflicted) {
			want = metav1.ConditionFalse
		}
		if c.Status != want {
			return []string{typ + " " + string(c.Status) + ": " + c.Reason, Short(c.Message)}
		}
	}
	return nil
}

// MaxMessage is the length, in characters, at which messages in labels are cut.
const MaxMessage = 72

// Short is a message on one line, cut at MaxMessage characters.
func Short(msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	if utf8.RuneCountInString(msg) <= MaxMessage {
		return msg
	}
	r := []rune(msg)
	return strings.TrimRight(string(r[:MaxMessage-1]), " ") + "…"
}

// node declares a node under a key unique within its prefix and returns its ID; a key declared before keeps
// its node.
func (b *builder) node(prefix, key string, n Node) string {
	full := prefix + "\x00" + key
	if i, ok := b.byKey[full]; ok {
		return b.nodes[i].ID
	}
	base := prefix + "_" + sanitize(key)
	id := base
	for k := 2; b.usedIDs[id]; k++ {
		id = fmt.Sprintf("%s_%d", base, k)
	}
	b.usedIDs[id] = true
	n.ID = id
	var lines []string
	for _, l := range n.Lines {
		if l != "" {
			lines = append(lines, l)
		}
	}
	n.Lines = lines
	b.byKey[full] = len(b.nodes)
	b.nodes = append(b.nodes, n)
	b.keyOrder = append(b.keyOrder, key)
	return id
}

func (b *builder) id(prefix, key string) (string, bool) {
	i, ok := b.byKey[prefix+"\x00"+key]
	if !ok {
		return "", false
	}
	return b.nodes[i].ID, true
}

func (b *builder) edge(e Edge) {
	var lines []string
	for _, l := range e.Lines {
		if l != "" {
			lines = append(lines, l)
		}
	}
	e.Lines = lines
	k := e.From + "\x00" + e.To + "\x00" + strings.Join(e.Lines, "\n")
	if b.edgeSeen[k] {
		return
	}
	b.edgeSeen[k] = true
	b.edges = append(b.edges, e)
}

// graph sorts the nodes by kind and key (listeners keep their order within a Gateway) and the edges by the
// positions of their ends, so that the output does not depend on the order of the input.
func (b *builder) graph() *Graph {
	idx := make([]int, len(b.nodes))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, c := b.nodes[idx[i]], b.nodes[idx[j]]
		if kindOrder[a.Kind] != kindOrder[c.Kind] {
			return kindOrder[a.Kind] < kindOrder[c.Kind]
		}
		if a.Kind == KindListener {
			return false // declared per Gateway, in the Gateway's (sorted) order and the spec's listener order
		}
		return b.keyOrder[idx[i]] < b.keyOrder[idx[j]]
	})
	g := &Graph{}
	pos := map[string]int{}
	for p, i := range idx {
		g.Nodes = append(g.Nodes, b.nodes[i])
		pos[b.nodes[i].ID] = p
	}
	g.Edges = append(g.Edges, b.edges...)
	sort.SliceStable(g.Edges, func(i, j int) bool {
		a, c := g.Edges[i], g.Edges[j]
		if pos[a.From] != pos[c.From] {
			return pos[a.From] < pos[c.From]
		}
		if pos[a.To] != pos[c.To] {
			return pos[a.To] < pos[c.To]
		}
		return strings.Join(a.Lines, "\n") < strings.Join(c.Lines, "\n")
	})
	return g
}

// sanitize keeps ASCII letters and digits and turns every other character into an underscore.
func sanitize(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			sb.WriteRune(r)
		} else {
			sb.WriteByte('_')
		}
	}
	if sb.Len() == 0 {
		return "_"
	}
	return sb.String()
}
