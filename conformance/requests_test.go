package conformance

// The request tables of the suite, decided offline: each table's requests (http.ExpectedResponse in the test's Go
// file, Source) are run through tykroute, the offline model of Tyk Gateway's routing, over the APIs that the
// render makes for the Gateway the suite sends them to. Where Tyk answers otherwise than the suite expects, or
// the reference rejects what the suite asks for, the case says so (why) and asserts Tyk's answer instead.

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/explain"
	"github.com/gateway2tyk/gateway2tyk/fn/translate"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

const (
	// gatewayAddress stands for the Gateway address (gwAddr) that the suite sends a request to when the request
	// sets no Host. Offline there is none (Gateways without infrastructure.parametersRef have no address), so a
	// documentation address is used: only APIs without a custom domain take it, as any host would.
	gatewayAddress = "192.0.2.1:80"
	// backendPort is the Service port of every backendRef in these tables.
	backendPort = 8080
)

// requestTable is the request table of one conformance test.
type requestTable struct {
	ShortName string
	// Source is the suite's Go file that holds the table.
	Source    string
	Manifests []string
	// Gateway is the Gateway whose address the suite sends the requests to (a case may name another).
	Gateway types.NamespacedName
	// Status asserts the route status the table relies on, when it is not already in TestConformance.
	Status func(t *testing.T, w *world)
	Cases  []requestCase
}

// requestCase is one http.ExpectedResponse of the suite, or a case added to pin down a difference.
type requestCase struct {
	name    string
	gateway *types.NamespacedName // the Gateway the request goes to, when not the table's

	method, host, path, query string // host "" is the Gateway address
	headers                   map[string]string

	// want is the suite's expectation, or the adapted one when adapted is set.
	want expectation
	// adapted: want is not the suite's expectation (why says what the suite expects and why it differs).
	adapted bool
	// tyk, when set, is Tyk's answer without enable_strict_routes instead of want.
	tyk *expectation
	// strict, when set, is Tyk's answer with enable_strict_routes instead of want.
	strict *expectation
	// why is the one-line reason for any adaptation or difference.
	why string
}

// expectation is what the request gets.
type expectation struct {
	// status is what Tyk answers itself (404, 500, a redirect code); 0 means the request is proxied and the
	// backend answers (the suite's 200).
	status int
	// location is the Location of a redirect.
	location string
	// backend and namespace are the Service that serves the request (the suite's Backend and Namespace).
	backend, namespace string
	// path is the path the backend gets (the suite's ExpectedRequest.Path), "" for the request path; query is
	// the query it gets.
	path, query string
	// weights are the load-balanced backends (in namespace) and their weights, for a rule with several
	// backendRefs; a backend of weight 0 must not be a target.
	weights map[string]int
	// headers and absent are the request headers the backend must get, and must not get
	// (ExpectedRequest.Headers, ExpectedRequest.AbsentHeaders).
	headers map[string]string
	absent  []string
	// listenPath, when set, is the listen path of the API that must take the request.
	listenPath string
	// notes are what tykroute must say (substrings of Outcome.Notes); every note it says must be one of them.
	notes []string
}

func backend(name, namespace string) expectation {
	return expectation{backend: name, namespace: namespace}
}

func (e expectation) at(path string) expectation { e.path = path; return e }

func (e expectation) on(listenPath string) expectation { e.listenPath = listenPath; return e }

func notFound() expectation { return expectation{status: http.StatusNotFound} }

func ptr(e expectation) *expectation { return &e }

func (e expectation) noting(notes ...string) expectation {
	e.notes = append(e.notes, notes...)
	return e
}

// unresolvedNote is tykroute's note on an upstream that cannot be resolved (an unresolved backendRef).
const unresolvedNote = "upstream host unresolved.backend.invalid cannot be resolved"

