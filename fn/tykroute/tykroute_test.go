package tykroute_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

type option func(*tykoas.Document)

// api builds an active API with a listen path and an upstream URL.
func api(id, listenPath string, strip bool, upstream string, opts ...option) *tykoas.Document {
	d := tykoas.NewDocument(id)
	d.Tyk.Server.ListenPath = tykoas.ListenPath{Value: listenPath, Strip: strip}
	d.Tyk.Upstream.URL = upstream
	for _, o := range opts {
		o(d)
	}
	return d
}

func domain(name string) option {
	return func(d *tykoas.Document) {
		d.Tyk.Server.CustomDomain = &tykoas.CustomDomain{Enabled: true, Name: name}
	}
}

func inactive(d *tykoas.Document) { d.Tyk.Info.State.Active = false }

func balance(targets ...tykoas.LoadBalancingTarget) option {
	return func(d *tykoas.Document) {
		d.Tyk.Upstream.LoadBalancing = &tykoas.LoadBalancing{Enabled: true, Targets: targets}
	}
}

// op adds an operation at path key "/" (as the translator writes them) with its middleware.
func op(method string, mw tykoas.Operation) option {
	return opAt("/", method, mw)
}

func opAt(key, method string, mw tykoas.Operation) option {
	return func(d *tykoas.Document) {
		id := strings.ToLower(method) + strings.ReplaceAll(key, "/", "-")
		if key == "/" {
			id = strings.ToLower(method)
		}
		d.AddOperation(key, method, id)
		if d.Tyk.Middleware == nil {
			d.Tyk.Middleware = &tykoas.Middleware{Operations: map[string]tykoas.Operation{}}
		}
		if mw != (tykoas.Operation{}) {
			d.Tyk.Middleware.Operations[id] = mw
		}
	}
}

func mock(code int, headers ...tykoas.Header) tykoas.Operation {
	return tykoas.Operation{MockResponse: &tykoas.MockResponse{Enabled: true, Code: code, Headers: headers}}
}

func rewriteTo(pattern, to string) tykoas.Operation {
	return tykoas.Operation{URLRewrite: &tykoas.URLRewrite{Enabled: true, Pattern: pattern, RewriteTo: to}}
}

// getOnly adds the operations the translator writes for a route that matches only GET: GET proxies, every
// other method answers 404 from a mock, kept twice (key "/" for <listenPath>/, key "/{rest:.*}" for the paths
// below it) and reached from the bare listen path through a loop to <listenPath>/.
func getOnly(get tykoas.Operation) option {
	return func(d *tykoas.Document) {
		op("GET", get)(d)
		lp := d.Tyk.Server.ListenPath.Value
		for _, m := range []string{"DELETE", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE"} {
			withLoop := mock(404)
			withLoop.URLRewrite = &tykoas.URLRewrite{Enabled: true, Pattern: "^" + lp + `(\?.*)?$`, RewriteTo: "tyk://self" + lp + "/$1"}
			op(m, withLoop)(d)
			below(m, mock(404))(d)
		}
	}
}

// below adds an operation at the key "/{rest:.*}", its parameter declared, named <method>-below.
func below(method string, mw tykoas.Operation) option {
	return func(d *tykoas.Document) {
		id := strings.ToLower(method) + "-below"
		d.AddOperation("/{rest:.*}", method, id)
		d.DeclarePathParameter("/{rest:.*}", "rest:.*")
		if d.Tyk.Middleware == nil {
			d.Tyk.Middleware = &tykoas.Middleware{Operations: map[string]tykoas.Operation{}}
		}
		d.Tyk.Middleware.Operations[id] = mw
	}
}

func target(url string, weight int) tykoas.LoadBalancingTarget {
	return tykoas.LoadBalancingTarget{URL: url, Weight: weight}
}

func one(url string) []tykroute.Target { return []tykroute.Target{{URL: url, Weight: 1}} }

func get(host, path string) tykroute.Request {
	req := tykroute.Request{Method: "GET", Host: host, Path: path}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		req.Path, req.RawQuery = path[:i], path[i+1:]
	}
	return req
}

const svc = "http://svc.default.svc.cluster.local:8080"

