package tykoas

import "encoding/json"

// ExtensionKey is the OpenAPI vendor extension under which Tyk reads its
// gateway configuration.
const ExtensionKey = "x-tyk-api-gateway"

// The types below mirror the parts of Tyk's x-tyk-api-gateway schema that
// gateway2tyk emits, and nothing more. Field names and `required` follow the
// schema (Tyk's apidef/oas/schema/x-tyk-api-gateway.json): a field the schema
// requires has no omitempty, so a zero value is still written and the schema,
// not this package, decides whether it is acceptable. Optional objects are
// pointers so that "absent" and "present but disabled" stay distinct.

// XTykAPIGateway is the value of the x-tyk-api-gateway extension
// (schema root: required info, upstream, server).
type XTykAPIGateway struct {
	Info       Info        `json:"info"`
	Server     Server      `json:"server"`
	Upstream   Upstream    `json:"upstream"`
	Middleware *Middleware `json:"middleware,omitempty"`
}

// Info is X-Tyk-Info (required name, state).
type Info struct {
	ID    string `json:"id,omitempty"`
	Name  string `json:"name"`
	State State  `json:"state"`
}

// State is X-Tyk-State (required active).
type State struct {
	Active bool `json:"active"`
	// Internal APIs are reached only through a tyk://<api id> loop, never by a listen path.
	Internal bool `json:"internal,omitempty"`
}

// Server is X-Tyk-Server (required listenPath).
type Server struct {
	ListenPath   ListenPath    `json:"listenPath"`
	CustomDomain *CustomDomain `json:"customDomain,omitempty"`
	// ClientCertificates is mutual TLS with the client: Tyk asks for a client certificate on the API's TLS port
	// and lets through only one the allowlist names or one a CA certificate of the allowlist signed.
	ClientCertificates *ClientCertificates `json:"clientCertificates,omitempty"`
	GatewayTags        *GatewayTags        `json:"gatewayTags,omitempty"`
	// Authentication is never written by the render (a base document turns it on, and the merge keeps the
	// base's as written); it is here so that a merged document read with DecodeLoose says whether it is on.
	Authentication *Authentication `json:"authentication,omitempty"`
	// Protocol and Port put the API on a listener of its own instead of the Gateway's listen_port (Tyk 5.8 and
	// later; the 5.4 line's schema has neither): the gateway-api profile serves an HTTPS listener this way.
	Protocol string `json:"protocol,omitempty"`
	Port     int    `json:"port,omitempty"`
}

// Authentication is X-Tyk-Authentication, of which only enabled is modelled.
type Authentication struct {
	Enabled bool `json:"enabled"`
}

// ListenPath is X-Tyk-ListenPath (required value).
type ListenPath struct {
	Value string `json:"value"`
	Strip bool   `json:"strip,omitempty"`
}

// CustomDomain is X-Tyk-CustomDomain (required enabled, name). Name is a
// gorilla/mux host template, so a wildcard host must already be written as a
// named pattern such as {h:.+}.example.com.
type CustomDomain struct {
	Enabled      bool     `json:"enabled"`
	Name         string   `json:"name"`
	Certificates []string `json:"certificates,omitempty"`
}

// ClientCertificates is X-Tyk-ClientCertificates: the allowlist holds certificate IDs of Tyk's Certificate Store.
type ClientCertificates struct {
	Enabled   bool     `json:"enabled"`
	Allowlist []string `json:"allowlist,omitempty"`
}

// GatewayTags is X-Tyk-GatewayTags (required enabled, tags).
type GatewayTags struct {
	Enabled bool     `json:"enabled"`
	Tags    []string `json:"tags"`
}

// MarshalJSON writes a nil Tags as [] because the schema requires an array
// and a Go nil slice would otherwise encode as null.
func (g GatewayTags) MarshalJSON() ([]byte, error) {
	type plain GatewayTags
	p := plain(g)
	if p.Tags == nil {
		p.Tags = []string{}
	}
	return json.Marshal(p)
}

// Upstream is X-Tyk-Upstream. The schema requires url or loadBalancing
// (anyOf), so both are optional here.
type Upstream struct {
	URL                string              `json:"url,omitempty"`
	LoadBalancing      *LoadBalancing      `json:"loadBalancing,omitempty"`
	PreserveHostHeader *PreserveHostHeader `json:"preserveHostHeader,omitempty"`
}

// LoadBalancing is X-Tyk-LoadBalancing (required enabled; when enabled, at
// least one target).
type LoadBalancing struct {
	Enabled bool                  `json:"enabled"`
	Targets []LoadBalancingTarget `json:"targets,omitempty"`
}

