// Package emit owns the output items: the ConfigMaps and TykOasApiDefinitions that hold the rendered APIs,
// with their labels and annotations, the Services of Gateways (service.go), the gateway2tyk.io/status and gateway2tyk.io/health annotations on input items, and the upsert of
// emitted objects into the item list (replaced, never duplicated; output sorted so that input order does not
// matter). It decides nothing; it writes what the other stages decided.
package emit

import (
	"sort"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/meta"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Labels and annotations written on emitted objects.
const (
	LabelManagedBy = "app.kubernetes.io/managed-by"
	ManagedBy      = "gateway2tyk"
	LabelAPIID     = "gateway2tyk.io/api-id"
	// LabelOwner names the application that owns the API (config.Spec.Owner): the sync creates, updates and
	// deletes only the APIs of the owners of its input.
	LabelOwner = "gateway2tyk.io/owner"
	// LabelComponent and ComponentSyncHook mark the objects of the Argo CD sync hook (package fn/hook).
	LabelComponent    = "app.kubernetes.io/component"
	ComponentSyncHook = "sync-hook"
	// ComponentGatewayService marks the Service the gateway-api profile emits for a Gateway (config's
	// gatewayPorts).
	ComponentGatewayService = "gateway-service"

	AnnotationRoute    = "gateway2tyk.io/route"
	AnnotationGateway  = "gateway2tyk.io/gateway"
	AnnotationHostname = "gateway2tyk.io/hostname"
	AnnotationPath     = "gateway2tyk.io/path"
	// AnnotationRole says what an API of a routed path is for (gateway-api profile; none on a plain API):
	// "router", "internal spec.rules[N]" (the rule it serves), "no rule" (its 404s).
	AnnotationRole       = "gateway2tyk.io/role"
	AnnotationConditions = "gateway2tyk.io/conditions"
	AnnotationStatus     = "gateway2tyk.io/status"
	AnnotationHealth     = "gateway2tyk.io/health"

	// DocumentKey is the ConfigMap key of the Tyk OAS document.
	DocumentKey = "tyk-oas.json"
)

// Part says whether an object is gateway2tyk's own output, and which part of it.
type Part int

// The parts of the output.
const (
	// NotOurs is any object gateway2tyk did not emit: an input.
	NotOurs Part = iota
	// OursAPI is the ConfigMap or TykOasApiDefinition of a rendered API (labelled with its API ID).
	OursAPI
	// OursSyncHook is an object of the Argo CD sync hook (package fn/hook).
	OursSyncHook
	// OursGatewayService is the Service emitted for a Gateway (config's gatewayPorts). Unlike the other parts it
	// is read as input too: the copy in the cluster carries the load balancer's address, a fact the render
	// needs, and the ports it gave the Gateway, which it keeps; a render then replaces it.
	OursGatewayService
	// OursOther is labelled app.kubernetes.io/managed-by: gateway2tyk and is neither: never read as input, and
	// never replaced either.
	OursOther
)

// Ours is the one answer to "is this object ours?", from its labels: the reader skips every part of our output
// (fn/read), a render replaces the APIs and the hook objects of an earlier run (Upsert, fn/hook.Without), and the
// sync reads the APIs (sync/source). Whose API it is, among the applications that share a Tyk, is Owner's answer.
func Ours(labels map[string]string) Part {
	if labels[LabelManagedBy] != ManagedBy {
		return NotOurs
	}
	if _, ok := labels[LabelAPIID]; ok {
		return OursAPI
	}
	switch labels[LabelComponent] {
	case ComponentSyncHook:
		return OursSyncHook
	case ComponentGatewayService:
		return OursGatewayService
	}
	return OursOther
}

// Owner is the owner of an emitted API object (its LabelOwner), "" for one an older release emitted.
func Owner(labels map[string]string) string { return labels[LabelOwner] }

// IsEmitted reports whether an item is an API object that gateway2tyk emitted on an earlier run: such items are
// replaced by this run's, so running the function on its own output changes nothing.
func IsEmitted(node *yaml.RNode) bool { return Ours(meta.Labels(node)) == OursAPI }

// Replaced reports whether an item is replaced by a render's output: an API object or a Gateway's Service that
// gateway2tyk emitted on an earlier run.
func Replaced(node *yaml.RNode) bool {
	p := Ours(meta.Labels(node))
	return p == OursAPI || p == OursGatewayService
}

// Upsert returns the items without those emitted by an earlier run, plus the newly emitted ones, sorted by
// kind, namespace, name and apiVersion so that the output does not depend on the input order. Items that share
// all four keep their relative order.
func Upsert(items, emitted []*yaml.RNode) []*yaml.RNode {
	out := make([]*yaml.RNode, 0, len(items)+len(emitted))
	for _, it := range items {
		if !Replaced(it) {
			out = append(out, it)
		}
	}
	out = append(out, emitted...)
	keys := make([]sortKey, len(out))
	for i, it := range out {
		keys[i] = keyOf(it)
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]].less(keys[idx[b]]) })
	sorted := make([]*yaml.RNode, len(out))
	for i, j := range idx {
		sorted[i] = out[j]
	}
	return sorted
}

type sortKey struct{ kind, namespace, name, apiVersion string }

func keyOf(n *yaml.RNode) sortKey {
	return sortKey{kind: n.GetKind(), namespace: n.GetNamespace(), name: n.GetName(), apiVersion: n.GetApiVersion()}
}

func (a sortKey) less(b sortKey) bool {
	switch {
	case a.kind != b.kind:
		return a.kind < b.kind
	case a.namespace != b.namespace:
		return a.namespace < b.namespace
	case a.name != b.name:
		return a.name < b.name
	}
	return a.apiVersion < b.apiVersion
}

// SetStatus writes the gateway2tyk.io/status and gateway2tyk.io/health annotations on an input item, leaving
// the rest of it as it was.
func SetStatus(node *yaml.RNode, statusJSON, health string) error {
	if err := node.PipeE(yaml.SetAnnotation(AnnotationStatus, statusJSON)); err != nil {
		return err
	}
	return node.PipeE(yaml.SetAnnotation(AnnotationHealth, health))
}
