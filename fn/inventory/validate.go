package inventory

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/tykapi"
)

// FieldProblem is a value that the CRD schema (or the API server's own validation) would refuse.
type FieldProblem struct {
	Field   string
	Message string
}

// Validate checks what the API server would check before it stored the object, as far as the render depends on
// it: names, hostnames, ports, path values, weights, header names, list sizes and the CEL rules of the Gateway
// API CRDs (standard and experimental channels alike) that concern what the render reads. An object that fails
// would never exist in a cluster, so the render reports it, with the exact field path, and does not read it.
func Validate(obj any) []FieldProblem {
	var v validator
	if m, ok := obj.(metav1.Object); ok {
		v.meta(m, obj)
	}
	switch o := obj.(type) {
	case *gwv1.GatewayClass:
		v.name(o.Name)
		v.required("spec.controllerName", string(o.Spec.ControllerName))
	case *gwv1.Gateway:
		v.namespacedName(o.Namespace, o.Name)
		v.gateway(o)
	case *gwv1.HTTPRoute:
		v.namespacedName(o.Namespace, o.Name)
		v.httpRoute(o)
	case *gwv1.ReferenceGrant:
		v.namespacedName(o.Namespace, o.Name)
		if len(o.Spec.From) == 0 {
			v.add("spec.from", "must list at least one entry")
		}
		if len(o.Spec.To) == 0 {
			v.add("spec.to", "must list at least one entry")
		}
		v.maxItems("spec.from", len(o.Spec.From), 16)
		v.maxItems("spec.to", len(o.Spec.To), 16)
		for i, from := range o.Spec.From {
			v.required(fmt.Sprintf("spec.from[%d].kind", i), string(from.Kind))
			v.required(fmt.Sprintf("spec.from[%d].namespace", i), string(from.Namespace))
		}
		for i, to := range o.Spec.To {
			v.required(fmt.Sprintf("spec.to[%d].kind", i), string(to.Kind))
		}
	case *corev1.Namespace:
		v.name(o.Name)
	case *corev1.Service:
		v.namespacedName(o.Namespace, o.Name)
		for i, p := range o.Spec.Ports {
			v.port(fmt.Sprintf("spec.ports[%d].port", i), p.Port)
		}
	case interface {
		GetNamespace() string
		GetName() string
	}:
		v.namespacedName(o.GetNamespace(), o.GetName())
	}
	if ctx, ok := obj.(*tykapi.OperatorContext); ok && ctx.Spec.SecretRef != nil {
		v.required("spec.secretRef.name", ctx.Spec.SecretRef.Name)
	}
	return v.problems
}

type validator struct{ problems []FieldProblem }

func (v *validator) add(field, format string, args ...any) {
	v.problems = append(v.problems, FieldProblem{Field: field, Message: fmt.Sprintf(format, args...)})
}

func (v *validator) required(field, value string) {
	if value == "" {
		v.add(field, "required")
	}
}

func (v *validator) name(name string) {
	if name == "" {
		v.add("metadata.name", "required")
	}
}

// meta checks what the API server checks of every object's metadata: the format of the name (a DNS-1035 label
// for a Service, whose name is a DNS label of its cluster hostname; a DNS-1123 label for a Namespace; a DNS-1123
// subdomain for the rest), the namespace (a DNS-1123 label) and the total size of the annotations (256 KiB).
// An empty name is reported by the kind's own check.
func (v *validator) meta(m metav1.Object, obj any) {
	if name := m.GetName(); name != "" {
		var errs []string
		switch obj.(type) {
		case *corev1.Service:
			errs = validation.IsDNS1035Label(name)
		case *corev1.Namespace:
			errs = validation.IsDNS1123Label(name)
		default:
			errs = validation.IsDNS1123Subdomain(name)
		}
		if len(errs) > 0 {
			v.add("metadata.name", "%q is not a valid name: %s", name, strings.Join(errs, "; "))
		}
	}
	if ns := m.GetNamespace(); ns != "" {
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			v.add("metadata.namespace", "%q is not a valid namespace: %s", ns, strings.Join(errs, "; "))
		}
	}
	size := 0
	for k, val := range m.GetAnnotations() {
		size += len(k) + len(val)
	}
	if size > apivalidation.TotalAnnotationSizeLimitB {
		v.add("metadata.annotations", "must be at most %d bytes in all (256 KiB, the API server's limit; got %d)",
			apivalidation.TotalAnnotationSizeLimitB, size)
	}
}

