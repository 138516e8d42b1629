package tykroute

import (
	"net/http"
	"regexp"
	"sort"

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
}

// muxVar is a {name} path parameter in an OpenAPI path key.
var muxVar = regexp.MustCompile(`{([^}]+)}`)

// matchOperations finds the operations whose method equals the request method and whose OpenAPI path key,
// read as a regular expression with each {param} turned into ([^/]+), matches the endpoint path (the request
// path without the listen path, whether or not strip is on) anywhere: unanchored, so the key "/" matches
// every endpoint path. The operation reported is the one with the longest matching key (ties by key).
//
// The middleware of an operation lives in middleware.operations[operationId]. Tyk looks each kind of
// middleware up on its own (mockResponse, urlRewrite, transformRequestHeaders, transformResponseHeaders), so
// each comes from the first matching operation, in the order above, that enables it; a note says when that is
// not the reported operation. (Before Tyk 5.x's regex matching of mocks, mockResponse was found through the
// OpenAPI router, which matches path templates exactly; the model follows current Tyk.)
func matchOperations(d *tykoas.Document, method, endpoint string, out *Outcome) matched {
	if d.OpenAPI == nil || d.OpenAPI.Paths == nil {
		return matched{}
	}
	var ops map[string]tykoas.Operation
	if d.Tyk.Middleware != nil {
		ops = d.Tyk.Middleware.Operations
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
		re, err := regexp.Compile(muxVar.ReplaceAllString(key, `([^/]+)`))
		if err != nil {
			out.note("API %s: path key %q is not a valid regular expression (%v): Tyk never matches it", d.Tyk.Info.ID, key, err)
			continue
		}
		if re.MatchString(endpoint) {
			ms = append(ms, opMatch{key: key, id: op.OperationID, mw: ops[op.OperationID]})
		}
	}
	if len(ms) == 0 {
		return matched{}
	}
	sort.Slice(ms, func(i, j int) bool {
		if len(ms[i].key) != len(ms[j].key) {
			return len(ms[i].key) > len(ms[j].key)
		}
		return ms[i].key < ms[j].key
	})

	m := matched{operationID: ms[0].id}
	for i := range ms {
		o := &ms[i]
		if m.mock == nil && o.mw.MockResponse != nil && o.mw.MockResponse.Enabled {
			m.mock = o
		}
		if m.rewrite == nil && o.mw.URLRewrite != nil && o.mw.URLRewrite.Enabled {
			m.rewrite = o
		}
		if m.requestHeaders == nil && o.mw.TransformRequestHeaders != nil && o.mw.TransformRequestHeaders.Enabled {
			m.requestHeaders = o
		}
		if m.responseHeaders == nil && o.mw.TransformResponseHeaders != nil && o.mw.TransformResponseHeaders.Enabled {
			m.responseHeaders = o
		}
	}
	for _, mw := range []struct {
		name string
		o    *opMatch
	}{{"mockResponse", m.mock}, {"urlRewrite", m.rewrite},
		{"transformRequestHeaders", m.requestHeaders}, {"transformResponseHeaders", m.responseHeaders}} {
		if mw.o != nil && mw.o.id != m.operationID {
			out.note("%s comes from operation %s (path key %q), not %s: Tyk matches each middleware on its own",
				mw.name, mw.o.id, mw.o.key, m.operationID)
		}
	}
	return m
}

// transform is the header change of a transformRequestHeaders or transformResponseHeaders: remove as
// written, and each add as a set, the last add of a name (compared case-insensitively) winning, since Tyk
// keeps one value per header name.
func transform(o *opMatch, pick func(tykoas.Operation) *tykoas.TransformHeaders) Transform {
	if o == nil {
		return Transform{}
	}
	th := pick(o.mw)
	var t Transform
	t.Remove = append(t.Remove, th.Remove...)
	index := map[string]int{}
	for _, h := range th.Add {
		name := http.CanonicalHeaderKey(h.Name)
		if i, ok := index[name]; ok {
			t.Set[i] = Header{Name: h.Name, Value: h.Value}
			continue
		}
		index[name] = len(t.Set)
		t.Set = append(t.Set, Header{Name: h.Name, Value: h.Value})
	}
	return t
}

func requestHeaders(op tykoas.Operation) *tykoas.TransformHeaders { return op.TransformRequestHeaders }
func responseHeaders(op tykoas.Operation) *tykoas.TransformHeaders {
	return op.TransformResponseHeaders
}
