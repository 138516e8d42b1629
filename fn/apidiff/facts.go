package apidiff

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/gateway2tyk/gateway2tyk/fn/translate"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// Facts are what a reviewer reads of one API, by aspect: each aspect is a sorted list of lines, and a change is
// the lines an aspect lost and gained. Every part of the document belongs to one aspect; what no named aspect
// claims is listed under AspectOther, so that no change goes unreported.
type Facts map[string][]string

// The aspects, in the order a report lists them.
const (
	AspectServed = "methods served"
	// AspectRouting is a router API's (header, query and method matches, translate's router.go): which
	// internal API each request goes to, by the conditions it meets.
	AspectRouting         = "routing"
	AspectNotFound        = "methods answered 404"
	AspectRedirects       = "redirects"
	AspectFixed           = "fixed answers"
	AspectUpstream        = "upstream targets"
	AspectRewrites        = "rewrites"
	AspectRequestHeaders  = "request headers"
	AspectResponseHeaders = "response headers"
	AspectTimeouts        = "timeouts"
	AspectAuthentication  = "authentication"
	AspectBase            = "base document"
	AspectRateLimit       = "rate limit"
	AspectCertificates    = "certificates"
	AspectOther           = "other settings"
	// AspectOwner is the application that owns the API (not a fact of its document: its label): a change of
	// owner makes the new owner's sync find the old owner's API (a conflict, until it is moved: docs/sync.md).
	AspectOwner = "owner"
)

var aspectOrder = []string{AspectServed, AspectRouting, AspectNotFound, AspectRedirects, AspectFixed, AspectUpstream, AspectRewrites,
	AspectRequestHeaders, AspectResponseHeaders, AspectTimeouts, AspectAuthentication, AspectBase, AspectRateLimit, AspectCertificates,
	AspectOther}

// methods are the HTTP methods a report lists, in its order: those the translation writes operations for
// (CONNECT, which it never writes, is left out, so that "every method" means what a route's rules can match).
var methods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodOptions, http.MethodTrace}

// claimed are the parts of the document (dotted paths in its JSON tree) that the named aspects describe; the rest
// is AspectOther. Identity (titles, IDs, hostname and listen path) is in the API's Ref.
var claimed = []string{
	"paths", "x-tyk-api-gateway.middleware.operations",
	"x-tyk-api-gateway.upstream.url", "x-tyk-api-gateway.upstream.loadBalancing",
	"x-tyk-api-gateway.server.authentication", "components.securitySchemes", "security",
	"x-tyk-api-gateway.upstream.rateLimit",
	"x-tyk-api-gateway.server.customDomain.certificates", "x-tyk-api-gateway.server.clientCertificates",
	"x-tyk-api-gateway.upstream.mutualTLS", "x-tyk-api-gateway.upstream.certificatePinning",
	"info.title", "x-tyk-api-gateway.info.id", "x-tyk-api-gateway.info.name",
	"x-tyk-api-gateway.server.customDomain.name", "x-tyk-api-gateway.server.listenPath.value",
}

// Describe reads an emitted Tyk OAS document (tree: tykoas.ParseTree; typed: the tykoas types) into Facts. base
// names the TykOasApiDefinition whose base document applies, "" for none; kept says the Tyk Gateways keep header
// names as written (the RenderConfig's ignoreCanonicalMIMEHeaderKey), where a header transform's name that is not
// in canonical form adds a header beside the message's own rather than replacing it.
func Describe(document, base string, kept bool) (Facts, error) {
	tree, err := tykoas.ParseTree([]byte(document))
	if err != nil {
		return nil, err
	}
	var typed struct {
		Tyk tykoas.XTykAPIGateway `json:"x-tyk-api-gateway"`
	}
	// Not tykoas.Decode: it refuses the fields a base document adds, which this view must read, not refuse.
	if err := json.Unmarshal([]byte(document), &typed); err != nil {
		return nil, err
	}
	f := Facts{}
	describeOperations(f, tree, typed.Tyk, kept)
	f[AspectUpstream] = upstreamTargets(typed.Tyk.Upstream)
	f[AspectAuthentication] = append(f[AspectAuthentication], authentication(tree))
	if base == "" {
		base = "none"
	}
	f[AspectBase] = []string{base}
	f[AspectRateLimit] = rateLimit(tree)
	f[AspectCertificates] = certificates(tree)
	f[AspectOther] = unclaimed(tree)
	for k, lines := range f {
		sort.Strings(lines)
		f[k] = lines
	}
	return f, nil
}

// behaviour is what Tyk does with one method of the API.
type behaviour struct {
	notFound            bool
	fixed, redirect     string
	rewrite             string
	requestH, responseH string
	// timeout is the enforced timeout: Tyk answers 504 after it.
	timeout            string
	skipAuthentication bool
	// route is a router's urlRewrite in words: each trigger's conditions and the API it sends to, then where the
	// rest goes.
	route string
}