var requestTables = []requestTable{
	{
		ShortName: "HTTPRoutePartiallyInvalidViaInvalidReferenceGrant",
		Source:    "tests/httproute-partially-invalid-via-invalid-reference-grant.go",
		Manifests: []string{"tests/httproute-partially-invalid-via-invalid-reference-grant.yaml"},
		Gateway:   nsName(infraNamespace, "same-namespace"),
		Cases: []requestCase{
			{name: "0 request to '/v2' should receive one of [500]", path: "/v2",
				want: expectation{status: http.StatusInternalServerError, listenPath: "/v2"}.noting(unresolvedNote)},
			{name: "1 request to '/' should go to app-backend-v1", path: "/",
				want: backend("app-backend-v1", appBackendNamespace).on("/")},
			{name: "added: request to '/v2example' should go to app-backend-v1", path: "/v2example",
				want: backend("app-backend-v1", appBackendNamespace).on("/"),
				tyk: ptr(expectation{status: http.StatusInternalServerError, listenPath: "/v2"}.
					noting("listen path /v2 also matches /v2example", unresolvedNote)),
				strict: ptr(notFound().noting("with enable_strict_routes that API answers 404")),
				why: "added (not in the suite's table): PathPrefix /v2 does not match /v2example, so rule 1 (/) " +
					"serves it; Tyk's listen path /v2 takes it as a string prefix (500, the unresolved backend), " +
					"and with enable_strict_routes the /v2 API answers 404 itself (explicitRouteHandler) instead of " +
					"passing it on to /, so neither setting gives the Gateway API answer"},
		},
	},
	{
		ShortName: "HTTPRouteWeight",
		Source:    "tests/httproute-weight.go",
		Manifests: []string{"tests/httproute-weight.yaml"},
		Gateway:   nsName(infraNamespace, "same-namespace"),
		Cases: []requestCase{
			{name: "Requests should have a distribution that matches the weight", path: "/",
				want: expectation{namespace: infraNamespace, listenPath: "/", weights: map[string]int{
					"infra-backend-v1": 70, "infra-backend-v2": 30, "infra-backend-v3": 0}},
				adapted: true,
				why: "the suite samples the pods that answer; offline the load-balancing targets and their " +
					"weights are asserted instead, as ratios (Tyk repeats a target weight times in its round robin)"},
		},
	},
	{
		ShortName: "HTTPRouteListenerHostnameMatching",
		Source:    "tests/httproute-listener-hostname-matching.go",
		Manifests: []string{"tests/httproute-listener-hostname-matching.yaml"},
		Gateway:   nsName(infraNamespace, "httproute-listener-hostname-matching"),
		Cases: []requestCase{
			{name: "0 request to 'bar.com/' should go to infra-backend-v1", host: "bar.com", path: "/",
				want: backend("infra-backend-v1", infraNamespace)},
			{name: "1 request to 'foo.bar.com/' should go to infra-backend-v2", host: "foo.bar.com", path: "/",
				want:   backend("infra-backend-v2", infraNamespace),
				tyk:    ptrTo(backend("infra-backend-v3", infraNamespace).noting("no listener isolation")),
				strict: ptrTo(backend("infra-backend-v3", infraNamespace).noting("no listener isolation")),
				why: "Tyk has no listener isolation: the APIs for foo.bar.com (v2) and {h:.+}.bar.com (v3) both take " +
					"foo.bar.com with listen path /, and Tyk's choice depends on load order (the model picks by API ID); " +
					"the render cannot guarantee the suite's answer and explain says so"},
			{name: "2 request to 'baz.bar.com/' should go to infra-backend-v3", host: "baz.bar.com", path: "/",
				want: backend("infra-backend-v3", infraNamespace)},
			{name: "3 request to 'boo.bar.com/' should go to infra-backend-v3", host: "boo.bar.com", path: "/",
				want: backend("infra-backend-v3", infraNamespace)},
			{name: "4 request to 'multiple.prefixes.bar.com/' should go to infra-backend-v3", host: "multiple.prefixes.bar.com", path: "/",
				want: backend("infra-backend-v3", infraNamespace)},
			{name: "5 request to 'multiple.prefixes.foo.com/' should go to infra-backend-v3", host: "multiple.prefixes.foo.com", path: "/",
				want: backend("infra-backend-v3", infraNamespace)},
			{name: "6 request to 'foo.com/' should receive one of [404]", host: "foo.com", path: "/", want: notFound()},
			{name: "7 request to 'no.matching.host/' should receive one of [404]", host: "no.matching.host", path: "/", want: notFound()},
		},
	},
	{
		ShortName: "HTTPRouteHostnameIntersection",
		Source:    "tests/httproute-hostname-intersection.go",
		Manifests: []string{"tests/httproute-hostname-intersection.yaml"},
		Gateway:   nsName(infraNamespace, "httproute-hostname-intersection"),
		Cases: slices.Concat(
			// "HTTPRoutes that do intersect with listener hostnames"
			hostCases([]hostCase{
				// specific-host-matches-listener-specific-host
				{"very.specific.com", "/s1", "infra-backend-v1"},
				{"very.specific.com:1234", "/s1", "infra-backend-v1"},
				{"non.matching.com", "/s1", ""},
				{"foo.nonmatchingwildcard.io", "/s1", ""},
				{"foo.wildcard.io", "/s1", ""},
				{"very.specific.com", "/non-matching-prefix", ""},
				// specific-host-matches-listener-wildcard-host
				{"foo.wildcard.io", "/s2", "infra-backend-v2"},
				{"bar.wildcard.io", "/s2", "infra-backend-v2"},
				{"foo.bar.wildcard.io", "/s2", "infra-backend-v2"},
				{"non.matching.com", "/s2", ""},
				{"wildcard.io", "/s2", ""},
				{"very.specific.com", "/s2", ""},
				{"foo.wildcard.io", "/non-matching-prefix", ""},
				// wildcard-host-matches-listener-specific-host
				{"very.specific.com", "/s3", "infra-backend-v3"},
				{"non.matching.com", "/s3", ""},
				{"foo.specific.com", "/s3", ""},
				{"foo.wildcard.io", "/s3", ""},
				{"very.specific.com", "/non-matching-prefix", ""},
				// wildcard-host-matches-listener-wildcard-host
				{"foo.anotherwildcard.io", "/s4", "infra-backend-v1"},
				{"bar.anotherwildcard.io", "/s4", "infra-backend-v1"},
				{"foo.bar.anotherwildcard.io", "/s4", "infra-backend-v1"},
				{"anotherwildcard.io", "/s4", ""},
				{"foo.wildcard.io", "/s4", ""},
				{"very.specific.com", "/s4", ""},
				{"foo.anotherwildcard.io", "/non-matching-prefix", ""},
			}, nil, "HTTPRoutes that do intersect with listener hostnames"),
			// "HTTPRoutes that do not intersect with listener hostnames"
			hostCases([]hostCase{
				{"specific.but.wrong.com", "/s5", ""},
				{"wildcard.io", "/s5", ""},
			}, nil, "HTTPRoutes that do not intersect with listener hostnames"),
			// "HTTPRoutes intersects with an unspecified hostname listener"
			hostCases([]hostCase{
				{"first.com", "/", "infra-backend-v2"},
				{"sub.first.com", "/", "infra-backend-v2"},
				{"second.com", "/", "infra-backend-v2"},
				{"sub.second.com", "/", "infra-backend-v2"},
				{"third.com", "/", ""},
				{"sub.third.com", "/", ""},
			}, new(nsName(infraNamespace, "httproute-hostname-intersection-all")),
				"HTTPRoutes intersects with an unspecified hostname listener"),
		),
	},
	{
		ShortName: "HTTPRouteRewritePath",
		Source:    "tests/httproute-rewrite-path.go",
		Manifests: []string{"tests/httproute-rewrite-path.yaml"},
		Gateway:   nsName(infraNamespace, "same-namespace"),
		Status: func(t *testing.T, w *world) {
			routeMustDropRules(t, w, nsName(infraNamespace, "rewrite-path"), nsName(infraNamespace, "same-namespace"),
				[]string{"spec.rules[3].filters[1].requestHeaderModifier.add", "spec.rules[4].filters[1].requestHeaderModifier.add"},
				[]int{0, 1, 2})
		},
		Cases: []requestCase{
			{name: "0 request to '/prefix/one/two' should go to infra-backend-v1", path: "/prefix/one/two",
				want: backend("infra-backend-v1", infraNamespace).at("/one/two").on("/prefix/one")},
			{name: "1 request to '/strip-prefix/three' should go to infra-backend-v1", path: "/strip-prefix/three",
				want: backend("infra-backend-v1", infraNamespace).at("/three").on("/strip-prefix")},
			{name: "2 request to '/strip-prefix' should go to infra-backend-v1", path: "/strip-prefix",
				want: backend("infra-backend-v1", infraNamespace).at("/").on("/strip-prefix")},
			{name: "3 request to '/full/one/two' should go to infra-backend-v1", path: "/full/one/two",
				want: backend("infra-backend-v1", infraNamespace).at("/one").on("/full/one")},
			{name: "4 request to '/full/rewrite-path-and-modify-headers/test' with headers should go to infra-backend-v1",
				path:    "/full/rewrite-path-and-modify-headers/test",
				headers: map[string]string{"X-Header-Remove": "remove-val", "X-Header-Add-Append": "append-val-1", "X-Header-Set": "set-val"},
				want:    notFound(), adapted: true,
				why: "suite: infra-backend-v1 at /test with X-Header-Add added and appended; the rule's " +
					"requestHeaderModifier.add is not supported (reference, Filters), so the rule is dropped " +
					"(PartiallyInvalid UnsupportedValue) and no API serves the path"},
			{name: "5 request to '/prefix/rewrite-path-and-modify-headers/one' with headers should go to infra-backend-v1",
				path:    "/prefix/rewrite-path-and-modify-headers/one",
				headers: map[string]string{"X-Header-Remove": "remove-val", "X-Header-Add-Append": "append-val-1", "X-Header-Set": "set-val"},
				want:    notFound(), adapted: true,
				why: "suite: infra-backend-v1 at /prefix/one with X-Header-Add added and appended; the rule's " +
					"requestHeaderModifier.add is not supported (reference, Filters), so the rule is dropped " +
					"(PartiallyInvalid UnsupportedValue) and no API serves the path"},
			{name: "added: request to '/full/one/two?a=b&c=d' keeps its query", path: "/full/one/two", query: "a=b&c=d",
				want: expectation{backend: "infra-backend-v1", namespace: infraNamespace, path: "/one", query: "a=b&c=d",
					listenPath: "/full/one"},
				adapted: true,
				why:     "added (the suite sends no query): the reference says ReplaceFullPath keeps the query string"},
			{name: "added: request to '/prefix/one/two?a=b' keeps its query", path: "/prefix/one/two", query: "a=b",
				want: expectation{backend: "infra-backend-v1", namespace: infraNamespace, path: "/one/two", query: "a=b",
					listenPath: "/prefix/one"},
				adapted: true,
				why:     "added (the suite sends no query): Gateway API rewrites the path only, so the query survives ReplacePrefixMatch"},
		},
	},
	{
		ShortName: "HTTPRouteRedirectPath",
		Source:    "tests/httproute-redirect-path.go",
		Manifests: []string{"tests/httproute-redirect-path.yaml"},
		Gateway:   nsName(infraNamespace, "same-namespace"),
		Status: func(t *testing.T, w *world) {
			// A constant redirect needs hostname and ReplaceFullPath (reference, Filters, RequestRedirect).
			routeMustDropRules(t, w, nsName(infraNamespace, "redirect-path"), nsName(infraNamespace, "same-namespace"),
				[]string{
					"spec.rules[0].filters[0].requestRedirect.hostname", "spec.rules[0].filters[0].requestRedirect.path",
					"spec.rules[1].filters[0].requestRedirect.hostname",
					"spec.rules[2].filters[0].requestRedirect.path",
					"spec.rules[3].filters[0].requestRedirect.hostname", "spec.rules[3].filters[0].requestRedirect.path",
					"spec.rules[5].filters[0].requestRedirect.hostname",
				}, []int{4})
		},
		Cases: []requestCase{
			{name: "0 request to '/original-prefix/lemon' should receive one of [302]", path: "/original-prefix/lemon",
				want: noRedirect(), adapted: true,
				why: "suite: 302 to /replacement-prefix/lemon; a redirect without hostname, and with " +
					"ReplacePrefixMatch, depends on the request, so the reference rejects it and the rule is dropped"},
			{name: "1 request to '/full/path/original' should receive one of [302]", path: "/full/path/original",
				want: noRedirect(), adapted: true,
				why: "suite: 302 to /full-path-replacement; a redirect without hostname depends on the request's " +
					"host, so the reference rejects it and the rule is dropped"},
			{name: "2 request to '/path-and-host' should receive one of [302]", path: "/path-and-host",
				want: noRedirect(), adapted: true,
				why: "suite: 302 to example.org/replacement-prefix; ReplacePrefixMatch depends on the request path, " +
					"so the reference rejects it and the rule is dropped"},
			{name: "3 request to '/path-and-status' should receive one of [301]", path: "/path-and-status",
				want: noRedirect(), adapted: true,
				why: "suite: 301 to /replacement-prefix; without hostname and with ReplacePrefixMatch the redirect " +
					"depends on the request, so the reference rejects it and the rule is dropped"},
			{name: "4 request to '/full-path-and-host' should receive one of [302]", path: "/full-path-and-host",
				want: expectation{status: http.StatusFound, location: "http://example.org/replacement-full",
					listenPath: "/full-path-and-host"}},
			{name: "5 request to '/full-path-and-status' should receive one of [301]", path: "/full-path-and-status",
				want: noRedirect(), adapted: true,
				why: "suite: 301 to /replacement-full; a redirect without hostname depends on the request's host, " +
					"so the reference rejects it and the rule is dropped"},
		},
	},
	{
		ShortName: "HTTPRouteRequestHeaderModifier",
		Source:    "tests/httproute-request-header-modifier.go",
		Manifests: []string{"tests/httproute-request-header-modifier.yaml"},
		Gateway:   nsName(infraNamespace, "same-namespace"),
		Status: func(t *testing.T, w *world) {
			routeMustDropRules(t, w, nsName(infraNamespace, "request-header-modifier"), nsName(infraNamespace, "same-namespace"),
				[]string{
					"spec.rules[1].filters[0].requestHeaderModifier.add",
					"spec.rules[3].filters[0].requestHeaderModifier.add",
					"spec.rules[4].filters[0].requestHeaderModifier.add",
				}, []int{0, 2})
		},
		Cases: []requestCase{
			{name: "0 request to '/set' with headers should go to infra-backend-v1", path: "/set",
				headers: map[string]string{"Some-Other-Header": "val"},
				want: withHeaders(backend("infra-backend-v1", infraNamespace).on("/set"),
					map[string]string{"Some-Other-Header": "val", "X-Header-Set": "set-overwrites-values"})},
			{name: "1 request to '/set' with headers should go to infra-backend-v1", path: "/set",
				headers: map[string]string{"Some-Other-Header": "val", "X-Header-Set": "some-other-value"},
				want: withHeaders(backend("infra-backend-v1", infraNamespace).on("/set"),
					map[string]string{"Some-Other-Header": "val", "X-Header-Set": "set-overwrites-values"})},
			{name: "2 request to '/add' with headers should go to infra-backend-v1", path: "/add",
				headers: map[string]string{"Some-Other-Header": "val"},
				want:    notFound(), adapted: true,
				why: "suite: X-Header-Add: add-appends-values; add is not supported (reference, Filters: Tyk holds " +
					"one value per header), so the rule is dropped (PartiallyInvalid UnsupportedValue)"},
			{name: "3 request to '/add' with headers should go to infra-backend-v1", path: "/add",
				headers: map[string]string{"Some-Other-Header": "val", "X-Header-Add": "some-other-value"},
				want:    notFound(), adapted: true,
				why: "suite: X-Header-Add: some-other-value,add-appends-values; add is not supported (reference, " +
					"Filters), so the rule is dropped (PartiallyInvalid UnsupportedValue)"},
			{name: "4 request to '/remove' with headers should go to infra-backend-v1", path: "/remove",
				headers: map[string]string{"X-Header-Remove": "val"},
				want: expectation{backend: "infra-backend-v1", namespace: infraNamespace, listenPath: "/remove",
					absent: []string{"X-Header-Remove"}}},
			{name: "5 request to '/multiple' with headers should go to infra-backend-v1", path: "/multiple",
				headers: map[string]string{"X-Header-Set-2": "set-val-2", "X-Header-Add-2": "add-val-2",
					"X-Header-Remove-2": "remove-val-2", "Another-Header": "another-header-val"},
				want: notFound(), adapted: true,
				why: "suite: set, add and remove applied; the rule also uses add, which is not supported " +
					"(reference, Filters), so the whole rule is dropped (PartiallyInvalid UnsupportedValue)"},
			{name: "6 request to '/case-insensitivity' with headers should go to infra-backend-v1", path: "/case-insensitivity",
				headers: map[string]string{"x-header-set": "original-val-set", "x-header-add": "original-val-add",
					"x-header-remove": "original-val-remove", "Another-Header": "another-header-val"},
				want: notFound(), adapted: true,
				why: "suite: set, add and remove applied case-insensitively; the rule also uses add, which is not " +
					"supported (reference, Filters), so the whole rule is dropped (PartiallyInvalid UnsupportedValue)"},
		},
	},
}

