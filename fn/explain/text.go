package explain

import (
	"fmt"
	"strings"
)

// Text writes the answer as a short trace, one step a line: listener → route and rule → API and operation →
// upstream, or the status Tyk answers and why, then the notes.
func (a *Answer) Text(req Request) string {
	var b strings.Builder
	line := func(key, value string) {
		if value != "" {
			fmt.Fprintf(&b, "%-10s %s\n", key, value)
		}
	}
	line("request", req.Method+" "+req.URL.String())
	if a.TykVersionOrLater {
		line("tyk", "≥ "+a.TykVersion)
	} else {
		line("tyk", a.TykVersion)
	}
	line("gateway", a.Gateway)
	line("listener", orNone(a.Listener, "none matches"))
	line("client", a.ClientCertificate)
	if a.Route != "" {
		line("route", strings.TrimSpace(a.Route+" "+a.Rule))
	}
	if a.APIID != "" {
		line("api", strings.TrimSpace(a.APIID+" operation "+orNone(a.OperationID, "(none)")))
	}
	for _, h := range a.RequestHeaders {
		line("request", h)
	}
	switch {
	case len(a.Upstreams) > 1:
		for _, t := range a.Upstreams {
			line("upstream", fmt.Sprintf("%s (weight %d)", t.URL, t.Weight))
		}
	default:
		line("upstream", a.Upstream)
	}
	line("host", a.UpstreamHost)
	if a.Timeout != "" {
		line("timeout", a.Timeout+" (Tyk answers 504 when the upstream has not answered by then)")
	}
	line("status", statusText(a.Status))
	line("location", a.Location)
	for _, h := range a.ResponseHeaders {
		line("response", h)
	}
	line("reason", a.Reason)
	for _, n := range a.Notes {
		line("note", n)
	}
	return b.String()
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
