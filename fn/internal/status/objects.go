package status

import (
	"bytes"
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// ConditionsStatus is the status of a TykOasApiDefinition as the render reports it: the conditions alone.
type ConditionsStatus struct {
	Conditions []metav1.Condition `json:"conditions"`
}

// ClassStatus is the status of a GatewayClass: its conditions and, in the gateway-api profile, the features it
// supports (none in the operator profile, so its bytes are those of the conditions alone).
type ClassStatus struct {
	Conditions        []metav1.Condition      `json:"conditions"`
	SupportedFeatures []gwv1.SupportedFeature `json:"supportedFeatures,omitempty"`
}

// Encode writes a status object as compact JSON. metav1.Condition always writes lastTransitionTime, as null
// when it is unset, and leaves out observedGeneration when it is 0; the render has no clock, so the time is
// removed rather than left holding a null, and the contract wants observedGeneration on every condition, so a
// 0 is written. Keys come out sorted, so the bytes are stable.
func Encode(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var tree any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return "", err
	}
	dropUnsetTimes(tree)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tree); err != nil {
		return "", err
	}
	return string(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

func dropUnsetTimes(v any) {
	switch t := v.(type) {
	case map[string]any:
		if val, ok := t["lastTransitionTime"]; ok {
			// Only metav1.Condition has this key: the map is a condition.
			if val == nil {
				delete(t, "lastTransitionTime")
			}
			if _, ok := t["observedGeneration"]; !ok {
				t["observedGeneration"] = json.Number("0")
			}
		}
		for _, child := range t {
			dropUnsetTimes(child)
		}
	case []any:
		for _, child := range t {
			dropUnsetTimes(child)
		}
	}
}
