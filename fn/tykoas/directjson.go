package tykoas

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
)

// appendDocument appends what Encode writes for the documents the render makes, straight from the typed values:
// at fleet scale, building the generic tree (kin-openapi's MarshalYAML maps copied into ours) and sorting its keys
// was a large part of the KRM function's time and garbage. It reports false for anything it does not write
// exactly as EncodeTree writes the document's JSON round trip, and Encode then takes that path. directjson_test.go
// compares the bytes with the round trip's on random documents and on OpenAPI content it must refuse.
//
// Exactness is kept by writing little and refusing the rest:
//
//   - The OpenAPI part: for each kin-openapi type a rendered document holds, the fields it writes are those its
//     MarshalYAML writes, under the same conditions; every other field of the struct, exported or not, must be
//     zero (openAPIGuards), else the document is refused. An empty Extensions map writes nothing, so it passes.
//   - The Tyk part: field by field, as encoding/json writes the structs of types.go (json names, omitempty,
//     GatewayTags' non-null tags), each object's keys in sorted order.
//   - Strings are written by appendString, EncodeTree's writer; one that is not valid UTF-8 is refused, because
//     the round trip turns invalid bytes into U+FFFD where appendString writes the escape \ufffd.
func (d *Document) appendDocument(dst []byte) ([]byte, bool) {
	w := jsonWriter{b: dst, ok: true}
	t := d.OpenAPI
	if !openAPIGuards.t.zeroRest(t) {
		return dst, false
	}
	w.open('{')
	w.key("info")
	w.info(t.Info)
	w.key("openapi")
	w.str(t.OpenAPI)
	w.key("paths")
	w.paths(t.Paths)
	w.key(ExtensionKey)
	w.gateway(&d.Tyk)
	w.close('}')
	if !w.ok {
		return dst, false
	}
	return append(w.b, '\n'), true
}

// sizeHint is a little over the size of Encode's output, so that its buffer seldom grows: a rendered document is
// about 1 KB plus 300 bytes per OpenAPI operation and per middleware operation.
func (d *Document) sizeHint() int {
	n := 0
	if d.Tyk.Middleware != nil {
		n = len(d.Tyk.Middleware.Operations)
	}
	if d.OpenAPI.Paths != nil {
		for _, item := range d.OpenAPI.Paths.Map() {
			if item != nil {
				for _, m := range pathOperations(item) {
					if m.op != nil {
						n++
					}
				}
			}
		}
	}
	return 1024 + 384*n
}

// guard lists the fields of a kin-openapi struct type that the writer does not write, so must be zero.
type guard struct {
	rest       []int
	extensions int // index of Extensions, or -1
}

// newGuard is the guard of the struct type of v, of which the writer writes the fields named written. A name
// that is not a field is a programming error (a kin-openapi upgrade renamed it): it panics at initialisation.
func newGuard(v any, written ...string) guard {
	t := reflect.TypeOf(v)
	for _, name := range written {
		if _, ok := t.FieldByName(name); !ok {
			panic(fmt.Sprintf("tykoas: %s has no field %s", t, name))
		}
	}
	g := guard{extensions: -1}
	for i := range t.NumField() {
		switch name := t.Field(i).Name; {
		case name == "Extensions":
			g.extensions = i
		case !slices.Contains(written, name):
			g.rest = append(g.rest, i)
		}
	}
	return g
}

// zeroRest reports whether the struct p points to leaves out everything the writer does not write (a nil p
// does). Extensions may be an empty map: MarshalYAML copies its entries, so an empty one writes nothing.
func (g guard) zeroRest(p any) bool {
	v := reflect.ValueOf(p)
	if v.IsNil() {
		return true
	}
	v = v.Elem()
	if g.extensions >= 0 && v.Field(g.extensions).Len() != 0 {
		return false
	}
	for _, i := range g.rest {
		if !v.Field(i).IsZero() {
			return false
		}
	}
	return true
}

var openAPIGuards = struct {
	t, info, paths, pathItem, operation, responses, responseRef, response, parameterRef, parameter, schemaRef, schema guard
}{
	t:     newGuard(openapi3.T{}, "OpenAPI", "Info", "Paths"),
	info:  newGuard(openapi3.Info{}, "Title", "Version"),
	paths: newGuard(openapi3.Paths{}, "m"),
	pathItem: newGuard(openapi3.PathItem{},
		"Connect", "Delete", "Get", "Head", "Options", "Patch", "Post", "Put", "Trace", "Parameters"),
	operation:    newGuard(openapi3.Operation{}, "OperationID", "Responses"),
	responses:    newGuard(openapi3.Responses{}, "m"),
	responseRef:  newGuard(openapi3.ResponseRef{}, "Value"),
	response:     newGuard(openapi3.Response{}, "Description"),
	parameterRef: newGuard(openapi3.ParameterRef{}, "Value"),
	parameter:    newGuard(openapi3.Parameter{}, "Name", "In", "Required", "Schema"),
	schemaRef:    newGuard(openapi3.SchemaRef{}, "Value"),
	schema:       newGuard(openapi3.Schema{}, "Type"),
}

