package tykroute

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// Tyk's TT-15856 ("unify path matching algorithm for all middleware", Tyk PR #7618) matches mockResponse the
// way the classic middleware is matched instead of through the OpenAPI router: in 5.12.0 on Tyk's main line
// and 5.8.12 on the 5.8 LTS line (backported by Tyk PRs #7678 and #7700). Seen on real Gateways: v5.14.0 answers
// GET /legacyx with the mock of the /legacy API, v5.11.1 and v5.8.11 proxy it (docs/tyk-releases.md).
var mockClassicLTS, mockClassicMain = Version{5, 8, 12}, Version{5, 12, 0}

// TT-16890 (Tyk PRs #7972, #7974) then sorted those mock operations by Tyk's path priority and added the
// static path shields (see classicMock): in 5.12.1, 5.13.0 and 5.8.13. Before, the order was Go's map order
// over the operations, which differs from load to load.
var mockOrderedLTS, mockOrderedMain = Version{5, 8, 13}, Version{5, 12, 1}

func mockMatchedClassically(v Version) bool { return sinceReleases(v, mockClassicLTS, mockClassicMain) }

func mockOrdered(v Version) bool { return sinceReleases(v, mockOrderedLTS, mockOrderedMain) }

// mockEntry is one operation in Tyk's list of mock response paths: enabled, or a disabled shield.
type mockEntry struct {
	op      opMatch
	method  string
	enabled bool
}

// classicMock is the mockResponse Tyk finds from 5.8.12 / 5.12.0 (Tyk's compileOASMockResponsePathSpec and
// FindSpecMatchesStatus):
//
//   - the list holds every operation whose mockResponse is enabled, and, when one of them has a path key with
//     a {parameter} (from 5.8.13 / 5.12.1), a disabled "shield" for each operation of a key without one that has
//     no enabled mock; the list is in Tyk's path priority (see pathLess);
//   - each key is a regular expression: {parameter} (whatever its pattern) becomes ([^/]+), "/*" becomes "/.*",
//     and it is not anchored (enable_path_prefix_matching and enable_path_suffix_matching off): "/" matches
//     every path, "/{rest:.*}" every path with a character after a "/";
//   - the path it is matched against is the request path with the listen path removed as a string prefix
//     (and again, when what is left starts with the listen path too): so <listenPath>x and <listenPath>/x
//     both are "/x", and a string-prefix neighbour of the listen path meets the mocks of the paths below it;
//   - the first entry of the request's method whose key matches decides: its mock, or none for a shield.
func classicMock(api *candidate, method, reqPath string, v Version, ops map[string]tykoas.Operation, out *Outcome) *opMatch {
	d := api.doc
	var entries []mockEntry
	hasParam := false
	for key, item := range d.OpenAPI.Paths.Map() {
		if item == nil {
			continue
		}
		for m, op := range item.Operations() {
			mw := ops[op.OperationID]
			if mw.MockResponse == nil || !mw.MockResponse.Enabled {
				continue
			}
			entries = append(entries, mockEntry{op: opMatch{key: key, id: op.OperationID, mw: mw}, method: strings.ToUpper(m), enabled: true})
			hasParam = hasParam || isMuxTemplate(key)
		}
	}
	if mockOrdered(v) && hasParam {
		for key, item := range d.OpenAPI.Paths.Map() {
			if item == nil || isMuxTemplate(key) {
				continue
			}
			for m, op := range item.Operations() {
				if mw := ops[op.OperationID]; mw.MockResponse == nil || !mw.MockResponse.Enabled {
					entries = append(entries, mockEntry{op: opMatch{key: key, id: op.OperationID, mw: mw}, method: strings.ToUpper(m)})
				}
			}
		}
	}
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i].op.key, entries[j].op.key
		if a == b {
			return entries[i].method < entries[j].method
		}
		return pathLess(a, b)
	})

	once := reqPath
	if api.listenPath != "/" {
		once = stripListenPath(api.listenPath, reqPath)
	}
	twice := stripListenPath(api.listenPath, once)
	var found []*mockEntry
	for i := range entries {
		e := &entries[i]
		if e.method != method {
			continue
		}
		re, err := classicMockRegexp(e.op.key)
		if err != nil {
			out.note("API %s: path key %q is not a valid regular expression (%v): Tyk never mocks it", api.id, e.op.key, err)
			continue
		}
		if re.MatchString(twice) || re.MatchString(once) {
			found = append(found, e)
		}
	}
	if len(found) == 0 {
		return nil
	}
	first := found[0]
	if !mockOrdered(v) {
		for _, o := range found[1:] {
			if o.enabled && fmt.Sprint(*o.op.mw.MockResponse) != fmt.Sprint(*first.op.mw.MockResponse) {
				out.note("Tyk %s tries the mock responses of API %s in no defined order (until 5.8.13 and 5.12.1): "+
					"operations %s and %s both match, with different mocks (the model takes %s)", v, api.id,
					first.op.id, o.op.id, first.op.id)
				break
			}
		}
	}
	if !first.enabled {
		return nil
	}
	if !isMuxTemplate(api.listenPath) && !atBoundary(api.listenPath, reqPath) && !strings.HasSuffix(api.listenPath, "/") {
		out.note("Tyk %s matches mock responses against the path with the listen path removed as a string prefix, "+
			"so %s meets the mock of operation %s, as %s%s would", v, reqPath, first.op.id,
			api.listenPath, stripListenPath(api.listenPath, reqPath))
	}
	return &first.op
}

// classicMockRegexp is Tyk's httputil.PreparePathRegexp with prefix and suffix matching off.
func classicMockRegexp(key string) (*regexp.Regexp, error) {
	p := key
	if isMuxTemplate(p) {
		p = muxParam.ReplaceAllString(p, `([^/]+)`)
	}
	if strings.Contains(p, "/*") {
		p = strings.ReplaceAll(p, "/*/", "/[^/]+/")
		p = strings.ReplaceAll(p, "/*", "/.*")
	}
	return regexp.Compile(p)
}

// muxParam is a {...} in a path key (Tyk's apiLangIDsRegex and oasutil.PathParamRegex).
var muxParam = regexp.MustCompile(`{([^}]+)}`)

// isMuxTemplate is Tyk's httputil.IsMuxTemplate: some braces, as many opening as closing.
func isMuxTemplate(p string) bool {
	n := strings.Count(p, "{")
	return n > 0 && n == strings.Count(p, "}")
}

// pathLess is Tyk's path priority (oasutil.PathLess): with the {parameters} taken out, more "/" first, then the
// longer, then in string order; two keys alike but for their parameters are compared the other way round, so
// /sub comes before /sub{id} and "/" before "/{rest:.*}".
func pathLess(pathA, pathB string) bool {
	a, b := muxParam.ReplaceAllString(pathA, ""), muxParam.ReplaceAllString(pathB, "")
	if a == b {
		a, b = pathB, pathA
	}
	if ka, kb := strings.Count(a, "/"), strings.Count(b, "/"); ka != kb {
		return ka > kb
	}
	if len(a) == len(b) {
		return a < b
	}
	return len(a) > len(b)
}

// MockMatchedClassically reports whether Tyk release v matches mockResponse the classic way (TT-15856: 5.8.12 on
// the 5.8 line, 5.12.0 on the main line), so that a mock keyed "/" is found under any listen path, one with mux
// variables included; before, only the OpenAPI router finds it.
func MockMatchedClassically(v Version) bool { return mockMatchedClassically(v) }