func TestRoute(t *testing.T) {
	exact := api("exact", "/", true, svc+"/exact", domain("foo.example.com"))
	wildcard := api("wildcard", "/", true, svc+"/wild", domain("{h:.+}.example.com"))
	generic := api("generic", "/", true, svc+"/generic")

	tests := []struct {
		name  string
		apis  []*tykoas.Document
		req   tykroute.Request
		opt   tykroute.Options
		want  tykroute.Outcome // Notes are checked by notes
		notes []string         // substrings, one per expected note, in order
	}{
		{
			name: "custom domain matches its exact host",
			apis: []*tykoas.Document{exact},
			req:  get("foo.example.com", "/a"),
			want: tykroute.Outcome{APIID: "exact", Upstreams: one(svc + "/exact/a")},
		},
		{
			name: "custom domain refuses another host",
			apis: []*tykoas.Document{exact},
			req:  get("bar.example.com", "/a"),
			want: tykroute.Outcome{Status: 404},
		},
		{
			name:  "host case differs: gorilla/mux is case-sensitive",
			apis:  []*tykoas.Document{exact},
			req:   get("Foo.Example.com", "/a"),
			want:  tykroute.Outcome{Status: 404},
			notes: []string{"only when case is ignored"},
		},
		{
			name: "port in Host is ignored",
			apis: []*tykoas.Document{exact},
			req:  get("foo.example.com:8443", "/a"),
			want: tykroute.Outcome{APIID: "exact", Upstreams: one(svc + "/exact/a")},
		},
		{
			name: "wildcard domain matches one label",
			apis: []*tykoas.Document{wildcard},
			req:  get("a.example.com", "/"),
			want: tykroute.Outcome{APIID: "wildcard", Upstreams: one(svc + "/wild")},
		},
		{
			name: "wildcard domain matches several labels",
			apis: []*tykoas.Document{wildcard},
			req:  get("a.b.example.com", "/x"),
			want: tykroute.Outcome{APIID: "wildcard", Upstreams: one(svc + "/wild/x")},
		},
		{
			name: "wildcard domain does not match the bare domain",
			apis: []*tykoas.Document{wildcard},
			req:  get("example.com", "/x"),
			want: tykroute.Outcome{Status: 404},
		},
		{
			name: "API without custom domain matches any host",
			apis: []*tykoas.Document{generic},
			req:  get("anything.test", "/x"),
			want: tykroute.Outcome{APIID: "generic", Upstreams: one(svc + "/generic/x")},
		},
		{
			name: "domain APIs come before generic ones, even with a shorter listen path",
			apis: []*tykoas.Document{api("generic-api", "/api", true, svc), exact},
			req:  get("foo.example.com", "/api/x"),
			want: tykroute.Outcome{APIID: "exact", Upstreams: one(svc + "/exact/api/x")},
		},
		{
			name: "other hosts fall back to the generic API",
			apis: []*tykoas.Document{api("generic-api", "/api", true, svc), exact},
			req:  get("other.test", "/api/x"),
			want: tykroute.Outcome{APIID: "generic-api", Upstreams: one(svc + "/x")},
		},
		{
			name: "exact and wildcard domain both match: longer listen path wins",
			apis: []*tykoas.Document{exact, api("wild-v1", "/v1", true, svc, domain("{h:.+}.example.com"))},
			req:  get("foo.example.com", "/v1/x"),
			want: tykroute.Outcome{APIID: "wild-v1", Upstreams: one(svc + "/x")},
		},
		{
			name: "longest listen path first",
			apis: []*tykoas.Document{api("api", "/api", true, svc+"/a"), api("api-v1", "/api/v1", true, svc+"/b")},
			req:  get("h", "/api/v1/users"),
			want: tykroute.Outcome{APIID: "api-v1", Upstreams: one(svc + "/b/users")},
		},
		{
			name: "shorter listen path takes the rest",
			apis: []*tykoas.Document{api("api", "/api", true, svc+"/a"), api("api-v1", "/api/v1", true, svc+"/b")},
			req:  get("h", "/api/v2/users"),
			want: tykroute.Outcome{APIID: "api", Upstreams: one(svc + "/a/v2/users")},
		},
		{
			name:  "listen path /v2 also catches /v2example",
			apis:  []*tykoas.Document{api("v2", "/v2", true, svc+"/v2"), api("root", "/", true, svc)},
			req:   get("h", "/v2example"),
			want:  tykroute.Outcome{APIID: "v2", Upstreams: one(svc + "/v2/example")},
			notes: []string{"listen path /v2 also matches /v2example: Tyk matches listen paths as string prefixes unless enable_strict_routes is on"},
		},
		{
			name:  "strict routes: /v2example is refused by /v2 with 404, not passed to /",
			apis:  []*tykoas.Document{api("v2", "/v2", true, svc+"/v2"), api("root", "/", true, svc)},
			req:   get("h", "/v2example"),
			opt:   tykroute.Options{StrictRoutes: true},
			want:  tykroute.Outcome{Status: 404},
			notes: []string{"answers 404 instead of trying APIs with shorter listen paths"},
		},
		{
			name: "strict routes: a segment below the listen path is served",
			apis: []*tykoas.Document{api("v2", "/v2", true, svc+"/v2"), api("root", "/", true, svc)},
			req:  get("h", "/v2/example"),
			opt:  tykroute.Options{StrictRoutes: true},
			want: tykroute.Outcome{APIID: "v2", Upstreams: one(svc + "/v2/example")},
		},
		{
			name: "strict routes: the listen path itself is served",
			apis: []*tykoas.Document{api("v2", "/v2", true, svc+"/v2"), api("root", "/", true, svc)},
			req:  get("h", "/v2"),
			opt:  tykroute.Options{StrictRoutes: true},
			want: tykroute.Outcome{APIID: "v2", Upstreams: one(svc + "/v2")},
		},
		{
			name: "strict routes leave a listen path ending in / as a prefix",
			apis: []*tykoas.Document{api("v2", "/v2/", true, svc)},
			req:  get("h", "/v2/x"),
			opt:  tykroute.Options{StrictRoutes: true},
			want: tykroute.Outcome{APIID: "v2", Upstreams: one(svc + "/x")},
		},
		{
			name: "strip and join",
			apis: []*tykoas.Document{api("orders", "/orders", true, "http://svc:8080/orders")},
			req:  get("h", "/orders/123"),
			want: tykroute.Outcome{APIID: "orders", Upstreams: one("http://svc:8080/orders/123")},
		},
		{
			name: "the listen path alone goes to the upstream path",
			apis: []*tykoas.Document{api("orders", "/orders", true, "http://svc:8080/orders")},
			req:  get("h", "/orders"),
			want: tykroute.Outcome{APIID: "orders", Upstreams: one("http://svc:8080/orders")},
		},
		{
			name:  "a trailing slash right after the listen path is lost",
			apis:  []*tykoas.Document{api("orders", "/orders", true, "http://svc:8080/orders")},
			req:   get("h", "/orders/"),
			want:  tykroute.Outcome{APIID: "orders", Upstreams: one("http://svc:8080/orders")},
			notes: []string{"drops the trailing slash"},
		},
		{
			name: "a trailing slash deeper down is kept",
			apis: []*tykoas.Document{api("orders", "/orders", true, "http://svc:8080/orders")},
			req:  get("h", "/orders/a/"),
			want: tykroute.Outcome{APIID: "orders", Upstreams: one("http://svc:8080/orders/a/")},
		},
		{
			name: "listen path / with upstream path /",
			apis: []*tykoas.Document{api("root", "/", true, "http://svc:8080/")},
			req:  get("h", "/x"),
			want: tykroute.Outcome{APIID: "root", Upstreams: one("http://svc:8080/x")},
		},
		{
			name: "listen path / and the root path",
			apis: []*tykoas.Document{api("root", "/", true, "http://svc:8080")},
			req:  get("h", "/"),
			want: tykroute.Outcome{APIID: "root", Upstreams: one("http://svc:8080/")},
		},
		{
			name: "without strip the whole path goes upstream",
			apis: []*tykoas.Document{api("orders", "/orders", false, "http://svc:8080")},
			req:  get("h", "/orders/123"),
			want: tykroute.Outcome{APIID: "orders", Upstreams: one("http://svc:8080/orders/123")},
		},
		{
			name: "query kept",
			apis: []*tykoas.Document{api("orders", "/orders", true, "http://svc:8080/orders")},
			req:  get("h", "/orders/1?a=1&b=2"),
			want: tykroute.Outcome{APIID: "orders", Upstreams: one("http://svc:8080/orders/1?a=1&b=2")},
		},
		{
			name: "matched method is proxied",
			apis: []*tykoas.Document{api("shop", "/shop", true, svc+"/shop", getOnly(tykoas.Operation{}))},
			req:  get("h", "/shop/cart"),
			want: tykroute.Outcome{APIID: "shop", OperationID: "get", Upstreams: one(svc + "/shop/cart")},
		},
		{
			name: "other methods get the 404 mock below the listen path",
			apis: []*tykoas.Document{api("shop", "/shop", true, svc+"/shop", getOnly(tykoas.Operation{}))},
			req:  tykroute.Request{Method: "DELETE", Host: "h", Path: "/shop/cart"},
			want: tykroute.Outcome{APIID: "shop", OperationID: "delete-below", Status: 404},
		},
		{
			name: "other methods get the 404 mock on the listen path and a slash",
			apis: []*tykoas.Document{api("shop", "/shop", true, svc+"/shop", getOnly(tykoas.Operation{}))},
			req:  tykroute.Request{Method: "DELETE", Host: "h", Path: "/shop/"},
			want: tykroute.Outcome{APIID: "shop", OperationID: "delete", Status: 404},
		},
		{
			name: "other methods get the 404 mock on the bare listen path, through the loop",
			apis: []*tykoas.Document{api("shop", "/shop", true, svc+"/shop", getOnly(tykoas.Operation{}))},
			req:  tykroute.Request{Method: "DELETE", Host: "h", Path: "/shop", RawQuery: "a=1"},
			want: tykroute.Outcome{APIID: "shop", OperationID: "delete", Status: 404},
		},
		{
			name: "without operations every method is proxied",
			apis: []*tykoas.Document{api("shop", "/shop", true, svc+"/shop")},
			req:  tykroute.Request{Method: "PATCH", Host: "h", Path: "/shop/cart"},
			want: tykroute.Outcome{APIID: "shop", Upstreams: one(svc + "/shop/cart")},
		},
		{
			name: "a mock on key / answers <listenPath>/ only: the OpenAPI router anchors the key",
			apis: []*tykoas.Document{api("old", "/old", true, svc,
				op("GET", mock(302, tykoas.Header{Name: "Location", Value: "https://new.example.com/shop"})))},
			req:  get("h", "/old/"),
			want: tykroute.Outcome{APIID: "old", OperationID: "get", Status: 302, Location: "https://new.example.com/shop"},
		},
		{
			name: "a mock on key / does not answer a path below (through the router: before 5.8.12 and 5.12.0)",
			apis: []*tykoas.Document{api("old", "/old", true, svc,
				op("GET", mock(302, tykoas.Header{Name: "Location", Value: "https://new.example.com/shop"})))},
			req:   get("h", "/old/anything"),
			want:  tykroute.Outcome{APIID: "old", OperationID: "get", Upstreams: one(svc + "/anything")},
			notes: []string{"(TT-15856) and answer otherwise: there the request is answered 302 by Tyk itself"},
		},
		{
			name: "a mock on key /{rest:.*} answers every path below",
			apis: []*tykoas.Document{api("old", "/old", true, svc,
				below("GET", mock(302, tykoas.Header{Name: "Location", Value: "https://new.example.com/shop"})))},
			req:  get("h", "/old/any/thing"),
			want: tykroute.Outcome{APIID: "old", OperationID: "get-below", Status: 302, Location: "https://new.example.com/shop"},
		},
		{
			name: "the router takes the first key in OpenAPI matching order; classic matching the longest",
			apis: []*tykoas.Document{api("shop", "/shop", true, svc,
				opAt("/", "GET", tykoas.Operation{}), opAt("/cart", "GET", mock(418)))},
			req:  get("h", "/shop/cart"),
			want: tykroute.Outcome{APIID: "shop", OperationID: "get-cart", Status: 418},
		},
		{
			name: "an anchored router key does not take a deeper path, so its mock does not apply (before 5.8.12 and 5.12.0)",
			apis: []*tykoas.Document{api("shop", "/shop", true, svc,
				opAt("/", "GET", tykoas.Operation{}), opAt("/cart", "GET", mock(418)))},
			req:   get("h", "/shop/cart/items"),
			want:  tykroute.Outcome{APIID: "shop", OperationID: "get-cart", Upstreams: one(svc + "/cart/items")},
			notes: []string{"(TT-15856) and answer otherwise: there the request is answered 418 by Tyk itself"},
		},
		{
			name: "path key parameters match one segment",
			apis: []*tykoas.Document{api("shop", "/shop", true, svc,
				opAt("/", "GET", tykoas.Operation{}), opAt("/items/{id}/price", "GET", mock(418)))},
			req:  get("h", "/shop/items/7/price"),
			want: tykroute.Outcome{APIID: "shop", OperationID: "get-items-{id}-price", Status: 418},
		},
		{
			name: "urlRewrite to an absolute URL",
			apis: []*tykoas.Document{api("rw", "/", true, svc,
				op("GET", rewriteTo(".*", "http://other.default.svc.cluster.local:9090/new/path")))},
			req:  get("h", "/old/path"),
			want: tykroute.Outcome{APIID: "rw", OperationID: "get", Upstreams: one("http://other.default.svc.cluster.local:9090/new/path")},
		},
		{
			name: "urlRewrite to an absolute URL bypasses load balancing",
			apis: []*tykoas.Document{api("rw", "/", true, "",
				balance(target(svc, 1), target("http://b:80", 1)),
				op("GET", rewriteTo(".*", "http://other:9090/new")))},
			req:   get("h", "/x"),
			want:  tykroute.Outcome{APIID: "rw", OperationID: "get", Upstreams: one("http://other:9090/new")},
			notes: []string{"bypasses load balancing"},
		},
		{
			name: "urlRewrite drops the request query unless rewriteTo carries it",
			apis: []*tykoas.Document{api("rw", "/", true, svc,
				op("GET", rewriteTo(".*", "http://other:9090/new")))},
			req:   get("h", "/old?a=1"),
			want:  tykroute.Outcome{APIID: "rw", OperationID: "get", Upstreams: one("http://other:9090/new")},
			notes: []string{`the request query "a=1" is not sent upstream`},
		},
		{
			name: "urlRewrite can carry the query with a group",
			apis: []*tykoas.Document{api("rw", "/", true, svc,
				op("GET", rewriteTo(`^[^?]*(\?.*)?$`, "http://other:9090/new$1")))},
			req:  get("h", "/old?a=1"),
			want: tykroute.Outcome{APIID: "rw", OperationID: "get", Upstreams: one("http://other:9090/new?a=1")},
		},
		{
			name: "urlRewrite: strip also applies to the rewritten path",
			apis: []*tykoas.Document{api("rw", "/api", true, svc,
				op("GET", rewriteTo(".*", "http://other:9090/api/v2/x")))},
			req:   get("h", "/api/old"),
			want:  tykroute.Outcome{APIID: "rw", OperationID: "get", Upstreams: one("http://other:9090/v2/x")},
			notes: []string{"strips listen path /api from the rewritten path /api/v2/x"},
		},
		{
			name: "urlRewrite to a relative path joins the upstream path",
			apis: []*tykoas.Document{api("rw", "/orders", true, "http://svc:8080/base",
				op("GET", rewriteTo(`^/orders(/[^?]*)`, "/new$1")))},
			req:  get("h", "/orders/123"),
			want: tykroute.Outcome{APIID: "rw", OperationID: "get", Upstreams: one("http://svc:8080/base/new/123")},
		},
		{
			name: "urlRewrite to a relative path goes to every target",
			apis: []*tykoas.Document{api("rw", "/", true, "",
				balance(target("http://a:80/x", 2), target("http://b:80", 1)),
				op("GET", rewriteTo(".*", "/new")))},
			req: get("h", "/old"),
			want: tykroute.Outcome{APIID: "rw", OperationID: "get", Upstreams: []tykroute.Target{
				{URL: "http://a:80/x/new", Weight: 2}, {URL: "http://b:80/new", Weight: 1}}},
		},
		{
			name: "urlRewrite pattern that does not match leaves the request alone",
			apis: []*tykoas.Document{api("rw", "/", true, svc,
				op("GET", rewriteTo("^/never$", "/new")))},
			req:  get("h", "/old"),
			want: tykroute.Outcome{APIID: "rw", OperationID: "get", Upstreams: one(svc + "/old")},
		},
		{
			name: "header transforms",
			apis: []*tykoas.Document{api("hdr", "/", true, svc, op("GET", tykoas.Operation{
				TransformRequestHeaders: &tykoas.TransformHeaders{Enabled: true,
					Remove: []string{"X-Debug"},
					Add:    []tykoas.Header{{Name: "X-Env", Value: "a"}, {Name: "X-Route", Value: "r"}, {Name: "x-env", Value: "b"}}},
				TransformResponseHeaders: &tykoas.TransformHeaders{Enabled: true,
					Add: []tykoas.Header{{Name: "Cache-Control", Value: "no-store"}}},
			}))},
			req: get("h", "/x"),
			want: tykroute.Outcome{APIID: "hdr", OperationID: "get", Upstreams: one(svc + "/x"),
				RequestHeaders: tykroute.Transform{
					Set:    []tykroute.Header{{Name: "x-env", Value: "b"}, {Name: "X-Route", Value: "r"}},
					Remove: []string{"X-Debug"}},
				ResponseHeaders: tykroute.Transform{Set: []tykroute.Header{{Name: "Cache-Control", Value: "no-store"}}},
			},
		},
		{
			name: "disabled header transform does nothing",
			apis: []*tykoas.Document{api("hdr", "/", true, svc, op("GET", tykoas.Operation{
				TransformRequestHeaders: &tykoas.TransformHeaders{Enabled: false, Remove: []string{"X-Debug"}},
			}))},
			req:  get("h", "/x"),
			want: tykroute.Outcome{APIID: "hdr", OperationID: "get", Upstreams: one(svc + "/x")},
		},
		{
			name: "load balancing: weights kept, weight 0 dropped",
			apis: []*tykoas.Document{api("lb", "/shop", true, svc, balance(
				target("http://a.default.svc.cluster.local:8080/shop", 3),
				target("http://b.default.svc.cluster.local:8080/shop", 0),
				target("c.default.svc.cluster.local:8080/shop", 1)))},
			req: get("h", "/shop/cart?x=1"),
			want: tykroute.Outcome{APIID: "lb", Upstreams: []tykroute.Target{
				{URL: "http://a.default.svc.cluster.local:8080/shop/cart?x=1", Weight: 3},
				{URL: "http://c.default.svc.cluster.local:8080/shop/cart?x=1", Weight: 1}}},
		},
		{
			name:  "load balancing with every weight 0",
			apis:  []*tykoas.Document{api("lb", "/", true, svc, balance(target("http://a:80", 0)))},
			req:   get("h", "/x"),
			want:  tykroute.Outcome{APIID: "lb", Status: 503},
			notes: []string{"all hosts are down"},
		},
		{
			name:  "unresolved upstream answers 500",
			apis:  []*tykoas.Document{api("bad", "/", true, "http://unresolved.backend.invalid")},
			req:   get("h", "/x"),
			want:  tykroute.Outcome{APIID: "bad", Status: 500, Upstreams: one("http://unresolved.backend.invalid/x")},
			notes: []string{"unresolved.backend.invalid cannot be resolved"},
		},
		{
			name: "one unresolved target among several",
			apis: []*tykoas.Document{api("lb", "/", true, "", balance(
				target("http://a:80", 1), target("http://unresolved.backend.invalid", 1)))},
			req: get("h", "/x"),
			want: tykroute.Outcome{APIID: "lb", Upstreams: []tykroute.Target{
				{URL: "http://a:80/x", Weight: 1}, {URL: "http://unresolved.backend.invalid/x", Weight: 1}}},
			notes: []string{"load balancing sends there get 500"},
		},
		{
			name: "no API",
			apis: nil,
			req:  get("h", "/x"),
			want: tykroute.Outcome{Status: 404},
		},
		{
			name: "inactive API is not loaded",
			apis: []*tykoas.Document{api("off", "/", true, svc, inactive)},
			req:  get("h", "/x"),
			want: tykroute.Outcome{Status: 404},
		},
		{
			name:  "unclean path is redirected by gorilla/mux",
			apis:  []*tykoas.Document{generic},
			req:   get("h", "/a//b/../c/?q=1"),
			want:  tykroute.Outcome{Status: 301, Location: "/a/c/?q=1"},
			notes: []string{"gorilla/mux answers 301"},
		},
		{
			name:  "same domain and listen path collide",
			apis:  []*tykoas.Document{api("b", "/x", true, svc+"/b"), api("a", "/x", true, svc+"/a")},
			req:   get("h", "/x"),
			want:  tykroute.Outcome{APIID: "a", Upstreams: one(svc + "/a")},
			notes: []string{"share no custom domain and listen path /x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tykroute.Route(tt.apis, tt.req, tt.opt)
			notes := got.Notes
			got.Notes = nil
			got.UpstreamHost = "" // TestRouteUpstreamHost checks it
			assert.Equal(t, tt.want, got)
			if assert.Len(t, notes, len(tt.notes), "notes: %q", notes) {
				for i, want := range tt.notes {
					assert.Contains(t, notes[i], want)
				}
			}
		})
	}
}

