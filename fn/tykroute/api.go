package tykroute

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// candidate is a loaded API that may take the request.
type candidate struct {
	doc        *tykoas.Document
	id         string
	listenPath string
	domain     string // the custom domain template; "" when the API has none
}

// candidates returns, in the order Tyk registers them with gorilla/mux, the loaded APIs that may take a
// request for host:
//
//   - only active APIs are loaded; an API with an empty listen path is skipped, as Tyk does, and so is an
//     internal one (info.state.internal), which Tyk registers with no router;
//   - an API with server.customDomain enabled (and a name) matches only a host that matches the domain's
//     gorilla/mux host template: a {name:regex} part matches that regex, {name} matches one label ([^.]+), the
//     rest is literal and the whole host must match, so {h:.+}.example.com takes a.example.com and
//     a.b.example.com but not example.com. gorilla/mux compares case-sensitively; a host that matches only
//     when case is ignored is left out, with a note. An API without a custom domain matches any host;
//   - from Tyk 5.8.0 (TT-13507), APIs with a custom domain come first, then longer listen paths before shorter
//     ones (Tyk's sortSpecsByListenPath); before 5.8.0, longer custom domain strings came first (so
//     {h:.+}.example.com before shop.example.com, and any custom domain before none), then longer listen paths
//     (loadApps); ties by API ID either way (Tyk leaves them in no defined order).
//
// Two APIs with the same custom domain and listen path collide: Tyk renames the listen path of the API loaded
// later to <listenPath>-<apiID>. Which one was later depends on load history, so the model keeps the first by
// API ID and notes the collision.
func candidates(apis []*tykoas.Document, host string, v Version, out *Outcome) []candidate {
	var loaded []candidate
	matches := map[*tykoas.Document]bool{}
	for _, d := range apis {
		if d == nil || !d.Tyk.Info.State.Active || d.Tyk.Info.State.Internal {
			continue // an internal API is reached only through a tyk://<api id> loop (see visit.find)
		}
		c := candidate{doc: d, id: d.Tyk.Info.ID, listenPath: d.Tyk.Server.ListenPath.Value}
		if c.listenPath == "" {
			out.note("API %s has an empty listen path: Tyk does not load it", c.id)
			continue
		}
		matches[d] = true
		if cd := d.Tyk.Server.CustomDomain; cd != nil && cd.Enabled && cd.Name != "" {
			c.domain = cd.Name
			ok, err := hostMatches(cd.Name, host, false)
			if err != nil {
				out.note("API %s: custom domain %q is not a valid gorilla/mux host template (%v): it matches no request", c.id, cd.Name, err)
				continue
			}
			if !ok {
				if ci, _ := hostMatches(cd.Name, host, true); ci {
					out.note("host %s matches custom domain %s of API %s only when case is ignored: gorilla/mux compares hosts case-sensitively", host, cd.Name, c.id)
				}
				matches[d] = false
			}
		}
		loaded = append(loaded, c)
	}
	if v.Less(orderedByListenPath) {
		// Before 5.8.0 Tyk's comparison ties two different custom domains of one length whatever their listen
		// paths, so it is no ordering: where an API lands depends on the others around it, every loaded API
		// (gateway/api_loader.go loadApps, sort.Slice over the specs in file name order). The model sorts the
		// same list the same way (Go's sort.Slice is deterministic), then keeps the APIs that take the host:
		// beside {h:.+}.shop.example.com with / and with /orders, legacy.shop.example.com (as long) keeps
		// the / API before /orders, as seen on the 5.4 line.
		sort.Slice(loaded, func(i, j int) bool { return loaded[i].id < loaded[j].id })
		sort.Slice(loaded, func(i, j int) bool { return before(loaded[i], loaded[j], v) })
	} else {
		sort.SliceStable(loaded, func(i, j int) bool {
			a, b := loaded[i], loaded[j]
			if before(a, b, v) {
				return true
			}
			if before(b, a, v) {
				return false
			}
			return a.id < b.id
		})
	}
	var cs []candidate
	for _, c := range loaded {
		if matches[c.doc] {
			cs = append(cs, c)
		}
	}
	first := map[string]string{} // domain + listen path → first API ID
	for _, c := range cs {
		key := c.domain + "\x00" + c.listenPath
		if id, ok := first[key]; ok {
			where := "no custom domain"
			if c.domain != "" {
				where = "custom domain " + c.domain
			}
			out.note("APIs %s and %s share %s and listen path %s: Tyk renames the listen path of the one "+
				"loaded later to %s-<apiID>, so which one serves depends on load order (the model picks %s)",
				id, c.id, where, c.listenPath, c.listenPath, id)
			continue
		}
		first[key] = c.id
	}
	return cs
}

