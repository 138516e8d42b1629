package status

import (
	"fmt"
	"reflect"
	"time"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// applied is the status to apply for one object: the render's status (its annotation's JSON, decoded) with
// observedGeneration and lastTransitionTime of every condition decided against the live object, and, for an
// HTTPRoute, the live entries of status.parents that other controllers wrote. The render's status is not changed.
//
// Conditions are found in the live status at the same place: status.conditions, the listener of the same name
// (status.listeners is a map keyed by name), the parent of the same parentRef and controllerName. A condition
// keeps the live lastTransitionTime while its status (True, False, Unknown) is the live one; otherwise, or when
// the live object has none, it is now: the render has no clock, the writer has.
func applied(kind string, rendered, live map[string]any, generation int64, controllers map[string]bool, now time.Time) (map[string]any, error) {
	st, ok := deepCopy(rendered).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the status is not a JSON object")
	}
	stamp := now.UTC().Format(time.RFC3339)
	if err := stampConditions(st["conditions"], live["conditions"], generation, stamp); err != nil {
		return nil, fmt.Errorf("status.conditions: %w", err)
	}
	switch kind {
	case KindGateway, KindListenerSet:
		listeners, _ := st["listeners"].([]any)
		for i, l := range listeners {
			lm, _ := l.(map[string]any)
			match := find(live["listeners"], func(m map[string]any) bool { return m["name"] == lm["name"] })
			if err := stampConditions(lm["conditions"], match["conditions"], generation, stamp); err != nil {
				return nil, fmt.Errorf("status.listeners[%d].conditions: %w", i, err)
			}
		}
	case KindHTTPRoute:
		parents, _ := st["parents"].([]any)
		for i, p := range parents {
			pm, _ := p.(map[string]any)
			if c, ok := pm["controllerName"].(string); ok {
				controllers[c] = true
			}
			match := find(live["parents"], func(m map[string]any) bool { return sameParent(m, pm) })
			if err := stampConditions(pm["conditions"], match["conditions"], generation, stamp); err != nil {
				return nil, fmt.Errorf("status.parents[%d].conditions: %w", i, err)
			}
		}
		// status.parents is an atomic list (the CRD's x-kubernetes-list-type), so an apply replaces it whole:
		// the entries of other controllers are read from the live object and applied with ours, as Gateway API
		// asks of every implementation (update only the entries of its own controllerName).
		var kept []any
		liveParents, _ := live["parents"].([]any)
		for _, p := range liveParents {
			if pm, ok := p.(map[string]any); ok && !controllers[str(pm["controllerName"])] {
				kept = append(kept, deepCopy(pm))
			}
		}
		all := append(kept, parents...)
		if all == nil {
			all = []any{}
		}
		st["parents"] = all
	}
	return st, nil
}

// stampConditions sets observedGeneration and lastTransitionTime on a list of rendered conditions.
func stampConditions(list, live any, generation int64, stamp string) error {
	if list == nil {
		return nil
	}
	conds, ok := list.([]any)
	if !ok {
		return fmt.Errorf("not a list")
	}
	for i, c := range conds {
		cm, ok := c.(map[string]any)
		if !ok {
			return fmt.Errorf("[%d] is not an object", i)
		}
		cm["observedGeneration"] = generation
		cm["lastTransitionTime"] = stamp
		if old := find(live, func(m map[string]any) bool { return m["type"] == cm["type"] }); old != nil &&
			old["status"] == cm["status"] && str(old["lastTransitionTime"]) != "" {
			cm["lastTransitionTime"] = old["lastTransitionTime"]
		}
	}
	return nil
}

// find returns the first object of a list for which match holds, or nil.
func find(list any, match func(map[string]any) bool) map[string]any {
	items, _ := list.([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok && match(m) {
			return m
		}
	}
	return nil
}

// sameParent says whether two entries of status.parents are about the same parent of the same controller. The
// API server defaults parentRef's group and kind (the CRD's defaults) and the render writes what the route's
// parentRef says, so the defaults are filled in on both sides before they are compared.
func sameParent(a, b map[string]any) bool {
	return str(a["controllerName"]) == str(b["controllerName"]) &&
		reflect.DeepEqual(parentRef(a["parentRef"]), parentRef(b["parentRef"]))
}

func parentRef(v any) map[string]any {
	m, _ := v.(map[string]any)
	out := map[string]any{}
	for k, val := range m {
		out[k] = val
	}
	if str(out["group"]) == "" {
		out["group"] = gwv1.GroupName
	}
	if str(out["kind"]) == "" {
		out["kind"] = "Gateway"
	}
	// A port decoded from JSON is a float64, one read from the API server an int64.
	if p, ok := out["port"]; ok {
		out["port"] = fmt.Sprint(p)
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// deepCopy copies a decoded JSON value.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			out[k] = deepCopy(val)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = deepCopy(val)
		}
		return out
	}
	return v
}
