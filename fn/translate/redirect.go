package translate

import (
	"strconv"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// listenerFacts is what a redirect needs of a listener that admits the route.
type listenerFacts struct {
	scheme string // "http" or "https", from the listener protocol
	port   int32
	// hostnames are the route's effective hostnames on the listener ("" for none: any host).
	hostnames []string
}

// redirectServing is what a redirect's Location may take from the request, beside a fixed Location: each field
// is explained at constantRedirect.
type redirectServing struct {
	keepPath, keepHost, hostFromRequest, replacePrefix bool
	// matches are the rule's matches: a ReplacePrefixMatch replaces its one PathPrefix.
	matches []gwv1.HTTPRouteMatch
}

// constantRedirect implements the RequestRedirect row: Tyk has no redirect middleware, so a redirect is a mock
// response with a fixed Location, which is only possible when the Location is the same for every request:
// hostname set, path ReplaceFullPath, and the scheme and port set or the same on every listener that admits
// the route. The port follows Gateway API: when unset it is the scheme's well-known port if the scheme is set,
// else the listener port; it is left out of Location when it is the scheme's default. The code defaults to 302.
//
// keepPath (the gateway-api profile, for a Tyk that finds mock responses the classic way) serves a redirect
// without path too, which keeps the request's path: see requestPathLocation.
//
// keepHost (the gateway-api profile) serves a redirect without hostname, which keeps the request's host, where
// the host is known for every API of the route: each listener that admits it gives it exact hostnames only (no
// wildcard, no "any host"). Each API then has one custom domain, one exact host, and its Location names it
// (redirect.locationFor); Tyk's mux compares the Host header with that domain, so no other host reaches the API.
//
// hostFromRequest (the gateway-api profile, for a Tyk that finds mock responses the classic way) keeps the host
// where it is not exact too (a wildcard, any host), for a redirect that changes neither scheme nor port: the
// Location then names the request's Host header, $tyk_context.headers_Host (r.Host, with the port the client
// wrote, which is the listener's port it reached), written by the response header transform as for a kept path.
// A redirect that changes the scheme or the port names the host alone, since the Host header may carry the old
// port: the operation's urlRewrite matches the Host header's host part (locationTrigger) and Tyk keeps the
// match as a context variable, hostAloneVariable, which the Location names with the new port.
//
// replacePrefix (the gateway-api profile, for a Tyk that finds mock responses the classic way) serves a
// ReplacePrefixMatch path: the Location is the replacement followed by what the request's path has after the
// rule's one PathPrefix match, which the operation's urlRewrite keeps (locationTrigger, prefixRestVariable).
func constantRedirect(field string, r *gwv1.HTTPRequestRedirectFilter, listeners []listenerFacts, opt redirectServing,
	add func(string, string, ...any)) *redirect {
	if r == nil {
		add(field, "required for a RequestRedirect filter")
		return nil
	}
	ok := true
	fail := func(sub, format string, args ...any) {
		add(field+sub, format, args...)
		ok = false
	}
	hostKept, requestHost, hostAlone := false, false, false
	if r.Hostname == nil {
		switch inexact := inexactHostname(listeners); {
		case opt.keepHost && inexact == "":
			hostKept = true
		case opt.keepHost && opt.hostFromRequest && r.Scheme == nil && r.Port == nil:
			hostKept, requestHost = true, true
		case opt.keepHost && opt.hostFromRequest:
			hostKept, requestHost, hostAlone = true, true, true
		case opt.keepHost:
			fail(".hostname", "must be set here: the route's hostname on a listener is %s, so the Location would "+
				"name the request's host, which Tyk cannot write into a Location; with exact hostnames (spec.hostnames "+
				"or the listener's hostname) the host is kept", inexact)
		default:
			fail(".hostname", "must be set: Tyk answers a redirect with a fixed Location, and without a hostname the "+
				"Location depends on the request (the gateway-api profile keeps the host where the route's hostnames "+
				"are exact: spec.profile: gateway-api in the RenderConfig; try it with --profile gateway-api)")
		}
	}
	pathKept := r.Path == nil && opt.keepPath
	prefix := "" // ReplacePrefixMatch's trigger pattern
	switch {
	case pathKept:
	case r.Path != nil && r.Path.Type == gwv1.FullPathHTTPPathModifier && r.Path.ReplaceFullPath != nil:
	case r.Path != nil && r.Path.Type == gwv1.PrefixMatchHTTPPathModifier && opt.replacePrefix:
		prefix = replacedPrefix(r.Path.ReplacePrefixMatch, opt.matches, func(sub, format string, args ...any) {
			fail(".path"+sub, format, args...)
		})
	default:
		fail(".path", "must be ReplaceFullPath: Tyk answers a redirect with a fixed Location, and any other path "+
			"depends on the request")
	}
	scheme := ""
	if r.Scheme != nil {
		scheme = *r.Scheme
	} else if s, same := sameScheme(listeners); same {
		scheme = s
	} else {
		fail(".scheme", "must be set: the listeners that admit the route use different protocols")
	}
	var port int32
	switch {
	case r.Port != nil:
		port = *r.Port
	case r.Scheme != nil:
		port = wellKnownPort(scheme)
	default:
		if p, same := samePort(listeners); same {
			port = p
		} else {
			fail(".port", "must be set: the listeners that admit the route use different ports")
		}
	}
	if !ok {
		return nil
	}
	out := &redirect{code: 302, scheme: scheme, keepPath: pathKept, requestHost: requestHost, hostAlone: hostAlone, prefixPattern: prefix}
	if r.StatusCode != nil {
		out.code = *r.StatusCode
	}
	if !hostKept {
		out.host = string(*r.Hostname)
	}
	if port != 0 && port != wellKnownPort(scheme) && (!requestHost || hostAlone) {
		out.port = ":" + strconv.Itoa(int(port))
	}
	switch {
	case prefix != "":
		out.path = *r.Path.ReplacePrefixMatch
	case !pathKept:
		out.path = *r.Path.ReplaceFullPath
	}
	return out
}

// inexactHostname describes the first effective hostname of the listeners that is not one exact host (a
// wildcard, or none: any host), "" when there is none.
func inexactHostname(ls []listenerFacts) string {
	for _, l := range ls {
		for _, h := range l.hostnames {
			switch {
			case h == "":
				return "not set (any host)"
			case strings.HasPrefix(h, "*."):
				return "the wildcard " + h
			}
		}
	}
	return ""
}

// locationFor is the redirect's Location on the API of host (without the request's path when it is kept): the
// redirect's hostname, or host when it keeps the request's (host is then exact: constantRedirect).
func (r *redirect) locationFor(host string) string {
	h := r.host
	switch {
	case r.hostAlone:
		h = hostAloneVariable
	case r.requestHost:
		h = requestHostVariable
	case h == "":
		h = host
	}
	return r.scheme + "://" + h + r.port + r.path
}

// requestPathVariable is the context variable Tyk replaces with the request's path (r.URL.Path, when its
// context variables middleware runs, before anything rewrites it).
const requestPathVariable = "$tyk_context.path"

// requestPathLocation is the Location of a redirect that keeps the request's path: Tyk's mock response has fixed
// headers, but the API's response header transform, which Tyk also runs on mock responses, replaces context
// variables (middleware.global.contextVariables on), so the mock answers with the code and the transform adds
// "Location: <scheme>://<host><$tyk_context.path>". The query is not kept: Tyk has no context variable that holds
// it (seen on v5.14.0: GET /r/x?q=1 is redirected to http://example.org/r/x). Only a Tyk that finds mock
// responses the classic way serves it: the OpenAPI router finds no mock on the bare listen path, which the render
// otherwise loops into <listenPath>/, and the loop changes the path (seen on the 5.4 line and v5.8.11: /r is
// redirected to .../r/).
func requestPathLocation(r *redirect, host string) tykoas.Header {
	switch {
	case r.keepPath:
		return tykoas.Header{Name: "Location", Value: r.locationFor(host) + requestPathVariable}
	case r.prefixPattern != "":
		return tykoas.Header{Name: "Location", Value: r.locationFor(host) + prefixRestVariable}
	}
	return tykoas.Header{Name: "Location", Value: r.locationFor(host)} // the request's host, a fixed path
}

// requestHostVariable is the context variable Tyk replaces with the request's Host header (r.Host, port included
// when the client wrote one): see constantRedirect's hostFromRequest.
const requestHostVariable = "$tyk_context.headers_Host"

// hostAloneVariable is the context variable Tyk sets to the host part of the request's Host header (without a
// port) when the operation's urlRewrite runs locationTrigger: a requestContext rule's whole match is kept as
// trigger-<n>-<name> (checkContextTrigger of its URL rewrite middleware), here trigger 0 on headers_Host.
const hostAloneVariable = "$tyk_context.trigger-0-headers_Host"

// locationTrigger is the urlRewrite of a redirect's operation whose Location names part of a context variable,
// or nil: its one trigger matches headers_Host's host part (a bracketed IPv6 literal, or everything up to a
// colon), which Tyk keeps as hostAloneVariable, and the request's path after the replaced prefix
// (prefixPattern), kept as prefixRestVariable; both it and the rule rewrite the path to itself. Tyk
// runs urlRewrite before the mock response, which answers before any proxying, so the rewrite itself has no
// effect. Both rules always match on the operation's requests, so the trigger always holds.
func locationTrigger(r *redirect) *tykoas.URLRewrite {
	var rules []tykoas.URLRewriteRule
	if r.hostAlone {
		rules = append(rules, tykoas.URLRewriteRule{In: "requestContext", Name: "headers_Host", Pattern: `^(?:\[[^\]]*\]|[^:]*)`})
	}
	if r.prefixPattern != "" {
		rules = append(rules, tykoas.URLRewriteRule{In: "requestContext", Name: "path", Pattern: r.prefixPattern})
	}
	if len(rules) == 0 {
		return nil
	}
	return &tykoas.URLRewrite{Enabled: true, Pattern: "(.*)", RewriteTo: "$1", Triggers: []tykoas.URLRewriteTrigger{{
		Condition: "all", RewriteTo: "$1", Rules: rules}}}
}

// fromRequest reports whether the redirect's Location takes part of the request (its path or its host), so that
// the response header transform writes it (requestPathLocation).
func (r *redirect) fromRequest() bool { return r.keepPath || r.requestHost || r.prefixPattern != "" }

func sameScheme(ls []listenerFacts) (string, bool) {
	if len(ls) == 0 {
		return "", false
	}
	for _, l := range ls[1:] {
		if l.scheme != ls[0].scheme {
			return "", false
		}
	}
	return ls[0].scheme, true
}

func samePort(ls []listenerFacts) (int32, bool) {
	if len(ls) == 0 {
		return 0, false
	}
	for _, l := range ls[1:] {
		if l.port != ls[0].port {
			return 0, false
		}
	}
	return ls[0].port, true
}

func wellKnownPort(scheme string) int32 {
	switch scheme {
	case "http":
		return 80
	case "https":
		return 443
	}
	return 0
}

func schemeOf(p gwv1.ProtocolType) string {
	if p == gwv1.HTTPSProtocolType {
		return "https"
	}
	return "http"
}