// noRedirect is the answer to a request whose redirect rule was dropped: no API serves the path.
func noRedirect() expectation { return notFound() }

func withHeaders(e expectation, h map[string]string) expectation { e.headers = h; return e }

// hostCase is a request by host and path that the suite expects to reach backend (in the infra namespace), or,
// with no backend, to get 404.
type hostCase struct{ host, path, backend string }

func hostCases(cs []hostCase, gateway *types.NamespacedName, group string) []requestCase {
	var out []requestCase
	for i, c := range cs {
		rc := requestCase{host: c.host, path: c.path, gateway: gateway}
		if c.backend != "" {
			rc.name = fmt.Sprintf("%s/%d request to '%s%s' should go to %s", group, i, c.host, c.path, c.backend)
			rc.want = backend(c.backend, infraNamespace).on(c.path)
		} else {
			rc.name = fmt.Sprintf("%s/%d request to '%s%s' should receive one of [404]", group, i, c.host, c.path)
			rc.want = notFound()
		}
		out = append(out, rc)
	}
	return out
}

// TestConformanceRequests runs the request tables of the suite through tykroute over the rendered APIs.
func TestConformanceRequests(t *testing.T) {
	runRequestTables(t, requestTables, tykroute.Version{}, renderOutput, func(out *fn.Output, gwNN types.NamespacedName) []*translate.API {
		return gatewayAPIs(out.Translation, gwNN)
	})
}

