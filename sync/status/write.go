// Package status writes the render's would-be status of GatewayClasses, Gateways, ListenerSets and HTTPRoutes to their
// status subresource (`gateway2tyk sync --write-status`), where kubectl, k9s, Headlamp and Argo CD's health
// checks read it. The render decides every condition; this package only stamps what the render cannot know:
// observedGeneration (the live object's metadata.generation) and lastTransitionTime (kept while a condition's
// status is unchanged, else the time of writing, from an injected clock).
//
// Each object is read, then its status applied with server-side apply as field manager gateway2tyk, forced,
// with only the fields the render computes, and the live object's resourceVersion as a precondition (a
// conflict reads it again, at most three times). status.parents of an HTTPRoute is an atomic list in the
// Gateway API CRDs, so the entries of other controllers are read from the live object and applied unchanged
// with ours; status.conditions and status.listeners are maps (by type, by name), so other managers' entries
// there are kept by the API server itself.
//
// The status comes from the render's gateway2tyk.io/status annotation: on the objects of the rendered stream
// (--from), or on the live objects (in a cluster, where Argo CD applied the render's output with it). A
// failure is reported per object and stops nothing else.
package status

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/gateway2tyk/gateway2tyk/fn/emit"
)

// FieldManager is the server-side apply field manager of the status the writer applies.
const FieldManager = "gateway2tyk"

// Client is the writer's access to the cluster (sync/kube implements it with client-go's dynamic client).
type Client interface {
	Get(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error)
	// List returns the objects of a namespace ("" for every namespace, or a cluster-scoped resource).
	List(ctx context.Context, gvr schema.GroupVersionResource, namespace string) ([]unstructured.Unstructured, error)
	// ApplyStatus server-side applies obj to the status subresource as fieldManager, forced, and returns the
	// object the API server holds after it.
	ApplyStatus(ctx context.Context, gvr schema.GroupVersionResource, obj *unstructured.Unstructured, fieldManager string) (*unstructured.Unstructured, error)
}

// Writer writes statuses.
type Writer struct {
	Client Client
	// Now is the time of writing (lastTransitionTime of a condition whose status changed).
	Now func() time.Time
}

// Result is the outcome for one object.
type Result struct {
	Object  Object
	Outcome string // "written", "unchanged" (the API server held it already), or "failed: <reason>"
	Failed  bool
}

// Report is the outcome of a Write.
type Report struct {
	Results []Result
}

// Failed counts the objects whose status could not be written.
func (r *Report) Failed() int {
	n := 0
	for _, res := range r.Results {
		if res.Failed {
			n++
		}
	}
	return n
}

const attempts = 3

// Write writes the status of each object: GatewayClasses first, so that the controllerName of each is known
// as ours when an HTTPRoute's parents are merged (besides those the rendered parents name).
func (w *Writer) Write(ctx context.Context, objects []Object) *Report {
	sorted := append([]Object(nil), objects...)
	sort.SliceStable(sorted, func(i, j int) bool { return order(sorted[i].Kind) < order(sorted[j].Kind) })
	controllers := map[string]bool{}
	rep := &Report{}
	for _, o := range sorted {
		outcome, err := w.write(ctx, o, controllers)
		if err != nil {
			rep.Results = append(rep.Results, Result{Object: o, Outcome: "failed: " + err.Error(), Failed: true})
			continue
		}
		rep.Results = append(rep.Results, Result{Object: o, Outcome: outcome})
	}
	return rep
}

func order(kind string) int {
	return map[string]int{KindGatewayClass: 0, KindGateway: 1, KindListenerSet: 2, KindHTTPRoute: 3}[kind]
}

