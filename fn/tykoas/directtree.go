package tykoas

import (
	"encoding/json"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
)

// treeDirect builds what the JSON round trip of Tree builds (marshal, then decode into generic values), without
// the round trip, for the documents the render makes; at fleet scale the round trip was a large part of the
// render. It reports false for anything it does not build exactly as the round trip would, and Tree then takes
// the round trip. directtree_test.go compares the two on every field of the Tyk types and on rendered and
// random documents.
//
//   - The OpenAPI part: kin-openapi's MarshalJSON of each type a rendered document holds (T, Info, Paths,
//     PathItem, Operation, Responses, ResponseRef, Response, and the path parameters a mock's "-below" operation
//     declares: Parameters, ParameterRef, Parameter, SchemaRef, Schema, Types) is json.Marshal of its MarshalYAML
//     value, so those values are converted instead. Any other type (a number or a pointer in an extension, an
//     example) is left to the round trip.
//   - The Tyk part: field by field, as encoding/json writes the structs of types.go (json names, omitempty,
//     GatewayTags' non-null tags).
//
// Strings must be valid UTF-8: encoding/json rewrites invalid bytes, so such a document takes the round trip.
func (d *Document) treeDirect() (map[string]any, bool) {
	v, ok := openAPIValue(d.OpenAPI)
	top, isMap := v.(map[string]any)
	if !ok || !isMap {
		return nil, false
	}
	b := tykBuilder{ok: true}
	ext := b.gateway(&d.Tyk)
	if !b.ok {
		return nil, false
	}
	top[ExtensionKey] = ext
	return top, true
}

type yamlMarshaler interface{ MarshalYAML() (any, error) }

