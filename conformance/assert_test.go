package conformance

// The assertions of the suite's utils/kubernetes/helpers.go, over the render instead of a cluster. Each has the
// name of the helper it mirrors and checks what that helper waits for, minus what needs a running data plane.
// The helpers poll until a condition holds; a render is final, so a mismatch fails at once (t.Errorf, so that
// every mismatch of a test is reported).

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func (w *world) gatewayStatus(t *testing.T, gwNN types.NamespacedName) (gwv1.GatewayStatus, bool) {
	t.Helper()
	var st gwv1.GatewayStatus
	gen, ok := w.status(t, "Gateway", gwNN, &st)
	if ok {
		ok = latestObservedGeneration(t, "Gateway "+gwNN.String(), gen, st.Conditions)
	}
	return st, ok
}

func (w *world) routeStatus(t *testing.T, routeNN types.NamespacedName) (gwv1.HTTPRouteStatus, bool) {
	t.Helper()
	var st gwv1.HTTPRouteStatus
	gen, ok := w.status(t, "HTTPRoute", routeNN, &st)
	for _, p := range st.Parents {
		if ok {
			ok = latestObservedGeneration(t, fmt.Sprintf("HTTPRoute %s (parentRef %s)", routeNN, parentRefString(p.ParentRef)),
				gen, p.Conditions)
		}
	}
	return st, ok
}

// latestObservedGeneration mirrors ConditionsHaveLatestObservedGeneration, which every helper checks first.
func latestObservedGeneration(t *testing.T, what string, generation int64, conds []metav1.Condition) bool {
	t.Helper()
	var stale []string
	for _, c := range conds {
		if c.ObservedGeneration != generation {
			stale = append(stale, fmt.Sprintf("%s (generation %d)", c.Type, c.ObservedGeneration))
		}
	}
	if len(stale) > 0 {
		t.Errorf("%s: expected observedGeneration %d on all conditions, stale: %s", what, generation, strings.Join(stale, ", "))
		return false
	}
	return true
}

// gwcMustHaveAcceptedConditionTrue mirrors GWCMustHaveAcceptedConditionTrue.
func gwcMustHaveAcceptedConditionTrue(t *testing.T, w *world, name string) {
	t.Helper()
	gwcMustHaveAcceptedCondition(t, w, name, metav1.ConditionTrue)
}

// gwcMustHaveAcceptedCondition mirrors gwcMustBeAccepted: the latest observedGeneration, and an Accepted
// condition of the status ("" for GWCMustHaveAcceptedConditionAny: any status).
func gwcMustHaveAcceptedCondition(t *testing.T, w *world, name string, status metav1.ConditionStatus) {
	t.Helper()
	var st gwv1.GatewayClassStatus
	gen, ok := w.status(t, "GatewayClass", types.NamespacedName{Name: name}, &st)
	if !ok || !latestObservedGeneration(t, "GatewayClass "+name, gen, st.Conditions) {
		return
	}
	if !findCondition(st.Conditions, cond("Accepted", status, "")) {
		t.Errorf("GatewayClass %s: expected Accepted %s, got %s", name, conditionString(cond("Accepted", status, "")),
			conditionsString(st.Conditions))
	}
}

// namespacesMustBeReady mirrors NamespacesMustBeReady for what the render decides: every Gateway of the
// namespaces that is not annotated gateway-api/skip-this-for-readiness must be Accepted True.
//
// On a platform with a data plane (the gateway-api profile) they must be Programmed True too, as the helper
// requires. Left out otherwise: the suite's Gateways have no infrastructure.parametersRef, so by the Tyk Operator
// reference ("Gateways Without a Data Plane Context") they are Programmed False UnsupportedAddress. Left out
// always: every Pod Ready (there are no Pods offline).
func namespacesMustBeReady(t *testing.T, w *world, namespaces []string) {
	t.Helper()
	for _, ns := range namespaces {
		for _, n := range w.gateways(ns) {
			if n.GetAnnotations()[skipReadinessAnnotation] == "true" {
				continue
			}
			gwNN := nsName(n.GetNamespace(), n.GetName())
			st, ok := w.gatewayStatus(t, gwNN)
			if !ok {
				continue
			}
			if !findCondition(st.Conditions, cond("Accepted", metav1.ConditionTrue, "")) {
				t.Errorf("NamespacesMustBeReady: Gateway %s: expected Accepted True, got %s", gwNN, conditionsString(st.Conditions))
			}
			if w.dataPlane && !findCondition(st.Conditions, cond("Programmed", metav1.ConditionTrue, "")) {
				t.Errorf("NamespacesMustBeReady: Gateway %s: expected Programmed True, got %s", gwNN, conditionsString(st.Conditions))
			}
		}
	}
}