func (w *Writer) write(ctx context.Context, o Object, controllers map[string]bool) (string, error) {
	gvr := Resources[o.Kind]
	for attempt := 1; ; attempt++ {
		live, err := w.Client.Get(ctx, gvr, o.Namespace, o.Name)
		if apierrors.IsNotFound(err) {
			return "", fmt.Errorf("not in the cluster (apply the rendered objects before the sync)")
		}
		if err != nil {
			return "", fmt.Errorf("reading it: %w", err)
		}
		if o.Kind == KindGatewayClass {
			if c, ok, _ := unstructured.NestedString(live.Object, "spec", "controllerName"); ok && c != "" {
				controllers[c] = true
			}
		}
		js := o.Status
		if js == "" {
			var ok bool
			if js, ok = live.GetAnnotations()[emit.AnnotationStatus]; !ok {
				return "", fmt.Errorf("the live object has no annotation %s (not rendered by gateway2tyk, or "+
					"applied without it)", emit.AnnotationStatus)
			}
		}
		var rendered map[string]any
		if err := utiljson.Unmarshal([]byte(js), &rendered); err != nil {
			return "", fmt.Errorf("annotation %s: %v", emit.AnnotationStatus, err)
		}
		liveStatus, _ := live.Object["status"].(map[string]any)
		own := map[string]bool{}
		for c := range controllers {
			own[c] = true
		}
		st, err := applied(o.Kind, rendered, liveStatus, live.GetGeneration(), own, w.Now())
		if err != nil {
			return "", fmt.Errorf("annotation %s: %v", emit.AnnotationStatus, err)
		}
		md := map[string]any{"name": o.Name, "resourceVersion": live.GetResourceVersion()}
		if o.Namespace != "" {
			md["namespace"] = o.Namespace
		}
		body := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": gvr.GroupVersion().String(), "kind": o.Kind, "metadata": md, "status": st}}
		after, err := w.Client.ApplyStatus(ctx, gvr, body, FieldManager)
		if apierrors.IsConflict(err) && attempt < attempts {
			// Changed since it was read (another controller wrote its entry of status.parents, say): read again.
			continue
		}
		if err != nil {
			return "", fmt.Errorf("the API server refused the status: %w", err)
		}
		if after != nil && after.GetResourceVersion() == live.GetResourceVersion() {
			return "unchanged", nil
		}
		return "written", nil
	}
}

// Discover finds, in a cluster, the GatewayClasses (all) and the Gateways, ListenerSets and HTTPRoutes of the namespaces
// (every namespace when none is given) that carry the render's status annotation.
func Discover(ctx context.Context, c Client, namespaces []string) ([]Object, error) {
	if len(namespaces) == 0 {
		namespaces = []string{""}
	}
	var out []Object
	for _, kind := range []string{KindGatewayClass, KindGateway, KindListenerSet, KindHTTPRoute} {
		scopes := namespaces
		if kind == KindGatewayClass {
			scopes = []string{""}
		}
		for _, ns := range scopes {
			items, err := c.List(ctx, Resources[kind], ns)
			if err != nil && kind == KindListenerSet && apierrors.IsNotFound(err) {
				break // a cluster whose Gateway API CRDs predate ListenerSets (v1.5) has none to write
			}
			if err != nil {
				where := "every namespace"
				if ns != "" {
					where = "namespace " + ns
				}
				if kind == KindGatewayClass {
					where = "the cluster"
				}
				return nil, fmt.Errorf("listing the %ss of %s: %w", kind, where, err)
			}
			for _, it := range items {
				if _, ok := it.GetAnnotations()[emit.AnnotationStatus]; ok {
					out = append(out, Object{Kind: kind, Namespace: it.GetNamespace(), Name: it.GetName()})
				}
			}
		}
	}
	return out, nil
}

// Print writes one line per object and a summary to out, and one line per failure to errw.
func (r *Report) Print(out, errw io.Writer) {
	n := map[string]int{}
	for _, res := range r.Results {
		fmt.Fprintf(out, "status: %s: %s\n", res.Object, res.Outcome)
		if res.Failed {
			n["failed"]++
			fmt.Fprintf(errw, "gateway2tyk sync: the status of %s was not written: %s\n", res.Object,
				strings.ReplaceAll(strings.TrimPrefix(res.Outcome, "failed: "), "\n", " "))
			continue
		}
		n[res.Outcome]++
	}
	fmt.Fprintf(out, "status: %d written, %d unchanged, %d failed\n", n["written"], n["unchanged"], n["failed"])
}