// TestRouteDoesNotModifyInput guards the documents: routing must only read them.
func TestRouteDoesNotModifyInput(t *testing.T) {
	d := api("shop", "/shop", true, svc, getOnly(tykoas.Operation{}))
	before, err := d.Encode()
	assert.NoError(t, err)
	tykroute.Route([]*tykoas.Document{d, nil}, get("h", "/shop/x"), tykroute.Options{StrictRoutes: true})
	after, err := d.Encode()
	assert.NoError(t, err)
	assert.Equal(t, string(before), string(after))
}

// TestRouteUpstreamHost: the Host header the upstream gets is the client's with preserveHostHeader, else the
// upstream's own.
func TestRouteUpstreamHost(t *testing.T) {
	plain := api("plain", "/", true, svc)
	preserving := api("preserving", "/", true, svc, func(d *tykoas.Document) {
		d.Tyk.Upstream.PreserveHostHeader = &tykoas.PreserveHostHeader{Enabled: true}
	})
	assert.Equal(t, "svc.default.svc.cluster.local:8080",
		tykroute.Route([]*tykoas.Document{plain}, get("shop.example.com", "/x"), tykroute.Options{}).UpstreamHost)
	assert.Equal(t, "shop.example.com:8080",
		tykroute.Route([]*tykoas.Document{preserving}, get("shop.example.com:8080", "/x"), tykroute.Options{}).UpstreamHost)
	answering := api("answering", "/", true, svc, op("GET", mock(404)), func(d *tykoas.Document) {
		d.Tyk.Upstream.PreserveHostHeader = &tykoas.PreserveHostHeader{Enabled: true}
	})
	got := tykroute.Route([]*tykoas.Document{answering}, get("shop.example.com", "/"), tykroute.Options{})
	assert.Equal(t, 404, got.Status)
	assert.Empty(t, got.UpstreamHost, "nothing goes upstream when Tyk answers itself")
}