// describeOperations reads the behaviour of every method from the OpenAPI operations and their Tyk middleware
// (keyed by operationId). A method with no operation is proxied without middleware; a mock response answers
// instead of the upstream: 404 is a method no rule matches, a 3xx with Location a redirect.
func describeOperations(f Facts, tree map[string]any, x tykoas.XTykAPIGateway, kept bool) {
	var ops map[string]tykoas.Operation
	if x.Middleware != nil {
		ops = x.Middleware.Operations
	}
	byLabel := map[string]behaviour{}
	var labels []string
	seen := map[string]bool{}
	paths, _ := tree["paths"].(map[string]any)
	operationID := func(p, method string) string {
		item, _ := paths[p].(map[string]any)
		op, _ := item[strings.ToLower(method)].(map[string]any)
		id, _ := op["operationId"].(string)
		return id
	}
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		item, _ := paths[p].(map[string]any)
		for _, m := range methods {
			if _, ok := item[strings.ToLower(m)].(map[string]any); !ok {
				continue
			}
			id := operationID(p, m)
			if translate.IsMockCopy(p, ops[id], ops[operationID("/", m)]) {
				continue // the same answer as at "/", on the paths below it
			}
			seen[m] = true
			label := m
			if p != "/" {
				label = m + " " + p
			}
			byLabel[label] = operationBehaviour(ops[id], x.Server.ListenPath.Value, kept)
			labels = append(labels, label)
		}
	}
	for _, m := range methods {
		if !seen[m] {
			byLabel[m] = behaviour{}
			labels = append(labels, m)
		}
	}
	group := func(aspect string, value func(behaviour) string) {
		f[aspect] = append(f[aspect], grouped(labels, func(l string) string { return value(byLabel[l]) })...)
	}
	group(AspectServed, func(b behaviour) string {
		if b.notFound || b.fixed != "" || b.redirect != "" || b.route != "" {
			return ""
		}
		return "proxied"
	})
	group(AspectRouting, func(b behaviour) string { return b.route })
	group(AspectNotFound, func(b behaviour) string { return when(b.notFound, "404") })
	group(AspectRedirects, func(b behaviour) string { return b.redirect })
	group(AspectFixed, func(b behaviour) string { return b.fixed })
	group(AspectRewrites, func(b behaviour) string { return b.rewrite })
	group(AspectRequestHeaders, func(b behaviour) string { return b.requestH })
	group(AspectResponseHeaders, func(b behaviour) string { return b.responseH })
	group(AspectTimeouts, func(b behaviour) string { return b.timeout })
	group(AspectAuthentication, func(b behaviour) string { return when(b.skipAuthentication, "no authentication") })
}

func operationBehaviour(op tykoas.Operation, listenPath string, kept bool) behaviour {
	var b behaviour
	if m := op.MockResponse; m != nil && m.Enabled {
		switch location := headerValue(m.Headers, "Location"); {
		case m.Code == http.StatusNotFound:
			b.notFound = true
		case m.Code >= 300 && m.Code < 400 && location != "":
			b.redirect = fmt.Sprintf("%d to %s", m.Code, location)
		default:
			b.fixed = fmt.Sprintf("%d %s", m.Code, m.Body)
		}
	}
	if r := op.URLRewrite; r != nil && r.Enabled && translate.IsRouterRewrite(r) {
		b.route = routeWords(r)
	} else if r != nil && r.Enabled && !translate.IsBareListenPathLoop(r, listenPath) {
		b.rewrite = fmt.Sprintf("%s to %s", r.Pattern, r.RewriteTo)
	}
	b.requestH = headerChanges(op.TransformRequestHeaders, kept)
	b.responseH = headerChanges(op.TransformResponseHeaders, kept)
	if t := op.EnforceTimeout; t != nil && t.Enabled {
		b.timeout = fmt.Sprintf("504 after %ds", t.Value)
		if t.Duration != "" {
			b.timeout = "504 after " + t.Duration
		}
	}
	b.skipAuthentication = op.IgnoreAuthentication != nil && op.IgnoreAuthentication.Enabled
	return b
}

// headerChanges words a header transform as tykroute.Headers reads it: "set" replaces the message's header of that
// name, "add" writes a line of its own beside it (a name not in canonical form on Gateways that keep names as
// written: Gateway API's add), "remove" removes it.
func headerChanges(t *tykoas.TransformHeaders, kept bool) string {
	h := tykroute.Headers(t, kept)
	var parts []string
	for _, s := range h.Set {
		parts = append(parts, "set "+s.Name+": "+s.Value)
	}
	for _, a := range h.Add {
		parts = append(parts, "add "+a.Name+": "+a.Value)
	}
	for _, name := range h.Remove {
		parts = append(parts, "remove "+name)
	}
	return strings.Join(parts, ", ")
}