// jsonWriter appends JSON as EncodeTree writes it: 2-space indentation, appendString's strings. ok turns false
// on anything to leave to the round trip; the caller then drops what was written.
type jsonWriter struct {
	b     []byte
	depth int
	ok    bool
}

// writes reports whether the writer writes the kin-openapi struct p points to, which guard g guards; when it does
// not, the document goes to the fallback.
func (w *jsonWriter) writes(g guard, p any) bool {
	if !g.zeroRest(p) {
		w.ok = false
	}
	return w.ok
}

func (w *jsonWriter) open(c byte) {
	w.b = append(w.b, c)
	w.depth++
}

// close ends an object or array; one that got no member is written {} or [], as encoding/json does.
func (w *jsonWriter) close(c byte) {
	w.depth--
	if last := w.b[len(w.b)-1]; last != '{' && last != '[' {
		w.b = appendNewline(w.b, w.depth)
	}
	w.b = append(w.b, c)
}

// elem starts the next member of an object or array. Only open leaves '{' or '[' last: no value ends in one.
func (w *jsonWriter) elem() {
	if last := w.b[len(w.b)-1]; last != '{' && last != '[' {
		w.b = append(w.b, ',')
	}
	w.b = appendNewline(w.b, w.depth)
}

// key starts an object member; the caller writes the keys of an object in sorted order.
func (w *jsonWriter) key(k string) {
	w.elem()
	w.str(k)
	w.b = append(w.b, ':', ' ')
}

func (w *jsonWriter) str(s string) {
	if !utf8.ValidString(s) {
		w.ok = false
	}
	w.b = appendString(w.b, s)
}

func (w *jsonWriter) boolean(v bool) { w.b = strconv.AppendBool(w.b, v) }

func (w *jsonWriter) null() { w.b = append(w.b, "null"...) }

func (w *jsonWriter) strs(ss []string) {
	w.open('[')
	for _, s := range ss {
		w.elem()
		w.str(s)
	}
	w.close(']')
}

// The OpenAPI part, type by type as its MarshalYAML writes it; a nil pointer is null, as encoding/json writes it.

func (w *jsonWriter) info(x *openapi3.Info) {
	if !w.writes(openAPIGuards.info, x) {
		return
	}
	if x == nil {
		w.null()
		return
	}
	w.open('{')
	w.key("title")
	w.str(x.Title)
	w.key("version")
	w.str(x.Version)
	w.close('}')
}

func (w *jsonWriter) paths(x *openapi3.Paths) {
	if !w.writes(openAPIGuards.paths, x) {
		return
	}
	if x == nil {
		w.null()
		return
	}
	items := x.Map()
	w.open('{')
	for _, k := range slices.Sorted(maps.Keys(items)) {
		w.key(k)
		w.pathItem(items[k])
	}
	w.close('}')
}

func (w *jsonWriter) pathItem(x *openapi3.PathItem) {
	if !w.writes(openAPIGuards.pathItem, x) {
		return
	}
	if x == nil {
		w.null()
		return
	}
	w.open('{')
	for _, m := range pathOperations(x) {
		if m.key == "patch" && len(x.Parameters) != 0 { // "parameters" sorts between "options" and "patch"
			w.key("parameters")
			w.parameters(x.Parameters)
		}
		if m.op != nil {
			w.key(m.key)
			w.operation(m.op)
		}
	}
	w.close('}')
}

// pathOperations is the operations of a path item (nil where there is none) under their keys, in sorted order.
func pathOperations(x *openapi3.PathItem) [9]struct {
	key string
	op  *openapi3.Operation
} {
	return [9]struct {
		key string
		op  *openapi3.Operation
	}{{"connect", x.Connect}, {"delete", x.Delete}, {"get", x.Get}, {"head", x.Head}, {"options", x.Options},
		{"patch", x.Patch}, {"post", x.Post}, {"put", x.Put}, {"trace", x.Trace}}
}

func (w *jsonWriter) operation(x *openapi3.Operation) {
	if !w.writes(openAPIGuards.operation, x) {
		return
	}
	w.open('{')
	if x.OperationID != "" {
		w.key("operationId")
		w.str(x.OperationID)
	}
	if x.Responses != nil {
		w.key("responses")
		w.responses(x.Responses)
	}
	w.close('}')
}

func (w *jsonWriter) responses(x *openapi3.Responses) {
	if !w.writes(openAPIGuards.responses, x) {
		return
	}
	rs := x.Map()
	w.open('{')
	for _, k := range slices.Sorted(maps.Keys(rs)) {
		w.key(k)
		w.responseRef(rs[k])
	}
	w.close('}')
}