// namespacedName checks the name. The namespace may be empty: kustomize and kpt leave it to the namespace of
// the kubectl context, and the render then treats the object as living in the namespace "" consistently.
func (v *validator) namespacedName(_, name string) { v.name(name) }

func (v *validator) port(field string, port int32) {
	if errs := validation.IsValidPortNum(int(port)); len(errs) > 0 {
		v.add(field, "%s (got %d)", strings.Join(errs, "; "), port)
	}
}

// hostname follows the Gateway API Hostname type: a DNS subdomain, optionally with one leading "*." label,
// and never an IP address.
func (v *validator) hostname(field, h string) {
	var errs []string
	if strings.HasPrefix(h, "*.") {
		errs = validation.IsWildcardDNS1123Subdomain(h)
	} else {
		errs = validation.IsDNS1123Subdomain(h)
	}
	if len(errs) > 0 {
		v.add(field, "%q is not a valid hostname: %s", h, strings.Join(errs, "; "))
		return
	}
	if validation.IsValidIP(nil, h) == nil {
		v.add(field, "%q is an IP address; a hostname is required", h)
	}
}

// preciseHostname follows the Gateway API PreciseHostname type (redirect and rewrite hostnames): a DNS
// subdomain, with no wildcard.
func (v *validator) preciseHostname(field, h string) {
	if errs := validation.IsDNS1123Subdomain(h); len(errs) > 0 {
		v.add(field, "%q is not a valid hostname: %s", h, strings.Join(errs, "; "))
	}
}

func (v *validator) gateway(gw *gwv1.Gateway) {
	v.required("spec.gatewayClassName", string(gw.Spec.GatewayClassName))
	if len(gw.Spec.Listeners) == 0 {
		v.add("spec.listeners", "must list at least one listener")
	}
	v.maxItems("spec.listeners", len(gw.Spec.Listeners), 64)
	seen := map[gwv1.SectionName]bool{}
	for i, l := range gw.Spec.Listeners {
		f := fmt.Sprintf("spec.listeners[%d]", i)
		if l.Name == "" {
			v.add(f+".name", "required")
		} else if seen[l.Name] {
			v.add(f+".name", "listener name %q is used twice; names must be unique within a Gateway", l.Name)
		} else if errs := validation.IsDNS1123Subdomain(string(l.Name)); len(errs) > 0 {
			v.add(f+".name", "%q is not a valid listener name: %s", l.Name, strings.Join(errs, "; "))
		}
		seen[l.Name] = true
		v.port(f+".port", l.Port)
		v.required(f+".protocol", string(l.Protocol))
		if l.Hostname != nil {
			v.hostname(f+".hostname", string(*l.Hostname))
		}
		v.listenerTLS(f, l)
	}
}

// listenerTLS applies the Gateway CRD rules of a listener's tls: none for HTTP, TCP and UDP; mode Terminate or
// Passthrough, and Terminate for HTTPS; each certificateRef named.
func (v *validator) listenerTLS(f string, l gwv1.Listener) {
	if l.TLS == nil {
		return
	}
	if oneOf(l.Protocol, gwv1.HTTPProtocolType, gwv1.TCPProtocolType, gwv1.UDPProtocolType) {
		v.add(f+".tls", "must not be set for protocol %s (the Gateway CRD rule)", l.Protocol)
		return
	}
	if m := l.TLS.Mode; m != nil && *m != "" {
		switch {
		case !oneOf(*m, gwv1.TLSModeTerminate, gwv1.TLSModePassthrough):
			v.add(f+".tls.mode", "must be Terminate or Passthrough (got %q)", *m)
		case l.Protocol == gwv1.HTTPSProtocolType && *m != gwv1.TLSModeTerminate:
			v.add(f+".tls.mode", "must be Terminate for protocol HTTPS (the Gateway CRD rule; got %q)", *m)
		}
	}
	v.maxItems(f+".tls.certificateRefs", len(l.TLS.CertificateRefs), 64)
	for c, ref := range l.TLS.CertificateRefs {
		v.required(fmt.Sprintf("%s.tls.certificateRefs[%d].name", f, c), string(ref.Name))
	}
}