// TestRouteClassicVariable: Tyk's classic matching reads a {variable} of a path key as ([^/]*) before 5.6 and
// ([^/]+) from then on, so a header transform keyed "/{rest:.*}" misses <listenPath>/ from 5.6; keyed "/" it
// applies everywhere in both.
func TestRouteClassicVariable(t *testing.T) {
	set := tykoas.Operation{TransformRequestHeaders: &tykoas.TransformHeaders{Enabled: true,
		Add: []tykoas.Header{{Name: "X-Set", Value: "1"}}}}
	onRest := api("rest", "/shop", true, svc, below("GET", set))
	onSlash := api("slash", "/shop", true, svc, op("GET", set))
	for _, tc := range []struct {
		doc     *tykoas.Document
		version tykroute.Version
		path    string
		applies bool
	}{
		{onRest, tykroute.Version{Major: 5, Minor: 4}, "/shop/", true},
		{onRest, tykroute.Version{Major: 5, Minor: 8}, "/shop/", false},
		{onRest, tykroute.Version{Major: 5, Minor: 8}, "/shop/x", true},
		{onSlash, tykroute.Version{Major: 5, Minor: 8}, "/shop", true},
		{onSlash, tykroute.Version{Major: 5, Minor: 8}, "/shop/x/y", true},
		{onSlash, tykroute.Version{Major: 5, Minor: 4}, "/shop", true},
	} {
		got := tykroute.Route([]*tykoas.Document{tc.doc}, get("h", tc.path), tykroute.Options{Version: tc.version})
		assert.Equal(t, tc.applies, len(got.RequestHeaders.Set) == 1, "%s %s on %s", tc.doc.Tyk.Info.ID, tc.path, tc.version)
	}
}

