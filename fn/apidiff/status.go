package apidiff

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/status"
)

// objectStatus is the part of a status annotation the diff reads, in the Gateway API's own types: the
// conditions of any object, a Gateway's listeners, a route's parents.
type objectStatus struct {
	Conditions []metav1.Condition       `json:"conditions"`
	Listeners  []gwv1.ListenerStatus    `json:"listeners"`
	Parents    []gwv1.RouteParentStatus `json:"parents"`
}

// compareStatus lists the would-be status changes of every object, in kind, namespace, name order.
func compareStatus(old, new map[Object]string) ([]StatusChange, error) {
	objects := map[Object]bool{}
	for o := range old {
		objects[o] = true
	}
	for o := range new {
		objects[o] = true
	}
	var keys []Object
	for o := range objects {
		if old[o] != new[o] {
			keys = append(keys, o)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	var out []StatusChange
	for _, o := range keys {
		before, err := decodeStatus(o, old[o])
		if err != nil {
			return nil, err
		}
		after, err := decodeStatus(o, new[o])
		if err != nil {
			return nil, err
		}
		changes := statusChanges(o, before, after)
		if len(changes) > 0 {
			out = append(out, StatusChange{Object: o, Changes: changes})
		}
	}
	return out, nil
}

func decodeStatus(o Object, s string) (objectStatus, error) {
	var st objectStatus
	if s == "" {
		return st, nil
	}
	if err := json.Unmarshal([]byte(s), &st); err != nil {
		return st, fmt.Errorf("%s: annotation gateway2tyk.io/status: %v", o, err)
	}
	return st, nil
}

func statusChanges(o Object, old, new objectStatus) []Change {
	var out []Change
	out = append(out, conditionChanges("", old.Conditions, new.Conditions, false)...)
	names, oldL, newL := byName(old.Listeners, new.Listeners, func(l gwv1.ListenerStatus) string { return string(l.Name) })
	for _, n := range names {
		a, inOld := oldL[n]
		b, inNew := newL[n]
		subject := "listener " + n
		if inOld && inNew && a.AttachedRoutes != b.AttachedRoutes {
			c := Change{Subject: subject + " attachedRoutes", Old: fmt.Sprint(a.AttachedRoutes), New: fmt.Sprint(b.AttachedRoutes)}
			if b.AttachedRoutes == 0 {
				c.Warning, c.Risk = true, RiskListenerEmptied
			}
			out = append(out, c)
		}
		out = append(out, conditionChanges(subject+" ", a.Conditions, b.Conditions, false)...)
	}
	parents, oldP, newP := byName(old.Parents, new.Parents, func(p gwv1.RouteParentStatus) string { return parentName(o, p.ParentRef) })
	for _, k := range parents {
		out = append(out, conditionChanges("parent "+k+" ", oldP[k].Conditions, newP[k].Conditions, true)...)
	}
	return append(out, acceptanceLost(o, old.Parents, new.Parents)...)
}

// byName files the entries of two lists by name and returns every name of either, sorted.
func byName[T any](old, new []T, name func(T) string) (names []string, oldBy, newBy map[string]T) {
	oldBy, newBy = map[string]T{}, map[string]T{}
	for _, e := range old {
		oldBy[name(e)] = e
	}
	for _, e := range new {
		newBy[name(e)] = e
	}
	for n := range oldBy {
		names = append(names, n)
	}
	for n := range newBy {
		if _, ok := oldBy[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, oldBy, newBy
}

// acceptanceLost reports a route that was accepted by a parent and, still there, is accepted by none: when its
// parentRefs change (a typo in a sectionName), no single parent's Accepted goes from True to False, yet the
// route stops being served.
func acceptanceLost(o Object, old, new []gwv1.RouteParentStatus) []Change {
	accepted := func(ps []gwv1.RouteParentStatus) []string {
		var names []string
		for _, p := range ps {
			if c := status.Find(p.Conditions, string(gwv1.RouteConditionAccepted)); c != nil && healthy(c) {
				names = append(names, parentName(o, p.ParentRef))
			}
		}
		sort.Strings(names)
		return names
	}
	before, after := accepted(old), accepted(new)
	if len(before) == 0 || len(after) > 0 || len(new) == 0 {
		return nil
	}
	for _, p := range old {
		if !hasParent(new, parentName(o, p.ParentRef), o) {
			return []Change{{Subject: "accepted by", Old: strings.Join(before, ", "), New: "no parent", Warning: true,
				Risk: RiskAcceptanceLost}}
		}
	}
	return nil // every old parent is still there: its own Accepted change carries the risk
}

func hasParent(ps []gwv1.RouteParentStatus, name string, o Object) bool {
	for _, p := range ps {
		if parentName(o, p.ParentRef) == name {
			return true
		}
	}
	return false
}

// parentName writes a parentRef as a reviewer reads it: kind, namespace/name (the route's namespace when
// unset), and the section.
func parentName(route Object, ref gwv1.ParentReference) string {
	kind := "Gateway"
	if ref.Kind != nil {
		kind = string(*ref.Kind)
	}
	ns := route.Namespace
	if ref.Namespace != nil {
		ns = string(*ref.Namespace)
	}
	s := kind + " " + ns + "/" + string(ref.Name)
	if ref.SectionName != nil {
		s += " section " + string(*ref.SectionName)
	}
	if ref.Port != nil {
		s += fmt.Sprintf(" port %d", *ref.Port)
	}
	return s
}

// conditionChanges compares two lists of conditions by type. A condition that stops being as it should be is a
// warning; losing Accepted, or a route's ResolvedRefs, is the named risk.
func conditionChanges(prefix string, old, new []metav1.Condition, routeParent bool) []Change {
	types := map[string]bool{}
	var names []string
	for _, list := range [][]metav1.Condition{old, new} {
		for _, c := range list {
			if !types[c.Type] {
				types[c.Type] = true
				names = append(names, c.Type)
			}
		}
	}
	sort.Strings(names)
	var out []Change
	for _, t := range names {
		a, b := status.Find(old, t), status.Find(new, t)
		if conditionText(a) == conditionText(b) {
			continue
		}
		c := Change{Subject: prefix + t, Old: conditionText(a), New: conditionText(b)}
		if b != nil && !healthy(b) && (a == nil || healthy(a)) {
			c.Warning = true
			switch {
			case a != nil && t == string(gwv1.RouteConditionAccepted):
				c.Risk = RiskAcceptanceLost
			case a != nil && routeParent && t == string(gwv1.RouteConditionResolvedRefs):
				c.Risk = RiskBackendUnresolved
			default:
				c.Risk = RiskNewWarning
			}
		}
		out = append(out, c)
	}
	return out
}

// healthy reports whether a condition is as it should be: True, except for the conditions whose True is the
// problem (a listener Conflicted, a route PartiallyInvalid).
func healthy(c *metav1.Condition) bool {
	switch c.Type {
	case string(gwv1.ListenerConditionConflicted), string(gwv1.RouteConditionPartiallyInvalid):
		return c.Status == metav1.ConditionFalse
	}
	return c.Status == metav1.ConditionTrue
}

func conditionText(c *metav1.Condition) string {
	if c == nil {
		return "absent"
	}
	s := string(c.Status) + " (" + c.Reason
	if c.Message != "" {
		s += ": " + strings.TrimSpace(c.Message)
	}
	return s + ")"
}
