package translate

import (
	"strconv"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// listenerFacts is what a redirect needs of a listener that admits the route.
type listenerFacts struct {
	scheme string // "http" or "https", from the listener protocol
	port   int32
}

// constantRedirect implements the RequestRedirect row: Tyk has no redirect middleware, so a redirect is a mock
// response with a fixed Location, which is only possible when the Location is the same for every request:
// hostname set, path ReplaceFullPath, and the scheme and port set or the same on every listener that admits
// the route. The port follows Gateway API: when unset it is the scheme's well-known port if the scheme is set,
// else the listener port; it is left out of Location when it is the scheme's default. The code defaults to 302.
//
// keepPath (the gateway-api profile, for a Tyk that finds mock responses the classic way) serves a redirect
// without path too, which keeps the request's path: see requestPathLocation.
func constantRedirect(field string, r *gwv1.HTTPRequestRedirectFilter, listeners []listenerFacts, keepPath bool,
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
	if r.Hostname == nil {
		fail(".hostname", "must be set: Tyk answers a redirect with a fixed Location, and without a hostname the "+
			"Location depends on the request")
	}
	pathKept := r.Path == nil && keepPath
	if !pathKept && (r.Path == nil || r.Path.Type != gwv1.FullPathHTTPPathModifier || r.Path.ReplaceFullPath == nil) {
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
	location := scheme + "://" + string(*r.Hostname)
	if port != 0 && port != wellKnownPort(scheme) {
		location += ":" + strconv.Itoa(int(port))
	}
	code := 302
	if r.StatusCode != nil {
		code = *r.StatusCode
	}
	if pathKept {
		return &redirect{code: code, location: location, keepPath: true}
	}
	location += *r.Path.ReplaceFullPath
	return &redirect{code: code, location: location}
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
func requestPathLocation(r *redirect) tykoas.Header {
	return tykoas.Header{Name: "Location", Value: r.location + requestPathVariable}
}

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