// gatewayAndHTTPRoutesMustBeAccepted mirrors GatewayAndHTTPRoutesMustBeAccepted (RoutesAndParentMustBeAccepted):
// each route has, for each listener name given (one empty name when none is), a parent for the Gateway that is
// Accepted True Accepted, and every listener of the Gateway is ResolvedRefs, Accepted and Programmed True.
//
// WaitForGatewayAddress, the Gateway address the suite sends its requests to, is checked on a platform with a
// data plane only: by the Tyk Operator reference a Gateway without infrastructure.parametersRef has no address.
func gatewayAndHTTPRoutesMustBeAccepted(t *testing.T, w *world, gwNN types.NamespacedName, listenerNames []string, routeNNs ...types.NamespacedName) {
	t.Helper()
	if w.dataPlane {
		waitForGatewayAddress(t, w, gwNN)
	}
	if len(listenerNames) == 0 {
		listenerNames = []string{""} // NewGatewayRef
	}
	for _, routeNN := range routeNNs {
		namespaceRequired := routeNN.Namespace != gwNN.Namespace
		var parents []gwv1.RouteParentStatus
		for _, l := range listenerNames {
			ref := parentRefTo(gwNN)
			ref.SectionName = new(gwv1.SectionName(l))
			parents = append(parents, gwv1.RouteParentStatus{
				ParentRef:      ref,
				ControllerName: controllerName,
				Conditions:     []metav1.Condition{cond("Accepted", metav1.ConditionTrue, "Accepted")},
			})
		}
		httpRouteMustHaveParents(t, w, routeNN, parents, namespaceRequired)
	}
	gatewayListenersMustHaveConditions(t, w, gwNN, []metav1.Condition{
		cond("ResolvedRefs", metav1.ConditionTrue, ""),
		cond("Accepted", metav1.ConditionTrue, ""),
		cond("Programmed", metav1.ConditionTrue, ""),
	})
}

// waitForGatewayAddress mirrors WaitForGatewayAddress: the Gateway has an address with a type in status.
func waitForGatewayAddress(t *testing.T, w *world, gwNN types.NamespacedName) {
	t.Helper()
	st, ok := w.gatewayStatus(t, gwNN)
	if ok && !slices.ContainsFunc(st.Addresses, func(a gwv1.GatewayStatusAddress) bool { return a.Type != nil }) {
		t.Errorf("Gateway %s: expected an address in status, got %v (conditions %s)", gwNN, st.Addresses, conditionsString(st.Conditions))
	}
}

// gatewayListenersMustHaveConditions mirrors GatewayListenersMustHaveConditions without listener names: every
// listener in the Gateway's status has every condition.
func gatewayListenersMustHaveConditions(t *testing.T, w *world, gwNN types.NamespacedName, conds []metav1.Condition) {
	t.Helper()
	st, ok := w.gatewayStatus(t, gwNN)
	if !ok {
		return
	}
	for _, l := range st.Listeners {
		for _, c := range conds {
			if !findCondition(l.Conditions, c) {
				t.Errorf("Gateway %s listener %s: expected condition %s, got %s", gwNN, l.Name, conditionString(c),
					conditionsString(l.Conditions))
			}
		}
	}
}