// runRequestTables renders each table's manifests (base and secrets first, as the suite applies them) with
// render, and runs its requests over the APIs that apisOf says the Tyk Gateways behind a Gateway's address load,
// as Tyk release version answers them (zero: tykroute.MinVersion).
func runRequestTables(t *testing.T, tables []requestTable, version tykroute.Version, render func(t *testing.T, base, secrets, extra []*yaml.RNode) (*fn.Output, *world),
	apisOf func(out *fn.Output, gwNN types.NamespacedName) []*translate.API) {
	dir := conformanceDir(t)
	base := readManifests(t, dir, "base/manifests.yaml")
	secrets := suiteSecrets(t)

	for _, rt := range tables {
		t.Run(rt.ShortName, func(t *testing.T) {
			t.Logf("request table of %s: %s (%s@%s)", rt.ShortName, rt.Source, conformanceModule, conformanceVersion)
			if _, err := os.Stat(filepath.Join(dir, rt.Source)); err != nil {
				t.Fatalf("the conformance suite has no %s: %v", rt.Source, err)
			}
			var extra []*yaml.RNode
			for _, m := range rt.Manifests {
				extra = append(extra, readManifests(t, dir, m)...)
			}
			out, w := render(t, base, secrets, extra)
			if rt.Status != nil {
				rt.Status(t, w)
			}
			for _, c := range rt.Cases {
				gwNN := rt.Gateway
				if c.gateway != nil {
					gwNN = *c.gateway
				}
				apis := apisOf(out, gwNN)
				t.Run(c.name, func(t *testing.T) { runRequestCase(t, c, apis, out, gwNN, version) })
			}
		})
	}
}

