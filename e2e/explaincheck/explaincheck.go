// Package explaincheck holds explain to what a real Tyk Gateway does. For each Gateway of a render it loads the
// APIs the render made for that Gateway into a real Gateway (realtyk), sends requests that cover every API
// (every OpenAPI method, the bare listen path, the listen path with a slash, deeper paths, a string-prefix
// neighbour, query strings, each host a custom domain takes), and compares each answer with explain's answer for
// the same request: the status, the upstream URL (host, port, path and query after rewrites), the Host and the
// other request headers the upstream gets, the response headers, and a redirect's Location.
package explaincheck

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/explain"
	"github.com/gateway2tyk/gateway2tyk/fn/translate"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// Request is one request to send: its method, URL parts and headers.
type Request struct {
	Method, Host, Path, RawQuery string
	Header                       map[string]string
}

// Tally counts the requests compared and how many agreed.
type Tally struct{ Compared, Agreed int }

// KeepGoingEnv, set to anything, makes a check compare every request and report each disagreement, instead of
// stopping at the first (for measuring how far a model is from the Gateway).
const KeepGoingEnv = "EXPLAINCHECK_KEEP_GOING"

// Options change a check.
type Options struct {
	// Extra requests are sent to every Gateway checked, besides the generated ones.
	Extra []Request
	// Gateways, when set, are the Gateways (namespace/name) to check; the others are left out.
	Gateways []string
}

// anyHost is the host sent to APIs without a custom domain.
const anyHost = "any-host.test"

// clientHeader is a request header every request carries, so that a removal of it can be seen upstream.
const clientHeader = "X-Client-Header"

// Check compares, Gateway by Gateway, what g does with the generated requests with explain's answers for the
// version g runs. The render's documents are adapted to that version first (see ForVersion), so the model and
// the Gateway see the same documents. It fails t at the first disagreement (see KeepGoingEnv).
func Check(t *testing.T, g *realtyk.Gateway, out *fn.Output, opt Options) Tally {
	t.Helper()
	version, err := tykroute.ParseVersion(g.Version)
	if err != nil {
		t.Fatalf("the Gateway's version (/hello, or TYK_GATEWAY_VERSION): %v", err)
	}
	keepGoing := os.Getenv(KeepGoingEnv) != ""
	ForVersion(out.Translation, version)
	var tally Tally
	for _, gw := range out.Attachment.Gateways {
		name := gw.Gateway.Namespace + "/" + gw.Gateway.Name
		if len(opt.Gateways) > 0 && !slices.Contains(opt.Gateways, name) {
			continue
		}
		docs := map[string][]byte{}
		var apis []*translate.API
		for _, api := range out.Translation.APIs {
			if api.Parent.Gateway != gw {
				continue
			}
			b, err := api.Encode()
			if err != nil {
				t.Fatalf("API %s: %v", api.ID, err)
			}
			docs[api.ID] = b
			apis = append(apis, api)
		}
		if err := g.Replace(docs); err != nil {
			t.Fatalf("Gateway %s: loading %d APIs into the real Tyk Gateway: %v", name, len(docs), err)
		}
		for _, r := range append(Requests(apis), opt.Extra...) {
			ans, err := explain.Explain(out, explain.Request{Method: r.Method, URL: r.url(), Header: r.header()},
				explain.Options{Gateway: name, Version: version})
			if err != nil {
				t.Fatalf("explain %s %s: %v", r.Method, r.url(), err)
			}
			sent := r.send(ans)
			got, err := g.Send(sent)
			if err != nil {
				t.Fatalf("Gateway %s: %v", name, err)
			}
			tally.Compared++
			if diffs := Compare(ans, sent, got); len(diffs) > 0 {
				msg := fmt.Sprintf("Gateway %s, %s: the real Tyk Gateway (%s) and explain disagree:\n  %s\n  explain: %s\n  Tyk:     %s",
					name, sent, g.Version, strings.Join(diffs, "\n  "), describeAnswer(ans), describeResponse(got))
				if !keepGoing {
					t.Fatal(msg)
				}
				t.Error(msg)
				continue
			}
			tally.Agreed++
		}
	}
	return tally
}

