// Package explain answers, offline, what Tyk would do with one HTTP request given a render: which listener of
// the Gateway takes it, which route and rule, which API and operation, and what goes upstream, or the status
// Tyk answers itself and the condition or dropped rule responsible. It follows Tyk's own routing (tykroute)
// over the APIs the render made, and says where Tyk differs from what Gateway API asks.
package explain

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
	"github.com/gateway2tyk/gateway2tyk/fn/translate"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// Request is the request to explain.
type Request struct {
	Method string
	URL    *url.URL
	// Header is the request's headers, which header matches read (nil: none).
	Header http.Header
}

// ParseHeaders reads --header values, "Name: value" each.
func ParseHeaders(in []string) (http.Header, error) {
	if len(in) == 0 {
		return nil, nil
	}
	h := http.Header{}
	for _, s := range in {
		name, value, ok := strings.Cut(s, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("--header must be \"Name: value\" (got %q)", s)
		}
		h.Add(name, strings.TrimSpace(value))
	}
	return h, nil
}

// ParseRequest reads "METHOD URL". The method must be an HTTP token and the URL absolute with a host, since
// the host decides the listener and the API.
func ParseRequest(s string) (Request, error) {
	fields := strings.Fields(s)
	if len(fields) != 2 {
		return Request{}, fmt.Errorf("--request must be \"METHOD URL\", for example \"GET https://shop.example.com/orders\" (got %q)", s)
	}
	method := strings.ToUpper(fields[0])
	if strings.IndexFunc(method, func(r rune) bool { return r < 'A' || r > 'Z' }) >= 0 {
		return Request{}, fmt.Errorf("--request: %q is not an HTTP method", fields[0])
	}
	u, err := url.Parse(fields[1])
	if err != nil {
		return Request{}, fmt.Errorf("--request: %v", err)
	}
	if u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return Request{}, fmt.Errorf("--request: %q needs a scheme and a host, for example https://shop.example.com/orders", fields[1])
	}
	return Request{Method: method, URL: u}, nil
}