func (v *validator) httpRoute(r *gwv1.HTTPRoute) {
	v.maxItems("spec.hostnames", len(r.Spec.Hostnames), 16)
	for i, h := range r.Spec.Hostnames {
		v.hostname(fmt.Sprintf("spec.hostnames[%d]", i), string(h))
	}
	v.maxItems("spec.parentRefs", len(r.Spec.ParentRefs), 32)
	for i, p := range r.Spec.ParentRefs {
		f := fmt.Sprintf("spec.parentRefs[%d]", i)
		v.required(f+".name", string(p.Name))
		if p.Port != nil {
			v.port(f+".port", *p.Port)
		}
	}
	v.maxItems("spec.rules", len(r.Spec.Rules), 16)
	matches := 0
	for i, rule := range r.Spec.Rules {
		f := fmt.Sprintf("spec.rules[%d]", i)
		matches += len(rule.Matches)
		v.maxItems(f+".matches", len(rule.Matches), 64)
		for m, match := range rule.Matches {
			v.match(fmt.Sprintf("%s.matches[%d]", f, m), match)
		}
		v.filters(f+".filters", rule.Filters)
		v.maxItems(f+".backendRefs", len(rule.BackendRefs), 16)
		for b, ref := range rule.BackendRefs {
			bf := fmt.Sprintf("%s.backendRefs[%d]", f, b)
			v.required(bf+".name", string(ref.Name))
			if ref.Port != nil {
				v.port(bf+".port", *ref.Port)
			} else if (ref.Group == nil || *ref.Group == "") && (ref.Kind == nil || *ref.Kind == KindService) {
				v.add(bf+".port", "required for a Service reference (the HTTPRoute CRD rule \"Must have port for Service reference\")")
			}
			if ref.Weight != nil && (*ref.Weight < 0 || *ref.Weight > 1000000) {
				v.add(bf+".weight", "must be between 0 and 1000000 (got %d)", *ref.Weight)
			}
			v.filters(bf+".filters", ref.Filters)
		}
		v.ruleFilters(f, rule)
	}
	if matches > 128 {
		v.add("spec.rules", "must have at most 128 matches in all rules together (the HTTPRoute CRD rule; got %d)", matches)
	}
}

// match checks a rule's match: the path value rules of the HTTPRoute CRD, and the header and query parameter
// names (HTTP tokens).
func (v *validator) match(f string, match gwv1.HTTPRouteMatch) {
	if p := match.Path; p != nil && p.Type != nil {
		switch t := *p.Type; t {
		case gwv1.PathMatchExact, gwv1.PathMatchPathPrefix:
			if p.Value != nil {
				v.pathValue(f+".path.value", *p.Value)
			}
		case gwv1.PathMatchRegularExpression:
		default:
			v.add(f+".path.type", "must be one of Exact, PathPrefix, RegularExpression (got %q)", t)
		}
		if p.Value != nil && len(*p.Value) > 1024 {
			v.add(f+".path.value", "must be at most 1024 characters (got %d)", len(*p.Value))
		}
	}
	v.maxItems(f+".headers", len(match.Headers), 16)
	seen := map[gwv1.HTTPHeaderName]bool{}
	for h, hm := range match.Headers {
		hf := fmt.Sprintf("%s.headers[%d]", f, h)
		v.headerName(hf+".name", string(hm.Name))
		v.unique(hf+".name", seen, hm.Name)
		v.value(hf+".value", hm.Value, 4096)
	}
	v.maxItems(f+".queryParams", len(match.QueryParams), 16)
	seenQ := map[gwv1.HTTPHeaderName]bool{}
	for q, qm := range match.QueryParams {
		qf := fmt.Sprintf("%s.queryParams[%d]", f, q)
		v.headerName(qf+".name", string(qm.Name))
		v.unique(qf+".name", seenQ, qm.Name)
		v.value(qf+".value", qm.Value, 1024)
	}
}

// pathValue applies the HTTPRoute CRD rules of an Exact or PathPrefix path value.
func (v *validator) pathValue(field, p string) {
	switch {
	case !strings.HasPrefix(p, "/"):
		v.add(field, "must start with \"/\" (got %q)", p)
	case !pathChars.MatchString(p):
		v.add(field, "must only contain the characters of a URL path (%s), got %q", pathChars, p)
	default:
		for _, bad := range []string{"//", "/./", "/../", "%2f", "%2F", "#"} {
			if strings.Contains(p, bad) {
				v.add(field, "must not contain %q (got %q)", bad, p)
				return
			}
		}
		for _, bad := range []string{"/..", "/."} {
			if strings.HasSuffix(p, bad) {
				v.add(field, "must not end with %q (got %q)", bad, p)
				return
			}
		}
	}
}

// pathChars is the HTTPRoute CRD pattern of an Exact or PathPrefix path value.
var pathChars = regexp.MustCompile(`^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$`)

