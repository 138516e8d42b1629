package basedoc

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/internal/status"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
	"github.com/gateway2tyk/gateway2tyk/fn/tykapi"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas"
)

// Reasons of a TykOasApiDefinition's Accepted condition (the reference's TykOasApiDefinition Conditions table).
const (
	ReasonAttached               = "Attached"
	ReasonNotAttached            = "NotAttached"
	ReasonBaseDocumentUnresolved = "BaseDocumentUnresolved"
	ReasonDocumentInvalid        = "DocumentInvalid"
	ReasonAttachmentConflict     = "AttachmentConflict"
	ReasonUnsupportedTarget      = "UnsupportedTarget"
)

const extensionKey = tykoas.ExtensionKey

// Definition is an attached TykOasApiDefinition and what became of it.
type Definition struct {
	Def *tykapi.TykOasApiDefinition
	// Problem is what keeps its base document from being used; nil when the document is usable.
	Problem *Problem
	// Accepted is the definition's Accepted condition.
	Accepted metav1.Condition
	tree     map[string]any
}

// Problem is why a base document cannot be used: Reason is BaseDocumentUnresolved or DocumentInvalid, Field
// the field of the definition (or of the document) at fault.
type Problem struct {
	Reason, Field, Message string
}

// Name is the definition's namespace/name.
func (d *Definition) Name() string { return d.Def.Namespace + "/" + d.Def.Name }

// Result is every attached definition, and the one that applies to each target.
type Result struct {
	// Definitions are the TykOasApiDefinitions with targetRefs, sorted by namespace and name.
	Definitions []*Definition
	byRoute     map[types.NamespacedName]*Definition
	byGateway   map[types.NamespacedName]*Definition
}

// For returns the definition whose base applies to the APIs of a route on a Gateway: the winner on the route,
// else the winner on the Gateway; nil when none applies.
func (r *Result) For(route *gwv1.HTTPRoute, gw *gwv1.Gateway) *Definition {
	if r == nil {
		return nil
	}
	if d := r.byRoute[types.NamespacedName{Namespace: route.Namespace, Name: route.Name}]; d != nil {
		return d
	}
	return r.byGateway[types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}]
}

type target struct {
	kind string
	key  types.NamespacedName
}

// Resolve reads every TykOasApiDefinition with targetRefs: its targets, its base document, and which
// definition wins each target.
func Resolve(inv *inventory.Inventory) *Result {
	res := &Result{byRoute: map[types.NamespacedName]*Definition{}, byGateway: map[types.NamespacedName]*Definition{}}
	contenders := map[target][]*Definition{}
	targetsOf := map[*Definition][]target{}
	for _, def := range inv.DefinitionList {
		if len(def.Spec.TargetRefs) == 0 {
			continue // a plain definition, not attached to anything: Tyk Operator's business, not the render's
		}
		d := &Definition{Def: def}
		res.Definitions = append(res.Definitions, d)
		var unsupported []string
		for i, ref := range def.Spec.TargetRefs {
			if ref.Group != gwv1.GroupName || (ref.Kind != inventory.KindHTTPRoute && ref.Kind != inventory.KindGateway) {
				unsupported = append(unsupported, fmt.Sprintf("spec.targetRefs[%d] (%s)", i, groupKind(ref.Group, ref.Kind)))
				continue
			}
			key := types.NamespacedName{Namespace: def.Namespace, Name: ref.Name}
			exists := inv.HTTPRoutes[key] != nil
			if ref.Kind == inventory.KindGateway {
				exists = inv.Gateways[key] != nil
			}
			if exists && !slices.Contains(targetsOf[d], target{ref.Kind, key}) {
				// A target listed twice is one target: the definition must not lose it to itself.
				targetsOf[d] = append(targetsOf[d], target{ref.Kind, key})
			}
		}
		d.tree, d.Problem = readDocument(def, inv)
		if len(unsupported) > 0 {
			d.Accepted = condition(def, false, ReasonUnsupportedTarget, "targetRefs must refer to an HTTPRoute or a "+
				"Gateway (group gateway.networking.k8s.io) in the definition's namespace: "+strings.Join(unsupported, ", "))
			continue // a definition that is rejected competes for nothing
		}
		for _, t := range targetsOf[d] {
			contenders[t] = append(contenders[t], d)
		}
	}

	won := map[*Definition][]string{}
	lost := map[*Definition][]string{}
	for t, ds := range contenders {
		sort.Slice(ds, func(i, j int) bool { return inventory.Older(ds[i].Def, ds[j].Def) })
		winner := ds[0]
		name := t.kind + " " + t.key.String()
		won[winner] = append(won[winner], name)
		for _, d := range ds[1:] {
			lost[d] = append(lost[d], fmt.Sprintf("%s (definition %s takes precedence)", name, winner.Name()))
		}
		if t.kind == inventory.KindHTTPRoute {
			res.byRoute[t.key] = winner
		} else {
			res.byGateway[t.key] = winner
		}
	}
	for _, d := range res.Definitions {
		if d.Accepted.Type != "" {
			continue
		}
		sort.Strings(won[d])
		sort.Strings(lost[d])
		switch {
		case d.Problem != nil:
			d.Accepted = condition(d.Def, false, d.Problem.Reason, d.Problem.Message)
		case len(targetsOf[d]) == 0:
			d.Accepted = condition(d.Def, false, ReasonNotAttached, "no target of spec.targetRefs exists")
		case len(won[d]) == 0:
			d.Accepted = condition(d.Def, false, ReasonAttachmentConflict, "another definition takes precedence on "+
				"every target: "+strings.Join(lost[d], "; "))
		default:
			msg := "applies to " + strings.Join(won[d], ", ")
			if len(lost[d]) > 0 {
				msg += "; not to " + strings.Join(lost[d], "; ")
			}
			d.Accepted = condition(d.Def, true, ReasonAttached, msg)
		}
	}
	return res
}

