package attachment

import (
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
)

// refFrom is the referring side of a cross-namespace reference.
type refFrom struct {
	group, kind, namespace string
}

// refTo is the referred-to side.
type refTo struct {
	group, kind, namespace, name string
}

// permitted implements ReferenceGrant: a reference into the referrer's own namespace always is; a reference into
// another namespace needs a ReferenceGrant in the target namespace with a from entry that matches the referrer's
// group, kind and namespace, and a to entry that matches the target's group and kind, and its name if the entry
// names one.
func permitted(from refFrom, to refTo, inv *inventory.Inventory) bool {
	if from.namespace == to.namespace {
		return true
	}
	// The grants of the target namespace that name the referring namespace and kind in spec.from (looked up by
	// key: a shared namespace may hold a grant for every other namespace).
	for _, g := range inv.GrantsFrom[inventory.GrantFrom{To: to.namespace, Group: from.group, Kind: from.kind, Namespace: from.namespace}] {
		if grantAllows(g, from, to) {
			return true
		}
	}
	return false
}

func grantAllows(g *gwv1.ReferenceGrant, from refFrom, to refTo) bool {
	fromOK := false
	for _, f := range g.Spec.From {
		if string(f.Group) == from.group && string(f.Kind) == from.kind && string(f.Namespace) == from.namespace {
			fromOK = true
			break
		}
	}
	if !fromOK {
		return false
	}
	for _, t := range g.Spec.To {
		if string(t.Group) == to.group && string(t.Kind) == to.kind && (t.Name == nil || string(*t.Name) == to.name) {
			return true
		}
	}
	return false
}
