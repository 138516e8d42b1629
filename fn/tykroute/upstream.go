package tykroute

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// upstreamTarget is one configured upstream URL with its weight.
type upstreamTarget struct {
	raw    string
	u      *url.URL
	weight int
}

// targets lists the API's upstreams: upstream.url with weight 1, or, when loadBalancing is enabled, each
// target with a positive weight (Tyk repeats a target weight times in its round robin, so weight 0 never
// serves). A URL without a scheme gets http://, as Tyk's EnsureTransport does, which also turns a balanced
// target's h2c:// (HTTP/2 without TLS, what a lone upstream.url keeps) into http://. A URL that does not parse is
// left out with a note.
func targets(api *candidate, out *Outcome) []upstreamTarget {
	up := api.doc.Tyk.Upstream
	var raw []upstreamTarget
	if lb := up.LoadBalancing; lb != nil && lb.Enabled {
		for _, t := range lb.Targets {
			if t.Weight > 0 {
				raw = append(raw, upstreamTarget{raw: t.URL, weight: t.Weight})
			}
		}
	} else if up.URL != "" {
		raw = append(raw, upstreamTarget{raw: up.URL, weight: 1})
	}
	var ts []upstreamTarget
	for _, t := range raw {
		s := strings.TrimSpace(t.raw)
		if !strings.Contains(s, "://") {
			s = "http://" + s
		}
		if lb := up.LoadBalancing; lb != nil && lb.Enabled {
			s = strings.Replace(s, "h2c://", "http://", 1) // EnsureTransport: a balanced target is spoken to in HTTP/1.1
		}
		u, err := url.Parse(s)
		if err != nil {
			out.note("API %s: upstream URL %q does not parse (%v)", api.id, t.raw, err)
			continue
		}
		t.u = u
		ts = append(ts, t)
	}
	return ts
}

// proxy fills in what Tyk sends upstream:
//
//   - the upstreams are the API's targets (see targets); with none, Tyk answers itself: 503 when load
//     balancing has no target with a positive weight ("all hosts are down"), 500 when there is no URL;
//   - without urlRewrite, the path sent is the target URL's path joined with the request path (the endpoint
//     path when strip is on) by Tyk's singleJoiningSlash: the trailing "/" of the first and the leading "/"
//     of the second are trimmed, and they are joined with one "/" unless the second is then empty. So
//     "/orders" + "/123" is "/orders/123", "/" + "/x" is "/x", and "/orders" + "/" is "/orders": a request
//     for exactly the listen path plus "/" loses its trailing slash (noted). The target URL's query comes
//     first, then the request's;
//   - with urlRewrite (see rewrite), the rewritten URL replaces the request URL; with strip on, Tyk then strips
//     the listen path from the rewritten path too. A rewritten URL with a host (an absolute rewriteTo) is
//     the upstream itself, bypassing the targets and load balancing; a relative one is joined to each target's
//     path as above. Either way the query sent is the rewritten URL's: Tyk drops the request's query unless
//     rewriteTo carries it (noted);
//   - an upstream whose host is in the .invalid domain (RFC 6761), such as unresolved.backend.invalid,
//     cannot be resolved: when every upstream is such, Tyk answers 500 (the upstreams stay listed).
//
// The request header transform applies whenever the request goes upstream, the response one when Status
// stays 0.
func proxy(api *candidate, reqPath, upstreamPath, rawQuery, subject string, header http.Header, vi *visit, m matched, out *Outcome) {
	ts := targets(api, out)
	if len(ts) == 0 {
		if lb := api.doc.Tyk.Upstream.LoadBalancing; lb != nil && lb.Enabled {
			out.Status = http.StatusServiceUnavailable
			out.note("API %s balances load over no target with a positive weight: Tyk answers 503 (all hosts are down)", api.id)
		} else {
			out.Status = http.StatusInternalServerError
			out.note("API %s has no upstream URL: Tyk cannot proxy the request", api.id)
		}
		return
	}
	strip := api.doc.Tyk.Server.ListenPath.Strip

	if m.rewrite != nil {
		if u, ok := rewrite(api, m.rewrite, subject, header, vi, out); ok {
			p := u.Path
			if strip {
				sp := stripListenPath(api.listenPath, p)
				if strings.TrimLeft(sp, "/") != strings.TrimLeft(p, "/") {
					out.note("with strip on, Tyk strips listen path %s from the rewritten path %s as well, sending %s",
						api.listenPath, p, sp)
				}
				p = sp
			}
			if rawQuery != "" && u.RawQuery != rawQuery {
				out.note("urlRewrite replaces the whole request URL: the request query %q is not sent upstream "+
					"unless rewriteTo carries it", rawQuery)
			}
			switch {
			case u.Scheme == "tyk":
				out.note("urlRewrite to %s loops to another API inside Tyk: not modelled", u.String())
				out.Upstreams = []Target{{URL: u.String(), Weight: 1}}
				out.RequestHeaders = transform(m.requestHeaders, requestHeaders, vi.kept)
				out.ResponseHeaders = transform(m.responseHeaders, responseHeaders, vi.kept)
				return
			case u.Host != "":
				if len(ts) > 1 {
					out.note("urlRewrite to an absolute URL bypasses load balancing: Tyk sends every request to %s", u.Host)
				}
				out.Upstreams = []Target{{URL: buildURL(u.Scheme, u.Host, p, u.RawQuery), Weight: 1}}
				ts = []upstreamTarget{{u: u, weight: 1}}
			default:
				for _, t := range ts {
					out.Upstreams = append(out.Upstreams, Target{
						URL:    buildURL(t.u.Scheme, t.u.Host, singleJoiningSlash(t.u.Path, p), joinQuery(t.u.RawQuery, u.RawQuery)),
						Weight: t.weight,
					})
				}
			}
			finish(api, ts, m, vi.kept, out)
			return
		}
	}

	for _, t := range ts {
		joined := singleJoiningSlash(t.u.Path, upstreamPath)
		out.Upstreams = append(out.Upstreams, Target{
			URL:    buildURL(t.u.Scheme, t.u.Host, joined, joinQuery(t.u.RawQuery, rawQuery)),
			Weight: t.weight,
		})
		if strings.HasSuffix(reqPath, "/") && reqPath != "/" && !strings.HasSuffix(wirePath(joined), "/") {
			out.note("request path %s ends with \"/\" but Tyk sends %s upstream: singleJoiningSlash drops the "+
				"trailing slash when the rest of the path is \"/\"", reqPath, wirePath(joined))
		}
	}
	finish(api, ts, m, vi.kept, out)
}

