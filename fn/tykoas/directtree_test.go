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
	return d
}

// TestTreeDirectIsTheRoundTrip fills every field of the Tyk types and builds operations at random: whenever the
// direct path builds a tree, it is the round trip's; it builds one for every document whose strings are valid.
func TestTreeDirectIsTheRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	direct := 0
	for i := range 4000 {
		invalid := i%2 == 1
		d := randomDocument(r, invalid)
		want, err := d.treeRoundTrip()
		require.NoError(t, err)
		got, ok := d.treeDirect()
		if !invalid {
			require.True(t, ok, "document %d: a document with valid strings takes the direct path", i)
		}
		if ok {
			direct++
			require.Equal(t, want, got, "document %d", i)
			wantJSON, err := encodeTreeStd(want)
			require.NoError(t, err)
			gotJSON, err := EncodeTree(got)
			require.NoError(t, err)
			require.Equal(t, string(wantJSON), string(gotJSON))
		}
	}
	require.Greater(t, direct, 2000)
}

// TestTreeLeavesOtherOpenAPIToTheRoundTrip covers OpenAPI content a rendered document does not have: it either
// comes out as the round trip's, or the round trip is taken.
func TestTreeLeavesOtherOpenAPIToTheRoundTrip(t *testing.T) {
	desc := "described"
	cases := map[string]func(d *Document){
		"servers":          func(d *Document) { d.OpenAPI.Servers = openapi3.Servers{{URL: "https://x"}} },
		"tags":             func(d *Document) { d.OpenAPI.Tags = openapi3.Tags{{Name: "t"}} },
		"extension number": func(d *Document) { d.OpenAPI.Extensions = map[string]any{"x-n": 1.5} },
		"extension string": func(d *Document) { d.OpenAPI.Extensions = map[string]any{"x-s": "v", "x-m": map[string]any{"a": true}} },
		"info description": func(d *Document) { d.OpenAPI.Info.Description = "about" },
		"info extension":   func(d *Document) { d.OpenAPI.Info.Extensions = map[string]any{"x-i": []any{"a", 2}} },
		"components":       func(d *Document) { d.OpenAPI.Components = &openapi3.Components{} },
		"operation parameters": func(d *Document) {
			d.OpenAPI.Paths.Value("/a").Get.Parameters = openapi3.Parameters{{Value: openapi3.NewPathParameter("id")}}
		},
		"parameter example": func(d *Document) {
			p := openapi3.NewPathParameter("id").WithSchema(openapi3.NewStringSchema())
			p.Example = map[string]any{"n": 2}
			d.OpenAPI.Paths.Value("/a").Parameters = openapi3.Parameters{{Value: p}}
		},
		"parameter ref": func(d *Document) {
			d.OpenAPI.Paths.Value("/a").Parameters = openapi3.Parameters{{Ref: "#/components/parameters/id"}}
		},
		"schema enum": func(d *Document) {
			s := openapi3.NewStringSchema()
			s.Enum = []any{"a", 1}
			d.OpenAPI.Paths.Value("/a").Parameters = openapi3.Parameters{{Value: openapi3.NewPathParameter("id").WithSchema(s)}}
		},
		"schema types": func(d *Document) {
			s := openapi3.NewSchema()
			s.Type = &openapi3.Types{"string", "null"}
			d.OpenAPI.Paths.Value("/a").Parameters = openapi3.Parameters{{Value: openapi3.NewPathParameter("id").WithSchema(s)}}
		},
		"operation tags": func(d *Document) { d.OpenAPI.Paths.Value("/a").Get.Tags = []string{"t1", "t2"} },
		"response ref": func(d *Document) {
			d.OpenAPI.Paths.Value("/a").Get.Responses.Set("404", &openapi3.ResponseRef{Ref: "#/x"})
		},
		"response headers": func(d *Document) {
			d.OpenAPI.Paths.Value("/a").Get.Responses.Set("200", &openapi3.ResponseRef{Value: &openapi3.Response{Description: &desc,
				Headers: openapi3.Headers{"X": &openapi3.HeaderRef{Value: &openapi3.Header{}}}}})
		},
		"nil info":  func(d *Document) { d.OpenAPI.Info = nil },
		"nil paths": func(d *Document) { d.OpenAPI.Paths = nil },
	}
	for name, change := range cases {
		d := NewDocument("gwapi-1")
		d.AddOperation("/a", "GET", "get")
		change(d)
		want, wantErr := d.treeRoundTrip()
		got, gotErr := d.Tree()
		require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), name)
		require.Equal(t, want, got, name)
	}
}

// BenchmarkDocumentTree compares the direct tree with the JSON round trip on a document like the render's: a
// catch-all path with every method, upstream load balancing, a custom domain and gateway tags.
func BenchmarkDocumentTree(b *testing.B) {
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
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			if _, ok := d.treeDirect(); !ok {
				b.Fatal("not direct")
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
