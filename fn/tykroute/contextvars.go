package tykroute

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// contextVariable is a $tyk_context.<name> in a header transform's value (Tyk's contextMatch).
var contextVariable = regexp.MustCompile(`\$tyk_context\.([A-Za-z0-9_\-\.]+)`)

// withContextVariables is a header transform as Tyk applies it (ReplaceTykVariables on each value): with
// middleware.global.contextVariables on, $tyk_context.path is the request's path as its context variables
// middleware saw it (r.URL.Path, unescaped, before any rewrite or loop), and $tyk_context.headers_<Name> the
// first value of the request's header Name (canonical, each "-" written "_"; a loop does not change the
// request's headers), headers_Host the request's host (Tyk sets it from r.Host), and trigger-<n>-<name> what an
// urlRewrite trigger of the operation matched (contextGroup); any variable without a value, and every variable
// when context variables are off, becomes "". Only these are modelled: another variable is taken to have no
// value, with a note.
func (vi *visit) withContextVariables(api *candidate, t Transform, out *Outcome) Transform {
	on := false
	if mw := api.doc.Tyk.Middleware; mw != nil && mw.Global != nil && mw.Global.ContextVariables != nil {
		on = mw.Global.ContextVariables.Enabled
	}
	for i, h := range t.Set {
		if !strings.Contains(h.Value, "$tyk_context.") {
			continue
		}
		t.Set[i].Value = contextVariable.ReplaceAllStringFunc(h.Value, func(v string) string {
			name := strings.TrimPrefix(v, "$tyk_context.")
			if !on {
				out.note("API %s does not turn context variables on: Tyk writes %s in header %s as \"\"", api.id, v, h.Name)
				return ""
			}
			if v, ok := vi.contextVariable(name); ok {
				return v
			}
			if strings.HasPrefix(name, "headers_") {
				return "" // a header the request does not have
			}
			out.note("context variable %s in header %s is not modelled: taken to be empty", v, h.Name)
			return ""
		})
	}
	return t
}

// headerVariable is the value of context variable headers_<Name>: the first value of the request's header whose
// canonical name, each "-" written "_", is Name (Tyk's context variables middleware), or "".
func (vi *visit) headerVariable(name string) string {
	for k, vals := range vi.header {
		if "headers_"+strings.ReplaceAll(http.CanonicalHeaderKey(k), "-", "_") == name && len(vals) > 0 {
			return vals[0]
		}
	}
	return ""
}

// contextVariable is the value of context variable name as the model knows it: path (unescaped), headers_Host
// (r.Host: the Host header as the client wrote it, port included when it wrote one; the model has the host
// without it), headers_<Name> when the request has the header, and what an urlRewrite trigger set (contextGroup).
func (vi *visit) contextVariable(name string) (string, bool) {
	switch {
	case name == "path":
		p := vi.contextPath
		if u, err := url.PathUnescape(p); err == nil {
			p = u
		}
		return p, true
	case name == "headers_Host":
		return vi.host, true
	case strings.HasPrefix(name, "headers_"):
		v := vi.headerVariable(name)
		return v, v != ""
	}
	v, ok := vi.context[name]
	return v, ok
}
