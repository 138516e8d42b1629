// Package tykoastest owns the test-time check that a rendered Tyk OAS API
// definition is one Tyk Gateway will load and act on: a valid OpenAPI 3.0
// document, an x-tyk-api-gateway value valid against Tyk's own JSON schema,
// and per-endpoint middleware that Tyk will not silently ignore. It is for
// tests only; production code must not import it.
//
// Schema validator: github.com/santhosh-tekuri/jsonschema/v6. kin-openapi
// cannot validate against Tyk's schema faithfully: openapi3.Schema rejects
// the tuple form `items: [..]` that the schema uses for every array, does not
// resolve `#/definitions/..` references, and ignores if/then for OpenAPI 3.0.
// santhosh-tekuri/jsonschema is a full JSON Schema implementation (draft-04
// through 2020-12) and is already in the module graph through kin-openapi.
package tykoastest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gateway2tyk/gateway2tyk/third_party/tyk"
)

const extensionKey = "x-tyk-api-gateway"

// Validate fails t when doc is not a definition Tyk will load as intended
// (see Check).
func Validate(t testing.TB, doc []byte) {
	t.Helper()
	if problems := Check(doc); problems != nil {
		t.Errorf("invalid Tyk OAS API definition:\n%v", problems)
	}
}

// Check returns every reason doc is not a definition Tyk will load as
// intended, or nil:
//   - it must load with kin-openapi as a valid OpenAPI 3.0 document;
//   - every operation must have an operationId and responses;
//   - every key of middleware.operations must be the operationId of an
//     operation under paths, since Tyk silently ignores any other key;
//   - its x-tyk-api-gateway value must be valid against Tyk's schema (the
//     repository's copy, third_party/tyk), both as written and in the strict
//     reading described at compileSchemas.
func Check(doc []byte) error {
	var errs []error

	oas, err := openapi3.NewLoader().LoadFromData(doc)
	if err != nil {
		return fmt.Errorf("OpenAPI: does not load: %w", err)
	}
	if !oas.IsOpenAPI30() {
		errs = append(errs, fmt.Errorf("OpenAPI: version %q is not 3.0.x", oas.OpenAPI))
	}
	errs = append(errs, checkPathParameters(oas)...)
	if err := oas.Validate(context.Background()); err != nil {
		errs = append(errs, fmt.Errorf("OpenAPI: %w", err))
	}

	// The instance is decoded independently of kin-openapi so the schema sees
	// exactly the bytes Tyk would receive.
	top, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("JSON: %w", err))...)
	}
	var ext any
	hasExt := false
	if m, ok := top.(map[string]any); ok {
		ext, hasExt = m[extensionKey]
	}
	if !hasExt {
		errs = append(errs, fmt.Errorf("no %q extension", extensionKey))
	}

	errs = append(errs, checkOperations(oas, ext)...)

	if hasExt {
		schemas, err := compiledSchemas()
		if err != nil {
			return errors.Join(append(errs, err)...)
		}
		for _, s := range schemas {
			if err := s.schema.Validate(ext); err != nil {
				errs = append(errs, fmt.Errorf("%s against Tyk's schema (%s): %w", extensionKey, s.name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// templateVar is a {...} of a path key.
var templateVar = regexp.MustCompile(`{([^{}]+)}`)

// checkPathParameters checks path parameters as Tyk's kin-openapi reads them (v0.115 in Tyk 5.4 to 5.8, v0.132
// in 5.11): the name of a template variable is everything between the braces, so {rest:.*} (a gorilla/mux
// pattern) must be declared as "rest:.*", and every operation must have exactly its path's variables declared.
// kin-openapi from v0.133 on (this module's) reads that variable as "rest" instead, so, once checked, the
// declared names are given to it as it reads them; a real Gateway has the last word (e2e TestRealTyk*).
func checkPathParameters(oas *openapi3.T) []error {
	var errs []error
	for key, item := range oas.Paths.Map() {
		vars := map[string]bool{}
		for _, m := range templateVar.FindAllStringSubmatch(key, -1) {
			vars[m[1]] = true
		}
		for method, op := range item.Operations() {
			declared := map[string]bool{}
			for _, p := range pathParameters(item.Parameters, op.Parameters) {
				declared[p.Name] = true
			}
			if !maps.Equal(vars, declared) {
				errs = append(errs, fmt.Errorf("OpenAPI: %s %s declares the path parameters %v, Tyk reads %v from the path",
					method, key, slices.Sorted(maps.Keys(declared)), slices.Sorted(maps.Keys(vars))))
			}
		}
		all := []openapi3.Parameters{item.Parameters}
		for _, op := range item.Operations() {
			all = append(all, op.Parameters)
		}
		for _, p := range pathParameters(all...) {
			p.Name, _, _ = strings.Cut(p.Name, ":")
		}
	}
	return errs
}

// pathParameters are the parameters "in: path" of the lists.
func pathParameters(lists ...openapi3.Parameters) []*openapi3.Parameter {
	var out []*openapi3.Parameter
	for _, list := range lists {
		for _, ref := range list {
			if ref != nil && ref.Value != nil && ref.Value.In == openapi3.ParameterInPath {
				out = append(out, ref.Value)
			}
		}
	}
	return out
}

func checkOperations(oas *openapi3.T, ext any) []error {
	var errs []error
	ids := map[string]bool{}
	if oas.Paths != nil {
		for _, path := range oas.Paths.Keys() {
			ops := oas.Paths.Value(path).Operations()
			for _, method := range slices.Sorted(maps.Keys(ops)) {
				op := ops[method]
				if op.OperationID == "" {
					errs = append(errs, fmt.Errorf("paths[%q].%s: no operationId, so Tyk middleware cannot address it", path, method))
				} else {
					ids[op.OperationID] = true
				}
				if op.Responses == nil || op.Responses.Len() == 0 {
					errs = append(errs, fmt.Errorf("paths[%q].%s: no responses", path, method))
				}
			}
		}
	}

	m, _ := ext.(map[string]any)
	mw, _ := m["middleware"].(map[string]any)
	opsCfg, _ := mw["operations"].(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(opsCfg)) {
		if !ids[k] {
			errs = append(errs, fmt.Errorf("%s.middleware.operations[%q]: no operation under paths has this operationId, so Tyk ignores it", extensionKey, k))
		}
	}
	return errs
}

type namedSchema struct {
	name   string
	schema *jsonschema.Schema
}

// compiledSchemas is compileSchemas' one result for Tyk's schema, compiled on first use.
var compiledSchemas = sync.OnceValues(func() ([]namedSchema, error) { return compileSchemas(tyk.Read(tyk.Schema)) })

// compileSchemas compiles Tyk's schema twice.
//
// "as written" is the file under its declared draft-04, which is what Tyk
// Gateway enforces: its validator (xeipuuv/gojsonschema) ignores if/then
// below draft-07, and a tuple-form `items: [s]` constrains only the first
// element.
//
// "strict" is the reading the schema's authors evidently meant: draft-07, so
// the if/then conditions hold (e.g. an enabled loadBalancing needs a target),
// and every single-element tuple `items: [s]` becomes `items: s`, so every
// array element is checked, not only the first. A document Tyk accepts but
// whose second header lacks a value would otherwise pass. This rewrites the
// schema; the validation itself stays the library's.
func compileSchemas(data []byte) ([]namedSchema, error) {
	path := "third_party/tyk/" + tyk.Schema
	var out []namedSchema
	for _, variant := range []struct {
		name   string
		strict bool
	}{{"as written", false}, {"strict", true}} {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("tykoastest: parse %s: %w", path, err)
		}
		if variant.strict {
			root, ok := doc.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("tykoastest: %s is not a JSON object", path)
			}
			root["$schema"] = "http://json-schema.org/draft-07/schema#"
			listItems(root)
		}
		url := "file:///tyk/x-tyk-api-gateway.json"
		if variant.strict {
			url = "file:///tyk/x-tyk-api-gateway.strict.json"
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("tykoastest: load %s: %w", path, err)
		}
		s, err := c.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("tykoastest: compile %s (%s): %w", path, variant.name, err)
		}
		out = append(out, namedSchema{variant.name, s})
	}
	return out, nil
}

// listItems rewrites every single-element tuple `items: [s]` in v to
// `items: s`. Only array values are touched, so a property that happens to be
// named "items" (an object under "properties") is left alone.
func listItems(v any) {
	switch v := v.(type) {
	case map[string]any:
		if arr, ok := v["items"].([]any); ok && len(arr) == 1 {
			if _, isSchema := arr[0].(map[string]any); isSchema {
				v["items"] = arr[0]
			}
		}
		for _, child := range v {
			listItems(child)
		}
	case []any:
		for _, child := range v {
			listItems(child)
		}
	}
}