func (w *jsonWriter) responseRef(x *openapi3.ResponseRef) {
	if !w.writes(openAPIGuards.responseRef, x) {
		return
	}
	if x == nil || x.Value == nil {
		w.null()
		return
	}
	r := x.Value
	if !w.writes(openAPIGuards.response, r) {
		return
	}
	w.open('{')
	if r.Description != nil {
		w.key("description")
		w.str(*r.Description)
	}
	w.close('}')
}

func (w *jsonWriter) parameters(ps openapi3.Parameters) {
	w.open('[')
	for _, p := range ps {
		w.elem()
		w.parameterRef(p)
	}
	w.close(']')
}

func (w *jsonWriter) parameterRef(x *openapi3.ParameterRef) {
	if !w.writes(openAPIGuards.parameterRef, x) {
		return
	}
	if x == nil || x.Value == nil {
		w.null()
		return
	}
	p := x.Value
	if !w.writes(openAPIGuards.parameter, p) {
		return
	}
	w.open('{')
	if p.In != "" {
		w.key("in")
		w.str(p.In)
	}
	if p.Name != "" {
		w.key("name")
		w.str(p.Name)
	}
	if p.Required {
		w.key("required")
		w.boolean(true)
	}
	if p.Schema != nil {
		w.key("schema")
		w.schemaRef(p.Schema)
	}
	w.close('}')
}

func (w *jsonWriter) schemaRef(x *openapi3.SchemaRef) {
	if !w.writes(openAPIGuards.schemaRef, x) {
		return
	}
	if x.Value == nil {
		w.null()
		return
	}
	s := x.Value
	if !w.writes(openAPIGuards.schema, s) {
		return
	}
	w.open('{')
	switch types := s.Type.Slice(); len(types) { // Types.MarshalYAML: one type is a string, more an array
	case 0:
	case 1:
		w.key("type")
		w.str(types[0])
	default:
		w.key("type")
		w.strs(types)
	}
	w.close('}')
}

// The Tyk part, as encoding/json writes the structs of types.go.

func (w *jsonWriter) gateway(x *XTykAPIGateway) {
	w.open('{')
	w.key("info")
	w.tykInfo(&x.Info)
	if x.Middleware != nil {
		w.key("middleware")
		w.middleware(x.Middleware)
	}
	w.key("server")
	w.server(&x.Server)
	w.key("upstream")
	w.upstream(&x.Upstream)
	w.close('}')
}

// enabled writes an object whose only member is enabled.
func (w *jsonWriter) enabled(v bool) {
	w.open('{')
	w.key("enabled")
	w.boolean(v)
	w.close('}')
}

func (w *jsonWriter) tykInfo(x *Info) {
	w.open('{')
	if x.ID != "" {
		w.key("id")
		w.str(x.ID)
	}
	w.key("name")
	w.str(x.Name)
	w.key("state")
	w.open('{')
	w.key("active")
	w.boolean(x.State.Active)
	if x.State.Internal {
		w.key("internal")
		w.boolean(true)
	}
	w.close('}')
	w.close('}')
}

func (w *jsonWriter) server(x *Server) {
	w.open('{')
	if a := x.Authentication; a != nil {
		w.key("authentication")
		w.enabled(a.Enabled)
	}
	if c := x.ClientCertificates; c != nil {
		w.key("clientCertificates")
		w.open('{')
		if len(c.Allowlist) > 0 {
			w.key("allowlist")
			w.strs(c.Allowlist)
		}
		w.key("enabled")
		w.boolean(c.Enabled)
		w.close('}')
	}
	if c := x.CustomDomain; c != nil {
		w.key("customDomain")
		w.open('{')
		if len(c.Certificates) > 0 {
			w.key("certificates")
			w.strs(c.Certificates)
		}
		w.key("enabled")
		w.boolean(c.Enabled)
		w.key("name")
		w.str(c.Name)
		w.close('}')
	}
	if g := x.GatewayTags; g != nil {
		w.key("gatewayTags")
		w.open('{')
		w.key("enabled")
		w.boolean(g.Enabled)
		w.key("tags")
		w.strs(g.Tags) // never null (MarshalJSON)
		w.close('}')
	}
	w.key("listenPath")
	w.open('{')
	if x.ListenPath.Strip {
		w.key("strip")
		w.boolean(true)
	}
	w.key("value")
	w.str(x.ListenPath.Value)
	w.close('}')
	if x.Port != 0 {
		w.key("port")
		w.b = strconv.AppendInt(w.b, int64(x.Port), 10)
	}
	if x.Protocol != "" {
		w.key("protocol")
		w.str(x.Protocol)
	}
	w.close('}')
}

