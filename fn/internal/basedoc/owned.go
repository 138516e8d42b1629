package basedoc

import "strings"

// routeOwned are the settings of the reference's API Configuration table: they come from the route, so a base
// document may not set them. Paths are in the document, "x-tyk-api-gateway" written "x".
var routeOwned = []string{
	"x.info.id",
	"x.info.name",
	"x.info.state.active",
	"x.server.listenPath",
	"x.server.customDomain",
	"x.server.gatewayTags",
	"x.upstream.url",
	"x.upstream.loadBalancing",
	"x.upstream.preserveHostHeader",
}

// ownedFields lists the route-owned settings a base sets, as user-facing field paths.
func ownedFields(tree map[string]any) []string {
	var out []string
	for _, path := range routeOwned {
		parts := strings.Split(path, ".")
		parts[0] = extensionKey
		if _, ok := lookup(tree, parts); ok {
			out = append(out, strings.Join(parts, "."))
		}
	}
	return out
}

func lookup(tree map[string]any, parts []string) (any, bool) {
	var cur any = tree
	for _, p := range parts {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}
