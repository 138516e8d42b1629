package status

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/kustomize/kyaml/kio/filters"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/emit"
)

// The kinds whose status the writer writes. A TykOasApiDefinition is not among them, although the render
// reports its Accepted condition: Tyk Operator's published CRD (1.4.2) has no status.conditions, and Operator
// 1.6, which reports that condition, writes it itself as the definition's controller; two writers of one
// condition would take it from each other on every run.
const (
	KindGatewayClass = "GatewayClass"
	KindGateway      = "Gateway"
	KindHTTPRoute    = "HTTPRoute"
	KindListenerSet  = "ListenerSet"
)

// Resources maps each kind to its resource (the v1 API; every served version has the same status).
var Resources = map[string]schema.GroupVersionResource{
	KindGatewayClass: {Group: gwv1.GroupName, Version: "v1", Resource: "gatewayclasses"},
	KindGateway:      {Group: gwv1.GroupName, Version: "v1", Resource: "gateways"},
	KindHTTPRoute:    {Group: gwv1.GroupName, Version: "v1", Resource: "httproutes"},
	KindListenerSet:  {Group: gwv1.GroupName, Version: "v1", Resource: "listenersets"},
}

// Object is one object whose status to write.
type Object struct {
	Kind, Namespace, Name string
	// Status is the render's would-be status, the JSON of the gateway2tyk.io/status annotation; "" for an
	// object named on the command line, whose annotation the writer reads from the live object.
	Status string
}

func (o Object) String() string {
	if o.Namespace == "" {
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
}

// FromStream returns the GatewayClasses, Gateways, ListenerSets and HTTPRoutes of a rendered stream that carry the render's
// status annotation and are not local-config, in stream order; namespaced ones only when inScope says their
// namespace is covered.
func FromStream(nodes []*yaml.RNode, inScope func(namespace string) bool) []Object {
	var out []Object
	for _, n := range nodes {
		kind := n.GetKind()
		if _, ok := Resources[kind]; !ok || !strings.HasPrefix(n.GetApiVersion(), gwv1.GroupName+"/") {
			continue
		}
		st, ok := n.GetAnnotations()[emit.AnnotationStatus]
		if _, local := n.GetAnnotations()[filters.LocalConfigAnnotation]; !ok || local {
			// A local-config object is a fact of the cluster that someone else applies.
			continue
		}
		ns := n.GetNamespace()
		if kind != KindGatewayClass {
			if ns == "" {
				ns = "default"
			}
			if !inScope(ns) {
				continue
			}
		} else {
			ns = ""
		}
		out = append(out, Object{Kind: kind, Namespace: ns, Name: n.GetName(), Status: st})
	}
	return out
}

// ParseObject reads an object named as KIND/NAME (a GatewayClass) or KIND/NAMESPACE/NAME.
func ParseObject(s string) (Object, error) {
	parts := strings.Split(s, "/")
	kind := parts[0]
	if _, ok := Resources[kind]; !ok {
		return Object{}, fmt.Errorf("%q: the kind must be one of %s", s, strings.Join(kinds(), ", "))
	}
	var o Object
	switch {
	case kind == KindGatewayClass && len(parts) == 2:
		o = Object{Kind: kind, Name: parts[1]}
	case kind != KindGatewayClass && len(parts) == 3:
		o = Object{Kind: kind, Namespace: parts[1], Name: parts[2]}
		if errs := validation.IsDNS1123Label(o.Namespace); len(errs) > 0 {
			return Object{}, fmt.Errorf("%q: namespace %s", s, strings.Join(errs, "; "))
		}
	default:
		return Object{}, fmt.Errorf("%q: must be GatewayClass/NAME, Gateway/NAMESPACE/NAME or HTTPRoute/NAMESPACE/NAME", s)
	}
	if errs := validation.IsDNS1123Subdomain(o.Name); len(errs) > 0 {
		return Object{}, fmt.Errorf("%q: name %s", s, strings.Join(errs, "; "))
	}
	return o, nil
}

func kinds() []string {
	out := make([]string, 0, len(Resources))
	for k := range Resources {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
