package inventory

import (
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The render sees objects as they are written in the repository, before the API server has applied the
// defaults of the CRD schemas. These functions apply the defaults that change a decision, so an omitted field
// means exactly what it would mean in a cluster.

// DefaultGateway applies the Gateway CRD defaults: allowedRoutes.namespaces.from Same, route kind group
// gateway.networking.k8s.io, TLS mode Terminate, certificateRef group "" and kind Secret.
func DefaultGateway(gw *gwv1.Gateway) {
	for i := range gw.Spec.Listeners {
		l := &gw.Spec.Listeners[i]
		if l.AllowedRoutes == nil {
			l.AllowedRoutes = &gwv1.AllowedRoutes{}
		}
		if l.AllowedRoutes.Namespaces == nil {
			l.AllowedRoutes.Namespaces = &gwv1.RouteNamespaces{}
		}
		if l.AllowedRoutes.Namespaces.From == nil || *l.AllowedRoutes.Namespaces.From == "" {
			from := gwv1.NamespacesFromSame
			l.AllowedRoutes.Namespaces.From = &from
		}
		for k := range l.AllowedRoutes.Kinds {
			if l.AllowedRoutes.Kinds[k].Group == nil {
				l.AllowedRoutes.Kinds[k].Group = ptr(gwv1.Group(GatewayGroup))
			}
		}
		if l.TLS != nil {
			if l.TLS.Mode == nil || *l.TLS.Mode == "" {
				l.TLS.Mode = ptr(gwv1.TLSModeTerminate)
			}
			for c := range l.TLS.CertificateRefs {
				ref := &l.TLS.CertificateRefs[c]
				if ref.Group == nil {
					ref.Group = ptr(gwv1.Group(""))
				}
				if ref.Kind == nil {
					ref.Kind = ptr(gwv1.Kind(KindSecret))
				}
			}
		}
	}
}

// DefaultHTTPRoute applies the HTTPRoute CRD defaults: parentRef group gateway.networking.k8s.io and kind Gateway,
// a rule list of one rule matching PathPrefix "/", per-rule matches of PathPrefix "/", path type PathPrefix and
// value "/", header and query match type Exact, backendRef group "" and kind Service, weight 1.
func DefaultHTTPRoute(r *gwv1.HTTPRoute) {
	for i := range r.Spec.ParentRefs {
		DefaultParentRef(&r.Spec.ParentRefs[i])
	}
	if len(r.Spec.Rules) == 0 {
		r.Spec.Rules = []gwv1.HTTPRouteRule{{}}
	}
	for i := range r.Spec.Rules {
		rule := &r.Spec.Rules[i]
		if len(rule.Matches) == 0 {
			rule.Matches = []gwv1.HTTPRouteMatch{{}}
		}
		for m := range rule.Matches {
			match := &rule.Matches[m]
			if match.Path == nil {
				match.Path = &gwv1.HTTPPathMatch{}
			}
			if match.Path.Type == nil {
				match.Path.Type = ptr(gwv1.PathMatchPathPrefix)
			}
			if match.Path.Value == nil {
				match.Path.Value = ptr("/")
			}
			for h := range match.Headers {
				if match.Headers[h].Type == nil {
					match.Headers[h].Type = ptr(gwv1.HeaderMatchExact)
				}
			}
			for q := range match.QueryParams {
				if match.QueryParams[q].Type == nil {
					match.QueryParams[q].Type = ptr(gwv1.QueryParamMatchExact)
				}
			}
		}
		for b := range rule.BackendRefs {
			DefaultBackendObjectRef(&rule.BackendRefs[b].BackendObjectReference)
			if rule.BackendRefs[b].Weight == nil {
				rule.BackendRefs[b].Weight = ptr(int32(1))
			}
		}
	}
}

// DefaultParentRef fills a parentRef's group and kind (gateway.networking.k8s.io, Gateway).
func DefaultParentRef(ref *gwv1.ParentReference) {
	if ref.Group == nil {
		ref.Group = ptr(gwv1.Group(GatewayGroup))
	}
	if ref.Kind == nil {
		ref.Kind = ptr(gwv1.Kind(KindGateway))
	}
}

// DefaultBackendObjectRef fills a backend reference's group ("", the core group) and kind (Service).
func DefaultBackendObjectRef(ref *gwv1.BackendObjectReference) {
	if ref.Group == nil {
		ref.Group = ptr(gwv1.Group(""))
	}
	if ref.Kind == nil {
		ref.Kind = ptr(gwv1.Kind(KindService))
	}
}

func ptr[T any](v T) *T { return &v }