// gatewayAPIs are the rendered APIs of one Gateway: the ones the Tyk Gateways behind its address load.
func gatewayAPIs(tr *translate.Output, gwNN types.NamespacedName) []*translate.API {
	var out []*translate.API
	for _, a := range tr.APIs {
		if a.Parent != nil && a.Parent.Gateway != nil && a.Parent.Gateway.Key() == gwNN {
			out = append(out, a)
		}
	}
	return out
}

// runRequestCase checks Tyk's answer (tykroute over the Gateway's APIs) against the expectation, with and without
// enable_strict_routes, and that `gateway2tyk explain` gives the same answer and reports the same differences.
func runRequestCase(t *testing.T, c requestCase, apis []*translate.API, out *fn.Output, gwNN types.NamespacedName, version tykroute.Version) {
	if (c.adapted || c.tyk != nil || c.strict != nil) && c.why == "" {
		t.Errorf("table error: an adapted or differing expectation needs a reason (why)")
	}
	if c.why != "" {
		t.Logf("why: %s", c.why)
	}
	docs := make([]*tykoas.Document, len(apis))
	byID := map[string]*translate.API{}
	for i, a := range apis {
		docs[i] = a.Document
		byID[a.ID] = a
	}
	host := c.host
	if host == "" {
		host = gatewayAddress
	}
	method := c.method
	if method == "" {
		method = http.MethodGet
	}
	// The request's headers, which routers' triggers read (header matches, the presence of an added header).
	header := http.Header{}
	for k, v := range c.headers {
		header.Set(k, v)
	}
	req := tykroute.Request{Method: method, Host: host, Path: c.path, RawQuery: c.query, Header: header}

	for _, strict := range []bool{false, true} {
		want := c.want
		switch {
		case !strict && c.tyk != nil:
			want = *c.tyk
		case strict && c.strict != nil:
			want = *c.strict
		}
		got := tykroute.Route(docs, req, tykroute.Options{StrictRoutes: strict, Version: version})
		what := fmt.Sprintf("%s %s%s (enable_strict_routes %v)", method, host, withQuery(c.path, c.query), strict)
		t.Logf("%s: %s", what, outcomeString(got, byID))
		checkOutcome(t, what, c, want, got, byID)
		checkExplain(t, what, out, gwNN, method, host, header, c, strict, version, got)
	}
}