// httpRouteMustHaveParents mirrors HTTPRouteMustHaveParents (parentsForRouteMatch): every expected parent is
// matched by a parent in status with the same controllerName, parentRef group, kind, name and namespace (a
// namespace left unset in status matches when namespaceRequired is false) and the expected conditions. Like the
// suite, it does not compare sectionName or port.
func httpRouteMustHaveParents(t *testing.T, w *world, routeNN types.NamespacedName, expected []gwv1.RouteParentStatus, namespaceRequired bool) {
	t.Helper()
	st, ok := w.routeStatus(t, routeNN)
	if !ok {
		return
	}
	for _, e := range expected {
		matched := false
		for _, a := range st.Parents {
			if a.ControllerName != e.ControllerName ||
				!reflect.DeepEqual(a.ParentRef.Group, e.ParentRef.Group) ||
				!reflect.DeepEqual(a.ParentRef.Kind, e.ParentRef.Kind) ||
				a.ParentRef.Name != e.ParentRef.Name {
				continue
			}
			if !reflect.DeepEqual(a.ParentRef.Namespace, e.ParentRef.Namespace) && (namespaceRequired || a.ParentRef.Namespace != nil) {
				continue
			}
			if conditionsMatch(e.Conditions, a.Conditions) {
				matched = true
			}
		}
		if !matched {
			t.Errorf("HTTPRoute %s: expected a parent %s (controller %s) with %s; status.parents: %s", routeNN,
				parentRefString(e.ParentRef), e.ControllerName, conditionsString(e.Conditions), parentsString(st.Parents))
		}
	}
}

// httpRouteMustHaveCondition mirrors HTTPRouteMustHaveCondition: a parent whose parentRef names the Gateway
// (its namespace unset or the Gateway's) has the condition.
func httpRouteMustHaveCondition(t *testing.T, w *world, routeNN, gwNN types.NamespacedName, c metav1.Condition) {
	t.Helper()
	st, ok := w.routeStatus(t, routeNN)
	if !ok {
		return
	}
	for _, p := range st.Parents {
		if string(p.ParentRef.Name) == gwNN.Name && (p.ParentRef.Namespace == nil || string(*p.ParentRef.Namespace) == gwNN.Namespace) &&
			findCondition(p.Conditions, c) {
			return
		}
	}
	t.Errorf("HTTPRoute %s: expected condition %s for parent Gateway %s; status.parents: %s", routeNN,
		conditionString(c), gwNN, parentsString(st.Parents))
}

// httpRouteMustHaveResolvedRefsConditionsTrue mirrors HTTPRouteMustHaveResolvedRefsConditionsTrue.
func httpRouteMustHaveResolvedRefsConditionsTrue(t *testing.T, w *world, routeNN, gwNN types.NamespacedName) {
	t.Helper()
	httpRouteMustHaveCondition(t, w, routeNN, gwNN, cond("ResolvedRefs", metav1.ConditionTrue, "ResolvedRefs"))
}

// httpRouteMustHaveNoAcceptedParents mirrors HTTPRouteMustHaveNoAcceptedParents: no parent in status, or a
// single one that is Accepted False.
func httpRouteMustHaveNoAcceptedParents(t *testing.T, w *world, routeNN types.NamespacedName) {
	t.Helper()
	st, ok := w.routeStatus(t, routeNN)
	switch {
	case !ok, len(st.Parents) == 0:
	case len(st.Parents) > 1:
		t.Errorf("HTTPRoute %s: expected no parent or a single one that is not accepted; status.parents: %s", routeNN,
			parentsString(st.Parents))
	case !conditionsMatch([]metav1.Condition{cond("Accepted", metav1.ConditionFalse, "")}, st.Parents[0].Conditions):
		t.Errorf("HTTPRoute %s: expected its parent to be Accepted False; status.parents: %s", routeNN, parentsString(st.Parents))
	}
}

// gatewayMustHaveCondition mirrors GatewayMustHaveCondition.
func gatewayMustHaveCondition(t *testing.T, w *world, gwNN types.NamespacedName, c metav1.Condition) {
	t.Helper()
	st, ok := w.gatewayStatus(t, gwNN)
	if ok && !findCondition(st.Conditions, c) {
		t.Errorf("Gateway %s: expected condition %s, got %s", gwNN, conditionString(c), conditionsString(st.Conditions))
	}
}