// TestRouteAuthentication: an API with authentication on answers a request without credentials 401, unless the
// operation that matches (the classic way) has ignoreAuthentication.
func TestRouteAuthentication(t *testing.T) {
	redirect := mock(301, tykoas.Header{Name: "Location", Value: "https://example.com/"})
	redirect.IgnoreAuthentication = &tykoas.Allowance{Enabled: true}
	d := api("secured", "/shop", true, svc, op("GET", tykoas.Operation{}), op("POST", redirect), below("POST", redirect),
		func(d *tykoas.Document) { d.Tyk.Server.Authentication = &tykoas.Authentication{Enabled: true} })
	got := tykroute.Route([]*tykoas.Document{d}, get("h", "/shop/x"), tykroute.Options{})
	assert.Equal(t, 401, got.Status)
	assert.Empty(t, got.Upstreams)
	got = tykroute.Route([]*tykoas.Document{d}, tykroute.Request{Method: "POST", Host: "h", Path: "/shop/x"}, tykroute.Options{})
	assert.Equal(t, 301, got.Status)
}

// TestRouteOrderBefore58: before Tyk 5.8.0 APIs were ordered by the length of their custom domain string, so
// {h:.+}.shop.example.com (23 characters) ties with orders.shop.example.com and the tie goes by API ID, the
// listen path not counting; from 5.8.0 the longer listen path wins.
func TestRouteOrderBefore58(t *testing.T) {
	apis := []*tykoas.Document{
		api("a-catalog", "/", true, svc+"/catalog", domain("{h:.+}.shop.example.com")),
		api("b-orders", "/orders", true, svc+"/orders", domain("orders.shop.example.com")),
		api("c-longer", "/", true, svc+"/longer", domain("{h:.+}.longer.shop.example.com")),
	}
	req := get("orders.shop.example.com", "/orders/42")
	assert.Equal(t, "a-catalog", tykroute.Route(apis, req, tykroute.Options{Version: tykroute.Version{Major: 5, Minor: 4}}).APIID)
	assert.Equal(t, "b-orders", tykroute.Route(apis, req, tykroute.Options{Version: tykroute.Version{Major: 5, Minor: 8}}).APIID)
	assert.Equal(t, "b-orders", tykroute.Route(apis, req, tykroute.Options{}).APIID, "the default is the oldest version the APIs need")
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]tykroute.Version{"5.8": {Major: 5, Minor: 8}, "v5.3.0-dev": {Major: 5, Minor: 3},
		"v5.11.1": {Major: 5, Minor: 11, Patch: 1}} {
		got, err := tykroute.ParseVersion(in)
		assert.NoError(t, err)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "5", "five.eight", "5.8.1.2", "5.-1"} {
		_, err := tykroute.ParseVersion(bad)
		assert.Error(t, err, bad)
	}
}