// checkExplain runs explain on the same request and checks it tells what tykroute found: the API, the status,
// the redirect, the upstream, every note, and the route behind the API.
func checkExplain(t *testing.T, what string, out *fn.Output, gwNN types.NamespacedName, method, host string,
	header http.Header, c requestCase, strict bool, version tykroute.Version, got tykroute.Outcome) {
	t.Helper()
	u := "http://" + host + withQuery(c.path, c.query)
	if c.path == "" {
		u = "http://" + host + "/" + withQuery("", c.query)
	}
	req, err := explain.ParseRequest(method + " " + u)
	if err != nil {
		t.Fatalf("%s: explain cannot read the request: %v", what, err)
	}
	req.Header = header
	a, err := explain.Explain(out, req, explain.Options{Gateway: gwNN.String(), StrictRoutes: strict, Version: version})
	if err != nil {
		t.Fatalf("%s: explain: %v", what, err)
	}
	if a.APIID != got.APIID || a.Status != got.Status || a.Location != got.Location {
		t.Errorf("%s: explain says API %q status %d location %q; Tyk's routing gives API %q status %d location %q",
			what, a.APIID, a.Status, a.Location, got.APIID, got.Status, got.Location)
	}
	if len(got.Upstreams) > 0 && a.Upstream != got.Upstreams[0].URL {
		t.Errorf("%s: explain says upstream %q, Tyk's routing gives %q", what, a.Upstream, got.Upstreams[0].URL)
	}
	for _, n := range got.Notes {
		if !slices.Contains(a.Notes, n) {
			t.Errorf("%s: explain does not report %q", what, n)
		}
	}
	if got.APIID != "" && a.Route == "" {
		t.Errorf("%s: explain names no route for API %s", what, got.APIID)
	}
	if got.Status != 0 && a.Reason == "" && got.Status != http.StatusOK {
		t.Errorf("%s: explain gives no reason for status %d", what, got.Status)
	}
}