// LoadBalancingTarget is X-Tyk-LoadBalancingTarget (required url, weight).
// The schema says "number" but Tyk decodes an int and repeats the target
// weight times, so a fractional weight cannot be expressed.
type LoadBalancingTarget struct {
	URL    string `json:"url"`
	Weight int    `json:"weight"`
}

// PreserveHostHeader is X-Tyk-PreserveHostHeader (required enabled).
type PreserveHostHeader struct {
	Enabled bool `json:"enabled"`
}

// Middleware is X-Tyk-Middleware.
type Middleware struct {
	// Global is the middleware of the whole API.
	Global *Global `json:"global,omitempty"`
	// Operations is keyed by OpenAPI operationId; Tyk silently ignores a key
	// that matches no operation under paths.
	Operations map[string]Operation `json:"operations,omitempty"`
}

// Global is X-Tyk-Global, restricted to what gateway2tyk configures for the whole API.
type Global struct {
	// ContextVariables makes the request's context variables ($tyk_context.path, ...) available to the
	// middleware's values, such as a header transform's.
	ContextVariables *Allowance `json:"contextVariables,omitempty"`
}

// Operation is X-Tyk-Operation, restricted to the middleware gateway2tyk
// configures per endpoint.
type Operation struct {
	EnforceTimeout           *EnforceTimeout   `json:"enforceTimeout,omitempty"`
	IgnoreAuthentication     *Allowance        `json:"ignoreAuthentication,omitempty"`
	TransformRequestHeaders  *TransformHeaders `json:"transformRequestHeaders,omitempty"`
	TransformResponseHeaders *TransformHeaders `json:"transformResponseHeaders,omitempty"`
	URLRewrite               *URLRewrite       `json:"urlRewrite,omitempty"`
	MockResponse             *MockResponse     `json:"mockResponse,omitempty"`
}

// EnforceTimeout is X-Tyk-EnforceTimeout: Tyk answers 504 when the upstream takes longer. Value is whole
// seconds (the 5.4 line requires it, and refuses any other field); Duration (Tyk 5.14 on, for example "500ms")
// wins over Value where it is set; an older Gateway refuses it (the 5.4 line) or ignores it (v5.8.11). Tyk 5.14 stores Value as the duration
// rounded up to whole seconds, so a document that sets Duration sets that Value too.
type EnforceTimeout struct {
	Duration string `json:"duration,omitempty"`
	Enabled  bool   `json:"enabled"`
	Value    int    `json:"value"`
}

// Allowance is X-Tyk-Allowance (required enabled), the shape of
// ignoreAuthentication.
type Allowance struct {
	Enabled bool `json:"enabled"`
}

// TransformHeaders is X-Tyk-TransformHeaders (required enabled). Add is a
// list, not a map, so header order is the caller's and stays stable.
type TransformHeaders struct {
	Enabled bool     `json:"enabled"`
	Remove  []string `json:"remove,omitempty"`
	Add     []Header `json:"add,omitempty"`
}

// Header is X-Tyk-Header (required name, value).
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// URLRewrite is X-Tyk-URLRewrite (required enabled, pattern, rewriteTo).
type URLRewrite struct {
	Enabled   bool   `json:"enabled"`
	Pattern   string `json:"pattern"`
	RewriteTo string `json:"rewriteTo"`
	// Triggers are tried in order when Pattern matches: the first whose rules hold gives its RewriteTo instead.
	Triggers []URLRewriteTrigger `json:"triggers,omitempty"`
}

// URLRewriteTrigger is X-Tyk-URLRewriteTrigger: Condition "all" (every rule holds) or "any".
type URLRewriteTrigger struct {
	Condition string           `json:"condition"`
	Rules     []URLRewriteRule `json:"rules,omitempty"`
	RewriteTo string           `json:"rewriteTo"`
}

// URLRewriteRule is X-Tyk-URLRewriteRule: In is "header" or "query" here, Name the header or query parameter,
// Pattern a regular expression its value must match.
type URLRewriteRule struct {
	In      string `json:"in"`
	Name    string `json:"name"`
	Pattern string `json:"pattern"`
	Negate  bool   `json:"negate,omitempty"`
}

// MockResponse is X-Tyk-MockResponse (required enabled).
type MockResponse struct {
	Enabled bool     `json:"enabled"`
	Code    int      `json:"code,omitempty"`
	Body    string   `json:"body,omitempty"`
	Headers []Header `json:"headers,omitempty"`
}