// TestRouteRouterStopsAtTheFirstMatchingPath: Tyk's OpenAPI router (kin-openapi's gorillamux) takes the first
// path key that matches and stops there when it lacks the method (method not allowed), so a mock under a later
// key is not found: DELETE <listenPath>/refunds, where /refunds has only POST, is proxied, not answered 404 by
// the DELETE mock under /{rest:.*}; a path /refunds does not match is.
func TestRouteRouterStopsAtTheFirstMatchingPath(t *testing.T) {
	doc := api("refunds", "/pay", true, svc, opAt("/refunds", "POST", tykoas.Operation{}), below("DELETE", mock(404)))
	del := func(path string) tykroute.Request {
		r := get("h", path)
		r.Method = "DELETE"
		return r
	}
	stopped := tykroute.Route([]*tykoas.Document{doc}, del("/pay/refunds"), tykroute.Options{})
	assert.NotEqual(t, 404, stopped.Status, "the router stops at /refunds")
	assert.NotEmpty(t, stopped.Upstreams)
	found := tykroute.Route([]*tykoas.Document{doc}, del("/pay/orders"), tykroute.Options{})
	assert.Equal(t, 404, found.Status, "the DELETE mock under /{rest:.*}")
}

// TestRouteMockMatchedClassically: from 5.8.12 on the 5.8 line and from 5.12.0 (TT-15856), Tyk matches
// mockResponse against the path without the listen path, so the string-prefix neighbour /legacyx meets the mock
// of /legacy/x (seen on v5.14.0; v5.8.11 proxies it). The default answer (5.8 and later) says so in a note.
func TestRouteMockMatchedClassically(t *testing.T) {
	redirect := mock(301, tykoas.Header{Name: "Location", Value: "https://docs.example.com/"})
	doc := api("legacy", "/legacy", true, svc, opAt("/", "GET", redirect), below("GET", redirect))
	apis := []*tykoas.Document{doc}
	for _, c := range []struct {
		version string
		mocked  bool
	}{{"v5.8.11", false}, {"v5.8.12", true}, {"v5.11.1", false}, {"v5.12.0", true}, {"v5.14.0", true}} {
		v, err := tykroute.ParseVersion(c.version)
		require.NoError(t, err)
		out := tykroute.Route(apis, get("h", "/legacyx"), tykroute.Options{Version: v})
		if c.mocked {
			assert.Equal(t, 301, out.Status, c.version)
			assert.Equal(t, "https://docs.example.com/", out.Location, c.version)
		} else {
			assert.Zero(t, out.Status, c.version)
			assert.NotEmpty(t, out.Upstreams, c.version)
		}
		below := tykroute.Route(apis, get("h", "/legacy/x"), tykroute.Options{Version: v})
		assert.Equal(t, 301, below.Status, "%s: /legacy/x meets the mock on every release", c.version)
	}
	def := tykroute.Route(apis, get("h", "/legacyx"), tykroute.Options{})
	assert.Zero(t, def.Status)
	assert.Contains(t, strings.Join(def.Notes, "\n"), "TT-15856")
	assert.NotContains(t, strings.Join(tykroute.Route(apis, get("h", "/legacy/x"), tykroute.Options{}).Notes, "\n"), "TT-15856",
		"no note when every release answers alike")
}