func checkOutcome(t *testing.T, what string, c requestCase, want expectation, got tykroute.Outcome,
	byID map[string]*translate.API) {
	t.Helper()
	// Notes mark where Tyk differs from a plain prefix router: expected only where the case says so.
	for _, n := range want.notes {
		if !slices.ContainsFunc(got.Notes, func(g string) bool { return strings.Contains(g, n) }) {
			t.Errorf("%s: expected a note containing %q, got %q", what, n, got.Notes)
		}
	}
	for _, g := range got.Notes {
		if !slices.ContainsFunc(want.notes, func(n string) bool { return strings.Contains(g, n) }) {
			t.Errorf("%s: unexpected note %q", what, g)
		}
	}

	if got.Status != want.status {
		t.Errorf("%s: expected %s, got %s", what, statusString(want.status), outcomeString(got, byID))
		return
	}
	if want.listenPath != "" {
		a := byID[got.APIID]
		switch {
		case a == nil:
			t.Errorf("%s: expected the API with listen path %s to take the request, got no API", what, want.listenPath)
		case a.Path != want.listenPath:
			t.Errorf("%s: expected the API with listen path %s to take the request, got %s", what, want.listenPath, apiString(a))
		}
	}
	switch {
	case want.status == http.StatusNotFound:
		if got.Location != "" {
			t.Errorf("%s: expected no redirect, got Location %s", what, got.Location)
		}
		if got.APIID != "" && want.listenPath == "" {
			// A 404 from an API (a method mock, strict routes) rather than from no API at all: say which.
			t.Logf("%s: 404 answered by %s", what, apiString(byID[got.APIID]))
		}
	case want.status >= 300 && want.status < 400:
		if got.Location != want.location {
			t.Errorf("%s: expected a %d redirect to %s, got Location %q", what, want.status, want.location, got.Location)
		}
		if len(got.Upstreams) > 0 {
			t.Errorf("%s: expected nothing to go upstream on a redirect, got %v", what, got.Upstreams)
		}
	case want.status == 0:
		checkUpstreams(t, what, c.path, want, got)
		checkHeaders(t, what, c.headers, want, got.RequestHeaders)
	}
}

// checkUpstreams compares the upstream URLs (backend Service, path, query) and, for load balancing, the weights
// as ratios.
func checkUpstreams(t *testing.T, what, reqPath string, want expectation, got tykroute.Outcome) {
	t.Helper()
	path := want.path
	if path == "" {
		path = reqPath // the suite: the backend gets the request as sent, unless ExpectedRequest says otherwise
	}
	gotW := map[string]int{}
	for _, u := range got.Upstreams {
		gotW[u.URL] += u.Weight
	}
	wantW := map[string]int{}
	if want.weights != nil {
		for b, weight := range want.weights {
			if weight > 0 {
				wantW[backendURL(b, want.namespace, path, want.query)] = weight
			}
		}
	} else {
		wantW[backendURL(want.backend, want.namespace, path, want.query)] = 1
	}
	if !sameWeights(wantW, gotW) {
		t.Errorf("%s: expected upstreams %s, got %s", what, weightsString(wantW), weightsString(gotW))
	}
	for b, weight := range want.weights {
		if weight == 0 {
			prefix := backendURL(b, want.namespace, "", "")
			for u := range gotW {
				if strings.HasPrefix(u, strings.TrimSuffix(prefix, "/")) {
					t.Errorf("%s: backend %s has weight 0 and must get no traffic, but %s is a target", what, b, u)
				}
			}
		}
	}
}

// backendURL is the upstream URL of a backend Service for a path the backend gets.
func backendURL(name, namespace, path, query string) string {
	if path == "" {
		path = "/"
	}
	return withQuery(fmt.Sprintf("http://%s.%s.svc.cluster.local:%d%s", name, namespace, backendPort, path), query)
}