// gatewayMustHaveLatestConditions mirrors GatewayMustHaveLatestConditions.
func gatewayMustHaveLatestConditions(t *testing.T, w *world, gwNN types.NamespacedName) {
	t.Helper()
	w.gatewayStatus(t, gwNN)
}

// gatewayMustHaveZeroRoutes mirrors GatewayMustHaveZeroRoutes: no listener in status, or a single one with no
// attached route.
func gatewayMustHaveZeroRoutes(t *testing.T, w *world, gwNN types.NamespacedName) {
	t.Helper()
	st, ok := w.gatewayStatus(t, gwNN)
	if !ok || len(st.Listeners) == 0 || (len(st.Listeners) == 1 && st.Listeners[0].AttachedRoutes == 0) {
		return
	}
	t.Errorf("Gateway %s: expected zero listeners or exactly 1 listener with zero routes, got %s", gwNN,
		listenersString(st.Listeners))
}

// gatewayStatusMustHaveListeners mirrors GatewayStatusMustHaveListeners (gatewayListenersMatch): as many
// listeners as expected; for each, by name: no supported kind when none is expected, else every expected kind
// (a nil group is gateway.networking.k8s.io), the same attachedRoutes, and the expected conditions.
func gatewayStatusMustHaveListeners(t *testing.T, w *world, gwNN types.NamespacedName, expected []gwv1.ListenerStatus) {
	t.Helper()
	st, ok := w.gatewayStatus(t, gwNN)
	if !ok {
		return
	}
	if why := listenersMismatch(expected, st.Listeners); why != "" {
		t.Errorf("Gateway %s: %s\n  expected listeners: %s\n  status.listeners:   %s", gwNN, why,
			listenersString(expected), listenersString(st.Listeners))
	}
}

func listenersMismatch(expected, actual []gwv1.ListenerStatus) string {
	if len(expected) != len(actual) {
		return fmt.Sprintf("expected %d listeners in status, got %d", len(expected), len(actual))
	}
	var why []string
	for _, e := range expected {
		i := slices.IndexFunc(actual, func(a gwv1.ListenerStatus) bool { return a.Name == e.Name })
		if i < 0 {
			why = append(why, fmt.Sprintf("listener %s: not in status", e.Name))
			continue
		}
		a := actual[i]
		if len(e.SupportedKinds) == 0 && len(a.SupportedKinds) != 0 {
			why = append(why, fmt.Sprintf("listener %s: expected no supportedKinds, got %s", e.Name, kindsString(a.SupportedKinds)))
		}
		for _, ek := range e.SupportedKinds {
			if !slices.ContainsFunc(a.SupportedKinds, func(ak gwv1.RouteGroupKind) bool {
				return groupOrDefault(ak.Group) == groupOrDefault(ek.Group) && ak.Kind == ek.Kind
			}) {
				why = append(why, fmt.Sprintf("listener %s: expected %s/%s in supportedKinds, got %s", e.Name,
					groupOrDefault(ek.Group), ek.Kind, kindsString(a.SupportedKinds)))
			}
		}
		if a.AttachedRoutes != e.AttachedRoutes {
			why = append(why, fmt.Sprintf("listener %s: expected attachedRoutes %d, got %d", e.Name, e.AttachedRoutes, a.AttachedRoutes))
		}
		if !conditionsMatch(e.Conditions, a.Conditions) {
			why = append(why, fmt.Sprintf("listener %s: expected conditions %s, got %s", e.Name,
				conditionsString(e.Conditions), conditionsString(a.Conditions)))
		}
	}
	return strings.Join(why, "; ")
}

// conditionsMatch mirrors conditionsMatch: at least as many conditions as expected, and each expected one found.
func conditionsMatch(expected, actual []metav1.Condition) bool {
	if len(actual) < len(expected) {
		return false
	}
	for _, c := range expected {
		if !findCondition(actual, c) {
			return false
		}
	}
	return true
}

// findCondition mirrors findConditionInList: same type, and the status and reason when they are set.
func findCondition(conds []metav1.Condition, want metav1.Condition) bool {
	return slices.ContainsFunc(conds, func(c metav1.Condition) bool {
		return c.Type == want.Type && (want.Status == "" || c.Status == want.Status) && (want.Reason == "" || c.Reason == want.Reason)
	})
}