// readDocument reads a definition's base document from its ConfigMap and checks it: the reference's
// DocumentInvalid (configmapRef or its key missing, no x-tyk-api-gateway object, a route-owned setting) and
// BaseDocumentUnresolved (the ConfigMap does not exist).
func readDocument(def *tykapi.TykOasApiDefinition, inv *inventory.Inventory) (map[string]any, *Problem) {
	ref := def.Spec.TykOAS.ConfigmapRef
	switch {
	case ref.Name == "":
		return nil, &Problem{ReasonDocumentInvalid, "spec.tykOAS.configmapRef.name", "spec.tykOAS.configmapRef.name is required"}
	case ref.KeyName == "":
		return nil, &Problem{ReasonDocumentInvalid, "spec.tykOAS.configmapRef.keyName", "spec.tykOAS.configmapRef.keyName is required"}
	}
	ns := ref.Namespace
	if ns == "" {
		ns = def.Namespace
	}
	key := types.NamespacedName{Namespace: ns, Name: ref.Name}
	cm := inv.ConfigMaps[key]
	if cm == nil {
		return nil, &Problem{ReasonBaseDocumentUnresolved, "spec.tykOAS.configmapRef",
			fmt.Sprintf("ConfigMap %s does not exist", key)}
	}
	raw, ok := cm.Data[ref.KeyName]
	if !ok {
		return nil, &Problem{ReasonDocumentInvalid, "spec.tykOAS.configmapRef.keyName",
			fmt.Sprintf("ConfigMap %s has no key %q", key, ref.KeyName)}
	}
	tree, err := tykoas.ParseTree([]byte(raw))
	if err != nil {
		return nil, &Problem{ReasonDocumentInvalid, "spec.tykOAS.configmapRef.keyName",
			fmt.Sprintf("ConfigMap %s key %q is not a JSON object: %v", key, ref.KeyName, err)}
	}
	if _, ok := tree[extensionKey].(map[string]any); !ok {
		return nil, &Problem{ReasonDocumentInvalid, extensionKey,
			fmt.Sprintf("the document in ConfigMap %s key %q has no %s object", key, ref.KeyName, extensionKey)}
	}
	if v, ok := tree["openapi"].(string); ok && !strings.HasPrefix(v, "3.0.") {
		return nil, &Problem{ReasonDocumentInvalid, "openapi", fmt.Sprintf("the document in ConfigMap %s key %q is "+
			"OpenAPI %s; Tyk OAS APIs are OpenAPI 3.0", key, ref.KeyName, v)}
	}
	if owned := ownedFields(tree); len(owned) > 0 {
		return nil, &Problem{ReasonDocumentInvalid, owned[0], fmt.Sprintf("the document in ConfigMap %s key %q sets %s, "+
			"which the route decides", key, ref.KeyName, strings.Join(owned, ", "))}
	}
	return tree, nil
}

func condition(def *tykapi.TykOasApiDefinition, ok bool, reason, message string) metav1.Condition {
	return status.Condition("Accepted", ok, reason, message, def.Generation)
}

func groupKind(group, kind string) string {
	if group == "" {
		return kind
	}
	return kind + "." + group
}
