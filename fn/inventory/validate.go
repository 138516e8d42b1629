package inventory

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
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
// it: names, hostnames, ports, path values and weights. An object that fails would never exist in a cluster, so
// the render reports it and does not read it.
func Validate(obj any) []FieldProblem {
	var v validator
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

func (v *validator) gateway(gw *gwv1.Gateway) {
	v.required("spec.gatewayClassName", string(gw.Spec.GatewayClassName))
	if len(gw.Spec.Listeners) == 0 {
		v.add("spec.listeners", "must list at least one listener")
	}
	seen := map[gwv1.SectionName]bool{}
	for i, l := range gw.Spec.Listeners {
		f := fmt.Sprintf("spec.listeners[%d]", i)
		if l.Name == "" {
			v.add(f+".name", "required")
		} else if seen[l.Name] {
			v.add(f+".name", "listener name %q is used twice; names must be unique within a Gateway", l.Name)
		}
		seen[l.Name] = true
		v.port(f+".port", l.Port)
		v.required(f+".protocol", string(l.Protocol))
		if l.Hostname != nil {
			v.hostname(f+".hostname", string(*l.Hostname))
		}
	}
}

func (v *validator) httpRoute(r *gwv1.HTTPRoute) {
	for i, h := range r.Spec.Hostnames {
		v.hostname(fmt.Sprintf("spec.hostnames[%d]", i), string(h))
	}
	for i, p := range r.Spec.ParentRefs {
		f := fmt.Sprintf("spec.parentRefs[%d]", i)
		v.required(f+".name", string(p.Name))
		if p.Port != nil {
			v.port(f+".port", *p.Port)
		}
	}
	for i, rule := range r.Spec.Rules {
		f := fmt.Sprintf("spec.rules[%d]", i)
		for m, match := range rule.Matches {
			if match.Path != nil && match.Path.Value != nil && match.Path.Type != nil &&
				*match.Path.Type != gwv1.PathMatchRegularExpression && !strings.HasPrefix(*match.Path.Value, "/") {
				v.add(fmt.Sprintf("%s.matches[%d].path.value", f, m), "must start with \"/\" (got %q)", *match.Path.Value)
			}
			for h, hm := range match.Headers {
				if errs := validation.IsHTTPHeaderName(string(hm.Name)); len(errs) > 0 {
					v.add(fmt.Sprintf("%s.matches[%d].headers[%d].name", f, m, h), "%q is not a header name", hm.Name)
				}
			}
		}
		for k, filter := range rule.Filters {
			if r := filter.RequestRedirect; r != nil {
				rf := fmt.Sprintf("%s.filters[%d].requestRedirect", f, k)
				if r.StatusCode != nil && !oneOf(*r.StatusCode, 301, 302, 303, 307, 308) {
					v.add(rf+".statusCode", "must be one of 301, 302, 303, 307, 308 (the HTTPRoute CRD enum of requestRedirect.statusCode; got %d)", *r.StatusCode)
				}
				if r.Scheme != nil && !oneOf(*r.Scheme, "http", "https") {
					v.add(rf+".scheme", "must be http or https (the HTTPRoute CRD enum of requestRedirect.scheme; got %q)", *r.Scheme)
				}
			}
		}
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
		}
	}
}

func oneOf[T comparable](v T, allowed ...T) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}