func headerValue(hs []tykoas.Header, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// grouped writes one line per distinct non-empty value: the labels that share it, then the value; "every
// method" when all do.
func grouped(labels []string, value func(string) string) []string {
	var order []string
	by := map[string][]string{}
	for _, l := range labels {
		v := value(l)
		if v == "" {
			continue
		}
		if _, ok := by[v]; !ok {
			order = append(order, v)
		}
		by[v] = append(by[v], l)
	}
	var out []string
	for _, v := range order {
		who := strings.Join(by[v], ", ")
		if len(by[v]) == len(labels) {
			who = "every method"
		}
		out = append(out, who+": "+v)
	}
	return out
}

func when(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

// upstreamTargets are the URLs Tyk proxies to, with their weights when it balances load.
func upstreamTargets(u tykoas.Upstream) []string {
	if lb := u.LoadBalancing; lb != nil && lb.Enabled {
		var out []string
		for _, t := range lb.Targets {
			out = append(out, fmt.Sprintf("%s (weight %d)", t.URL, t.Weight))
		}
		return out
	}
	if u.URL == "" {
		return nil
	}
	return []string{u.URL}
}

// authentication says whether Tyk asks clients to authenticate, and with which schemes.
func authentication(tree map[string]any) string {
	auth, _ := lookup(tree, "x-tyk-api-gateway.server.authentication").(map[string]any)
	if enabled, _ := auth["enabled"].(bool); !enabled {
		return "off"
	}
	schemes, _ := auth["securitySchemes"].(map[string]any)
	if len(schemes) == 0 {
		return "on"
	}
	return "on (" + strings.Join(slices.Sorted(maps.Keys(schemes)), ", ") + ")"
}

// rateLimit is the API-wide rate limit (a base document's upstream.rateLimit).
func rateLimit(tree map[string]any) []string {
	rl, ok := lookup(tree, "x-tyk-api-gateway.upstream.rateLimit").(map[string]any)
	if !ok {
		return nil
	}
	if enabled, _ := rl["enabled"].(bool); !enabled {
		return []string{"off"}
	}
	return []string{fmt.Sprintf("%v per %v", rl["rate"], rl["per"])}
}

// certificates are the certificates of the custom domain and the mutual TLS settings on either side. Client
// certificate validation is said in words, one line per CA certificate, so that a CA added or retired is one
// line whatever its place in the allowlist.
func certificates(tree map[string]any) []string {
	var out []string
	for _, p := range []string{"x-tyk-api-gateway.server.customDomain.certificates", "x-tyk-api-gateway.server.clientCertificates",
		"x-tyk-api-gateway.upstream.mutualTLS", "x-tyk-api-gateway.upstream.certificatePinning"} {
		v := lookup(tree, p)
		if v == nil {
			continue
		}
		if cc, ok := v.(map[string]any); ok && p == "x-tyk-api-gateway.server.clientCertificates" && len(cc) <= 2 {
			if on, _ := cc["enabled"].(bool); !on {
				out = append(out, "client certificates: not checked")
				continue
			}
			list, _ := cc["allowlist"].([]any)
			if len(list) == 0 {
				out = append(out, "client certificates: required, none allowed")
			}
			for _, id := range list {
				out = append(out, fmt.Sprintf("client certificates: those signed by CA certificate %v", id))
			}
			continue
		}
		out = append(out, leaves(strings.TrimPrefix(p, "x-tyk-api-gateway."), v, nil)...)
	}
	return out
}

// unclaimed lists every leaf of the document that no named aspect describes, as "path = value": the middleware
// and settings a base document adds (traffic logs, CORS, ...) and anything a later translation writes.
func unclaimed(tree map[string]any) []string {
	skip := map[string]bool{}
	for _, c := range claimed {
		skip[c] = true
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(tree)) {
		out = append(out, leaves(k, tree[k], skip)...)
	}
	for i, l := range out {
		out[i] = strings.TrimPrefix(l, "x-tyk-api-gateway.")
	}
	return out
}

func leaves(path string, v any, skip map[string]bool) []string {
	if skip[path] {
		return nil
	}
	switch t := v.(type) {
	case map[string]any:
		var out []string
		for _, k := range slices.Sorted(maps.Keys(t)) {
			out = append(out, leaves(path+"."+k, t[k], skip)...)
		}
		return out
	case []any:
		var out []string
		for i, e := range t {
			out = append(out, leaves(fmt.Sprintf("%s[%d]", path, i), e, skip)...)
		}
		return out
	}
	b, _ := json.Marshal(v)
	return []string{path + " = " + string(b)}
}

func lookup(tree map[string]any, dotted string) any {
	var cur any = tree
	for _, k := range strings.Split(dotted, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

// routeWords is a router's urlRewrite as a reviewer reads it: "X-Canary ^true$ to API gwapi-…; otherwise to API
// gwapi-…", each trigger in the order Tyk tries them.
func routeWords(r *tykoas.URLRewrite) string {
	var parts []string
	for _, tr := range r.Triggers {
		var conds []string
		for _, rule := range tr.Rules {
			c := rule.In + " " + rule.Name + " " + rule.Pattern
			if rule.Pattern == translate.PresentPattern {
				c = rule.In + " " + rule.Name + " present" // a presence rule (translate's appends.go, cors.go)
			}
			if rule.Negate {
				c = "not " + c
			}
			conds = append(conds, c)
		}
		parts = append(parts, strings.Join(conds, " and ")+" to API "+translate.LoopTarget(tr.RewriteTo))
	}
	parts = append(parts, "otherwise to API "+translate.LoopTarget(r.RewriteTo))
	return strings.Join(parts, "; ")
}