// ForVersion adapts the render's documents to what the Gateway g runs and to what the recording proxy can see.
// The model is run on the same documents, so this excuses nothing else:
//   - before 5.8.0 Tyk's schema has neither upstream.preserveHostHeader nor upstream.loadBalancing and refuses
//     every API that sets one, so both are left out (the upstream is then upstream.url, the first target);
//   - from 5.8.0, an API whose upstream cannot be resolved (.invalid) keeps the client's Host only if that can be
//     seen: Go names the Host in the request line it sends the proxy, so the proxy could not tell that the
//     upstream does not resolve; such an API's copy leaves preserveHostHeader out.
func ForVersion(tr *translate.Output, v tykroute.Version) {
	for _, api := range tr.APIs {
		up := &api.Document.Tyk.Upstream
		if v.Less(tykroute.MinVersion) {
			up.PreserveHostHeader, up.LoadBalancing = nil, nil
			continue
		}
		if unresolvable(up) {
			up.PreserveHostHeader = nil
		}
	}
}

// unresolvable reports whether an upstream URL of up is in the .invalid domain.
func unresolvable(up *tykoas.Upstream) bool {
	urls := []string{up.URL}
	if up.LoadBalancing != nil {
		for _, t := range up.LoadBalancing.Targets {
			urls = append(urls, t.URL)
		}
	}
	for _, raw := range urls {
		if u, err := url.Parse(raw); err == nil && strings.HasSuffix(u.Hostname(), ".invalid") {
			return true
		}
	}
	return false
}