// Answer is the explanation. Empty fields do not apply.
type Answer struct {
	// TykVersion is the Tyk Gateway release (MAJOR.MINOR) the answer is for: the one asked for, or by default
	// the oldest release that accepts the rendered APIs, with TykVersionOrLater (the answer holds for every
	// later release too).
	TykVersion        string `json:"tykVersion"`
	TykVersionOrLater bool   `json:"tykVersionOrLater,omitempty"`
	Gateway           string `json:"gateway,omitempty"`
	Listener          string `json:"listener,omitempty"`
	// ClientCertificate says what client certificate the listener asks for (its Gateway's spec.tls.frontend):
	// empty when none.
	ClientCertificate string   `json:"clientCertificate,omitempty"`
	Route             string   `json:"route,omitempty"`
	Rule              string   `json:"rule,omitempty"`
	APIID             string   `json:"apiId,omitempty"`
	OperationID       string   `json:"operationId,omitempty"`
	Upstream          string   `json:"upstream,omitempty"`
	Upstreams         []Target `json:"upstreams,omitempty"`
	// UpstreamHost is the Host header the upstream gets.
	UpstreamHost string `json:"upstreamHost,omitempty"`
	// Status is the status code Tyk answers itself (0: it proxies the request); StatusText, the JSON's status,
	// is always there, a string as the text trace prints it: "proxied", or the code ("404").
	Status     int    `json:"-"`
	StatusText string `json:"status"`
	Location   string `json:"location,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// RequestHeaders and ResponseHeaders are the header changes, "set Name: value", "add Name: value" (a
	// line beside any the message has) and "remove Name".
	RequestHeaders  []string `json:"requestHeaders,omitempty"`
	ResponseHeaders []string `json:"responseHeaders,omitempty"`
	// Timeout is the timeout Tyk enforces on the upstream ("500ms"; Tyk answers 504 after it), from the rule's
	// timeouts; empty: none of the route's.
	Timeout string `json:"timeout,omitempty"`
	// Notes say where Tyk's behaviour differs from what Gateway API asks.
	Notes []string `json:"notes,omitempty"`
}

// Target is one upstream of a load-balanced API.
type Target struct {
	URL    string `json:"url"`
	Weight int    `json:"weight"`
}

// Options change what is explained.
type Options struct {
	// Gateway names the Gateway the request reaches; empty when the input has one Gateway of ours.
	Gateway string
	// StrictRoutes mirrors Tyk's http_server_options.enable_strict_routes.
	StrictRoutes bool
	// Version is the Tyk Gateway release to answer for; zero means tykroute.MinVersion, the oldest that
	// accepts the rendered APIs.
	Version tykroute.Version
}

// UsageError is an explanation that cannot be given because of how it was asked.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

// Explain answers what Tyk does with req given the render out.
func Explain(out *fn.Output, req Request, opt Options) (*Answer, error) {
	g, err := pickGateway(out.Attachment, opt.Gateway)
	if err != nil {
		return nil, err
	}
	a := &Answer{Gateway: g.Gateway.Namespace + "/" + g.Gateway.Name, TykVersion: opt.Version.String()}
	if opt.Version.IsZero() {
		a.TykVersion, a.TykVersionOrLater = tykroute.MinVersion.String(), true
	}
	defer func() { a.StatusText = statusText(a.Status) }()
	host := req.URL.Hostname()
	l := matchListener(g, req.URL.Scheme, host, req.URL.Port())
	if l != nil {
		a.Listener = describeListener(l)
		a.ClientCertificate = clientCertificate(l)
	}

	apis := gatewayAPIs(out, g)
	docs := make([]*tykoas.Document, len(apis))
	byID := map[string]*translate.API{}
	for i, api := range apis {
		doc, err := modelDocument(api)
		if err != nil {
			return nil, err
		}
		docs[i] = doc
		byID[api.ID] = api
	}
	port := tykPort(out, g, req.URL)
	if port != 0 {
		kind := "the TLS port of the HTTPS listeners"
		if req.URL.Scheme == "http" {
			kind = "the own port of the HTTP listeners"
		}
		a.Notes = append(a.Notes, fmt.Sprintf("an %s request reaches Tyk on port %d, %s on port %d (the data-plane "+
			"Service's targetPort), where only the APIs with server.port %d are", req.URL.Scheme, port, kind, urlPort(req.URL), port))
	}
	res := tykroute.Route(docs, tykroute.Request{Method: req.Method, Host: req.URL.Host, Path: req.URL.EscapedPath(), RawQuery: req.URL.RawQuery,
		Header: req.Header, Port: port},
		tykroute.Options{StrictRoutes: opt.StrictRoutes, Version: opt.Version, HeaderNamesKept: out.HeaderNamesKept})
	a.Notes = append(a.Notes, res.Notes...)
	a.APIID, a.OperationID, a.Status, a.Location = res.APIID, res.OperationID, res.Status, res.Location
	a.UpstreamHost = res.UpstreamHost
	if res.Timeout > 0 {
		a.Timeout = res.Timeout.String()
	}
	if l == nil && res.APIID != "" {
		a.Notes = append(a.Notes, fmt.Sprintf("no listener of Gateway %s takes %s://%s, so Gateway API would reject the "+
			"request; Tyk serves it anyway, since it has no listeners, only APIs", a.Gateway, req.URL.Scheme, req.URL.Host))
	}
	for _, h := range res.RequestHeaders.Remove {
		a.RequestHeaders = append(a.RequestHeaders, "remove "+h)
	}
	for _, h := range res.RequestHeaders.Set {
		a.RequestHeaders = append(a.RequestHeaders, "set "+h.Name+": "+h.Value)
	}
	for _, h := range res.RequestHeaders.Add {
		a.RequestHeaders = append(a.RequestHeaders, "add "+h.Name+": "+h.Value)
	}
	for _, h := range res.ResponseHeaders.Remove {
		a.ResponseHeaders = append(a.ResponseHeaders, "remove "+h)
	}
	for _, h := range res.ResponseHeaders.Set {
		a.ResponseHeaders = append(a.ResponseHeaders, "set "+h.Name+": "+h.Value)
	}
	for _, h := range res.ResponseHeaders.Add {
		a.ResponseHeaders = append(a.ResponseHeaders, "add "+h.Name+": "+h.Value)
	}
	switch len(res.Upstreams) {
	case 0:
	case 1:
		a.Upstream = res.Upstreams[0].URL
	default:
		for _, t := range res.Upstreams {
			a.Upstreams = append(a.Upstreams, Target{URL: t.URL, Weight: t.Weight})
		}
		a.Upstream = res.Upstreams[0].URL
	}

	a.Notes = append(a.Notes, exactHostNotes(apis, docs, byID, req, res.APIID, l, port, opt)...)
	api := byID[res.APIID]
	if api == nil {
		a.Status = res.Status
		a.Reason = whyNoAPI(out, g, req, l)
		return a, nil
	}
	hr := api.Route.Route
	a.Route = hr.Namespace + "/" + hr.Name
	if other := api.Parent.Gateway; other != g {
		a.Notes = append(a.Notes, fmt.Sprintf("the API is the one rendered for Gateway %s/%s, which shares this Gateway's "+
			"data plane (Service %s): the same Tyk Gateways answer both", other.Gateway.Namespace, other.Gateway.Name, api.DataPlane()))
	}
	if i := matchingRule(hr, api, req.Method); i >= 0 {
		a.Rule = fmt.Sprintf("spec.rules[%d]", i)
	}
	if api.Role == translate.RoleInternal {
		a.Rule = fmt.Sprintf("spec.rules[%d]", api.Rules[0]) // the one rule its router sent the request to
		if part := api.Part(); part != "" {
			a.Notes = append(a.Notes, fmt.Sprintf("API %s is the internal API of %s for %s", api.ID, a.Rule, part))
		}
	}
	switch {
	case api.Role == translate.RoleRouter:
		a.Rule = ""
		a.Reason = fmt.Sprintf("the router API of %s %s has no operation for method %s (only OpenAPI's methods have one): "+
			"Tyk proxies the request to the router's own upstream, which does not resolve", orAny(api.Hostname), api.Path, req.Method)
	case api.Role == translate.RoleNoRule:
		a.Rule = ""
		a.Reason = fmt.Sprintf("no match of the routes on %s %s takes the request (its method, headers and query)", orAny(api.Hostname), api.Path)
	case res.Status == 404 && res.OperationID != "":
		a.Reason = fmt.Sprintf("no rule of HTTPRoute %s matches method %s on path %s", a.Route, req.Method, api.Path)
	case res.Status >= 300 && res.Status < 400 && res.Location != "":
		a.Reason = fmt.Sprintf("RequestRedirect of %s", a.Rule)
	case res.Status == 500:
		a.Reason = noBackend(api, a.Rule)
	}
	if res.Status == 404 {
		// A 404 Tyk answers itself on a path some route serves: a dropped rule that takes the path may be why.
		if d := droppedRules(out, g, req); len(d) > 0 {
			a.Reason += "; " + strings.Join(d, "; ")
		}
	}
	return a, nil
}

// exactHostNotes says, when a route with the request's exact hostname would take the request and Tyk serves it
// with another API (a wildcard's, issue 30 finding 6), what Gateway API asks and which API each Tyk release
// serves: from 5.8.0 custom domains, then longer listen paths, ties in load order; before 5.8.0 custom domains of
// one length tie whatever their listen paths (tykroute's candidates, held to a real 5.4-line Gateway). Only the
// routes attached to the listener the request reaches, l, take part, and only APIs on the Tyk port it reaches:
// a route of another listener (an HTTPS route beside the plain-HTTP redirect) is not Gateway API's answer.
func exactHostNotes(apis []*translate.API, docs []*tykoas.Document, byID map[string]*translate.API, req Request, served string,
	l *attachment.Listener, port int, opt Options) []string {
	if l == nil {
		return nil
	}
	host, p := strings.ToLower(req.URL.Hostname()), req.URL.Path
	if p == "" {
		p = "/"
	}
	var exact *translate.API
	for i, api := range apis {
		if api.Role != translate.RolePlain && api.Role != translate.RoleRouter {
			continue // an internal API is reached through its router, which has the hostname
		}
		if strings.EqualFold(api.Hostname, host) && apiTakesPath(api, p) && attachedTo(api, l) && docs[i].Tyk.Server.Port == port &&
			(exact == nil || len(api.Path) > len(exact.Path)) {
			exact = api
		}
	}
	if exact == nil || exact.ID == served {
		return nil
	}
	if s := byID[served]; s != nil && s.Role != translate.RolePlain && strings.EqualFold(s.Hostname, exact.Hostname) {
		return nil // a router of the exact hostname sent it on
	}
	route := func(id string) string {
		if api := byID[id]; api != nil {
			return fmt.Sprintf("API %s of HTTPRoute %s/%s (%s%s)", id, api.Route.Route.Namespace, api.Route.Route.Name, orAny(api.Hostname), api.Path)
		}
		return "no API (404)"
	}
	tr := tykroute.Request{Method: req.Method, Host: req.URL.Host, Path: req.URL.EscapedPath(), RawQuery: req.URL.RawQuery, Port: port}
	before, _ := tykroute.ParseVersion("5.4")
	older := tykroute.Route(docs, tr, tykroute.Options{StrictRoutes: opt.StrictRoutes, Version: before})
	newer := tykroute.Route(docs, tr, tykroute.Options{StrictRoutes: opt.StrictRoutes})
	return []string{fmt.Sprintf("Gateway API gives this request to HTTPRoute %s/%s, whose exact hostname %s beats a "+
		"wildcard; Tyk has no listener isolation and orders APIs by custom domain and listen path only: from 5.8.0 "+
		"it serves it with %s, before 5.8.0 with %s (the render warns on both routes)",
		exact.Route.Route.Namespace, exact.Route.Route.Name, exact.Hostname, route(newer.APIID), route(older.APIID))}
}

// attachedTo reports whether the API's route is attached to listener l through its parent, with the API's hostname.
func attachedTo(api *translate.API, l *attachment.Listener) bool {
	for _, al := range api.Parent.Listeners {
		if al.Listener == l && slices.Contains(al.Hostnames, api.Hostname) {
			return true
		}
	}
	return false
}

// apiTakesPath reports whether Gateway API gives path p to the API's path: the Exact value itself, or what the
// PathPrefix takes.
func apiTakesPath(api *translate.API, p string) bool {
	if api.Regex {
		re, err := regexp.Compile("^(?:" + api.Path + ")$") // RE2 matched whole (translate.RegexListenPath)
		return err == nil && re.MatchString(p)
	}
	if api.Exact {
		return p == api.Path
	}
	return attachment.PathPrefixTakes(api.Path, p)
}

func orAny(hostname string) string {
	if hostname == "" {
		return "any host"
	}
	return hostname
}

// statusText is a status as explain prints it: "proxied" when Tyk sends the request upstream, else the code Tyk
// answers with.
func statusText(code int) string {
	if code == 0 {
		return "proxied"
	}
	return strconv.Itoa(code)
}

// modelDocument is the document Tyk gets for the API: the route's own, or, when a base document applies, the
// merged one (its authentication and middleware change what Tyk does), read for what the model knows of it.
func modelDocument(api *translate.API) (*tykoas.Document, error) {
	if api.Base == nil && api.Document != nil {
		return api.Document, nil
	}
	b, err := api.Final()
	if err != nil {
		return nil, err
	}
	doc, err := tykoas.DecodeLoose(b)
	if err != nil {
		return nil, fmt.Errorf("API %s: the merged document: %w", api.ID, err)
	}
	return doc, nil
}

// pickGateway finds the Gateway the request reaches: the one named, or the only one of ours.
func pickGateway(att *attachment.Result, name string) (*attachment.Gateway, error) {
	if name == "" {
		switch len(att.Gateways) {
		case 1:
			return att.Gateways[0], nil
		case 0:
			return nil, &UsageError{"the input has no Gateway of ours (a Gateway whose GatewayClass has our controllerName)"}
		}
		var names []string
		for _, g := range att.Gateways {
			names = append(names, g.Gateway.Namespace+"/"+g.Gateway.Name)
		}
		return nil, &UsageError{"the input has several Gateways of ours; choose one with --gateway NS/NAME: " + strings.Join(names, ", ")}
	}
	ns, n, ok := strings.Cut(name, "/")
	if !ok || ns == "" || n == "" {
		return nil, &UsageError{fmt.Sprintf("--gateway must be NAMESPACE/NAME (got %q)", name)}
	}
	g := att.GatewaysByName[types.NamespacedName{Namespace: ns, Name: n}]
	if g == nil {
		return nil, &UsageError{fmt.Sprintf("Gateway %s is not one of ours: it is not in the input, or its GatewayClass "+
			"belongs to another controller", name)}
	}
	return g, nil
}

// tykPort is the Tyk port a request reaches (tykroute.Request.Port): in the gateway-api profile a request to a
// port of the data-plane Service reaches the port the render gives the listeners of its scheme on that port
// (translate.ListenerPort: an https request the TLS port, an http one the HTTP listener's own port when the
// data plane's HTTP listeners have ports of their own); every other request reaches listen_port (0).
func tykPort(out *fn.Output, g *attachment.Gateway, u *url.URL) int {
	if !out.Profile.GatewayAPI() {
		return 0
	}
	protocol := gwv1.HTTPProtocolType
	if u.Scheme == "https" {
		protocol = gwv1.HTTPSProtocolType
	}
	return translate.ListenerPort(out.Attachment, g, gwv1.Listener{Protocol: protocol, Port: gwv1.PortNumber(urlPort(u))})
}

// urlPort is the URL's port, or its scheme's default.
func urlPort(u *url.URL) int {
	if p, err := strconv.Atoi(u.Port()); err == nil {
		return p
	}
	if u.Scheme == "https" {
		return 443
	}
	return 80
}

// matchListener picks the listener that takes a request, as Gateway API asks: the protocol of the scheme,
// then the most specific hostname (exact, then wildcards with more labels first, then no hostname). Tyk itself
// has no listeners; this is for the trace.
//
// A port in the URL must be the listener's: without one, the request's port is whatever the data-plane
// Service's load balancer maps to the listener, which the render does not know.
func matchListener(g *attachment.Gateway, scheme, host, port string) *attachment.Listener {
	protocol := gwv1.HTTPProtocolType
	if scheme == "https" {
		protocol = gwv1.HTTPSProtocolType
	}
	var best *attachment.Listener
	bestScore := -1
	for _, l := range g.AllListeners() { // a ListenerSet's listeners are the Gateway's too
		if l.Listener.Protocol != protocol || !l.Serving || (port != "" && port != strconv.Itoa(int(l.Listener.Port))) {
			continue
		}
		score := attachment.HostSpecificity(l.Hostname(), host)
		if score > bestScore {
			best, bestScore = l, score
		}
	}
	return best
}

// clientCertificate says which client certificates an HTTPS listener lets through, "" when it checks none.
func clientCertificate(l *attachment.Listener) string {
	var from []string
	for _, cm := range l.ClientCAConfigMaps() {
		from = append(from, "ConfigMap "+cm.String())
	}
	if len(from) == 0 {
		return ""
	}
	return "required, signed by a CA certificate of " + strings.Join(from, ", ") +
		" (Tyk ends the TLS handshake of a client without one; one issued for clientAuth alone is answered 403 " +
		"unless the client sends the CA certificate with it)"
}

func describeListener(l *attachment.Listener) string {
	h := l.Hostname()
	if h == "" {
		h = "any host"
	}
	of := ""
	if l.Set != nil {
		of = " of " + l.Set.Description()
	}
	return fmt.Sprintf("%s%s (%s, port %d, %s)", l.Listener.Name, of, l.Listener.Protocol, l.Listener.Port, h)
}

// gatewayAPIs are the APIs the render made for the Gateway; in the gateway-api profile, those of every Gateway
// on the same data plane, since the Tyk Gateways behind it load them all and a request reaching one Gateway's
// address can be answered by any of them (a route whose parents share the data plane is served on each by one
// API).
func gatewayAPIs(out *fn.Output, g *attachment.Gateway) []*translate.API {
	dataPlane := ""
	if svc := g.Infrastructure.Service; svc != nil && out.Profile.GatewayAPI() {
		dataPlane = svc.Namespace + "/" + svc.Name
	}
	var apis []*translate.API
	for _, api := range out.Translation.APIs {
		if api.Parent.Gateway == g || (dataPlane != "" && api.DataPlane() == dataPlane) {
			apis = append(apis, api)
		}
	}
	return apis
}

// matchingRule is the first rule of the route that matches method ("": any) on the API's path value, with the
// API's path type (an Exact path's API serves only the Exact matches of the value).
func matchingRule(hr *gwv1.HTTPRoute, api *translate.API, method string) int {
	for i, r := range hr.Spec.Rules {
		for _, m := range r.Matches {
			if m.Path == nil || m.Path.Value == nil || *m.Path.Value != api.Path {
				continue
			}
			if typ := pathType(m); typ != apiPathType(api) {
				continue
			}
			if m.Method == nil || method == "" || string(*m.Method) == method {
				return i
			}
		}
	}
	return -1
}

// noBackend says why Tyk answers 500 for the API: its rule has no backend that can take the request, as
// Gateway API asks for a rule without a valid backend (no backendRefs, every weight 0, or references that do not
// resolve).
func noBackend(api *translate.API, rule string) string {
	hr := api.Route.Route
	if i := matchingRule(hr, api, ""); i >= 0 {
		refs := hr.Spec.Rules[i].BackendRefs
		if len(refs) == 0 {
			return fmt.Sprintf("spec.rules[%d] of HTTPRoute %s/%s has no backendRefs: Gateway API asks for 500 on every "+
				"request a rule without a valid backend matches", i, hr.Namespace, hr.Name)
		}
		zero := true
		for _, r := range refs {
			zero = zero && r.Weight != nil && *r.Weight == 0
		}
		if zero {
			return fmt.Sprintf("every backendRef of spec.rules[%d] of HTTPRoute %s/%s has weight 0: Gateway API asks for "+
				"500 on every request it matches", i, hr.Namespace, hr.Name)
		}
	}
	return "the backend does not resolve: " + api.Route.ResolvedRefs.Message
}

// whyNoAPI looks for what keeps a request from an API: a route of the Gateway that is not accepted and whose
// hostnames would take the host, or a dropped rule whose path would take the request.
func whyNoAPI(out *fn.Output, g *attachment.Gateway, req Request, l *attachment.Listener) string {
	host, p := req.URL.Hostname(), req.URL.Path
	if p == "" {
		p = "/"
	}
	var reasons []string
	for _, tr := range out.Translation.Routes {
		hr := tr.Route.Route
		name := hr.Namespace + "/" + hr.Name
		for i, parent := range tr.Route.Parents {
			if parent.Gateway != g || !routeTakesHost(hr, host) || !routeTakesPath(hr, p) {
				continue
			}
			if c := accepted(tr.Conditions[i]); c != nil && c.Status != metav1.ConditionTrue {
				reasons = append(reasons, fmt.Sprintf("HTTPRoute %s is not accepted: Accepted/%s: %s", name, c.Reason, c.Message))
			}
		}
	}
	reasons = append(reasons, droppedRules(out, g, req)...)
	// A route that would take the request but names a Gateway that is not in the input (a typo in its
	// parentRef) is the likeliest cause: Gateway API attaches it to nothing.
	for _, m := range out.Attachment.MissingParents {
		hr := m.Route
		if routeTakesHost(hr, host) && routeTakesPath(hr, p) {
			reasons = append(reasons, fmt.Sprintf("HTTPRoute %s/%s would take it, but its spec.parentRefs[%d] names Gateway %s, "+
				"which is not in the input", hr.Namespace, hr.Name, m.Index, m.Gateway))
		}
	}
	sort.Strings(reasons)
	if len(reasons) > 0 {
		return strings.Join(dedupe(reasons), "; ")
	}
	if l == nil {
		return fmt.Sprintf("no listener of Gateway %s/%s takes %s://%s and no API serves it", g.Gateway.Namespace, g.Gateway.Name, req.URL.Scheme, host)
	}
	return fmt.Sprintf("no route attached to Gateway %s/%s serves %s%s", g.Gateway.Namespace, g.Gateway.Name, host, p)
}

// droppedRules names the dropped rules of the accepted routes on Gateway g that take the request's host and path.
func droppedRules(out *fn.Output, g *attachment.Gateway, req Request) []string {
	host, p := req.URL.Hostname(), req.URL.Path
	if p == "" {
		p = "/"
	}
	var said []string
	for _, tr := range out.Translation.Routes {
		hr := tr.Route.Route
		for i, parent := range tr.Route.Parents {
			if parent.Gateway != g || !routeTakesHost(hr, host) || !routeTakesPath(hr, p) {
				continue
			}
			if c := accepted(tr.Conditions[i]); c != nil && c.Status != metav1.ConditionTrue {
				continue
			}
			for _, d := range tr.Drops {
				if ruleTakesPath(hr.Spec.Rules[d.Rule], p) {
					said = append(said, fmt.Sprintf("HTTPRoute %s/%s dropped %s", hr.Namespace, hr.Name, d.String()))
				}
			}
		}
	}
	return dedupe(said)
}

func accepted(conds []metav1.Condition) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == string(gwv1.RouteConditionAccepted) {
			return &conds[i]
		}
	}
	return nil
}

func routeTakesHost(hr *gwv1.HTTPRoute, host string) bool {
	if len(hr.Spec.Hostnames) == 0 {
		return true
	}
	for _, h := range hr.Spec.Hostnames {
		if attachment.HostSpecificity(string(h), host) > 0 {
			return true
		}
	}
	return false
}

// routeTakesPath reports whether some rule of the route matches the request's path.
func routeTakesPath(hr *gwv1.HTTPRoute, p string) bool {
	for _, r := range hr.Spec.Rules {
		if ruleTakesPath(r, p) {
			return true
		}
	}
	return false
}

// ruleTakesPath reports whether a match of the rule takes path p as Gateway API's PathPrefix does: element by
// element ("/orders" takes "/orders" and "/orders/7", not "/ordersx"). A rule without matches takes every path.
func ruleTakesPath(r gwv1.HTTPRouteRule, p string) bool {
	if len(r.Matches) == 0 {
		return true
	}
	for _, m := range r.Matches {
		if m.Path == nil || m.Path.Value == nil {
			return true
		}
		if attachment.PathPrefixTakes(*m.Path.Value, p) {
			return true
		}
	}
	return false
}

func dedupe(in []string) []string {
	var out []string
	for i, s := range in {
		if i == 0 || s != in[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// pathType is a match's path type (PathPrefix when unset, the CRD's default).
func pathType(m gwv1.HTTPRouteMatch) gwv1.PathMatchType {
	if m.Path == nil || m.Path.Type == nil {
		return gwv1.PathMatchPathPrefix
	}
	return *m.Path.Type
}

// apiPathType is the path type of the matches an API serves.
func apiPathType(api *translate.API) gwv1.PathMatchType {
	switch {
	case api.Regex:
		return gwv1.PathMatchRegularExpression
	case api.Exact:
		return gwv1.PathMatchExact
	}
	return gwv1.PathMatchPathPrefix
}
