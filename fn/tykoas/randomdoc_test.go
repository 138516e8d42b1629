package tykoas

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"
)

var fillStrings = []string{"", "a", "edge", "/orders/{id}", "<b>&amp;</b>", "tab\tquote\"", "é中🙂", "\u2028", "x-tyk"}

// fill sets every field of v, recursively, to a random value: zero or not, nil or empty or full pointers,
// slices and maps. invalid makes a string invalid UTF-8 now and then.
func fill(v reflect.Value, r *rand.Rand, invalid bool) {
	switch v.Kind() {
	case reflect.String:
		s := fillStrings[r.IntN(len(fillStrings))]
		if invalid && r.IntN(20) == 0 {
			s += "\xff"
		}
		v.SetString(s)
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int:
		v.SetInt(int64([]int{0, 1, -3, 302, 1 << 40}[r.IntN(5)]))
	case reflect.Pointer:
		if r.IntN(3) == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), r, invalid)
		v.Set(p)
	case reflect.Slice:
		switch r.IntN(4) {
		case 0:
			v.SetZero()
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			s := reflect.MakeSlice(v.Type(), 1+r.IntN(3), 3)
			for i := range s.Len() {
				fill(s.Index(i), r, invalid)
			}
			v.Set(s)
		}
	case reflect.Map:
		switch r.IntN(4) {
		case 0:
			v.SetZero()
		case 1:
			v.Set(reflect.MakeMap(v.Type()))
		default:
			m := reflect.MakeMap(v.Type())
			for range 1 + r.IntN(3) {
				k := reflect.New(v.Type().Key()).Elem()
				fill(k, r, invalid)
				e := reflect.New(v.Type().Elem()).Elem()
				fill(e, r, invalid)
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), r, invalid)
		}
	default:
		panic(fmt.Sprintf("fill: no rule for %s", v.Type()))
	}
}

func randomDocument(r *rand.Rand, invalid bool) *Document {
	d := NewDocument(fillStrings[r.IntN(len(fillStrings))])
	fill(reflect.ValueOf(&d.Tyk).Elem(), r, invalid)
	methods := []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE", "CONNECT"}
	for range r.IntN(6) {
		path := fillStrings[r.IntN(len(fillStrings))]
		if invalid && r.IntN(20) == 0 {
			path += "\xfe"
		}
		d.AddOperation("/"+path, methods[r.IntN(len(methods))], fillStrings[r.IntN(len(fillStrings))])
		if r.IntN(2) == 0 { // as a mock's "-below" operation does
			d.DeclarePathParameter("/"+path, fillStrings[r.IntN(len(fillStrings))])
		}
	}
	// Now and then, shapes of the same kin-openapi types that the render does not make.
	for _, path := range d.OpenAPI.Paths.Keys() {
		item := d.OpenAPI.Paths.Value(path)
		for _, p := range item.Parameters {
			p.Value.Required = r.IntN(4) != 0
			p.Value.Schema.Value.Type = &openapi3.Types{"string", "integer"}
			*p.Value.Schema.Value.Type = (*p.Value.Schema.Value.Type)[:r.IntN(3)]
		}
		for _, op := range item.Operations() {
			if r.IntN(4) == 0 {
				op.Responses.Default().Value.Description = nil
			}
		}
	}
	return d
}

