// Package status owns the would-be status that Tyk Operator would write: condition values, the Tyk-specific
// reasons that Gateway API does not name, the status objects in each resource's own schema, and their stable
// JSON. It decides nothing; the attachment and translation stages decide, and record their decisions here.
package status

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Reasons that Tyk Operator uses and Gateway API does not define.
const (
	ReasonDataPlaneShared        = "DataPlaneShared"
	ReasonEnvironmentUnresolved  = "EnvironmentUnresolved"
	ReasonTranslationFailed      = "TranslationFailed"
	ReasonAttachmentConflict     = "AttachmentConflict"
	ReasonBaseDocumentUnresolved = "BaseDocumentUnresolved"
	ReasonBaseDocumentInvalid    = "BaseDocumentInvalid"
	// ReasonPathConflict: another route serves the same hostname and path on the same Tyk Gateways and takes
	// precedence. Tyk would load both and rename a listen path; the render keeps the Gateway API winner.
	ReasonPathConflict = "PathConflict"
)

// Condition is a condition without a clock: the render has none, so lastTransitionTime stays unset and the
// output is byte-for-byte stable.
func Condition(typ string, ok bool, reason, message string, generation int64) metav1.Condition {
	s := metav1.ConditionFalse
	if ok {
		s = metav1.ConditionTrue
	}
	return metav1.Condition{Type: typ, Status: s, Reason: reason, Message: message, ObservedGeneration: generation}
}

// Set puts c into the list, replacing the condition of the same type in place or appending it. It is
// meta.SetStatusCondition without the clock that function reads.
func Set(list *[]metav1.Condition, c metav1.Condition) {
	if existing := meta.FindStatusCondition(*list, c.Type); existing != nil {
		*existing = c
		return
	}
	*list = append(*list, c)
}

// Find returns the condition of that type, or nil.
func Find(list []metav1.Condition, typ string) *metav1.Condition {
	return meta.FindStatusCondition(list, typ)
}

// IsTrue reports whether the condition of that type is present and True.
func IsTrue(list []metav1.Condition, typ string) bool { return meta.IsStatusConditionTrue(list, typ) }