// before is Tyk's order of two APIs. From 5.8.0: custom domain first, then the longer listen path. Before:
// of two different custom domains, the longer string first (two of one length are tied, whatever their listen
// paths), else the longer listen path. Tyk sorts APIs loaded from files in file name (API ID) order with
// sort.Slice, which keeps ties in that order for a handful of APIs; the model breaks ties by API ID.
// Listen paths are compared by listenPathLength from 5.8.0.
func before(a, b candidate, v Version) bool {
	if v.Less(orderedByListenPath) {
		if a.domain != b.domain {
			return len(a.domain) > len(b.domain)
		}
	} else if (a.domain != "") != (b.domain != "") {
		return a.domain != ""
	}
	if v.Less(orderedByListenPath) {
		return len(a.listenPath) > len(b.listenPath)
	}
	return listenPathLength(a.listenPath) > listenPathLength(b.listenPath)
}

// listenPathLength is the length Tyk orders listen paths by from 5.8.0 (api_loader.go's listenPathLength, the
// same in v5.8.11 and v5.14.0): a listen path without "{" by its length; one with mux variables by its "/"
// count plus the length of every segment that is not a variable as a whole, so "/one{exact:$}" (the render's
// Exact path, see translate.ExactListenPath) counts 13, longer than the "/one" of a PathPrefix, and
// "/{exact:$}" counts 1, as long as "/". Before 5.8.0 Tyk compares the strings' lengths.
func listenPathLength(lp string) int {
	if !strings.Contains(lp, "{") {
		return len(lp)
	}
	n := strings.Count(lp, "/")
	for _, seg := range strings.Split(lp, "/") {
		if len(seg) > 2 && seg[0] == '{' && seg[len(seg)-1] == '}' {
			continue
		}
		n += len(seg)
	}
	return n
}

// selectAPI picks the API for the request path among the candidates, in their order. Each API is a
// gorilla/mux PathPrefix route, so the first API whose listen path is a plain string prefix of the request
// path takes it: /v2 takes /v2, /v2/x and also /v2example. A listen path with mux variables is the regular
// expression gorilla/mux makes of it, anchored at the start only: "/one{exact:$}" takes "/one" and nothing
// else (seen on the 5.4 line, v5.8.11 and v5.14.0).
//
// With StrictRoutes (enable_strict_routes), the API that takes the request still is the first string-prefix
// match, but its handler serves only the listen path itself or paths below it (the next character is "/");
// anything else is answered 404 by that handler, without trying APIs with shorter listen paths (Tyk's
// explicitRouteHandler; Tyk's own test expects /applebottomjeans to get 404 with APIs / and /apple). A listen
// path that ends with "/" or holds a mux variable ("{") is left as a plain prefix. Either way, a match that
// does not end at a segment boundary gets a note. A nil result means 404.
func selectAPI(cs []candidate, reqPath string, opt Options, out *Outcome) *candidate {
	for i := range cs {
		c := &cs[i]
		lp := c.listenPath
		if isMuxTemplate(lp) {
			re, err := muxPrefix(lp)
			if err != nil {
				out.note("listen path %s of API %s is not a valid gorilla/mux template (%v): it matches no request", lp, c.id, err)
				continue
			}
			if !re.MatchString(reqPath) {
				continue
			}
			noteOtherDomains(cs, c, out)
			return c
		}
		if !strings.HasPrefix(reqPath, lp) {
			continue
		}
		if atBoundary(lp, reqPath) || strings.HasSuffix(lp, "/") {
			noteOtherDomains(cs, c, out)
			return c
		}
		if opt.StrictRoutes {
			out.note("listen path %s of API %s is a string prefix of %s, so Tyk hands it the request; with "+
				"enable_strict_routes that API answers 404 instead of trying APIs with shorter listen paths",
				lp, c.id, reqPath)
			return nil
		}
		out.note("listen path %s also matches %s: Tyk matches listen paths as string prefixes unless "+
			"enable_strict_routes is on (with it, API %s would answer 404)", lp, reqPath, c.id)
		return c
	}
	return nil
}

