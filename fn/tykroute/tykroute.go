// Package tykroute is an offline model of how Tyk Gateway routes one HTTP request over a set of loaded Tyk OAS
// APIs: which API takes it, which OpenAPI operation's middleware applies, and what goes upstream (or what Tyk
// answers itself). It knows Tyk only; Gateway API, Kubernetes and YAML are its callers' business.
//
// The model follows Tyk Gateway's source (gateway/api_loader.go, gateway/reverse_proxy.go,
// gateway/mw_url_rewrite.go, gateway/mw_mock_response.go) and gorilla/mux, and assumes a gateway with
// enable_custom_domains on and enable_path_prefix_matching / enable_path_suffix_matching off. Where Tyk's
// behaviour differs from what a plain prefix router would do, Outcome.Notes says so.
package tykroute

import (
	"fmt"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// Options are the gateway settings that change routing.
type Options struct {
	// StrictRoutes is Tyk's http_server_options.enable_strict_routes.
	StrictRoutes bool
	// Version is the Tyk Gateway release the model answers for; zero means MinVersion.
	Version Version
	// HeaderNamesKept is Tyk's ignore_canonical_mime_header_key: a header transform's name that is not in
	// canonical form is then a header of its own beside the canonical one (Transform.Add), not a replacement.
	HeaderNamesKept bool
}

func (o Options) version() Version {
	if o.Version.IsZero() {
		return MinVersion
	}
	return o.Version
}

// Request is the request as the client sends it.
type Request struct {
	Method   string // upper case, as on the wire
	Host     string // without port (a port is ignored, as gorilla/mux does)
	Path     string // the request path, "" meaning "/"
	RawQuery string // without the "?"
	// Header is the request's headers (canonical names), which urlRewrite triggers may read.
	Header http.Header
	// Port is the Tyk port the request arrives on: 0 is the Gateway's listen_port, any other an API's
	// server.port (a listener of its own, as the gateway-api profile gives an HTTPS listener).
	Port int
}

// Header is one header name and value.
type Header struct{ Name, Value string }

// Target is one upstream URL the request may go to, with its load-balancing weight (1 when the API does not
// balance load).
type Target struct {
	URL    string
	Weight int
}

// Transform is a header change: Remove runs first, then Set (Tyk holds one value per header name, so an
// "add" of a transform replaces any value the request already has), and Add: the headers Tyk writes by a name
// not in canonical form when it keeps names as written (Options.HeaderNamesKept), a line of their own beside
// any value the message has, which is Gateway API's add.
type Transform struct {
	Set    []Header
	Remove []string
	Add    []Header
}

// Outcome is what Tyk does with the request.
type Outcome struct {
	APIID       string // the API that serves the request; "" when none does
	OperationID string // the matched OpenAPI operation; "" when none

	// Status is 0 when Tyk proxies the request; otherwise the status Tyk answers itself: 404 when no API
	// takes the request, a mockResponse code (404 for method mocks, 3xx for redirects), 301 for a path that
	// gorilla/mux cleans, 500 when the upstream cannot be reached, 503 when load balancing has no target.
	Status   int
	Location string // the Location header of a redirect Tyk answers itself

	// Upstreams are the URLs (path and query included) the request may be proxied to, with their weights;
	// one entry when the API does not balance load. Set when proxied, and with Status 500 for an upstream
	// Tyk cannot reach.
	Upstreams []Target
	// UpstreamHost is the Host header the upstream gets: the client's with upstream.preserveHostHeader, else
	// the upstream URL's host (set when there is one upstream).
	UpstreamHost string

	RequestHeaders  Transform // transformRequestHeaders of the matched operation, when the request goes upstream
	ResponseHeaders Transform // transformResponseHeaders, on an upstream or mock response
	// Timeout is the enforceTimeout of the matched operation (the classic way), when the request goes upstream:
	// Tyk answers 504 when the upstream has not answered by then. 0: none (the Gateway's own limits apply).
	Timeout time.Duration

	// Notes explain where Tyk's behaviour differs from a plain prefix router, in plain sentences.
	Notes []string
}

// Route answers what Tyk Gateway does with req given the loaded apis:
//
//  1. gorilla/mux first cleans the path (path.Clean, keeping a trailing slash); a path that changes is
//     answered with 301 to the clean path, the query kept, before any API is tried;
//  2. the candidate APIs are the active ones on the request's port (server.port, 0 being listen_port: Tyk runs
//     one router per port) whose custom domain, if any, matches the host (see candidates),
//     and the API is the first of them whose listen path takes the path (see selectAPI); when no API takes
//     the request, Tyk answers 404 and APIID is "";
//  3. the API serves it (see serve).
func Route(apis []*tykoas.Document, req Request, opt Options) Outcome {
	var out Outcome
	reqPath := req.Path
	if reqPath == "" {
		reqPath = "/"
	}
	if clean := cleanPath(reqPath); clean != reqPath {
		out.Status = http.StatusMovedPermanently
		out.Location = withQuery(clean, req.RawQuery)
		out.note("path %s is not clean: gorilla/mux answers 301 with Location %s before any API is tried", reqPath, out.Location)
		return out
	}

	all := apis
	apis = onPort(apis, req.Port)
	api := selectAPI(candidates(apis, req.Host, opt.version(), &out), reqPath, opt, &out)
	noteOrderChange(apis, api, req.Host, reqPath, opt, &out)
	if api == nil {
		out.Status = http.StatusNotFound
		return out
	}
	v := &visit{docs: all, header: req.Header, contextPath: reqPath, host: req.Host, kept: opt.HeaderNamesKept}
	served := v.serve(api, req.Method, reqPath, req.RawQuery, opt, &out, 0)
	out.APIID = served.id
	out.UpstreamHost = upstreamHost(served, req.Host, out.Upstreams)
	noteMockChange(all, req, opt, &out)
	return out
}

// onPort keeps the APIs Tyk serves on port: each port has a router of its own, holding the APIs whose
// server.port it is (listen_port's holds those without one).
func onPort(apis []*tykoas.Document, port int) []*tykoas.Document {
	var out []*tykoas.Document
	for _, d := range apis {
		if d != nil && d.Tyk.Server.Port == port {
			out = append(out, d)
		}
	}
	return out
}

// noteMockChange says, when no release was given (the answer is for MinVersion and later), that the releases
// which match mockResponse the classic way (see classicMock) answer the request otherwise. apis are all the
// loaded APIs, whatever their port: the internal APIs a router loops to have none.
func noteMockChange(apis []*tykoas.Document, req Request, opt Options, out *Outcome) {
	if !opt.Version.IsZero() {
		return
	}
	later := opt
	later.Version = mockOrderedMain
	o := Route(apis, req, later)
	if o.Status == out.Status && o.Location == out.Location && fmt.Sprint(o.Upstreams) == fmt.Sprint(out.Upstreams) {
		return
	}
	what := "proxied"
	if o.Status != 0 {
		what = fmt.Sprintf("answered %d by Tyk itself", o.Status)
		if o.Location != "" {
			what += " with Location " + o.Location
		}
		if o.OperationID != "" {
			what += " (the mock of operation " + o.OperationID + ")"
		}
	}
	out.note("Tyk 5.8.12 and later 5.8 releases, and 5.12.0 and later, match mock responses the classic way "+
		"(TT-15856) and answer otherwise: there the request is %s", what)
}

// noteOrderChange says when a release before 5.8.0 gives the request to another API than 5.8.0 and later do
// (TT-13507 changed the order of APIs): the rendered APIs are made for the later order.
func noteOrderChange(apis []*tykoas.Document, chosen *candidate, host, reqPath string, opt Options, out *Outcome) {
	if !opt.version().Less(orderedByListenPath) {
		return
	}
	later := opt
	later.Version = orderedByListenPath
	var scratch Outcome
	other := selectAPI(candidates(apis, host, orderedByListenPath, &scratch), reqPath, later, &scratch)
	name := func(c *candidate) string {
		if c == nil {
			return "no API"
		}
		return "API " + c.id
	}
	if name(chosen) != name(other) {
		out.note("Tyk %s orders APIs by the length of their custom domain first, so %s takes the request; from "+
			"%s (TT-13507) %s takes it, as the render intends", opt.version(), name(chosen), orderedByListenPath, name(other))
	}
}

// maxLoops is how many times Tyk lets a request loop (tyk://) before it answers 500 (loop_level_limit's
// default).
const maxLoops = 5

// serve is what an API does with a request, in the order of Tyk's middleware chain:
//
//  1. the operation and its middleware are found (see matchOperations);
//  2. when the API turns authentication on and no matching operation has ignoreAuthentication, the request,
//     which carries no credentials, is answered 401;
//  3. a urlRewrite to tyk://self/<path> loops the request back into the same API with the new path and
//     query, and the API serves it again from the top (so a bare listen path looped to <listenPath>/ meets
//     the mockResponse there);
//  4. a mockResponse answers with its code (200 when unset) and its Location header, and nothing goes
//     upstream; transformResponseHeaders still applies, since Tyk runs mock responses through the response
//     chain;
//  5. otherwise the request is proxied (see proxy), with the listen path removed from the path sent
//     upstream when server.listenPath.strip is on (see stripListenPath).
//
// visit is what stays the same while a request loops inside Tyk: the loaded APIs (a tyk://<api id> loop may go to
// any of them, an internal one included), the request's headers, and the path its context variables hold (the
// path the client sent, which a loop does not change on Tyk 5.14, seen: $tyk_context.path of a bare listen path's
// request; before, a loop runs the context variables middleware again, and the render loops no request whose
// answer uses them there).
type visit struct {
	docs        []*tykoas.Document
	header      http.Header
	contextPath string
	// host is the request's host, which context variable headers_Host holds (without the port: see Request).
	host string
	// kept is Options.HeaderNamesKept.
	kept bool
	// context are the context variables urlRewrite triggers set (contextGroup).
	context map[string]string
}

// serve has api serve the request and returns the API that served it in the end (another one after a tyk://<api
// id> loop).
func (vi *visit) serve(api *candidate, method, reqPath, rawQuery string, opt Options, out *Outcome, loops int) *candidate {
	v := opt.version()
	endpoint := stripListenPath(api.listenPath, reqPath)
	m := matchOperations(api, method, reqPath, endpoint, v, out)
	out.OperationID = m.operationID
	if a := api.doc.Tyk.Server.Authentication; a != nil && a.Enabled && m.ignoreAuth == nil {
		out.Status = http.StatusUnauthorized
		out.note("API %s turns authentication on: a request without credentials gets 401", api.id)
		return api
	}
	if m.rewrite != nil {
		if u, ok := rewrite(api, m.rewrite, rewriteSubject(reqPath, rawQuery, loops), vi.header, vi, out); ok && u.Scheme == "tyk" {
			if loops == maxLoops {
				out.Status = http.StatusInternalServerError
				out.note("the request looped %d times (tyk://): Tyk answers 500", loops)
				return api
			}
			next := api
			if u.Host != "self" {
				next = vi.find(u.Host)
				if next == nil {
					out.Status = http.StatusInternalServerError
					out.note("urlRewrite of API %s loops to %s, which no loaded API is: Tyk answers 500 (can't detect loop target)", api.id, u.Host)
					return api
				}
				out.note("API %s loops the request to API %s as %s", api.id, next.id, u.String())
			}
			return vi.serve(next, method, u.EscapedPath(), u.RawQuery, opt, out, loops+1)
		}
	}
	if m.mock != nil {
		mock := m.mock.mw.MockResponse
		out.Status = mock.Code
		if out.Status == 0 {
			out.Status = http.StatusOK // Tyk's default mock code
		}
		for _, h := range mock.Headers {
			if strings.EqualFold(h.Name, "Location") {
				out.Location = h.Value
			}
		}
		out.ResponseHeaders = vi.withContextVariables(api, transform(m.responseHeaders, responseHeaders, vi.kept), out)
		for _, h := range out.ResponseHeaders.Set {
			if strings.EqualFold(h.Name, "Location") {
				out.Location = h.Value // the transform runs after the mock response's own headers
			}
		}
		return api
	}

	upstreamPath := reqPath
	if api.doc.Tyk.Server.ListenPath.Strip {
		upstreamPath = endpoint
	}
	if m.timeout != nil {
		out.Timeout = enforcedTimeout(api.id, m.timeout.mw.EnforceTimeout, opt, out)
	}
	proxy(api, reqPath, upstreamPath, rawQuery, rewriteSubject(reqPath, rawQuery, loops), vi.header, vi, m, out)
	out.RequestHeaders = vi.withContextVariables(api, out.RequestHeaders, out)
	out.ResponseHeaders = vi.withContextVariables(api, out.ResponseHeaders, out) // seen on v5.14.0 (e2e TestRealTykCORS)
	return api
}

// rewriteSubject is the request URL an urlRewrite is matched against: the path and query; after a tyk:// loop
// an absolute URL without host, "http:///<path>?<query>" (Tyk's DummyProxyHandler sets the scheme and puts back
// the original request's host, which a server request has none of; seen on the 5.4 line).
func rewriteSubject(reqPath, rawQuery string, loops int) string {
	if loops > 0 {
		return "http://" + withQuery(reqPath, rawQuery)
	}
	return withQuery(reqPath, rawQuery)
}

// find is the loaded API a tyk://<host> loop goes to: the one with that API ID, internal or not (Tyk's
// fuzzyFindAPI also takes an API name, which the render never loops to).
func (vi *visit) find(id string) *candidate {
	for _, d := range vi.docs {
		if d != nil && d.Tyk.Info.State.Active && d.Tyk.Info.ID == id {
			return &candidate{doc: d, id: d.Tyk.Info.ID, listenPath: d.Tyk.Server.ListenPath.Value}
		}
	}
	return nil
}

// enforcedTimeout is what Tyk enforces for an operation's enforceTimeout (reverse_proxy's
// GetEnforcedTimeoutSettings): duration when set and above zero, from 5.14 (TimeoutDurations), else value in
// whole seconds. An older Gateway has no duration: the 5.4 line refuses the API that sets one, v5.8.11 loads it and
// ignores the duration (both seen); with no release given the document is taken to be for the release it was
// written for, as sync's version check holds it to.
func enforcedTimeout(id string, t *tykoas.EnforceTimeout, opt Options, out *Outcome) time.Duration {
	if t.Duration != "" {
		d, err := time.ParseDuration(t.Duration)
		switch {
		case err != nil:
			out.note("API %s: enforceTimeout.duration %q is not a duration: Tyk 5.14 reads it as 0s, so value applies", id, t.Duration)
		case !opt.Version.IsZero() && opt.Version.Less(MinVersion):
			out.note("API %s sets enforceTimeout.duration, which Tyk %s refuses (it has no such field before %s): "+
				"such a Gateway does not load the API", id, opt.Version, TimeoutDurations)
		case !opt.Version.IsZero() && opt.Version.Less(TimeoutDurations):
			out.note("API %s sets enforceTimeout.duration, which Tyk %s ignores (it has no such field before %s): it "+
				"enforces value, whole seconds", id, opt.Version, TimeoutDurations)
		case d > 0:
			if opt.Version.IsZero() {
				out.note("API %s enforces its timeout as enforceTimeout.duration, which Tyk takes from %s on; an older "+
					"Gateway refuses the API (sync's version check names the field)", id, TimeoutDurations)
			}
			return d
		}
	}
	if t.Value > 0 {
		return time.Duration(t.Value) * time.Second
	}
	return 0
}

func (o *Outcome) note(format string, args ...any) {
	o.Notes = append(o.Notes, fmt.Sprintf(format, args...))
}

// cleanPath is gorilla/mux's cleanPath: path.Clean that keeps a trailing slash.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}

// hostOnly drops a port, as gorilla/mux's getHost does (everything from the first colon).
func hostOnly(host string) string {
	if i := strings.IndexByte(host, ':'); i >= 0 {
		return host[:i]
	}
	return host
}

func withQuery(p, rawQuery string) string {
	if rawQuery == "" {
		return p
	}
	return p + "?" + rawQuery
}

// stripListenPath is Tyk's StripListenPath: the listen path removed as a string prefix, and a leading "/"
// put back, so "/orders" under "/orders" is "/" and "/v2example" under "/v2" is "/example". A listen path with
// mux variables that is not a string prefix of the path is removed as the regular expression gorilla/mux's
// PathPrefix makes of it, so "/one" under "/one{exact:$}" is "/". Tyk matches endpoints against this path
// whether or not strip is on; strip only decides what goes upstream.
func stripListenPath(listenPath, p string) string {
	if !strings.HasPrefix(p, listenPath) && isMuxTemplate(listenPath) {
		if re, err := muxPrefix(listenPath); err == nil {
			p = re.ReplaceAllString(p, "")
		}
	}
	p = strings.TrimPrefix(p, listenPath)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return p
}
