package tykroute

import (
	"net/url"
	"regexp"
	"strings"
)

// contextVariable is a $tyk_context.<name> in a header transform's value (Tyk's contextMatch).
var contextVariable = regexp.MustCompile(`\$tyk_context\.([A-Za-z0-9_\-\.]+)`)

// withContextVariables is a response header transform as Tyk applies it (ReplaceTykVariables on each value):
// with middleware.global.contextVariables on, $tyk_context.path is the request's path as its context variables
// middleware saw it (r.URL.Path, unescaped, before any rewrite or loop); any variable without a value, and every
// variable when context variables are off, becomes "". Only path is modelled: another variable is taken to have
// no value, with a note. The Location a transform sets is the response's Location (the transform runs after
// a mock response's own headers).
func withContextVariables(api *candidate, t Transform, reqPath string, out *Outcome) Transform {
	on := false
	if mw := api.doc.Tyk.Middleware; mw != nil && mw.Global != nil && mw.Global.ContextVariables != nil {
		on = mw.Global.ContextVariables.Enabled
	}
	path := reqPath
	if p, err := url.PathUnescape(reqPath); err == nil {
		path = p
	}
	for i, h := range t.Set {
		if !strings.Contains(h.Value, "$tyk_context.") {
			continue
		}
		t.Set[i].Value = contextVariable.ReplaceAllStringFunc(h.Value, func(v string) string {
			name := strings.TrimPrefix(v, "$tyk_context.")
			switch {
			case !on:
				out.note("API %s does not turn context variables on: Tyk writes %s in header %s as \"\"", api.id, v, h.Name)
				return ""
			case name == "path":
				return path
			}
			out.note("context variable %s in header %s is not modelled: taken to be empty", v, h.Name)
			return ""
		})
		if strings.EqualFold(h.Name, "Location") {
			out.Location = t.Set[i].Value
		}
	}
	return t
}
