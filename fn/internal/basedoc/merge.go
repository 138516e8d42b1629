package basedoc

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// Conflicts lists how a base document and a route's API would step on each other, which is the route's
// AttachmentConflict:
//   - the base describes an operation while the route's API answers some methods itself (mockResponse: its
//     404s and redirects). Tyk finds a mockResponse's operation with its OpenAPI router, and the route's path
//     key covers every path under the listen path, so on any path the base describes the router would find
//     the base's operation (or, for a method the base does not describe there, none), and the route's answer
//     would not be given there;
//   - the base describes an operation the route's API also has (the same OpenAPI path and method): the merge
//     would replace the base's with the route's;
//   - the base configures middleware under an operationId whose middleware the route sets too;
//   - the base configures middleware for an operationId that neither it nor the route's API has (Tyk would
//     silently ignore it).
//
// Either way something the user wrote would silently not apply. Empty when they fit together.
func (d *Definition) Conflicts(route *tykoas.Document) []string {
	var out []string
	basePaths, _ := d.tree["paths"].(map[string]any)
	if answersItself(route) {
		for p, item := range basePaths {
			baseItem, _ := item.(map[string]any)
			for method := range baseItem {
				if openAPIMethods[method] {
					out = append(out, fmt.Sprintf("the base document describes %s %s, where Tyk would then not give "+
						"the answers of the route's own operations (its 404s and redirects cover every path)",
						strings.ToUpper(method), p))
				}
			}
		}
	} else {
		for _, p := range route.OpenAPI.Paths.InMatchingOrder() {
			baseItem, _ := basePaths[p].(map[string]any)
			for method := range route.OpenAPI.Paths.Value(p).Operations() {
				if _, clash := baseItem[strings.ToLower(method)]; clash {
					out = append(out, fmt.Sprintf("the base document describes %s %s, which the route's API also serves", method, p))
				}
			}
		}
	}
	if route.Tyk.Middleware != nil {
		baseOps, _ := lookup(d.tree, []string{extensionKey, "middleware", "operations"})
		ops, _ := baseOps.(map[string]any)
		for id := range route.Tyk.Middleware.Operations {
			if _, clash := ops[id]; clash {
				out = append(out, fmt.Sprintf("the base document configures middleware for operation %q, which the route's API uses", id))
			}
		}
	}
	out = append(out, strayOperations(d.tree, route)...)
	out = append(out, routerMiddleware(d.tree, route)...)
	sort.Strings(out)
	return out
}

// routerOnly are the middleware Tyk finds through its OpenAPI router rather than the classic way (shown on a
// real Gateway for mockResponse; validateRequest uses the same lookup in Tyk's source).
var routerOnly = []string{"mockResponse", "validateRequest"}

// routerMiddleware reports middleware of the base, on an operation of the route's API, that Tyk would find
// through its OpenAPI router: the route's operations are keyed "/", which the router matches on
// <listenPath>/ only, so such middleware would not apply on every path under the listen path.
func routerMiddleware(tree map[string]any, route *tykoas.Document) []string {
	v, _ := lookup(tree, []string{extensionKey, "middleware", "operations"})
	ops, _ := v.(map[string]any)
	var out []string
	for _, p := range route.OpenAPI.Paths.InMatchingOrder() {
		if p != "/" {
			continue // a "-below" copy of a mock: the middleware clash above reports the base's middleware on it
		}
		for _, op := range route.OpenAPI.Paths.Value(p).Operations() {
			baseOp, _ := ops[op.OperationID].(map[string]any)
			for _, kind := range routerOnly {
				if _, set := baseOp[kind]; set {
					out = append(out, fmt.Sprintf("the base document configures %s for operation %q of the route's "+
						"API: Tyk finds %s through its OpenAPI router, which reaches that operation (path %s) on the "+
						"listen path followed by \"/\" only, not on every path under it", kind, op.OperationID, kind, p))
				}
			}
		}
	}
	return out
}

// answersItself reports whether the route's API has an operation with a mockResponse.
func answersItself(route *tykoas.Document) bool {
	if route.Tyk.Middleware == nil {
		return false
	}
	for _, op := range route.Tyk.Middleware.Operations {
		if op.MockResponse != nil && op.MockResponse.Enabled {
			return true
		}
	}
	return false
}

// openAPIMethods are the operation keys of an OpenAPI 3.0 path item.
var openAPIMethods = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "options": true,
	"head": true, "patch": true, "trace": true}

