package translate

import (
	"regexp"
	"sort"
	"strings"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
)

// Gateway API gives a request to the most specific listener whose hostname matches it: with listeners
// foo.bar.com, *.foo.bar.com, *.bar.com and one without hostname on one port, foo.bar.com is the first one's
// alone, x.foo.bar.com the second's, x.bar.com the third's and every other host the last one's, even where a
// less specific listener's routes match the path and the more specific one's do not. Tyk has no listeners: it
// orders the APIs of one port by custom domain and listen path (custom domains first; from 5.8.0 the longer
// listen path first, ties in load order), so a less specific API whose path matches would take the more
// specific listener's hosts. In the gateway-api profile the custom domain of a wildcard hostname, and of no
// hostname (which then gets one), therefore leaves out the hostnames the Gateway's other listeners on the same
// port claim within it: exact hostnames and more specific wildcards. RE2 has no look-ahead, but the names a
// hostname covers less finitely many names and wildcards is still a regular language: hostsExcept writes it
// label by label from the right, as a trie of the left-out names' labels ("*.bar.com" beside foo.bar.com is
// "{h:(?:(?:(?:[^.:]+\.)+foo|(?:[^.:]+\.)*(?:[^.:f][^.:]*|f(?:...)?))\.bar\.com)(?::[0-9]+)?}": names of more
// labels that end in foo, or that end in any other label, and a port: isolatedDomain).

// isolatedHosts are the hostnames that the parent Gateway's other serving listeners on the port of the listeners
// giving the route host claim within host, sorted: listeners more specific than the route's own (the most
// specific of those giving it host), whose hostnames lie inside host (exact hostnames host takes, wildcards
// inside a wildcard host, every hostname for no host). covered says such a listener claims every host of host
// (a route hostname *.example.com on a listener without hostname beside a listener *.example.com): the route
// then has no API for host, which would serve no request.
func isolatedHosts(p *attachment.Parent, host string) (isolated []string, covered bool) {
	ports := map[int32]bool{}
	own := map[*attachment.Listener]bool{}
	listener, first := "", true
	for _, l := range p.Listeners {
		if contains(l.Hostnames, host) {
			ports[int32(l.Listener.Listener.Port)] = true
			own[l.Listener] = true
			if h := l.Listener.Hostname(); first || within(listener, h) {
				listener, first = h, false
			}
		}
	}
	for _, l := range p.Gateway.AllListeners() {
		h := l.Hostname()
		if own[l] || !l.Serving || !ports[int32(l.Listener.Port)] || h == "" || !within(listener, h) || contains(isolated, h) {
			continue
		}
		switch {
		case covers(h, host):
			return nil, true
		case within(host, h):
			isolated = append(isolated, h)
		}
	}
	sort.Strings(isolated)
	return isolated, false
}

// ClaimedElsewhere reports whether, with listener isolation (the gateway-api profile), every host of host that
// the route's parent gives it is claimed by a more specific listener of the Gateway on the port, so that the
// route has no API for it (isolatedHosts): Gateway API sends those hosts to the other listener's routes.
func ClaimedElsewhere(p *attachment.Parent, host string) bool {
	_, covered := isolatedHosts(p, host)
	return covered
}

// covers reports whether hostname h (exact or wildcard) names every host that host names.
func covers(h, host string) bool {
	switch {
	case h == host:
		return true
	case host == "" || !strings.HasPrefix(h, "*."):
		return false
	}
	return within(h, host)
}

// within reports whether hostname h (exact or wildcard) names only hosts that host (a wildcard, or "" for any)
// names too, and not all of them: never for an exact host, which names one.
func within(host, h string) bool {
	switch {
	case host == "":
		return true
	case !strings.HasPrefix(host, "*."):
		return false
	case strings.HasPrefix(h, "*."):
		return len(h) > len(host) && strings.HasSuffix(h[1:], host[1:])
	}
	return attachment.HostTakes(host, h)
}

// isolatedDomain is the custom domain of an API of host (a wildcard, or "" for any) that leaves out the isolated
// hostnames, written as one mux variable called name for the whole host, port included: "" when none is left
// out. gorilla/mux compares a host template with the Host header's host alone only when its regular expression
// has no ":", and a non-capturing group (the only kind mux takes) has one, so the variable takes an optional
// port itself (seen on v5.14.0: Host a.stores.example.com:80 reached the API of no hostname whose domain left
// out *.stores.example.com, "com:80" being a label other than com). A host of no hostname may also be an IPv6
// literal ([::1]), which is no name.
func isolatedDomain(name, host string, isolated []string) string {
	var names string
	switch {
	case len(isolated) == 0 || (host != "" && !strings.HasPrefix(host, "*.")):
		return "" // an exact host leaves nothing out: a listener that claims it claims it whole (isolatedHosts)
	case host == "":
		names = `\[[^\]]*\]|` + hostsExcept(isolated)
	default:
		suffix := host[1:] // ".bar.com"
		var words []string
		for _, h := range isolated {
			words = append(words, strings.TrimSuffix(h, suffix))
		}
		names = "(?:" + hostsExcept(words) + ")" + regexp.QuoteMeta(suffix)
	}
	return "{" + name + ":(?:" + names + ")(?::[0-9]+)?}"
}

