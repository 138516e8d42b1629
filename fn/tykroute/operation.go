package tykroute

import (
	"net/http"
	"regexp"
	"sort"
	"strings"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// opMatch is an OpenAPI operation that matches the request, with its Tyk middleware.
type opMatch struct {
	key string // the OpenAPI path key
	id  string // the operationId
	mw  tykoas.Operation
}

// matched is the outcome of operation matching: the operation reported, and the operation each kind of
// middleware comes from (nil when no matching operation enables it).
type matched struct {
	operationID     string
	mock            *opMatch
	rewrite         *opMatch
	requestHeaders  *opMatch
	responseHeaders *opMatch
	ignoreAuth      *opMatch
	timeout         *opMatch
}

// matchOperations finds the middleware that applies to a request, the two ways Tyk finds it (shown on real
// Gateways, the 5.4 line, and the reason the render keys its operations "/{rest:.*}"):
//
//   - mockResponse comes from the operation Tyk's OpenAPI router finds (see routerOperation), before 5.8.12 on
//     the 5.8 line and before 5.12.0 otherwise; from those releases it is matched the classic way too (see
//     classicMock);
//   - every other kind of middleware modelled here (urlRewrite, transformRequestHeaders,
//     transformResponseHeaders, ignoreAuthentication, enforceTimeout) is matched the classic way (see
//     classicOperations), each kind on its own, from the first matching operation that enables it.
//
// The operation reported is the router's, or else the first classic match.
func matchOperations(api *candidate, method, reqPath, endpoint string, v Version, out *Outcome) matched {
	d := api.doc
	if d.OpenAPI == nil || d.OpenAPI.Paths == nil {
		return matched{}
	}
	var ops map[string]tykoas.Operation
	if d.Tyk.Middleware != nil {
		ops = d.Tyk.Middleware.Operations
	}
	var m matched
	if r := routerOperation(api, method, reqPath, ops, out); r != nil {
		m.operationID = r.id
		if !mockMatchedClassically(v) && r.mw.MockResponse != nil && r.mw.MockResponse.Enabled {
			m.mock = r
		}
	}
	if mockMatchedClassically(v) {
		if mo := classicMock(api, method, reqPath, v, ops, out); mo != nil {
			m.mock, m.operationID = mo, mo.id
		}
	}
	ms := classicOperations(d, method, endpoint, v, ops, out)
	if m.operationID == "" && len(ms) > 0 {
		m.operationID = ms[0].id
	}
	for i := range ms {
		o := &ms[i]
		if m.rewrite == nil && o.mw.URLRewrite != nil && o.mw.URLRewrite.Enabled {
			m.rewrite = o
		}
		if m.requestHeaders == nil && o.mw.TransformRequestHeaders != nil && o.mw.TransformRequestHeaders.Enabled {
			m.requestHeaders = o
		}
		if m.responseHeaders == nil && o.mw.TransformResponseHeaders != nil && o.mw.TransformResponseHeaders.Enabled {
			m.responseHeaders = o
		}
		if m.ignoreAuth == nil && o.mw.IgnoreAuthentication != nil && o.mw.IgnoreAuthentication.Enabled {
			m.ignoreAuth = o
		}
		if m.timeout == nil && o.mw.EnforceTimeout != nil && o.mw.EnforceTimeout.Enabled {
			m.timeout = o
		}
	}
	return m
}

// routerOperation is the operation Tyk's OpenAPI router (kin-openapi's gorillamux, built with the listen path as
// the only server) finds for the request: the path keys in OpenAPI's matching order, each the gorilla/mux path
// template <listen path without its trailing slash><key> ({name} is [^/]+, {name:pattern} the pattern),
// anchored, against the full request path; the first key whose template matches decides: its operation for the
// method, or none when it has no operation for the method (the router answers "method not allowed" without
// trying further keys). So the key "/" matches only <listenPath>/, and "/{rest:.*}" matches <listenPath>/ and
// every path below it; no key matches the bare listen path.
func routerOperation(api *candidate, method, reqPath string, ops map[string]tykoas.Operation, out *Outcome) *opMatch {
	base := strings.TrimSuffix(api.listenPath, "/")
	for _, key := range api.doc.OpenAPI.Paths.InMatchingOrder() {
		item := api.doc.OpenAPI.Paths.Value(key)
		if item == nil {
			continue
		}
		re, err := muxTemplate(base+key, "[^/]+", false)
		if err != nil {
			out.note("API %s: path key %q is not a valid gorilla/mux template (%v): Tyk's OpenAPI router never matches it", api.id, key, err)
			continue
		}
		if !re.MatchString(reqPath) {
			continue
		}
		op := item.GetOperation(method)
		if op == nil {
			return nil
		}
		return &opMatch{key: key, id: op.OperationID, mw: ops[op.OperationID]}
	}
	return nil
}

// classicVar is a {...} in a path key, which Tyk's classic matching reads as ([^/]*) before 5.6
// (generateRegex) and as ([^/]+) from 5.6 (httputil.PreparePathRegexp).
var classicVar = regexp.MustCompile(`{([^}]*)}`)

// classicVarNonEmpty is the release from which a classic {variable} must match at least one character.
var classicVarNonEmpty = Version{5, 6, 0}

// classicOperations are the operations whose method equals the request method and whose OpenAPI path key, read
// as a regular expression with each {...} turned into ([^/]*) (from 5.6: ([^/]+)), matches the endpoint path
// (the request path without the listen path, a leading "/" put back) anywhere: unanchored, so "/" matches every
// endpoint path, and "/{rest:.*}" every one but "/" from 5.6. Longer keys first (ties by key).
func classicOperations(d *tykoas.Document, method, endpoint string, v Version, ops map[string]tykoas.Operation, out *Outcome) []opMatch {
	variable := `([^/]*)`
	if !v.Less(classicVarNonEmpty) {
		variable = `([^/]+)`
	}
	var ms []opMatch
	for key, item := range d.OpenAPI.Paths.Map() {
		if item == nil {
			continue
		}
		op := item.GetOperation(method)
		if op == nil {
			continue
		}
		re, err := regexp.Compile(classicVar.ReplaceAllString(key, variable))
		if err != nil {
			out.note("API %s: path key %q is not a valid regular expression (%v): Tyk never matches it", d.Tyk.Info.ID, key, err)
			continue
		}
		if re.MatchString(endpoint) {
			ms = append(ms, opMatch{key: key, id: op.OperationID, mw: ops[op.OperationID]})
		}
	}
	sort.Slice(ms, func(i, j int) bool {
		if len(ms[i].key) != len(ms[j].key) {
			return len(ms[i].key) > len(ms[j].key)
		}
		return ms[i].key < ms[j].key
	})
	return ms
}

// transform is the header change of the matched operation's transformRequestHeaders or
// transformResponseHeaders (pick): Headers of it.
func transform(o *opMatch, pick func(tykoas.Operation) *tykoas.TransformHeaders, kept bool) Transform {
	if o == nil {
		return Transform{}
	}
	return Headers(pick(o.mw), kept)
}

// Headers is what a header transform does to a message: remove as written, and each add as a set, the last add
// of a name winning, since Tyk keeps one value per header name. Tyk compares the names case-insensitively
// (http.Header.Set) unless it keeps them as written (kept: ignore_canonical_mime_header_key): then a name that is
// not in canonical form is a header line of its own, added beside the canonical one the message may have
// (Transform.Add), and only the same name replaces. A nil or disabled transform does nothing.
func Headers(th *tykoas.TransformHeaders, kept bool) Transform {
	var t Transform
	if th == nil || !th.Enabled {
		return t
	}
	t.Remove = append(t.Remove, th.Remove...)
	index := map[string]int{}
	var added []Header
	for _, h := range th.Add {
		name := http.CanonicalHeaderKey(h.Name)
		if kept {
			name = h.Name
		}
		if i, ok := index[name]; ok {
			added[i] = Header{Name: h.Name, Value: h.Value}
			continue
		}
		index[name] = len(added)
		added = append(added, Header{Name: h.Name, Value: h.Value})
	}
	for _, h := range added {
		if kept && h.Name != http.CanonicalHeaderKey(h.Name) {
			t.Add = append(t.Add, h)
		} else {
			t.Set = append(t.Set, h)
		}
	}
	return t
}

func requestHeaders(op tykoas.Operation) *tykoas.TransformHeaders { return op.TransformRequestHeaders }
func responseHeaders(op tykoas.Operation) *tykoas.TransformHeaders {
	return op.TransformResponseHeaders
}