// Requests covers every API: every OpenAPI method on the bare listen path, the listen path with a slash, a
// deeper path with a query, and the listen path followed by more characters (Tyk's listen paths are string
// prefixes); each with every host the API's custom domain takes (a wildcard with one and with two labels).
func Requests(apis []*translate.API) []Request {
	seen := map[string]bool{}
	var out []Request
	for _, api := range apis {
		lp := api.Document.Tyk.Server.ListenPath.Value
		variants := triggerVariants(api.Document)
		for _, host := range hostsOf(api.Document) {
			for _, p := range pathsUnder(lp) {
				path, query, _ := strings.Cut(p, "?")
				for _, v := range variants {
					q := query
					if v.query != "" {
						q = strings.TrimPrefix(q+"&"+v.query, "&")
					}
					for _, m := range methods {
						r := Request{Method: m, Host: host, Path: path, RawQuery: q, Header: v.header}
						if !seen[r.String()] {
							seen[r.String()] = true
							out = append(out, r)
						}
					}
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// methods are the methods a match can name (OpenAPI's), each sent to every path.
var methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"}

// pathsUnder are requests' paths at and under listen path lp, and beside it. A listen path that is a
// gorilla/mux template (/api{p:/|$}, /healthz{exact:$}, /{q:$|}) is read as the path its variables take
// nothing of (plainListenPath): the paths under the template's own text would be paths no client sends.
func pathsUnder(lp string) []string {
	lp = plainListenPath(lp)
	if lp == "/" {
		return []string{"/", "/x", "/x/y/?q=1&r=two"}
	}
	base := strings.TrimSuffix(lp, "/")
	return []string{base, base + "/", base + "/x/y?q=1&r=two", base + "x", base + "?only=query"}
}

// plainListenPath is listen path lp without its gorilla/mux variables ({name:pattern}, nested braces included).
func plainListenPath(lp string) string {
	var b strings.Builder
	depth := 0
	for _, c := range lp {
		switch {
		case c == '{':
			depth++
		case c == '}' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

// hostsOf lists the hosts an API takes: its custom domain with each {name:pattern} part filled with one label
// and with two, or anyHost when it has none.
func hostsOf(d *tykoas.Document) []string {
	cd := d.Tyk.Server.CustomDomain
	if cd == nil || !cd.Enabled || cd.Name == "" {
		return []string{anyHost}
	}
	if !strings.Contains(cd.Name, "{") {
		return []string{cd.Name}
	}
	var out []string
	for _, fill := range []string{"one", "two.labels"} {
		var b strings.Builder
		depth := 0
		for _, c := range cd.Name {
			switch {
			case c == '{':
				if depth == 0 {
					b.WriteString(fill)
				}
				depth++
			case c == '}':
				depth--
			case depth == 0:
				b.WriteRune(c)
			}
		}
		out = append(out, b.String())
	}
	return out
}

func (r Request) String() string {
	s := r.Method + " " + r.url().String()
	for _, name := range slices.Sorted(maps.Keys(r.Header)) {
		s += " " + name + ": " + r.Header[name]
	}
	return s
}

func (r Request) header() http.Header {
	if len(r.Header) == 0 {
		return nil
	}
	h := http.Header{}
	for name, value := range r.Header {
		h.Set(name, value)
	}
	return h
}

// variant is a set of headers and query parameters to send to a path besides nothing: the conditions of one of
// a router's triggers (router.go in translate), so that every internal API it sends to is reached.
type variant struct {
	header map[string]string
	query  string
}

// triggerVariants are the request variants that cover an API's urlRewrite triggers: none at all, and each trigger
// whose rules all match one literal value ("^" + quoted value + "$", as an Exact header or query match is
// written) or any value (a presence rule); a trigger with another regular expression is left to the test's own
// requests.
func triggerVariants(d *tykoas.Document) []variant {
	out := []variant{{}}
	if d.Tyk.Middleware == nil {
		return out
	}
	seen := map[string]bool{}
	for _, id := range slices.Sorted(maps.Keys(d.Tyk.Middleware.Operations)) {
		rw := d.Tyk.Middleware.Operations[id].URLRewrite
		if rw == nil {
			continue
		}
	triggers:
		for _, tr := range rw.Triggers {
			v := variant{header: map[string]string{}}
			q := url.Values{}
			for _, rule := range tr.Rules {
				value, ok := literal(rule.Pattern)
				if rule.Pattern == translate.PresentPattern {
					value, ok = "present", true // a presence rule: any value
				}
				if !ok || rule.Negate {
					continue triggers
				}
				switch rule.In {
				case "header":
					v.header[rule.Name] = value
				case "query":
					q.Set(rule.Name, value)
				default:
					continue triggers
				}
			}
			v.query = q.Encode()
			key := fmt.Sprint(v.header) + "?" + v.query
			if !seen[key] {
				seen[key] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// literal reads back the value of a pattern that matches exactly one string, "^" + regexp.QuoteMeta(v) + "$".
func literal(pattern string) (string, bool) {
	inner, ok := strings.CutPrefix(pattern, "^")
	if !ok {
		return "", false
	}
	inner, ok = strings.CutSuffix(inner, "$")
	if !ok {
		return "", false
	}
	re, err := syntax.Parse(inner, syntax.Perl)
	if err != nil || re.Op != syntax.OpLiteral && re.Op != syntax.OpEmptyMatch {
		return "", false
	}
	return string(re.Rune), true
}

// send is the request as sent: a client header that explain's answer may remove, each request header the
// answer removes (so the removal can be seen), and the response headers the answer removes asked of the
// upstream (so their removal can be seen).
// echoed is the value the upstream answers with for a response header explain removes or adds to.
const echoed = "from-upstream"

func (r Request) send(ans *explain.Answer) realtyk.Request {
	s := realtyk.Request{Method: r.Method, Host: r.Host, Path: r.Path, RawQuery: r.RawQuery,
		Header: http.Header{}, EchoHeaders: http.Header{}}
	s.Header.Set(clientHeader, "from-client")
	for name, value := range r.Header {
		s.Header.Set(name, value)
	}
	for _, c := range ans.RequestHeaders {
		if name, ok := strings.CutPrefix(c, "remove "); ok {
			s.Header.Set(name, "from-client")
		}
	}
	for _, c := range ans.ResponseHeaders {
		if name, ok := strings.CutPrefix(c, "remove "); ok {
			s.EchoHeaders.Set(name, echoed)
		}
		if name, _, ok := headerAdd(c); ok {
			s.EchoHeaders.Set(name, echoed)
		}
	}
	return s
}
