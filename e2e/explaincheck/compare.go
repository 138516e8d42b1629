package explaincheck

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn/explain"
)

func (r Request) url() *url.URL {
	u, err := url.Parse("http://" + r.Host + r.Path)
	if err != nil {
		panic(fmt.Sprintf("explaincheck: a generated request is not a URL: %v", err))
	}
	u.RawQuery = r.RawQuery
	return u
}

// Compare lists how the real Gateway's answer got differs from explain's answer ans to the request sent.
// Empty means they agree:
//   - explain says Tyk proxies (no status): the upstream answered, and got the URL explain names (one of the
//     load-balancing targets when there are several) with the Host header explain names;
//   - explain says Tyk answers itself: that status, and no upstream answer; a 500 for an upstream that cannot
//     be reached must have been tried at the URL explain names; a redirect carries explain's Location;
//   - every request header change reached the upstream (set: that value; remove: absent, though the client
//     sent it), and a client header no change names arrived unchanged;
//   - every response header change is in the answer.
func Compare(ans *explain.Answer, sent realtyk.Request, got *realtyk.Response) []string {
	var diffs []string
	add := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }
	switch {
	case ans.Status == 0:
		if !got.FromUpstream {
			add("explain: proxied upstream; Tyk answered %d itself", got.Status)
		}
	case got.FromUpstream:
		add("explain: Tyk answers %d itself; Tyk proxied it and the upstream answered %d", ans.Status, got.Status)
	case got.Status != ans.Status:
		add("status: explain %d, Tyk %d", ans.Status, got.Status)
	}
	if loc := got.Header.Get("Location"); loc != ans.Location {
		add("Location: explain %q, Tyk %q", ans.Location, loc)
	}
	wantUpstream := ans.Status == 0 || (ans.Status == http.StatusInternalServerError && ans.Upstream != "")
	switch {
	case wantUpstream && got.Upstream == nil:
		add("upstream: explain %s, Tyk sent nothing upstream", ans.Upstream)
	case !wantUpstream && got.Upstream != nil:
		add("upstream: explain none, Tyk sent %s %s", got.Upstream.Method, got.Upstream.URL)
	case got.Upstream != nil:
		diffs = append(diffs, compareUpstream(ans, sent, got.Upstream)...)
	}
	for _, c := range ans.ResponseHeaders {
		if name, value, ok := headerAdd(c); ok {
			// the upstream answers with the header too (send), so the value must follow the upstream's
			if vs := got.Header.Values(name); got.Upstream != nil && !slices.Equal(vs, []string{echoed, value}) {
				add("response header %s: explain adds %q after the upstream's %q, Tyk answered %q", name, value, echoed, vs)
			}
			continue
		}
		name, value, set := headerChange(c)
		if v := got.Header.Get(name); set && v != value {
			add("response header %s: explain %q, Tyk %q", name, value, v)
		} else if !set && v != "" {
			add("response header %s: explain removes it, Tyk kept %q", name, v)
		}
	}
	return diffs
}

func compareUpstream(ans *explain.Answer, sent realtyk.Request, up *realtyk.UpstreamRequest) []string {
	var diffs []string
	add := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }
	if up.Method != sent.Method {
		add("upstream method: sent %s, upstream got %s", sent.Method, up.Method)
	}
	if !oneOf(up.URL, ans, sent.Host) {
		add("upstream URL: explain %s, Tyk %s", targets(ans), up.URL)
	}
	if ans.UpstreamHost != "" && up.Host != ans.UpstreamHost {
		add("upstream Host header: explain %q, Tyk %q", ans.UpstreamHost, up.Host)
	}
	changed := map[string]bool{}
	for _, c := range ans.RequestHeaders {
		name, value, set := headerChange(c)
		changed[http.CanonicalHeaderKey(name)] = true
		if v := up.Header.Get(name); set && v != value {
			add("request header %s upstream: explain %q, Tyk %q", name, value, v)
		} else if !set && v != "" {
			add("request header %s upstream: explain removes it, Tyk sent %q", name, v)
		}
	}
	if !changed[clientHeader] && up.Header.Get(clientHeader) != sent.Header.Get(clientHeader) {
		add("request header %s upstream: sent %q, upstream got %q", clientHeader, sent.Header.Get(clientHeader), up.Header.Get(clientHeader))
	}
	return diffs
}

