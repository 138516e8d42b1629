package translate

import (
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/basedoc"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/parallel"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/status"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// DataPlanes tells the translation what the implementation knows about a Gateway's data plane. Its methods are
// called concurrently (one route per goroutine).
type DataPlanes interface {
	// Tags are the gateway tags of the Gateway's APIs (nil: none, so every unsegmented Tyk Gateway loads them).
	Tags(gw *gwv1.Gateway) []string
	// Org is the Tyk organisation of the Gateway's APIs, the prefix of certificate IDs ("" when unknown).
	Org(gw *gwv1.Gateway) string
	// Connection says why the Tyk connection of the Gateway's class cannot be read ("" when it can).
	Connection(gw *gwv1.Gateway) string
	// SharedDataPlaneServes says whether a parent whose Gateway shares its data plane with another parent that
	// already serves the route on the same hostname and path is served by that API (the gateway-api profile:
	// the same Tyk Gateways answer both Gateways' addresses), rather than Accepted False DataPlaneShared (the
	// reference).
	SharedDataPlaneServes() bool
	// ListenersOwnPorts says whether an HTTPS listener's APIs are served on a TLS port of their own (the
	// gateway-api profile, see ports.go) rather than on the Gateway's listen_port (the reference).
	ListenersOwnPorts() bool
	// Timeouts says whether and how a rule's timeouts are served (see Timeouts): rejected in the reference, in
	// the gateway-api profile as the Tyk release the APIs are for can.
	Timeouts() Timeouts
	// ExactPaths says whether and how a match with path.type Exact is served (see ExactPaths): rejected in the
	// reference, in the gateway-api profile as the Tyk release the APIs are for can.
	ExactPaths() ExactPaths
	// RedirectsKeepPath says whether a RequestRedirect without path, which keeps the request's path, is served
	// (see requestPathLocation): the gateway-api profile for a Tyk that finds mock responses the classic way.
	RedirectsKeepPath() bool
	// RedirectsKeepHost says whether a RequestRedirect without hostname, which keeps the request's host, is
	// served where the route's hostnames are exact (see constantRedirect): the gateway-api profile.
	RedirectsKeepHost() bool
	// HeaderAndQueryMatches says whether a match's headers and queryParams are served (see router.go): the
	// gateway-api profile.
	HeaderAndQueryMatches() bool
	// ListenerIsolation says whether a wildcard hostname's custom domain leaves out the exact hostnames of the
	// Gateway's other listeners on its port (isolation.go): the gateway-api profile.
	ListenerIsolation() bool
	// HostlessCertificates says whether an API without hostname on an HTTPS listener's port gets the
	// listener's certificates (certificates.go): the gateway-api profile; the reference gives it none.
	HostlessCertificates() bool
	// HeaderNames says how the Tyk Gateways write a header transform's names (see HeaderNames), so whether a
	// ResponseHeaderModifier's add is served: the gateway-api profile on Gateways that keep names as written.
	HeaderNames() HeaderNames
}

// Bases gives the attached definition whose base document applies to a route's APIs on a Gateway (nil: none).
// For is called concurrently.
type Bases interface {
	For(route *gwv1.HTTPRoute, gw *gwv1.Gateway) *basedoc.Definition
}

// API is one Tyk OAS API: a route served on one parent Gateway, effective hostname and path value.
type API struct {
	ID       string
	Route    *attachment.Route
	Parent   *attachment.Parent
	Hostname string
	// Path is the path value the API serves; Exact says it is an Exact match's (its listen path is
	// ExactListenPath), not a PathPrefix's.
	Path  string
	Exact bool
	// Regex says the path value is a RegularExpression's (its listen path is RegexListenPath; Exact is set too).
	Regex bool
	// Role is what the API is for: a plain API, or a router, internal or no-rule API of a path served with
	// header and query matches (router.go).
	Role Role
	// claim and routed are a router's: the route's share of the path, and, on the router kept, every method's
	// matches in order.
	claim  *routerClaim
	routed map[string][]routedBranch
	// Rules are the indexes of the rules the API serves.
	Rules []int
	// Document is the route-derived API; Base, when set, is the definition whose base document it is laid
	// over (see Encode).
	Document *tykoas.Document
	Base     *basedoc.Definition
	// Encoded and EncodeErr are what Encode returned, when TranslateEncoded made the API (Document is then nil).
	Encoded   []byte
	EncodeErr error
	// dataPlane identifies the Tyk Gateways that serve the API: the namespace/name of the data-plane Service of
	// its Gateway, "" when the Gateway has none.
	dataPlane string
	// port is the Tyk port the API is served on (ports.go), 0 for the listen_port; domainVar, when set, says an
	// API on a higher port has the same hostname and listen path, so this one's custom domain is written otherwise
	// (plainDomain, with domainVar as its variable).
	port      int
	domainVar string
	// idHost is the hostname the API's ID is made from: the hostname, or portHost's for the higher port's APIs of
	// a hostname that listeners serve on two ports.
	idHost string
	// bySegment says the plain API's listen path takes its PathPrefix by whole segments (segments.go), not as a
	// string prefix.
	bySegment bool
	// isolated are the hostnames (exact, or wildcards inside its own) the custom domain of an API of a wildcard
	// or of no hostname leaves out (isolation.go).
	isolated []string
	// variant, when set, says an API on a higher port has no hostname either and the same listen path, so this
	// one's listen path is written otherwise (listenPathVariant, with variant as its number).
	variant int
	// part says which requests of its rule an internal API takes, where the rule has more than one (cors.go).
	part string
}

// Isolates reports whether the API's custom domain leaves out host, which another listener of its Gateway
// claims (isolation.go), so that Tyk never gives the API host's requests.
func (a *API) Isolates(host string) bool {
	for _, h := range a.isolated {
		if h == host || (strings.HasPrefix(h, "*.") && attachment.HostTakes(h, host)) {
			return true
		}
	}
	return false
}

// domain is the API's custom domain ("" for none): its hostname as a mux host template.
func (a *API) domain() string {
	if a.Role == RoleInternal || a.Role == RoleNoRule {
		return ""
	}
	return domainOf(a.Hostname, a.domainVar, a.isolated)
}

// domainOf is the custom domain of an API of host, leaving out the isolated hostnames (isolation.go), written
// with domainVar as plainDomain's variable when set.
func domainOf(host, domainVar string, isolated []string) string {
	if domainVar != "" {
		return plainDomain(host, domainVar, isolated)
	}
	return customDomain(host, isolated)
}

// Route is the translated state of one attached route.
type Route struct {
	Route *attachment.Route
	// Conditions are the final conditions of each parent, in the order of Route.Parents.
	Conditions [][]metav1.Condition
	// Drops are the parts of the route that cannot be served.
	Drops []Drop
	// Approximations are the parts of the served rules that Tyk serves only approximately (a timeout rounded up
	// to whole seconds): the route is accepted, and its Accepted message says how each is served.
	Approximations []Drop
	// Lost are the APIs of the route that another route or parent serves instead, per parent index.
	Lost map[int][]Loss
	// Rejected are the parents that get no API at all for a reason of their own, per parent index.
	Rejected map[int]Rejection
	// sharedServes is DataPlanes.SharedDataPlaneServes: a DataPlaneShared loss leaves the parent accepted.
	sharedServes bool
}

// Rejection is why a parent of the route gets no API: its Accepted condition's reason and message, the field
// at fault, and whether it is an error. A rejection for a cause outside the route's own rules (its base
// document cannot be used or conflicts with it, the Tyk connection cannot be read) fails closed: the render
// fails, so in GitOps what is deployed stays instead of the route's APIs being removed or published bare.
type Rejection struct {
	Reason, Field, Message string
	Error                  bool
}

// Loss is an API a route does not get, and why.
type Loss struct {
	Reason  string
	Field   string
	Message string
}

// Output is the result of the translation.
type Output struct {
	// APIs are sorted by ID.
	APIs   []*API
	Routes []*Route
}

// Translate turns every accepted parent of every attached route into APIs, resolves the APIs that would
// collide in Tyk, and decides the route conditions that depend on translation.
func Translate(res *attachment.Result, dp DataPlanes, bases Bases) *Output {
	return translate(res, dp, bases, false)
}

// TranslateEncoded is Translate for a caller that needs only each API's final document as bytes (the KRM
// function): every API's document is encoded (API.Encode) as soon as it is built, into Encoded (or EncodeErr),
// and let go (Document is nil). The route-derived documents are heavy with pointers; at fleet scale, holding them
// all until they were encoded made the collector mark hundreds of megabytes more in every cycle.
func TranslateEncoded(res *attachment.Result, dp DataPlanes, bases Bases) *Output {
	return translate(res, dp, bases, true)
}

func translate(res *attachment.Result, dp DataPlanes, bases Bases, encode bool) *Output {
	out := &Output{}
	// Routes are translated on every core: a route's APIs depend on the route, its attachment and the read-only
	// inventory behind dp and bases, never on another route (collisions are resolved after).
	type translated struct {
		route *Route
		apis  []*API
	}
	leaves := &leafDigests{}
	pp := newPortPlan(res, dp.ListenersOwnPorts())
	routed := routerKeys(res, dp, pp)
	shared := pp.sharedClaims(res)
	all := parallel.Map(len(res.Routes), func(i int) translated {
		tr, apis := translateRoute(res.Routes[i], dp, pp, bases, leaves, routed, shared)
		if encode {
			for _, api := range apis {
				api.Encoded, api.EncodeErr = api.Encode()
				api.Document = nil
			}
		}
		return translated{tr, apis}
	})
	var candidates []*API
	for _, t := range all {
		out.Routes = append(out.Routes, t.route)
		candidates = append(candidates, t.apis...)
	}
	candidates = buildRouters(candidates, out.Routes)
	out.APIs = finishRouters(resolveCollisions(candidates, out.Routes), encode)
	for _, tr := range out.Routes {
		tr.Conditions = routeConditions(tr)
	}
	sort.Slice(out.APIs, func(i, j int) bool { return out.APIs[i].ID < out.APIs[j].ID })
	return out
}

// translateRoute compiles the route's rules once (they do not depend on the parent) and makes one API per
// accepted parent, effective hostname and path value.
func translateRoute(r *attachment.Route, dp DataPlanes, pp *portPlan, bases Bases, leaves *leafDigests, routed map[string]bool,
	shared map[string]sharedClaim) (*Route, []*API) {
	hr := r.Route
	tr := &Route{Route: r, Lost: map[int][]Loss{}, Rejected: map[int]Rejection{}, sharedServes: dp.SharedDataPlaneServes()}
	listeners := admittingListenerFacts(r)
	backends := func(i int) []attachment.Backend { return r.Backends[i] }
	var rules []*rule
	byIndex := map[int]*rule{}
	served := servedFeatures{timeouts: dp.Timeouts(), exact: dp.ExactPaths(), redirectsKeepPath: dp.RedirectsKeepPath(),
		conditions: dp.HeaderAndQueryMatches(), redirectsKeepHost: dp.RedirectsKeepHost(), headerNames: dp.HeaderNames()}
	for i, spec := range hr.Spec.Rules {
		compiled, drops := compileRule(i, spec, backends, listeners, served)
		tr.Drops = append(tr.Drops, drops...)
		if compiled != nil {
			rules = append(rules, compiled)
			byIndex[i] = compiled
			tr.Approximations = append(tr.Approximations, compiled.approximations...)
		}
	}
	plans, drops := planPaths(rules, served.conditions)
	tr.Drops = append(tr.Drops, drops...)
	sort.SliceStable(tr.Drops, func(i, j int) bool { return tr.Drops[i].Rule < tr.Drops[j].Rule })

	var apis []*API
	seen := map[string]bool{}
	for i, parent := range r.Parents {
		if parent.Accepted.Status != metav1.ConditionTrue {
			continue
		}
		gw := parent.Gateway.Gateway
		if why := dp.Connection(gw); why != "" {
			tr.Rejected[i] = Rejection{Reason: status.ReasonEnvironmentUnresolved, Field: fmt.Sprintf("spec.parentRefs[%d]", parent.Index),
				Message: why, Error: true}
			continue
		}
		base := bases.For(hr, gw)
		if base != nil && base.Problem != nil {
			tr.Rejected[i] = baseRejection(base, parent.Index)
			continue
		}
		tags := dp.Tags(gw)
		var parentAPIs []*API
		var conflicts []string
		templated := map[string]bool{} // hostnames whose validated API has a template domain (clientCAUnderTemplate)
		for _, host := range parentHostnames(parent) {
			hostCerts := certificates(parent, host, dp.Org(gw), leaves, dp.HostlessCertificates())
			var isolated []string
			if dp.ListenerIsolation() {
				var covered bool
				if isolated, covered = isolatedHosts(parent, host); covered {
					continue // every host of it is a more specific listener's: no request would reach its APIs
				}
			}
			ports := pp.ports(parent, host)
			for _, port := range ports {
				tls, idHost := serverTLS{certs: hostCerts}, host
				if (len(ports) > 1 && port == 0) || (port != 0 && serverProtocol(parent, host, port) == "http") {
					tls = serverTLS{} // the listen_port is plain HTTP where an HTTPS listener has a port of its own
				} else {
					tls.clientCAs = clientCAs(parent, host, port, pp, dp.Org(gw))
				}
				if len(ports) > 1 && port != primaryPort(parent, host, ports) {
					idHost = portHost(host, port)
				}
				for _, plan := range plans {
					id := APIID(hr.Namespace, hr.Name, plan.listenPath(), gw.Namespace, gw.Name, idHost)
					if seen[id] {
						continue // another parentRef to the same Gateway already serves it
					}
					seen[id] = true
					key := host + "\n" + plan.listenPath()
					sh := shared[sharedDomainKey(claimWhere(dataPlaneOf(parent.Gateway), gw, 0)+"\n"+key, port)]
					domainVar := sh.domainVar
					if len(tls.clientCAs) > 0 && !templated[host] && strings.Contains(domainOf(host, domainVar, isolated), "{") {
						templated[host] = true
						tr.Approximations = append(tr.Approximations, clientCAUnderTemplate(host, domainOf(host, domainVar, isolated)))
					}
					if plan.routed(served.conditions) || routed[claimWhere(dataPlaneOf(parent.Gateway), gw, port)+"\n"+key] {
						for _, api := range routedAPIs(r, parent, host, idHost, plan, byIndex, tags, tls, port, domainVar, served.exact, isolated) {
							if api.Role == RoleInternal && base != nil {
								api.Base = base
								conflicts = append(conflicts, base.Conflicts(api.Document)...)
							}
							if api.Role == RoleRouter {
								if _, ok := listenPathVariant(api.routerListenPath(), sh.variant, true); ok {
									api.variant = sh.variant
								}
							}
							parentAPIs = append(parentAPIs, api)
						}
						continue
					}
					doc := document(id, host, domainOf(host, domainVar, isolated), plan, tags, tls, served.exact)
					variant := 0
					if lp, ok := listenPathVariant(doc.Tyk.Server.ListenPath.Value, sh.variant, served.exact == ExactServed || !hasMock(doc)); ok {
						doc.Tyk.Server.ListenPath.Value, variant = lp, sh.variant
					}
					if port != 0 {
						doc.Tyk.Server.Protocol, doc.Tyk.Server.Port = serverProtocol(parent, host, port), port
					}
					if base != nil {
						conflicts = append(conflicts, base.Conflicts(doc)...)
					}
					parentAPIs = append(parentAPIs, &API{ID: id, Route: r, Parent: parent, Hostname: host, Path: plan.path,
						Exact: plan.exact, Regex: plan.regex, Rules: plan.rules, Document: doc, Base: base, dataPlane: dataPlaneOf(parent.Gateway),
						port: port, domainVar: domainVar, idHost: idHost, bySegment: bySegment(plan, served.exact, doc),
						isolated: isolated, variant: variant})
				}
			}
		}
		if len(conflicts) > 0 {
			tr.Rejected[i] = Rejection{Reason: status.ReasonAttachmentConflict, Field: fmt.Sprintf("spec.parentRefs[%d]", parent.Index), Error: true,
				Message: fmt.Sprintf("TykOasApiDefinition %s conflicts with the route: %s", base.Name(), strings.Join(dedupe(conflicts), "; "))}
			continue
		}
		apis = append(apis, parentAPIs...)
	}
	return tr, apis
}

// admittingListenerFacts are the scheme and port of every serving listener that admits the route, over all its
// parents: a redirect is constant only if it is the same through each of them.
func admittingListenerFacts(r *attachment.Route) []listenerFacts {
	var out []listenerFacts
	for _, p := range r.Parents {
		for _, l := range p.Listeners {
			out = append(out, listenerFacts{scheme: schemeOf(l.Listener.Listener.Protocol), port: l.Listener.Listener.Port,
				hostnames: l.Hostnames})
		}
	}
	return out
}

// parentHostnames is the union, in listener order, of the effective hostnames of the listeners the parent
// attaches to.
func parentHostnames(p *attachment.Parent) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range p.Listeners {
		for _, h := range l.Hostnames {
			if !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	return out
}

// document builds the API per the API Configuration table of the reference: the API of hostname (its custom
// domain is domain, none when "").
func document(id, hostname, domain string, plan *pathPlan, tags []string, tls serverTLS, exact ExactPaths) *tykoas.Document {
	// An Exact path's API takes only the path itself, which goes upstream as it came (strip off, and the
	// backend's URL without the path): stripped, "/docs/" would reach the upstream as "/docs", since Tyk drops
	// the trailing slash when what is left is "/".
	d := frame(id, domain, plan.listenPath(), !plan.exact, tags, tls)
	up := plan.upstream
	if up == nil {
		up = &upstreamSpec{} // every rule of the path redirects: the upstream is never reached
	}
	if plan.exact {
		d.Tyk.Upstream = up.upstream("")
	} else {
		d.Tyk.Upstream = up.upstream(plan.path)
	}
	plan.operations(d, hostname, baseURL)
	if bySegment(plan, exact, d) {
		// A PathPrefix by whole segments (segments.go); the path goes upstream as it came where nothing rewrites it.
		d.Tyk.Server.ListenPath.Value = SegmentListenPath(plan.path)
		if plan.keepsPath() {
			d.Tyk.Server.ListenPath.Strip = false
			d.Tyk.Upstream = up.upstream("")
		}
	}
	return d
}

// frame is what every API document has: its ID, listen path, custom domain (the hostname's, with its
// certificates), the CA certificates of mutual TLS with clients, and gateway tags.
func frame(id, domain, listenPath string, strip bool, tags []string, tls serverTLS) *tykoas.Document {
	d := tykoas.NewDocument(id)
	d.Tyk.Server.ListenPath = tykoas.ListenPath{Value: listenPath, Strip: strip}
	if domain != "" || len(tls.certs) > 0 {
		// no domain: Tyk routes the API by no host, and offers the certificates for every server name on its port
		d.Tyk.Server.CustomDomain = &tykoas.CustomDomain{Enabled: true, Name: domain, Certificates: tls.certs}
	}
	if len(tls.clientCAs) > 0 {
		d.Tyk.Server.ClientCertificates = &tykoas.ClientCertificates{Enabled: true, Allowlist: tls.clientCAs}
	}
	if len(tags) > 0 {
		d.Tyk.Server.GatewayTags = &tykoas.GatewayTags{Enabled: true, Tags: tags}
	}
	return d
}

// baseURL is the address of the one backend a ReplaceFullPath rewrite goes to (compileRule rejects a rewrite
// with more than one weighted backend).
func baseURL(u *upstreamSpec) string {
	if t := u.targets(""); len(t) > 0 {
		return t[0].URL
	}
	return UnresolvedURL
}

// routeConditions decides each parent's final conditions: attachment's Accepted when it is False; else
// partial acceptance (nothing servable: Accepted False UnsupportedValue; some rules dropped: PartiallyInvalid
// True UnsupportedValue listing them); a parent whose Gateway shares its data plane with another parent's:
// Accepted False DataPlaneShared (in the gateway-api profile, sharedServes: Accepted True, served by the other
// parent's APIs); APIs lost to an older route: still Accepted (Gateway API resolves conflicts between routes by
// precedence, it does not reject the newer route) with PartiallyInvalid True PathConflict; and ResolvedRefs.
func routeConditions(tr *Route) [][]metav1.Condition {
	hr := tr.Route.Route
	gen := hr.Generation
	accepted := string(gwv1.RouteConditionAccepted)
	served := len(hr.Spec.Rules) > len(droppedRules(tr.Drops))
	var out [][]metav1.Condition
	for i, parent := range tr.Route.Parents {
		var conds []metav1.Condition
		lost := tr.Lost[i]
		switch {
		case parent.Accepted.Status != metav1.ConditionTrue:
			conds = append(conds, parent.Accepted)
		case !served:
			conds = append(conds, status.Condition(accepted, false, string(gwv1.RouteReasonUnsupportedValue),
				"no rule can be served: "+joinDrops(tr.Drops), gen))
		case tr.Rejected[i].Reason != "":
			conds = append(conds, status.Condition(accepted, false, tr.Rejected[i].Reason, tr.Rejected[i].Message, gen))
		case len(lost) > 0 && lost[0].Reason == status.ReasonDataPlaneShared && !tr.sharedServes:
			conds = append(conds, status.Condition(accepted, false, lost[0].Reason, lost[0].Message, gen))
		default:
			message := "the APIs of the route are rendered"
			if len(tr.Approximations) > 0 {
				message += "; " + joinDrops(tr.Approximations)
			}
			if len(lost) > 0 && lost[0].Reason == status.ReasonDataPlaneShared {
				// Served by the other parent's APIs: the parent has lost nothing.
				message += "; " + lost[0].Message + ", so its APIs serve the route on this Gateway too"
				lost = nil
			}
			conds = append(conds, status.Condition(accepted, true, string(gwv1.RouteReasonAccepted), message, gen))
			if len(tr.Drops) > 0 || len(lost) > 0 {
				reason, parts := string(gwv1.RouteReasonUnsupportedValue), []string{}
				if len(tr.Drops) > 0 {
					parts = append(parts, "dropped "+joinDrops(tr.Drops))
				} else {
					reason = lost[0].Reason
				}
				if len(lost) > 0 {
					parts = append(parts, joinLosses(lost))
				}
				conds = append(conds, status.Condition(string(gwv1.RouteConditionPartiallyInvalid), true, reason,
					strings.Join(parts, "; "), gen))
			}
		}
		status.Set(&conds, tr.Route.ResolvedRefs)
		out = append(out, conds)
	}
	return out
}

func droppedRules(drops []Drop) map[int]bool {
	out := map[int]bool{}
	for _, d := range drops {
		out[d.Rule] = true
	}
	return out
}

func joinDrops(drops []Drop) string {
	var parts []string
	for _, d := range drops {
		parts = append(parts, d.String())
	}
	return strings.Join(parts, "; ")
}

func joinLosses(ls []Loss) string {
	var parts []string
	for _, l := range ls {
		parts = append(parts, l.Message)
	}
	return strings.Join(parts, "; ")
}

// baseRejection fails closed: a route whose base document cannot be used gets no API rather than one without
// the authentication the base would bring.
func baseRejection(d *basedoc.Definition, parentRef int) Rejection {
	reason := status.ReasonBaseDocumentInvalid
	if d.Problem.Reason == basedoc.ReasonBaseDocumentUnresolved {
		reason = status.ReasonBaseDocumentUnresolved
	}
	return Rejection{Reason: reason, Field: fmt.Sprintf("spec.parentRefs[%d]", parentRef), Error: true,
		Message: fmt.Sprintf("TykOasApiDefinition %s: %s", d.Name(), d.Problem.Message)}
}

// Final is the API's final document: the one TranslateEncoded encoded, or else Encode's.
func (a *API) Final() ([]byte, error) {
	if a.Document == nil {
		return a.Encoded, a.EncodeErr
	}
	return a.Encode()
}

// Encode writes the API's final document: the route-derived API, laid over its base document when it has one.
func (a *API) Encode() ([]byte, error) {
	if a.Base != nil {
		return a.Base.Merge(a.Document)
	}
	return a.Document.Encode()
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// TykPort is the Tyk port the API is served on, its server.port (ports.go): 0 for the Gateway's listen_port.
func (a *API) TykPort() int { return a.port }

// ListenPath is the API's listen path: its path value, or for an Exact match ExactListenPath of it, for a
// RegularExpression RegexListenPath. Two APIs of
// one host and data plane must not share it.
func (a *API) ListenPath() string {
	if a.Role == RoleInternal || a.Role == RoleNoRule {
		return "/" + a.ID + a.Path
	}
	if a.Regex {
		lp, _ := RegexListenPath(a.Path)
		return lp
	}
	if a.Exact {
		return ExactListenPath(a.Path)
	}
	return a.Path
}

// PathDescription names the API's path for a reader: "path /one", or "exact path /one".
func (a *API) PathDescription() string {
	if a.Regex {
		return "regular expression path " + a.Path
	}
	if a.Exact {
		return "exact path " + a.Path
	}
	return "path " + a.Path
}

// DataPlane identifies the Tyk Gateways that load the API: the namespace/name of the data-plane Service of its
// Gateway, "" when the Gateway has none.
func (a *API) DataPlane() string { return a.dataPlane }

func dataPlaneOf(g *attachment.Gateway) string {
	svc := g.Infrastructure.Service
	if g.Infrastructure.DataPlane != nil {
		svc = g.Infrastructure.DataPlane
	}
	if svc != nil {
		return svc.Namespace + "/" + svc.Name
	}
	return ""
}

func sortStrings(s []string) { sort.Strings(s) }
