// Package tykoas owns the Tyk OAS API definition that gateway2tyk emits: an
// OpenAPI 3.0 document (kept as a kin-openapi *openapi3.T) plus typed structs
// for the subset of the x-tyk-api-gateway extension that gateway2tyk sets, and
// their stable JSON encoding. It knows nothing about the Gateway API or
// Kubernetes; the translator decides what goes in.
package tykoas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/libio"
)

// Document is one Tyk OAS API definition. The Tyk part is kept out of
// OpenAPI.Extensions so that callers work with typed fields; Encode merges it
// back under ExtensionKey.
type Document struct {
	OpenAPI *openapi3.T
	Tyk     XTykAPIGateway
}

// NewDocument returns an empty, active API whose OpenAPI title and Tyk id and
// name are all id, so the API is recognisable in the Dashboard by its id.
func NewDocument(id string) *Document {
	return &Document{
		OpenAPI: &openapi3.T{
			OpenAPI: "3.0.3",
			Info:    &openapi3.Info{Title: id, Version: "1.0.0"},
			Paths:   openapi3.NewPaths(),
		},
		Tyk: XTykAPIGateway{
			Info: Info{ID: id, Name: id, State: State{Active: true}},
		},
	}
}

// openAPI30Methods are the operation keys of an OpenAPI 3.0 path item. Other
// methods would land in kin-openapi's 3.2-only additionalOperations and make
// the document invalid, so AddOperation refuses them.
var openAPI30Methods = map[string]bool{
	http.MethodConnect: true, http.MethodDelete: true, http.MethodGet: true,
	http.MethodHead: true, http.MethodOptions: true, http.MethodPatch: true,
	http.MethodPost: true, http.MethodPut: true, http.MethodTrace: true,
}

// AddOperation adds (or replaces) the operation for method at path. Tyk
// attaches per-endpoint middleware by operationId, and OpenAPI requires
// responses on every operation, so both are always set. Output order does not
// depend on call order: Encode sorts paths and methods.
//
// It panics on a method OpenAPI 3.0 cannot express, which is a programming
// error: every Gateway API HTTPMethod is one of the nine 3.0 methods.
func (d *Document) AddOperation(path, method, operationID string) {
	m := strings.ToUpper(method)
	if !openAPI30Methods[m] {
		panic(fmt.Sprintf("tykoas: HTTP method %q has no OpenAPI 3.0 operation", method))
	}
	d.OpenAPI.AddOperation(path, m, &openapi3.Operation{
		OperationID: operationID,
		Responses: openapi3.NewResponses(openapi3.WithName("default",
			openapi3.NewResponse().WithDescription("Default response"))),
	})
}

// DeclarePathParameter declares the path parameter name, a required string, on the path item at path (once):
// OpenAPI and Tyk refuse a path key whose {name} is not declared.
func (d *Document) DeclarePathParameter(path, name string) {
	item := d.OpenAPI.Paths.Value(path)
	if item == nil {
		item = &openapi3.PathItem{}
		d.OpenAPI.Paths.Set(path, item)
	}
	if item.Parameters.GetByInAndName(openapi3.ParameterInPath, name) != nil {
		return
	}
	p := openapi3.NewPathParameter(name).WithSchema(openapi3.NewStringSchema())
	item.Parameters = append(item.Parameters, &openapi3.ParameterRef{Value: p})
}

// Encode returns the document as JSON: the OpenAPI object with the Tyk
// extension under ExtensionKey, object keys sorted at every level, 2-space
// indentation, no HTML escaping and a trailing newline. The output is a
// function of the document's content only, so rendering the same input twice
// gives byte-identical files that diff cleanly.
//
// The documents the render makes are written directly (appendDocument); anything else is EncodeTree of the JSON
// round trip.
func (d *Document) Encode() ([]byte, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	if !libio.On() {
		if out, ok := d.appendDocument(make([]byte, 0, d.sizeHint())); ok {
			directDocuments.Add(1)
			return out, nil
		}
	}
	tree, err := d.treeRoundTrip()
	if err != nil {
		return nil, err
	}
	return EncodeTree(tree)
}

// directDocuments counts the documents Encode wrote directly, for the tests: the fallback writes the same bytes,
// so only the count shows that the fast path ran.
var directDocuments atomic.Int64

// Tree returns the document as generic JSON values: the OpenAPI object with the Tyk extension under
// ExtensionKey. It is the form a base document is merged in.
func (d *Document) Tree() (map[string]any, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	return d.tree()
}

// check refuses a document Encode and Tree cannot write.
func (d *Document) check() error {
	if d == nil || d.OpenAPI == nil {
		return errors.New("tykoas: document has no OpenAPI part")
	}
	if _, ok := d.OpenAPI.Extensions[ExtensionKey]; ok {
		// Two sources for one key would make the output depend on which wins.
		return fmt.Errorf("tykoas: OpenAPI.Extensions must not hold %q; set Document.Tyk", ExtensionKey)
	}
	return nil
}

