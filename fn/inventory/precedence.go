package inventory

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Older is Gateway API's tie-break between objects that claim the same thing: the oldest creationTimestamp
// wins, then the first by namespace/name. An unset timestamp (an object not yet applied, as every object in a
// repository is) counts as the newest. It reports whether a takes precedence over b; two objects with the same
// timestamp, namespace and name tie (false both ways).
func Older(a, b metav1.Object) bool {
	ta, tb := a.GetCreationTimestamp(), b.GetCreationTimestamp()
	if !ta.Equal(&tb) {
		switch {
		case ta.IsZero():
			return false
		case tb.IsZero():
			return true
		}
		return ta.Before(&tb)
	}
	if a.GetNamespace() != b.GetNamespace() {
		return a.GetNamespace() < b.GetNamespace()
	}
	return a.GetName() < b.GetName()
}