// noteOtherDomains says when another API with a different custom domain and the same listen path also takes
// the host (an exact domain and a wildcard that covers it): Tyk has no listener isolation and registers both
// routes in an order that depends on load order, so either may serve the request, where Gateway API would give
// it to the most specific listener hostname.
func noteOtherDomains(cs []candidate, chosen *candidate, out *Outcome) {
	if chosen.domain == "" {
		return
	}
	for i := range cs {
		o := &cs[i]
		if o != chosen && o.domain != "" && o.domain != chosen.domain && o.listenPath == chosen.listenPath {
			out.note("APIs %s (custom domain %s) and %s (custom domain %s) both take this host with listen path %s: "+
				"Tyk has no listener isolation, so which one serves depends on load order (the model picks %s); "+
				"Gateway API would pick the most specific listener hostname", chosen.id, chosen.domain, o.id, o.domain,
				chosen.listenPath, chosen.id)
		}
	}
}

// atBoundary reports whether listen path lp, a prefix of p, ends at a segment boundary of p.
func atBoundary(lp, p string) bool {
	if !strings.HasPrefix(p, lp) {
		return false // a listen path with mux variables, which is no string prefix of what it takes
	}
	return p == lp || strings.HasPrefix(p[len(lp):], "/")
}

// hostMatches matches host (the Host header, port included) against a gorilla/mux host template: the template
// compiles to an anchored regular expression whose literal parts are quoted and whose {name:pattern} parts
// (default pattern [^.]+) are groups. A pattern with capturing groups of its own is an error, as in
// gorilla/mux (which panics). gorilla/mux drops the port (everything from the first colon) only when that
// expression has no ":" (its wildcardHostPort), so a template with a non-capturing group "(?:" is matched
// against the host and its port (seen on v5.14.0).
func hostMatches(tpl, host string, ignoreCase bool) (bool, error) {
	re, err := muxTemplate(tpl, "[^.]+", false)
	if err != nil {
		return false, err
	}
	if !strings.Contains(re.String(), ":") {
		host = hostOnly(host)
	}
	if ignoreCase {
		if re, err = muxTemplate(tpl, "[^.]+", true); err != nil {
			return false, err
		}
	}
	return re.MatchString(host), nil
}

// muxPrefix compiles a listen path as gorilla/mux's PathPrefix does: muxTemplate anchored at the start only.
func muxPrefix(tpl string) (*regexp.Regexp, error) {
	return compileMux(tpl, "[^/]+", false, false)
}

// muxTemplate compiles a gorilla/mux template (a host or a path) as gorilla/mux does: anchored, literal parts
// quoted, each {name:pattern} a group, {name} the default pattern ([^.]+ for hosts, [^/]+ for paths).
func muxTemplate(tpl, defaultPattern string, ignoreCase bool) (*regexp.Regexp, error) {
	return compileMux(tpl, defaultPattern, ignoreCase, true)
}

func compileMux(tpl, defaultPattern string, ignoreCase, anchorEnd bool) (*regexp.Regexp, error) {
	idxs, err := braceIndices(tpl)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	if ignoreCase {
		b.WriteString("(?i)")
	}
	b.WriteByte('^')
	end := 0
	for i := 0; i < len(idxs); i += 2 {
		raw := tpl[end:idxs[i]]
		end = idxs[i+1]
		name, patt, found := strings.Cut(tpl[idxs[i]+1:end-1], ":")
		if !found {
			patt = defaultPattern
		}
		if name == "" || patt == "" {
			return nil, fmt.Errorf("missing name or pattern in %q", tpl[idxs[i]:end])
		}
		fmt.Fprintf(&b, "%s(?P<v%d>%s)", regexp.QuoteMeta(raw), i/2, patt)
	}
	b.WriteString(regexp.QuoteMeta(tpl[end:]))
	if anchorEnd {
		b.WriteByte('$')
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, err
	}
	if re.NumSubexp() != len(idxs)/2 {
		return nil, errors.New("capturing groups are not allowed; use (?:pattern)")
	}
	return re, nil
}

// braceIndices returns the start and end of each top-level {...} in s (gorilla/mux's braceIndices).
func braceIndices(s string) ([]int, error) {
	var level, idx int
	var idxs []int
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			if level++; level == 1 {
				idx = i
			}
		case '}':
			if level--; level == 0 {
				idxs = append(idxs, idx, i+1)
			} else if level < 0 {
				return nil, fmt.Errorf("unbalanced braces in %q", s)
			}
		}
	}
	if level != 0 {
		return nil, fmt.Errorf("unbalanced braces in %q", s)
	}
	return idxs, nil
}