// openAPIValue converts a value as json.Marshal followed by a generic decode would.
func openAPIValue(v any) (any, bool) {
	switch t := v.(type) {
	case nil:
		return nil, true
	case string:
		return t, utf8.ValidString(t)
	case bool:
		return t, true
	case *string:
		if t == nil {
			return nil, true
		}
		return *t, utf8.ValidString(*t)
	case []string:
		if t == nil {
			return nil, true
		}
		out := make([]any, len(t))
		for i, s := range t {
			if !utf8.ValidString(s) {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	case map[string]any:
		if t == nil {
			return nil, true
		}
		out := make(map[string]any, len(t))
		for k, x := range t {
			g, ok := openAPIValue(x)
			if !ok || !utf8.ValidString(k) {
				return nil, false
			}
			out[k] = g
		}
		return out, true
	case openapi3.Parameters:
		if t == nil {
			return nil, true
		}
		out := make([]any, len(t))
		for i, p := range t {
			g, ok := openAPIValue(p)
			if !ok {
				return nil, false
			}
			out[i] = g
		}
		return out, true
	case *openapi3.T, *openapi3.Info, *openapi3.Paths, *openapi3.PathItem, *openapi3.Operation, *openapi3.Responses,
		*openapi3.ResponseRef, *openapi3.Response, *openapi3.ParameterRef, *openapi3.Parameter, *openapi3.SchemaRef,
		*openapi3.Schema, *openapi3.Types:
		// encoding/json writes a nil pointer as null without calling its MarshalJSON.
		if reflect.ValueOf(v).IsNil() {
			return nil, true
		}
		m, ok := v.(yamlMarshaler)
		if !ok {
			return nil, false
		}
		y, err := m.MarshalYAML()
		if err != nil {
			return nil, false
		}
		return openAPIValue(y)
	}
	return nil, false
}

// tykBuilder writes the Tyk types as generic values; ok turns false on a string that is not valid UTF-8.
type tykBuilder struct{ ok bool }

func (b *tykBuilder) str(s string) string {
	if !utf8.ValidString(s) {
		b.ok = false
	}
	return s
}

func (b *tykBuilder) gateway(x *XTykAPIGateway) map[string]any {
	m := map[string]any{
		"info":     b.info(x.Info),
		"server":   b.server(x.Server),
		"upstream": b.upstream(x.Upstream),
	}
	if x.Middleware != nil {
		m["middleware"] = b.middleware(x.Middleware)
	}
	return m
}

func (b *tykBuilder) info(x Info) map[string]any {
	m := map[string]any{"name": b.str(x.Name), "state": map[string]any{"active": x.State.Active}}
	if x.ID != "" {
		m["id"] = b.str(x.ID)
	}
	return m
}

func (b *tykBuilder) server(x Server) map[string]any {
	lp := map[string]any{"value": b.str(x.ListenPath.Value)}
	if x.ListenPath.Strip {
		lp["strip"] = true
	}
	m := map[string]any{"listenPath": lp}
	if c := x.CustomDomain; c != nil {
		cd := map[string]any{"enabled": c.Enabled, "name": b.str(c.Name)}
		if len(c.Certificates) > 0 {
			cd["certificates"] = b.strings(c.Certificates)
		}
		m["customDomain"] = cd
	}
	if g := x.GatewayTags; g != nil {
		m["gatewayTags"] = map[string]any{"enabled": g.Enabled, "tags": b.strings(g.Tags)} // never null (MarshalJSON)
	}
	if a := x.Authentication; a != nil {
		m["authentication"] = map[string]any{"enabled": a.Enabled}
	}
	return m
}

func (b *tykBuilder) strings(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = b.str(s)
	}
	return out
}

func (b *tykBuilder) upstream(x Upstream) map[string]any {
	m := map[string]any{}
	if x.URL != "" {
		m["url"] = b.str(x.URL)
	}
	if lb := x.LoadBalancing; lb != nil {
		l := map[string]any{"enabled": lb.Enabled}
		if len(lb.Targets) > 0 {
			ts := make([]any, len(lb.Targets))
			for i, t := range lb.Targets {
				ts[i] = map[string]any{"url": b.str(t.URL), "weight": number(t.Weight)}
			}
			l["targets"] = ts
		}
		m["loadBalancing"] = l
	}
	if p := x.PreserveHostHeader; p != nil {
		m["preserveHostHeader"] = map[string]any{"enabled": p.Enabled}
	}
	return m
}

func (b *tykBuilder) middleware(x *Middleware) map[string]any {
	m := map[string]any{}
	if len(x.Operations) > 0 {
		ops := make(map[string]any, len(x.Operations))
		for id, op := range x.Operations {
			ops[b.str(id)] = b.operation(op)
		}
		m["operations"] = ops
	}
	return m
}

func (b *tykBuilder) operation(x Operation) map[string]any {
	m := map[string]any{}
	if a := x.IgnoreAuthentication; a != nil {
		m["ignoreAuthentication"] = map[string]any{"enabled": a.Enabled}
	}
	if t := x.TransformRequestHeaders; t != nil {
		m["transformRequestHeaders"] = b.transformHeaders(t)
	}
	if t := x.TransformResponseHeaders; t != nil {
		m["transformResponseHeaders"] = b.transformHeaders(t)
	}
	if u := x.URLRewrite; u != nil {
		m["urlRewrite"] = map[string]any{"enabled": u.Enabled, "pattern": b.str(u.Pattern), "rewriteTo": b.str(u.RewriteTo)}
	}
	if r := x.MockResponse; r != nil {
		mr := map[string]any{"enabled": r.Enabled}
		if r.Code != 0 {
			mr["code"] = number(r.Code)
		}
		if r.Body != "" {
			mr["body"] = b.str(r.Body)
		}
		if len(r.Headers) > 0 {
			mr["headers"] = b.headers(r.Headers)
		}
		m["mockResponse"] = mr
	}
	return m
}

func (b *tykBuilder) transformHeaders(x *TransformHeaders) map[string]any {
	m := map[string]any{"enabled": x.Enabled}
	if len(x.Remove) > 0 {
		m["remove"] = b.strings(x.Remove)
	}
	if len(x.Add) > 0 {
		m["add"] = b.headers(x.Add)
	}
	return m
}

func (b *tykBuilder) headers(hs []Header) []any {
	out := make([]any, len(hs))
	for i, h := range hs {
		out[i] = map[string]any{"name": b.str(h.Name), "value": b.str(h.Value)}
	}
	return out
}

// number is an int as encoding/json writes it and a decoder with UseNumber reads it back.
func number(i int) json.Number { return json.Number(strconv.Itoa(i)) }