// otherOpenAPI changes a document with one GET operation at /a to hold OpenAPI content a rendered document does
// not have. direct says whether the JSON writer (appendDocument) writes it; it refuses all the others.
var otherOpenAPI = map[string]struct {
	direct bool
	change func(d *Document)
}{
	"servers":           {false, func(d *Document) { d.OpenAPI.Servers = openapi3.Servers{{URL: "https://x"}} }},
	"tags":              {false, func(d *Document) { d.OpenAPI.Tags = openapi3.Tags{{Name: "t"}} }},
	"extension number":  {false, func(d *Document) { d.OpenAPI.Extensions = map[string]any{"x-n": 1.5} }},
	"extension string":  {false, func(d *Document) { d.OpenAPI.Extensions = map[string]any{"x-s": "v", "x-m": map[string]any{"a": true}} }},
	"empty extensions":  {true, func(d *Document) { d.OpenAPI.Extensions = map[string]any{} }},
	"info description":  {false, func(d *Document) { d.OpenAPI.Info.Description = "about" }},
	"info extension":    {false, func(d *Document) { d.OpenAPI.Info.Extensions = map[string]any{"x-i": []any{"a", 2}} }},
	"components":        {false, func(d *Document) { d.OpenAPI.Components = &openapi3.Components{} }},
	"origin":            {false, func(d *Document) { d.OpenAPI.Info.Origin = &openapi3.Origin{} }},
	"paths extension":   {false, func(d *Document) { d.OpenAPI.Paths.Extensions = map[string]any{"x-p": "v"} }},
	"path item summary": {false, func(d *Document) { d.OpenAPI.Paths.Value("/a").Summary = "s" }},
	"path item ref":     {false, func(d *Document) { d.OpenAPI.Paths.Value("/a").Ref = "#/x" }},
	"operation summary": {false, func(d *Document) { d.OpenAPI.Paths.Value("/a").Get.Summary = "s" }},
	"operation security": {false, func(d *Document) {
		d.OpenAPI.Paths.Value("/a").Get.Security = &openapi3.SecurityRequirements{}
	}},
	"operation parameters": {false, func(d *Document) {
		d.OpenAPI.Paths.Value("/a").Get.Parameters = openapi3.Parameters{{Value: openapi3.NewPathParameter("id")}}
	}},
	"parameter example": {false, func(d *Document) {
		p := openapi3.NewPathParameter("id").WithSchema(openapi3.NewStringSchema())
		p.Example = map[string]any{"n": 2}
		d.OpenAPI.Paths.Value("/a").Parameters = openapi3.Parameters{{Value: p}}
	}},
	"parameter description": {false, func(d *Document) {
		p := openapi3.NewPathParameter("id")
		p.Description = "the id"
		d.OpenAPI.Paths.Value("/a").Parameters = openapi3.Parameters{{Value: p}}
	}},
	"parameter ref": {false, func(d *Document) {
		d.OpenAPI.Paths.Value("/a").Parameters = openapi3.Parameters{{Ref: "#/components/parameters/id"}}
	}},
	"parameter without value": {true, func(d *Document) { d.OpenAPI.Paths.Value("/a").Parameters = openapi3.Parameters{{}, nil} }},
	"schema enum": {false, func(d *Document) {
		s := openapi3.NewStringSchema()
		s.Enum = []any{"a", 1}
		d.OpenAPI.Paths.Value("/a").Parameters = openapi3.Parameters{{Value: openapi3.NewPathParameter("id").WithSchema(s)}}
	}},
	"schema ref": {false, func(d *Document) {
		p := openapi3.NewPathParameter("id")
		p.Schema = &openapi3.SchemaRef{Ref: "#/components/schemas/id"}
		d.OpenAPI.Paths.Value("/a").Parameters = openapi3.Parameters{{Value: p}}
	}},
	"schema types": {true, func(d *Document) {
		s := openapi3.NewSchema()
		s.Type = &openapi3.Types{"string", "null"}
		d.OpenAPI.Paths.Value("/a").Parameters = openapi3.Parameters{{Value: openapi3.NewPathParameter("id").WithSchema(s)}}
	}},
	"schema without type": {true, func(d *Document) {
		p := openapi3.NewPathParameter("id").WithSchema(&openapi3.Schema{Type: &openapi3.Types{}})
		d.OpenAPI.Paths.Value("/a").Parameters = openapi3.Parameters{{Value: p}, {Value: openapi3.NewPathParameter("x")}}
	}},
	"operation tags": {false, func(d *Document) { d.OpenAPI.Paths.Value("/a").Get.Tags = []string{"t1", "t2"} }},
	"response ref": {false, func(d *Document) {
		d.OpenAPI.Paths.Value("/a").Get.Responses.Set("404", &openapi3.ResponseRef{Ref: "#/x"})
	}},
	"response headers": {false, func(d *Document) {
		desc := "described"
		d.OpenAPI.Paths.Value("/a").Get.Responses.Set("200", &openapi3.ResponseRef{Value: &openapi3.Response{Description: &desc,
			Headers: openapi3.Headers{"X": &openapi3.HeaderRef{Value: &openapi3.Header{}}}}})
	}},
	"response content": {false, func(d *Document) {
		d.OpenAPI.Paths.Value("/a").Get.Responses.Set("200", &openapi3.ResponseRef{Value: openapi3.NewResponse().
			WithJSONSchema(openapi3.NewStringSchema())})
	}},
	"responses extension": {false, func(d *Document) {
		d.OpenAPI.Paths.Value("/a").Get.Responses.Extensions = map[string]any{"x-r": true}
	}},
	"responses without value": {true, func(d *Document) {
		d.OpenAPI.Paths.Value("/a").Get.Responses.Set("200", &openapi3.ResponseRef{})
		d.OpenAPI.Paths.Value("/a").Get.Responses.Set("201", &openapi3.ResponseRef{Value: openapi3.NewResponse()})
	}},
	"no responses":    {true, func(d *Document) { d.OpenAPI.Paths.Value("/a").Get.Responses = nil }},
	"nil path item":   {true, func(d *Document) { d.OpenAPI.Paths.Set("/b", nil) }},
	"nil info":        {true, func(d *Document) { d.OpenAPI.Info = nil }},
	"nil paths":       {true, func(d *Document) { d.OpenAPI.Paths = nil }},
	"webhooks (3.1)":  {false, func(d *Document) { d.OpenAPI.Webhooks = map[string]*openapi3.PathItem{"w": {}} }},
	"query operation": {false, func(d *Document) { d.OpenAPI.Paths.Value("/a").Query = &openapi3.Operation{} }},
}