// TestRouteMockShields: matched the classic way, "/" is an unanchored expression that comes first in Tyk's path
// order, so from 5.8.13 and 5.12.1 (TT-16890) a GET below the listen path meets the disabled shield Tyk adds for
// "/" GET (which has no mock) instead of the mock under "/{rest:.*}"; a mock at "/" takes every path.
func TestRouteMockShields(t *testing.T) {
	doc := api("shop", "/shop", true, svc, opAt("/", "GET", tykoas.Operation{}), below("GET", mock(410)),
		opAt("/", "POST", mock(409)), below("POST", tykoas.Operation{}))
	apis := []*tykoas.Document{doc}
	route := func(method, path, version string) int {
		v, err := tykroute.ParseVersion(version)
		require.NoError(t, err)
		r := get("h", path)
		r.Method = method
		return tykroute.Route(apis, r, tykroute.Options{Version: v}).Status
	}
	assert.Equal(t, 410, route("GET", "/shop/x", "v5.8.11"))
	assert.Equal(t, 0, route("GET", "/shop/x", "v5.14.0"))
	assert.Equal(t, 410, route("GET", "/shop/x", "v5.8.12"), "no shields before 5.8.13")
	assert.Equal(t, 0, route("POST", "/shop/x", "v5.8.11"))
	assert.Equal(t, 409, route("POST", "/shop/x", "v5.14.0"))
	assert.Equal(t, 409, route("POST", "/shop", "v5.14.0"), "the bare listen path is \"/\" once stripped")
}

// Tyk runs one router per port: an API with server.port is found only by requests on that port, and the APIs
// without one only on listen_port (Request.Port 0).
func TestRoutePorts(t *testing.T) {
	onTLS := func(d *tykoas.Document) { d.Tyk.Server.Protocol, d.Tyk.Server.Port = "https", 8443 }
	apis := []*tykoas.Document{
		api("secure", "/checkout", true, "http://checkout.svc:8080/", domain("shop.example.com"), onTLS),
		api("plain", "/", true, "http://www.svc:8080/", domain("shop.example.com")),
	}
	tls := tykroute.Route(apis, tykroute.Request{Method: "GET", Host: "shop.example.com", Path: "/checkout/1", Port: 8443}, tykroute.Options{})
	assert.Equal(t, "secure", tls.APIID)
	assert.Equal(t, "http://checkout.svc:8080/1", tls.Upstreams[0].URL)

	plain := tykroute.Route(apis, tykroute.Request{Method: "GET", Host: "shop.example.com", Path: "/checkout/1"}, tykroute.Options{})
	assert.Equal(t, "plain", plain.APIID, "the TLS port's API is not on listen_port, so / takes the request")

	other := tykroute.Route(apis, tykroute.Request{Method: "GET", Host: "shop.example.com", Path: "/", Port: 8443}, tykroute.Options{})
	assert.Equal(t, 404, other.Status, "listen_port's API is not on the TLS port")
	assert.Empty(t, other.APIID)
}