// strayOperations reports the keys of the base's middleware.operations that name no operation of the merged
// API: neither an operationId under the base's paths nor one of the route's.
func strayOperations(tree map[string]any, route *tykoas.Document) []string {
	v, _ := lookup(tree, []string{extensionKey, "middleware", "operations"})
	ops, _ := v.(map[string]any)
	if len(ops) == 0 {
		return nil
	}
	ids := map[string]bool{}
	paths, _ := tree["paths"].(map[string]any)
	for _, item := range paths {
		methods, _ := item.(map[string]any)
		for _, op := range methods {
			if o, ok := op.(map[string]any); ok {
				if id, ok := o["operationId"].(string); ok {
					ids[id] = true
				}
			}
		}
	}
	for _, p := range route.OpenAPI.Paths.InMatchingOrder() {
		for _, op := range route.OpenAPI.Paths.Value(p).Operations() {
			ids[op.OperationID] = true
		}
	}
	var out []string
	for k := range ops {
		if !ids[k] {
			out = append(out, fmt.Sprintf("the base document configures middleware for operation %q, which "+
				"neither it nor the route's API has, so Tyk would ignore it", k))
		}
	}
	return out
}

// Merge lays the route's API over the base document: the route's settings (the settings table) and its
// operations and their middleware are set; everything else of the base stays. OpenAPI's info.title is the API
// ID, as for every API; the base's OpenAPI version and info.version stay. When the base turns authentication
// on, the route's redirects keep working without credentials (ignoreAuthentication), since Tyk answers them
// itself. Conflicts must have been ruled out first.
func (d *Definition) Merge(route *tykoas.Document) ([]byte, error) {
	routeTree, err := route.Tree()
	if err != nil {
		return nil, err
	}
	out := deepCopy(d.tree).(map[string]any)
	info := object(out, "info")
	info["title"] = route.OpenAPI.Info.Title
	if _, ok := info["version"]; !ok {
		info["version"] = route.OpenAPI.Info.Version
	}
	if _, ok := out["openapi"]; !ok {
		out["openapi"] = routeTree["openapi"]
	}
	paths := object(out, "paths")
	for p, item := range object(routeTree, "paths") {
		target := object(paths, p)
		for method, op := range item.(map[string]any) {
			target[method] = op
		}
	}

	x := object(out, extensionKey)
	rx := routeTree[extensionKey].(map[string]any)
	overlay(object(x, "info"), rx["info"].(map[string]any))
	overlay(object(x, "server"), rx["server"].(map[string]any))
	overlay(object(x, "upstream"), rx["upstream"].(map[string]any))
	if rm, ok := rx["middleware"].(map[string]any); ok {
		ops := object(object(x, "middleware"), "operations")
		for id, op := range rm["operations"].(map[string]any) {
			ops[id] = op
		}
	}
	if authenticated(x) {
		ignoreAuthOnRedirects(x)
	}
	return tykoas.EncodeTree(out)
}

// overlay sets every key of src in dst, going into the objects that both hold, so that the base keeps what it
// sets beside a route setting (info.state.internal beside the route's info.state.active).
func overlay(dst, src map[string]any) {
	for k, v := range src {
		sv, srcObj := v.(map[string]any)
		dv, dstObj := dst[k].(map[string]any)
		if srcObj && dstObj {
			overlay(dv, sv)
			continue
		}
		dst[k] = v
	}
}

// authenticated reports whether the base turns authentication on (server.authentication.enabled).
func authenticated(x map[string]any) bool {
	v, _ := lookup(x, []string{"server", "authentication", "enabled"})
	on, _ := v.(bool)
	return on
}

// ignoreAuthOnRedirects marks the operations whose mock response is a redirect: Tyk answers them itself and a
// client following a redirect carries no credentials.
func ignoreAuthOnRedirects(x map[string]any) {
	ops, _ := lookup(x, []string{"middleware", "operations"})
	m, _ := ops.(map[string]any)
	for _, op := range m {
		o, ok := op.(map[string]any)
		if !ok {
			continue
		}
		code, _ := lookup(o, []string{"mockResponse", "code"})
		if n, ok := code.(json.Number); ok && strings.HasPrefix(n.String(), "3") && len(n.String()) == 3 {
			o["ignoreAuthentication"] = map[string]any{"enabled": true}
		}
	}
}

// object returns the object at key of m, making it when absent (or not an object).
func object(m map[string]any, key string) map[string]any {
	if o, ok := m[key].(map[string]any); ok {
		return o
	}
	o := map[string]any{}
	m[key] = o
	return o
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, c := range t {
			out[k] = deepCopy(c)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			out[i] = deepCopy(c)
		}
		return out
	}
	return v
}