// finish applies the header transforms and the unresolvable-upstream rule.
func finish(api *candidate, ts []upstreamTarget, m matched, kept bool, out *Outcome) {
	out.RequestHeaders = transform(m.requestHeaders, requestHeaders, kept)
	var bad []string
	for _, t := range ts {
		if unresolvable(t.u.Hostname()) {
			bad = append(bad, t.u.Host)
		}
	}
	switch {
	case len(bad) == len(ts):
		out.Status = http.StatusInternalServerError
		out.note("upstream host %s cannot be resolved (the .invalid domain never resolves): Tyk answers 500", strings.Join(bad, ", "))
		return
	case len(bad) > 0:
		out.note("upstream host %s of API %s cannot be resolved: the requests load balancing sends there get 500",
			strings.Join(bad, ", "), api.id)
	}
	out.ResponseHeaders = transform(m.responseHeaders, responseHeaders, kept)
}

func unresolvable(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return host == "invalid" || strings.HasSuffix(host, ".invalid")
}

var dollarGroup = regexp.MustCompile(`\$\d+`)

// rewrite applies an urlRewrite the way Tyk's rewriter does: the pattern is matched, unanchored, against the
// request URL as Tyk's middleware sees it, i.e. the full request path (listen path included, since Tyk
// strips it only when proxying) followed by "?" and the query when there is one. On a match, each $N in
// rewriteTo becomes the Nth group of the first match ("" when there is no such group) and the result, parsed
// as a URL, replaces the request URL. No match, or a result that does not parse, leaves the request as it
// is.
func rewrite(api *candidate, o *opMatch, subject string, header http.Header, vi *visit, out *Outcome) (*url.URL, bool) {
	rw := o.mw.URLRewrite
	re, err := regexp.Compile(rw.Pattern)
	if err != nil {
		out.note("urlRewrite of operation %s: pattern %q does not compile (%v): Tyk answers 500", o.id, rw.Pattern, err)
		return nil, false
	}
	groups := re.FindStringSubmatch(subject)
	if groups == nil {
		return nil, false
	}
	to := triggered(rw, subject, header, vi, out)
	to = dollarGroup.ReplaceAllStringFunc(to, func(tok string) string {
		n, err := strconv.Atoi(tok[1:])
		if err != nil || n >= len(groups) {
			return ""
		}
		return groups[n]
	})
	u, err := url.Parse(to)
	if err != nil {
		out.note("urlRewrite of operation %s of API %s: %q is not a URL (%v): Tyk leaves the request as it is", o.id, api.id, to, err)
		return nil, false
	}
	return u, true
}

// singleJoiningSlash is Tyk's (gateway/reverse_proxy.go, with disable_strip_slash off).
func singleJoiningSlash(targetPath, subPath string) string {
	targetPath = strings.TrimRight(targetPath, "/")
	subPath = strings.TrimLeft(subPath, "/")
	if len(subPath) > 0 {
		return targetPath + "/" + subPath
	}
	return targetPath
}

func joinQuery(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "&" + b
}

// wirePath is the path as it goes on the wire: an empty path is sent as "/".
func wirePath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

func buildURL(scheme, host, p, rawQuery string) string {
	return withQuery(scheme+"://"+host+wirePath(p), rawQuery)
}

// upstreamHost is the Host header Tyk sends upstream: with upstream.preserveHostHeader the client's Host as it
// came (port included), else the host of the one upstream URL; "" when load balancing leaves it open.
func upstreamHost(api *candidate, clientHost string, ups []Target) string {
	if len(ups) == 0 {
		return "" // Tyk answered itself (a mock, a 401, the loop limit): nothing went upstream
	}
	if p := api.doc.Tyk.Upstream.PreserveHostHeader; p != nil && p.Enabled {
		return clientHost
	}
	if len(ups) != 1 {
		return ""
	}
	u, err := url.Parse(ups[0].URL)
	if err != nil || u.Scheme == "tyk" {
		return ""
	}
	return u.Host
}