// TestRouteTimeout: the matched operation's enforceTimeout bounds the upstream: its duration from 5.14 (and when
// no release is given: the document is for the release it was written for), its value in whole seconds where
// there is no duration; a release that refuses the duration is said. A method without one has none.
func TestRouteTimeout(t *testing.T) {
	exact := tykoas.Operation{EnforceTimeout: &tykoas.EnforceTimeout{Enabled: true, Duration: "500ms", Value: 1}}
	whole := tykoas.Operation{EnforceTimeout: &tykoas.EnforceTimeout{Enabled: true, Value: 10}}
	off := tykoas.Operation{EnforceTimeout: &tykoas.EnforceTimeout{Enabled: false, Value: 10}}
	d := api("t", "/search", true, svc, op("GET", exact), op("POST", whole), op("PUT", off), op("DELETE", tykoas.Operation{}))
	route := func(method string, v tykroute.Version) tykroute.Outcome {
		return tykroute.Route([]*tykoas.Document{d}, tykroute.Request{Method: method, Host: "h", Path: "/search/x"},
			tykroute.Options{Version: v})
	}
	assert.Equal(t, 500*time.Millisecond, route("GET", tykroute.Version{}).Timeout)
	assert.Equal(t, 500*time.Millisecond, route("GET", tykroute.Version{Major: 5, Minor: 14}).Timeout)
	older := route("GET", tykroute.Version{Major: 5, Minor: 8, Patch: 11})
	assert.Equal(t, time.Second, older.Timeout)
	assert.Contains(t, strings.Join(older.Notes, "\n"), "sets enforceTimeout.duration, which Tyk 5.8.11 ignores")
	assert.Contains(t, strings.Join(route("GET", tykroute.Version{Major: 5, Minor: 4}).Notes, "\n"),
		"sets enforceTimeout.duration, which Tyk 5.4 refuses")
	assert.Equal(t, 10*time.Second, route("POST", tykroute.Version{Major: 5, Minor: 4}).Timeout)
	assert.Zero(t, route("PUT", tykroute.Version{}).Timeout, "not enabled")
	assert.Zero(t, route("DELETE", tykroute.Version{}).Timeout)
}

// TestRouteMuxListenPath: a listen path with a gorilla/mux variable is the regular expression mux's PathPrefix
// makes of it, so "/one{exact:$}" (the render's Exact path) takes "/one" with or without a query and nothing
// else, and the requests it does not take go on to the next API. From 5.8.0 Tyk orders it by its segments
// without the variable, before by its string length: either way it comes before the "/one" of a PathPrefix, and
// "/{exact:$}" ties with "/" from 5.8.0 (ties by API ID). The path without the listen path is "/", so a mock keyed
// "/" is found the classic way (5.14), and never by the OpenAPI router (5.8.11): its template cannot match.
func TestRouteMuxListenPath(t *testing.T) {
	exact := api("exact", "/one{exact:$}", false, svc, op("POST", mock(404)))
	prefix := api("prefix", "/one", true, svc+"/one")
	root := api("root", "/", true, svc+"/")
	exactRoot := api("a-exact-root", "/{exact:$}", false, svc) // first of the tie with root by API ID
	apis := []*tykoas.Document{root, prefix, exact, exactRoot}
	v58, v514 := tykroute.Version{Major: 5, Minor: 8, Patch: 11}, tykroute.Version{Major: 5, Minor: 14}
	for _, tc := range []struct {
		path, query string
		version     tykroute.Version
		id          string
		upstream    string
	}{
		{"/one", "", v58, "exact", svc + "/one"},
		{"/one", "a=1", v58, "exact", svc + "/one?a=1"},
		{"/one/", "", v58, "prefix", svc + "/one"}, // Tyk drops the slash when what is left is "/"
		{"/one/x", "", v58, "prefix", svc + "/one/x"},
		{"/onex", "", v58, "prefix", svc + "/one/x"},
		{"/one", "", tykroute.Version{Major: 5, Minor: 4}, "exact", svc + "/one"},
		{"/", "", v58, "a-exact-root", svc + "/"},
		{"/", "", tykroute.Version{Major: 5, Minor: 4}, "a-exact-root", svc + "/"},
		{"/two", "", v514, "root", svc + "/two"},
	} {
		got := tykroute.Route(apis, tykroute.Request{Method: "GET", Host: "h", Path: tc.path, RawQuery: tc.query}, tykroute.Options{Version: tc.version})
		what := tc.path + "?" + tc.query + " on " + tc.version.String()
		assert.Equal(t, tc.id, got.APIID, what)
		if assert.Len(t, got.Upstreams, 1, what) {
			assert.Equal(t, tc.upstream, got.Upstreams[0].URL, what)
		}
	}
	post := tykroute.Request{Method: "POST", Host: "h", Path: "/one"}
	assert.Equal(t, 404, tykroute.Route(apis, post, tykroute.Options{Version: v514}).Status, "the mock, the classic way")
	assert.Zero(t, tykroute.Route(apis, post, tykroute.Options{Version: v58}).Status, "the router finds no mock")
}

// TestRouteResponseHeaderContextVariables: a transformResponseHeaders value names context variables, replaced on
// an upstream's answer as on a mock's (a CORS filter echoes the Origin so: e2e TestRealTykCORS), and written ""
// where the API does not turn context variables on.
func TestRouteResponseHeaderContextVariables(t *testing.T) {
	echo := tykoas.Operation{TransformResponseHeaders: &tykoas.TransformHeaders{Enabled: true,
		Add: []tykoas.Header{{Name: "Access-Control-Allow-Origin", Value: "$tyk_context.headers_Origin"}}}}
	on := func(d *tykoas.Document) {
		d.Tyk.Middleware.Global = &tykoas.Global{ContextVariables: &tykoas.Allowance{Enabled: true}}
	}
	req := get("shop.example.com", "/api/cart")
	req.Header = http.Header{"Origin": {"https://www.shop.example.com"}}
	for _, c := range []struct {
		opts []option
		want string
	}{
		{[]option{domain("shop.example.com"), op("GET", echo), on}, "https://www.shop.example.com"},
		{[]option{domain("shop.example.com"), op("GET", echo)}, ""},
	} {
		out := tykroute.Route([]*tykoas.Document{api("a", "/api", true, svc, c.opts...)}, req, tykroute.Options{})
		require.Zero(t, out.Status)
		assert.Equal(t, []tykroute.Header{{Name: "Access-Control-Allow-Origin", Value: c.want}}, out.ResponseHeaders.Set)
	}
}