// headerToken is the Gateway API HeaderName pattern: an HTTP token (RFC 7230).
var headerToken = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+\\-.^_`|~]+$")

func (v *validator) headerName(field, name string) {
	switch {
	case name == "":
		v.add(field, "required")
	case len(name) > 256:
		v.add(field, "must be at most 256 characters (got %d)", len(name))
	case !headerToken.MatchString(name):
		v.add(field, "%q is not a header name: it must be an HTTP token (letters, digits and !#$%%&'*+-.^_`|~)", name)
	}
}

// value checks a required string value with a maximum length.
func (v *validator) value(field, s string, max int) {
	switch {
	case s == "":
		v.add(field, "required")
	case len(s) > max:
		v.add(field, "must be at most %d characters (got %d)", max, len(s))
	}
}

// unique reports a list-map key given twice: the API server keeps list-map keys unique.
func (v *validator) unique(field string, seen map[gwv1.HTTPHeaderName]bool, name gwv1.HTTPHeaderName) {
	if name != "" && seen[name] {
		v.add(field, "%q is given twice; names must be unique in this list", name)
	}
	seen[name] = true
}

func (v *validator) maxItems(field string, n, max int) {
	if n > max {
		v.add(field, "must have at most %d items (got %d)", max, n)
	}
}

// unrepeatable are the filter types that the HTTPRoute CRD allows once in a list of filters.
var unrepeatable = []gwv1.HTTPRouteFilterType{
	gwv1.HTTPRouteFilterRequestHeaderModifier, gwv1.HTTPRouteFilterResponseHeaderModifier,
	gwv1.HTTPRouteFilterRequestRedirect, gwv1.HTTPRouteFilterURLRewrite, gwv1.HTTPRouteFilterCORS,
}

// filters checks a list of filters (of a rule or of a backendRef): the HTTPRoute CRD rules that a
// filter type is not repeated and that a redirect and a rewrite are not combined, and the header names,
// hostnames, ports and paths in the filters.
func (v *validator) filters(f string, filters []gwv1.HTTPRouteFilter) {
	v.maxItems(f, len(filters), 16)
	seen := map[gwv1.HTTPRouteFilterType]bool{}
	for k, filter := range filters {
		ff := fmt.Sprintf("%s[%d]", f, k)
		// An unknown type is not an error here: the CRD says types may be added, and the render reports a type it
		// does not support as UnsupportedValue.
		if seen[filter.Type] && oneOf(filter.Type, unrepeatable...) {
			v.add(ff+".type", "a %s filter cannot be repeated (the HTTPRoute CRD rule)", filter.Type)
		}
		seen[filter.Type] = true
		v.headerFilter(ff+".requestHeaderModifier", filter.RequestHeaderModifier)
		v.headerFilter(ff+".responseHeaderModifier", filter.ResponseHeaderModifier)
		if r := filter.RequestRedirect; r != nil {
			rf := ff + ".requestRedirect"
			if r.StatusCode != nil && !oneOf(*r.StatusCode, 301, 302, 303, 307, 308) {
				v.add(rf+".statusCode", "must be one of 301, 302, 303, 307, 308 (the HTTPRoute CRD enum of requestRedirect.statusCode; got %d)", *r.StatusCode)
			}
			if r.Scheme != nil && !oneOf(*r.Scheme, "http", "https") {
				v.add(rf+".scheme", "must be http or https (the HTTPRoute CRD enum of requestRedirect.scheme; got %q)", *r.Scheme)
			}
			if r.Hostname != nil {
				v.preciseHostname(rf+".hostname", string(*r.Hostname))
			}
			if r.Port != nil {
				v.port(rf+".port", *r.Port)
			}
			v.pathModifier(rf+".path", r.Path)
		}
		if r := filter.URLRewrite; r != nil {
			rf := ff + ".urlRewrite"
			if r.Hostname != nil {
				v.preciseHostname(rf+".hostname", string(*r.Hostname))
			}
			v.pathModifier(rf+".path", r.Path)
		}
	}
	if seen[gwv1.HTTPRouteFilterRequestRedirect] && seen[gwv1.HTTPRouteFilterURLRewrite] {
		v.add(f, "may have a RequestRedirect or a URLRewrite filter, but not both (the HTTPRoute CRD rule)")
	}
}