// oneOf reports whether u, the URL the proxy saw, is explain's upstream, or one of its load-balancing targets.
// When Tyk keeps the client's Host (preserveHostHeader), Go writes that host into the request line it sends the
// proxy, so the upstream's address cannot be seen: then only the scheme, path and query are compared, with the
// client's host in place of the upstream's.
func oneOf(u string, ans *explain.Answer, clientHost string) bool {
	want := []string{ans.Upstream}
	if len(ans.Upstreams) > 0 {
		want = want[:0]
		for _, t := range ans.Upstreams {
			if t.Weight > 0 {
				want = append(want, t.URL)
			}
		}
	}
	for _, w := range want {
		if ans.UpstreamHost == clientHost && ans.UpstreamHost != "" {
			if wu, err := url.Parse(w); err == nil {
				wu.Host = clientHost
				w = wu.String()
			}
		}
		if u == w {
			return true
		}
	}
	return false
}

func targets(ans *explain.Answer) string {
	if len(ans.Upstreams) == 0 {
		return ans.Upstream
	}
	var ts []string
	for _, t := range ans.Upstreams {
		ts = append(ts, fmt.Sprintf("%s (weight %d)", t.URL, t.Weight))
	}
	return "one of " + strings.Join(ts, ", ")
}

// headerChange reads explain's "set Name: value" and "remove Name".
// headerAdd reads explain's "add Name: value".
func headerAdd(c string) (name, value string, ok bool) {
	rest, ok := strings.CutPrefix(c, "add ")
	if !ok {
		return "", "", false
	}
	name, value, _ = strings.Cut(rest, ": ")
	return name, value, true
}

func headerChange(c string) (name, value string, set bool) {
	if rest, ok := strings.CutPrefix(c, "set "); ok {
		name, value, _ = strings.Cut(rest, ": ")
		return name, value, true
	}
	return strings.TrimPrefix(c, "remove "), "", false
}

func describeAnswer(a *explain.Answer) string {
	var parts []string
	if a.Status != 0 {
		parts = append(parts, fmt.Sprintf("status %d", a.Status))
	} else {
		parts = append(parts, "proxied")
	}
	if a.APIID != "" {
		parts = append(parts, "API "+a.APIID)
	}
	if a.OperationID != "" {
		parts = append(parts, "operation "+a.OperationID)
	}
	if a.Upstream != "" {
		parts = append(parts, "upstream "+targets(a))
	}
	if a.UpstreamHost != "" {
		parts = append(parts, "Host "+a.UpstreamHost)
	}
	if a.Location != "" {
		parts = append(parts, "Location "+a.Location)
	}
	parts = append(parts, a.RequestHeaders...)
	for _, h := range a.ResponseHeaders {
		parts = append(parts, "response: "+h)
	}
	return strings.Join(parts, ", ")
}

func describeResponse(r *realtyk.Response) string {
	parts := []string{fmt.Sprintf("status %d", r.Status)}
	if r.FromUpstream {
		parts = append(parts, "from the upstream")
	} else {
		parts = append(parts, "from Tyk itself")
	}
	if r.Upstream != nil {
		parts = append(parts, fmt.Sprintf("upstream got %s %s (Host %s)", r.Upstream.Method, r.Upstream.URL, r.Upstream.Host))
	}
	if loc := r.Header.Get("Location"); loc != "" {
		parts = append(parts, "Location "+loc)
	}
	return strings.Join(parts, ", ")
}