// cond is an expected condition; an empty reason means any reason, as in the suite.
func cond(typ string, status metav1.ConditionStatus, reason string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason}
}

// parentRefTo mirrors parentRefTo of tests/httproute-hostname-intersection.go.
func parentRefTo(gwNN types.NamespacedName) gwv1.ParentReference {
	return gwv1.ParentReference{
		Group:     new(gwv1.Group(gwv1.GroupName)),
		Kind:      new(gwv1.Kind("Gateway")),
		Namespace: new(gwv1.Namespace(gwNN.Namespace)),
		Name:      gwv1.ObjectName(gwNN.Name),
	}
}

// listener is an expected listener status.
func listener(name string, kinds []gwv1.RouteGroupKind, attached int32, conds ...metav1.Condition) gwv1.ListenerStatus {
	return gwv1.ListenerStatus{Name: gwv1.SectionName(name), SupportedKinds: kinds, AttachedRoutes: attached, Conditions: conds}
}

// httpRouteKind is the supportedKinds entry for HTTPRoute; noKinds is an empty supportedKinds.
var (
	httpRouteKind = []gwv1.RouteGroupKind{{Group: new(gwv1.Group(gwv1.GroupName)), Kind: "HTTPRoute"}}
	noKinds       = []gwv1.RouteGroupKind{}
)

func groupOrDefault(g *gwv1.Group) string {
	if g == nil {
		return gwv1.GroupName
	}
	return string(*g)
}

func conditionString(c metav1.Condition) string {
	status, reason := string(c.Status), c.Reason
	if status == "" {
		status = "<any>"
	}
	if reason == "" {
		reason = "<any>"
	}
	return fmt.Sprintf("%s=%s/%s", c.Type, status, reason)
}

func conditionsString(conds []metav1.Condition) string {
	s := make([]string, len(conds))
	for i, c := range conds {
		s[i] = conditionString(c)
		if c.Message != "" {
			s[i] += fmt.Sprintf(" (%q)", c.Message)
		}
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func kindsString(kinds []gwv1.RouteGroupKind) string {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = groupOrDefault(k.Group) + "/" + string(k.Kind)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func listenersString(ls []gwv1.ListenerStatus) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = fmt.Sprintf("{%s kinds=%s attachedRoutes=%d conditions=%s}", l.Name, kindsString(l.SupportedKinds),
			l.AttachedRoutes, conditionsString(l.Conditions))
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func parentRefString(r gwv1.ParentReference) string {
	s := fmt.Sprintf("%s/%s ", groupOrDefault(r.Group), kindOrDefault(r.Kind))
	if r.Namespace != nil {
		s += string(*r.Namespace) + "/"
	}
	s += string(r.Name)
	if r.SectionName != nil && *r.SectionName != "" {
		s += "#" + string(*r.SectionName)
	}
	if r.Port != nil {
		s += fmt.Sprintf(":%d", *r.Port)
	}
	return s
}

func kindOrDefault(k *gwv1.Kind) string {
	if k == nil {
		return "Gateway"
	}
	return string(*k)
}

func parentsString(ps []gwv1.RouteParentStatus) string {
	if len(ps) == 0 {
		return "none"
	}
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = fmt.Sprintf("{%s controller=%s conditions=%s}", parentRefString(p.ParentRef), p.ControllerName,
			conditionsString(p.Conditions))
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// gwcMustListSupportedFeatures checks the GatewayClass's status.supportedFeatures, which the suite reads to infer
// what to test (utils/suite, SupportedFeatures from the GatewayClass): exactly these names, in this order (the
// field must be sorted by name).
func gwcMustListSupportedFeatures(t *testing.T, w *world, name string, want ...string) {
	t.Helper()
	var st gwv1.GatewayClassStatus
	if _, ok := w.status(t, "GatewayClass", types.NamespacedName{Name: name}, &st); !ok {
		return
	}
	got := make([]string, len(st.SupportedFeatures))
	for i, f := range st.SupportedFeatures {
		got[i] = string(f.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("GatewayClass %s: expected supportedFeatures %v, got %v", name, want, got)
	}
}