// tree is Tree of a checked document: the generic values of the JSON Encode writes directly (what the JSON
// round trip decodes to, since those bytes are the round trip's), else the round trip itself.
func (d *Document) tree() (map[string]any, error) {
	if !libio.On() {
		if b, ok := d.appendDocument(make([]byte, 0, d.sizeHint())); ok {
			return ParseTree(b)
		}
	}
	return d.treeRoundTrip()
}

// treeRoundTrip is Tree by encoding/json: the document marshalled, then decoded into generic values.
func (d *Document) treeRoundTrip() (map[string]any, error) {
	oas, err := json.Marshal(d.OpenAPI)
	if err != nil {
		return nil, fmt.Errorf("tykoas: encode OpenAPI: %w", err)
	}
	tyk, err := json.Marshal(&d.Tyk)
	if err != nil {
		return nil, fmt.Errorf("tykoas: encode %s: %w", ExtensionKey, err)
	}
	// Round-tripping through generic values puts every object, including the
	// Tyk structs, into one canonical form (sorted keys); json.Number keeps
	// numbers exactly as written.
	var top map[string]any
	if err := unmarshalNumbers(oas, &top); err != nil {
		return nil, fmt.Errorf("tykoas: encode OpenAPI: %w", err)
	}
	var ext any
	if err := unmarshalNumbers(tyk, &ext); err != nil {
		return nil, fmt.Errorf("tykoas: encode %s: %w", ExtensionKey, err)
	}
	top[ExtensionKey] = ext
	return top, nil
}

// EncodeTree writes a document held as generic JSON values the way Encode does: object keys sorted at every
// level, 2-space indentation, no HTML escaping and a trailing newline. The values of a decoded document (objects,
// arrays, strings, json.Number, booleans, null) are written directly (see appendTree, several times faster than
// encoding/json's reflection at fleet scale, and byte for byte what it writes); a tree holding anything else is
// written by encoding/json.
func EncodeTree(tree map[string]any) ([]byte, error) {
	if !libio.On() {
		if out, ok := appendValue(make([]byte, 0, 4096), tree, 0); ok {
			return append(out, '\n'), nil
		}
	}
	return encodeTreeStd(tree)
}

// encodeTreeStd is EncodeTree by encoding/json.
func encodeTreeStd(tree map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // header values and mock bodies stay readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(tree); err != nil {
		return nil, fmt.Errorf("tykoas: encode: %w", err)
	}
	return buf.Bytes(), nil
}

// ParseTree reads a JSON document into generic values, keeping numbers exactly as written.
func ParseTree(data []byte) (map[string]any, error) {
	var tree map[string]any
	if err := unmarshalNumbers(data, &tree); err != nil {
		return nil, err
	}
	return tree, nil
}

// MarshalJSON lets a Document be embedded in other JSON; it is Encode.
func (d *Document) MarshalJSON() ([]byte, error) {
	return d.Encode()
}

// UnmarshalJSON is Decode, for symmetry with MarshalJSON.
func (d *Document) UnmarshalJSON(data []byte) error {
	got, err := Decode(data)
	if err != nil {
		return err
	}
	*d = *got
	return nil
}

// Decode reads a document written by Encode. It is strict about the Tyk
// extension: a field outside the subset modelled here is an error, because
// silently dropping it would lose configuration on a read-modify-write.
func Decode(data []byte) (*Document, error) { return decode(data, true) }

// DecodeLoose reads any Tyk OAS document, a merged one included, keeping only the fields modelled here: for
// reading what Tyk would do with it (tykroute), never for a read-modify-write.
func DecodeLoose(data []byte) (*Document, error) { return decode(data, false) }

func decode(data []byte, strict bool) (*Document, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("tykoas: decode: %w", err)
	}
	raw, ok := top[ExtensionKey]
	if !ok {
		return nil, fmt.Errorf("tykoas: decode: no %q extension", ExtensionKey)
	}
	var tyk XTykAPIGateway
	dec := json.NewDecoder(bytes.NewReader(raw))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(&tyk); err != nil {
		return nil, fmt.Errorf("tykoas: decode %s: %w", ExtensionKey, err)
	}

	oas, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("tykoas: decode OpenAPI: %w", err)
	}
	delete(oas.Extensions, ExtensionKey)
	if len(oas.Extensions) == 0 {
		oas.Extensions = nil
	}
	return &Document{OpenAPI: oas, Tyk: tyk}, nil
}

func unmarshalNumbers(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after JSON value")
	}
	return nil
}