// otherDocument is a document with one GET operation at /a, changed as the case says.
func otherDocument(change func(d *Document)) *Document {
	d := NewDocument("gwapi-1")
	d.AddOperation("/a", "GET", "get")
	change(d)
	return d
}

// TestTreeLeavesOtherOpenAPIToTheRoundTrip covers OpenAPI content a rendered document does not have: it either
// comes out as the round trip's, or the round trip is taken.
func TestTreeLeavesOtherOpenAPIToTheRoundTrip(t *testing.T) {
	for name, c := range otherOpenAPI {
		d := otherDocument(c.change)
		want, wantErr := d.treeRoundTrip()
		got, gotErr := d.Tree()
		require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), name)
		require.Equal(t, want, got, name)
	}
}

// BenchmarkDocumentTree compares Tree (the direct JSON parsed) with the JSON round trip on benchDocument.
func BenchmarkDocumentTree(b *testing.B) {
	d := benchDocument()
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			if _, err := d.Tree(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("round-trip", func(b *testing.B) {
		for b.Loop() {
			if _, err := d.treeRoundTrip(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchDocument is a document like the render's: a catch-all path with every method, upstream load balancing, a
// custom domain and gateway tags.
func benchDocument() *Document {
	d := NewDocument("gwapi-0123456789abcdef0123")
	for _, m := range []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE"} {
		d.AddOperation("/", m, "op-"+m)
	}
	d.Tyk.Server = Server{ListenPath: ListenPath{Value: "/orders", Strip: true},
		CustomDomain: &CustomDomain{Enabled: true, Name: "orders.example.com", Certificates: []string{"org1abc"}},
		GatewayTags:  &GatewayTags{Enabled: true, Tags: []string{"edge"}}}
	d.Tyk.Upstream = Upstream{LoadBalancing: &LoadBalancing{Enabled: true, Targets: []LoadBalancingTarget{
		{URL: "http://a.svc:8080/orders", Weight: 90}, {URL: "http://b.svc:8080/orders", Weight: 10}}},
		PreserveHostHeader: &PreserveHostHeader{Enabled: true}}
	d.Tyk.Middleware = &Middleware{Operations: map[string]Operation{"op-GET": {
		TransformRequestHeaders: &TransformHeaders{Enabled: true, Add: []Header{{Name: "X-Team", Value: "a"}}}}}}
	return d
}
