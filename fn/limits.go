package fn

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"

	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
	"github.com/gateway2tyk/gateway2tyk/fn/read"
)

// The API server's limits that an emitted API can reach, so that the render says so before a cluster refuses
// the object (shown on a real API server by e2e's TestRealKubeOutputs):
//   - a ConfigMap's data holds at most 1 MiB (corev1.MaxSecretSize; core validation's ValidateConfigMap);
//   - an object's annotations hold at most 256 KiB in all (apimachinery's TotalAnnotationSizeLimitB), and a
//     client-side `kubectl apply`, which is Argo CD's default, adds the whole object as JSON in the
//     kubectl.kubernetes.io/last-applied-configuration annotation.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// sizeLimit is an API whose emitted object reaches one of those limits.
type sizeLimit struct {
	route    inventory.Key
	severity framework.Severity
	message  string
}

// checkSize measures an emitted API object: its document against the ConfigMap limit (an error: the API server
// refuses it) and its JSON against the annotation limit of a client-side apply (a warning: a server-side apply
// stores it).
func checkSize(key inventory.Key, e emit.API, docSize int, node func() ([]byte, error)) *sizeLimit {
	if docSize > corev1.MaxSecretSize {
		return &sizeLimit{route: key, severity: framework.Error, message: fmt.Sprintf("the Tyk OAS document of API %s "+
			"is %d bytes: the API server refuses a ConfigMap whose data is over 1 MiB (%d bytes); split the route's "+
			"rules over several routes", e.ID, docSize, corev1.MaxSecretSize)}
	}
	// JSON escaping at most doubles a document of printable text; below this the object cannot reach the limit.
	if 2*docSize+len(e.Conditions)+4096 < apivalidation.TotalAnnotationSizeLimitB {
		return nil
	}
	data, err := node()
	if err != nil {
		return nil
	}
	size := len(data) + len(lastAppliedAnnotation) + annotationsSize(e)
	if size <= apivalidation.TotalAnnotationSizeLimitB {
		return nil
	}
	return &sizeLimit{route: key, severity: framework.Warning, message: fmt.Sprintf("the object of API %s is %d bytes "+
		"as JSON: a client-side kubectl apply (Argo CD's default) copies it into the %s annotation, and the API "+
		"server refuses annotations over 256 KiB (%d bytes); apply it server-side (kubectl apply --server-side; "+
		"Argo CD: the sync option ServerSideApply=true)", e.ID, len(data), lastAppliedAnnotation,
		apivalidation.TotalAnnotationSizeLimitB)}
}

// annotationsSize is the size of the annotations the contract gives an API object (keys and values).
func annotationsSize(e emit.API) int {
	return len(emit.AnnotationConditions) + len(e.Conditions) + len(emit.AnnotationGateway) + len(e.Gateway) +
		len(emit.AnnotationHostname) + len(e.Hostname) + len(emit.AnnotationPath) + len(e.Path) +
		len(emit.AnnotationRoute) + len(e.Route)
}

// sizeResults are the limits reached, as results on the routes.
func sizeResults(in *read.Result, limits []*sizeLimit) framework.Results {
	var out framework.Results
	for _, l := range limits {
		if l != nil {
			// The rules are what make a document large.
			out = append(out, result(l.severity, in.Nodes[l.route], "spec.rules", l.message))
		}
	}
	return out
}