func (w *jsonWriter) upstream(x *Upstream) {
	w.open('{')
	if lb := x.LoadBalancing; lb != nil {
		w.key("loadBalancing")
		w.open('{')
		w.key("enabled")
		w.boolean(lb.Enabled)
		if len(lb.Targets) > 0 {
			w.key("targets")
			w.open('[')
			for _, t := range lb.Targets {
				w.elem()
				w.open('{')
				w.key("url")
				w.str(t.URL)
				w.key("weight")
				w.b = strconv.AppendInt(w.b, int64(t.Weight), 10)
				w.close('}')
			}
			w.close(']')
		}
		w.close('}')
	}
	if p := x.PreserveHostHeader; p != nil {
		w.key("preserveHostHeader")
		w.enabled(p.Enabled)
	}
	if x.URL != "" {
		w.key("url")
		w.str(x.URL)
	}
	w.close('}')
}

func (w *jsonWriter) middleware(x *Middleware) {
	w.open('{')
	if g := x.Global; g != nil {
		w.key("global")
		w.open('{')
		if c := g.ContextVariables; c != nil {
			w.key("contextVariables")
			w.enabled(c.Enabled)
		}
		w.close('}')
	}
	if len(x.Operations) > 0 {
		w.key("operations")
		w.open('{')
		for _, id := range slices.Sorted(maps.Keys(x.Operations)) {
			w.key(id)
			op := x.Operations[id]
			w.tykOperation(&op)
		}
		w.close('}')
	}
	w.close('}')
}

func (w *jsonWriter) tykOperation(x *Operation) {
	w.open('{')
	if t := x.EnforceTimeout; t != nil {
		w.key("enforceTimeout")
		w.open('{')
		if t.Duration != "" {
			w.key("duration")
			w.str(t.Duration)
		}
		w.key("enabled")
		w.boolean(t.Enabled)
		w.key("value")
		w.b = strconv.AppendInt(w.b, int64(t.Value), 10)
		w.close('}')
	}
	if a := x.IgnoreAuthentication; a != nil {
		w.key("ignoreAuthentication")
		w.enabled(a.Enabled)
	}
	if r := x.MockResponse; r != nil {
		w.key("mockResponse")
		w.open('{')
		if r.Body != "" {
			w.key("body")
			w.str(r.Body)
		}
		if r.Code != 0 {
			w.key("code")
			w.b = strconv.AppendInt(w.b, int64(r.Code), 10)
		}
		w.key("enabled")
		w.boolean(r.Enabled)
		if len(r.Headers) > 0 {
			w.key("headers")
			w.headers(r.Headers)
		}
		w.close('}')
	}
	if t := x.TransformRequestHeaders; t != nil {
		w.key("transformRequestHeaders")
		w.transformHeaders(t)
	}
	if t := x.TransformResponseHeaders; t != nil {
		w.key("transformResponseHeaders")
		w.transformHeaders(t)
	}
	if u := x.URLRewrite; u != nil {
		w.key("urlRewrite")
		w.open('{')
		w.key("enabled")
		w.boolean(u.Enabled)
		w.key("pattern")
		w.str(u.Pattern)
		w.key("rewriteTo")
		w.str(u.RewriteTo)
		if len(u.Triggers) > 0 {
			w.key("triggers")
			w.open('[')
			for _, tr := range u.Triggers {
				w.elem()
				w.urlRewriteTrigger(&tr)
			}
			w.close(']')
		}
		w.close('}')
	}
	w.close('}')
}

func (w *jsonWriter) urlRewriteTrigger(x *URLRewriteTrigger) {
	w.open('{')
	w.key("condition")
	w.str(x.Condition)
	w.key("rewriteTo")
	w.str(x.RewriteTo)
	if len(x.Rules) > 0 {
		w.key("rules")
		w.open('[')
		for _, r := range x.Rules {
			w.elem()
			w.open('{')
			w.key("in")
			w.str(r.In)
			w.key("name")
			w.str(r.Name)
			if r.Negate {
				w.key("negate")
				w.boolean(true)
			}
			w.key("pattern")
			w.str(r.Pattern)
			w.close('}')
		}
		w.close(']')
	}
	w.close('}')
}

func (w *jsonWriter) transformHeaders(x *TransformHeaders) {
	w.open('{')
	if len(x.Add) > 0 {
		w.key("add")
		w.headers(x.Add)
	}
	w.key("enabled")
	w.boolean(x.Enabled)
	if len(x.Remove) > 0 {
		w.key("remove")
		w.strs(x.Remove)
	}
	w.close('}')
}

func (w *jsonWriter) headers(hs []Header) {
	w.open('[')
	for _, h := range hs {
		w.elem()
		w.open('{')
		w.key("name")
		w.str(h.Name)
		w.key("value")
		w.str(h.Value)
		w.close('}')
	}
	w.close(']')
}