// hostsExcept is an RE2 expression (non-capturing groups only, as a gorilla/mux variable needs) for the
// dot-separated names of one label or more that are none of the exact names in left and under none of its
// wildcards ("*.foo": a name of one label or more, then .foo). Names compare as written (lower case: Gateway API
// hostnames are).
func hostsExcept(left []string) string {
	root := &labelNode{}
	for _, h := range left {
		n := root
		wild := strings.HasPrefix(h, "*.")
		labels := strings.Split(strings.TrimPrefix(h, "*."), ".")
		for i := len(labels) - 1; i >= 0; i-- {
			n = n.child(labels[i])
		}
		if wild {
			n.wild = true
		} else {
			n.exact = true
		}
	}
	if out := root.names(""); out != "" {
		return out
	}
	return `[^\x00-\x{10FFFF}]` // everything is left out: no host
}

// labelNode is a label of left-out names, read from the right: exact says a name ends here, wild that every
// name of more labels that ends here is left out.
type labelNode struct {
	label       string
	exact, wild bool
	children    []*labelNode
}

func (n *labelNode) child(label string) *labelNode {
	for _, c := range n.children {
		if c.label == label {
			return c
		}
	}
	c := &labelNode{label: label}
	n.children = append(n.children, c)
	sort.Slice(n.children, func(i, j int) bool { return n.children[i].label < n.children[j].label })
	return c
}

// names is the expression for what may stand before n's labels (and sep, `\.` below the root, "" at it) in a
// name that is not left out, "" for nothing: the node's labels themselves where a name may end there (not at
// the root: a name has a label), then, unless the node is a wildcard's, each child's label with what may stand
// before it, or any other label with any labels before it.
func (n *labelNode) names(sep string) string {
	var alts []string
	if sep != "" && !n.exact {
		alts = append(alts, "")
	}
	if !n.wild {
		var labels []string
		for _, c := range n.children {
			labels = append(labels, c.label)
			before := c.names(`\.`)
			switch before {
			case "":
			case "(?:)":
				alts = append(alts, regexp.QuoteMeta(c.label)+sep)
			default:
				alts = append(alts, before+regexp.QuoteMeta(c.label)+sep)
			}
		}
		switch {
		case len(labels) > 0:
			alts = append(alts, `(?:[^.:]+\.)*(?:`+labelExcept(labels)+")"+sep)
		case sep == "":
			alts = append(alts, `(?:[^.:]+\.)*[^.:]+`)
		default:
			alts = append(alts, `(?:[^.:]+\.)+`)
		}
	}
	switch {
	case len(alts) == 0:
		return ""
	case len(alts) == 1 && alts[0] == "":
		return "(?:)"
	case sep == "" || (len(alts) == 1 && !strings.Contains(alts[0], "|")):
		// the whole of a mux variable's pattern (which mux puts in a group of its own), or one alternative
		return strings.Join(alts, "|")
	}
	return "(?:" + strings.Join(alts, "|") + ")"
}

// labelExcept is the expression for one label (no dot) that is none of words.
func labelExcept(words []string) string { return complement(words, 0, true) }

// complement is an RE2 expression (non-capturing groups only, as a gorilla/mux variable needs) for the labels
// (strings without a dot) that, after the first `at` bytes which all of words share, are none of words; first
// says the empty rest is not allowed either (a label has a character at least).
func complement(words []string, at int, first bool) string {
	ended := false
	next := map[byte][]string{}
	var chars []byte
	for _, w := range words {
		if len(w) == at {
			ended = true
			continue
		}
		c := w[at]
		if next[c] == nil {
			chars = append(chars, c)
		}
		next[c] = append(next[c], w)
	}
	sort.Slice(chars, func(i, j int) bool { return chars[i] < chars[j] })
	var alts []string
	if len(chars) == 0 {
		// Every word ends here: anything that goes on is none of them.
		return "[^.:]+"
	}
	var class strings.Builder
	for _, c := range chars {
		class.WriteString(regexp.QuoteMeta(string(c)))
	}
	alts = append(alts, "[^.:"+class.String()+"][^.:]*")
	for _, c := range chars {
		alts = append(alts, regexp.QuoteMeta(string(c))+complement(next[c], at+1, false))
	}
	out := strings.Join(alts, "|")
	switch {
	case first:
		return out // the whole of a mux variable's pattern, which mux puts in a group of its own
	case !ended:
		// The rest may stop here too: what was read so far is no word.
		return "(?:" + out + ")?"
	}
	return "(?:" + out + ")"
}