func (v *validator) headerFilter(f string, h *gwv1.HTTPHeaderFilter) {
	if h == nil {
		return
	}
	for _, list := range []struct {
		name    string
		headers []gwv1.HTTPHeader
	}{{"set", h.Set}, {"add", h.Add}} {
		v.maxItems(f+"."+list.name, len(list.headers), 16)
		seen := map[gwv1.HTTPHeaderName]bool{}
		for i, hd := range list.headers {
			hf := fmt.Sprintf("%s.%s[%d]", f, list.name, i)
			v.headerName(hf+".name", string(hd.Name))
			v.unique(hf+".name", seen, hd.Name)
			v.value(hf+".value", hd.Value, 4096)
		}
	}
	v.maxItems(f+".remove", len(h.Remove), 16)
}

// pathModifier applies the HTTPRoute CRD rules of a redirect's or rewrite's path: the type, and the field that
// goes with it.
func (v *validator) pathModifier(f string, p *gwv1.HTTPPathModifier) {
	if p == nil {
		return
	}
	switch p.Type {
	case gwv1.FullPathHTTPPathModifier:
		if p.ReplaceFullPath == nil {
			v.add(f+".replaceFullPath", "required when type is ReplaceFullPath")
		}
		if p.ReplacePrefixMatch != nil {
			v.add(f+".type", "must be ReplacePrefixMatch when replacePrefixMatch is set")
		}
	case gwv1.PrefixMatchHTTPPathModifier:
		if p.ReplacePrefixMatch == nil {
			v.add(f+".replacePrefixMatch", "required when type is ReplacePrefixMatch")
		}
		if p.ReplaceFullPath != nil {
			v.add(f+".type", "must be ReplaceFullPath when replaceFullPath is set")
		}
	default:
		v.add(f+".type", "must be ReplaceFullPath or ReplacePrefixMatch (got %q)", p.Type)
	}
	for _, s := range []struct {
		name  string
		value *string
	}{{"replaceFullPath", p.ReplaceFullPath}, {"replacePrefixMatch", p.ReplacePrefixMatch}} {
		if s.value != nil && len(*s.value) > 1024 {
			v.add(f+"."+s.name, "must be at most 1024 characters (got %d)", len(*s.value))
		}
	}
}

// ruleFilters applies the HTTPRoute CRD rules that tie a rule's filters to its backendRefs and matches.
func (v *validator) ruleFilters(f string, rule gwv1.HTTPRouteRule) {
	for k, filter := range rule.Filters {
		if filter.RequestRedirect != nil && len(rule.BackendRefs) > 0 {
			v.add(fmt.Sprintf("%s.filters[%d].requestRedirect", f, k),
				"must not be used together with backendRefs (the HTTPRoute CRD rule)")
		}
	}
	prefixModifier := func(filters []gwv1.HTTPRouteFilter) (string, bool) {
		for k, filter := range filters {
			for _, m := range []struct {
				name string
				path *gwv1.HTTPPathModifier
			}{{"requestRedirect", pathOf(filter.RequestRedirect)}, {"urlRewrite", rewritePathOf(filter.URLRewrite)}} {
				if p := m.path; p != nil && p.Type == gwv1.PrefixMatchHTTPPathModifier && p.ReplacePrefixMatch != nil {
					return fmt.Sprintf("filters[%d].%s.path.replacePrefixMatch", k, m.name), true
				}
			}
		}
		return "", false
	}
	onePrefixMatch := len(rule.Matches) == 1 && rule.Matches[0].Path != nil && rule.Matches[0].Path.Type != nil &&
		*rule.Matches[0].Path.Type == gwv1.PathMatchPathPrefix
	if onePrefixMatch {
		return
	}
	if field, ok := prefixModifier(rule.Filters); ok {
		v.add(f+"."+field, "needs exactly one PathPrefix match in the rule (the HTTPRoute CRD rule; the rule has %d matches)", len(rule.Matches))
	}
	for b, ref := range rule.BackendRefs {
		if field, ok := prefixModifier(ref.Filters); ok {
			v.add(fmt.Sprintf("%s.backendRefs[%d].%s", f, b, field),
				"needs exactly one PathPrefix match in the rule (the HTTPRoute CRD rule; the rule has %d matches)", len(rule.Matches))
		}
	}
}

func pathOf(r *gwv1.HTTPRequestRedirectFilter) *gwv1.HTTPPathModifier {
	if r == nil {
		return nil
	}
	return r.Path
}

func rewritePathOf(r *gwv1.HTTPURLRewriteFilter) *gwv1.HTTPPathModifier {
	if r == nil {
		return nil
	}
	return r.Path
}

func oneOf[T comparable](v T, allowed ...T) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}