// sameWeights compares two target sets, the weights as ratios.
func sameWeights(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	ga, gb := 0, 0
	for _, w := range a {
		ga = gcdInt(ga, w)
	}
	for _, w := range b {
		gb = gcdInt(gb, w)
	}
	for u, w := range a {
		v, ok := b[u]
		if !ok || ga == 0 || gb == 0 || w/ga != v/gb {
			return false
		}
	}
	return true
}

func gcdInt(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// checkHeaders applies the request header transform to the request's headers, as Tyk does (names
// case-insensitive, one value per name, removes first), and checks what the backend gets.
func checkHeaders(t *testing.T, what string, sent map[string]string, want expectation, tr tykroute.Transform) {
	t.Helper()
	h := http.Header{}
	for n, v := range sent {
		h.Set(n, v)
	}
	for _, n := range tr.Remove {
		h.Del(n)
	}
	for _, s := range tr.Set {
		h.Set(s.Name, s.Value)
	}
	for n, v := range want.headers {
		if got := strings.Join(h.Values(n), ","); got != v {
			t.Errorf("%s: expected header %s: %q upstream, got %q (transform %+v)", what, n, v, got, tr)
		}
	}
	for _, n := range want.absent {
		if vs := h.Values(n); len(vs) > 0 {
			t.Errorf("%s: expected no header %s upstream, got %q (transform %+v)", what, n, vs, tr)
		}
	}
}

// routeMustDropRules asserts that the route is Accepted for the Gateway and PartiallyInvalid True
// UnsupportedValue (reference, Unsupported Features), that the message names each dropped field, and that it
// names none of the kept rules.
func routeMustDropRules(t *testing.T, w *world, routeNN, gwNN types.NamespacedName, dropped []string, kept []int) {
	t.Helper()
	httpRouteMustHaveCondition(t, w, routeNN, gwNN, cond("Accepted", condTrue, "Accepted"))
	httpRouteMustHaveCondition(t, w, routeNN, gwNN, cond("PartiallyInvalid", condTrue, "UnsupportedValue"))
	st, ok := w.routeStatus(t, routeNN)
	if !ok {
		return
	}
	var msg string
	for _, p := range st.Parents {
		if string(p.ParentRef.Name) != gwNN.Name {
			continue
		}
		for _, c := range p.Conditions {
			if c.Type == "PartiallyInvalid" && c.Status == metav1.ConditionTrue {
				msg = c.Message
			}
		}
	}
	for _, f := range dropped {
		if !strings.Contains(msg, f+":") {
			t.Errorf("HTTPRoute %s: expected the PartiallyInvalid message to name %s, got %q", routeNN, f, msg)
		}
	}
	for _, r := range kept {
		if f := fmt.Sprintf("spec.rules[%d]", r); strings.Contains(msg, f) {
			t.Errorf("HTTPRoute %s: expected %s to be served, but the PartiallyInvalid message names it: %q", routeNN, f, msg)
		}
	}
}

func withQuery(p, q string) string {
	if q == "" {
		return p
	}
	return p + "?" + q
}

func statusString(s int) string {
	if s == 0 {
		return "the request to be proxied"
	}
	return fmt.Sprintf("status %d", s)
}

func apiString(a *translate.API) string {
	if a == nil {
		return "no API"
	}
	host := a.Hostname
	if host == "" {
		host = "*"
	}
	return fmt.Sprintf("API %s (HTTPRoute %s/%s, host %s, path %s)", a.ID, a.Route.Route.Namespace, a.Route.Route.Name, host, a.Path)
}

func outcomeString(o tykroute.Outcome, byID map[string]*translate.API) string {
	var b strings.Builder
	if o.APIID == "" {
		b.WriteString("no API")
	} else {
		b.WriteString(apiString(byID[o.APIID]))
	}
	if o.Status != 0 {
		fmt.Fprintf(&b, ", status %d", o.Status)
	} else {
		b.WriteString(", proxied")
	}
	if o.Location != "" {
		fmt.Fprintf(&b, ", Location %s", o.Location)
	}
	if len(o.Upstreams) > 0 {
		fmt.Fprintf(&b, ", upstreams %v", o.Upstreams)
	}
	if len(o.RequestHeaders.Set)+len(o.RequestHeaders.Remove) > 0 {
		fmt.Fprintf(&b, ", request headers %+v", o.RequestHeaders)
	}
	if len(o.Notes) > 0 {
		fmt.Fprintf(&b, ", notes %q", o.Notes)
	}
	return b.String()
}

func weightsString(m map[string]int) string {
	var s []string
	for u, w := range m {
		s = append(s, fmt.Sprintf("%s*%d", u, w))
	}
	sort.Strings(s)
	return "[" + strings.Join(s, ", ") + "]"
}

func ptrTo[T any](v T) *T { return &v }
