// Package hook emits, when the function config asks for it (spec.syncHook.enabled), the Argo CD PostSync hook
// that pushes the rendered APIs to Tyk: a Job named gateway2tyk-sync (gateway2tyk-sync-<owner> for an owner other
// than config.FallbackOwner, NameFor), annotated argocd.argoproj.io/hook: PostSync and
// argocd.argoproj.io/hook-delete-policy: BeforeHookCreation,HookSucceeded, that runs
// `gateway2tyk sync --operator-context NS/NAME --owner OWNER --namespace NS...` from the project's image, with the
// ServiceAccount, Roles and RoleBindings it needs and nothing more:
//
//   - in every namespace the sync covers: get and list ConfigMaps. RBAC cannot restrict a list to a label
//     selector, so the hook can read every ConfigMap of those namespaces, although the sync only asks for those
//     labelled app.kubernetes.io/managed-by=gateway2tyk;
//   - get on the OperatorContext it uses and on the Secret of its secretRef (by name);
//   - get on the Gateways of the rendered APIs that have HTTPS listeners, and on the listeners' certificate
//     Secrets (by name), so that it can upload the certificates the render never outputs;
//   - when the OperatorContext names a data-plane Service (spec.dataPlane.serviceRef) and is not in pro mode:
//     get on that Service (by name) and list on the EndpointSlices of its namespace, so that the sync can
//     push to every ready Gateway behind it (an open-source Gateway keeps what it is given to itself);
//   - when spec.syncHook.writeStatus is on, the sync runs with --write-status and one --status-object for each
//     GatewayClass, Gateway and HTTPRoute the render wrote a status on, and may get those objects and patch
//     their status subresource, by name: in a Role of each namespace for Gateways and HTTPRoutes, in a
//     ClusterRole (named gateway2tyk-sync-<the Job's namespace>, since a cluster-scoped name is shared by every
//     application) for GatewayClasses, which are cluster-scoped. The writer reads the status from the live
//     objects' gateway2tyk.io/status annotation, which Argo CD applied with the render's output.
//
// The Role objects are plain resources (created in Argo CD's Sync phase, before the PostSync hook runs); only
// the Job is a hook. Every object is labelled app.kubernetes.io/managed-by: gateway2tyk and
// app.kubernetes.io/component: sync-hook, which is how a later run recognises and replaces them.
//
// The namespaces the sync covers are spec.syncHook.namespaces, else those of the HTTPRoutes in the input. The
// sync reads only the ConfigMaps of its owner (--owner) and deletes only its owner's APIs of routes in those
// namespaces; a namespace whose last route is removed from git drops out of the default, so its APIs stay until
// it is listed in spec.syncHook.namespaces. Two applications that share a Tyk (and so, often, an OperatorContext
// and the namespace of their Jobs) have hooks of different names, one per owner, so that neither application's
// Argo CD sync replaces or prunes the other's Job, ServiceAccount or Roles.
package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	k8syaml "sigs.k8s.io/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/meta"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
	"github.com/gateway2tyk/gateway2tyk/fn/tykapi"
)

// Names, labels and annotations of the hook objects.
const (
	// Name is the name of the Job, the ServiceAccount, the Roles and the RoleBindings of the fallback owner
	// (config.FallbackOwner); NameFor names those of any owner.
	Name = "gateway2tyk-sync"

	LabelManagedBy = emit.LabelManagedBy
	ManagedBy      = emit.ManagedBy
	LabelName      = "app.kubernetes.io/name"
	LabelComponent = emit.LabelComponent
	Component      = emit.ComponentSyncHook

	AnnotationHook         = "argocd.argoproj.io/hook"
	HookPostSync           = "PostSync"
	AnnotationDeletePolicy = "argocd.argoproj.io/hook-delete-policy"
	DeletePolicy           = "BeforeHookCreation,HookSucceeded"
)

// API is what the hook needs of one rendered API: its namespace and its Gateway.
type API struct {
	Namespace string
	Gateway   *gwv1.Gateway
}

// IsHook reports whether an item is a hook object emitted by an earlier run.
func IsHook(n *yaml.RNode) bool { return emit.Ours(meta.Labels(n)) == emit.OursSyncHook }

// maxName is the longest name the hook's objects get: the Job's name is the value of its Pods' label job-name,
// and a label value has at most 63 characters.
const maxName = 63

// NameFor is the name of the hook objects of an owner: Name for config.FallbackOwner (so that the name a
// release before owners gave them stays), else Name-<owner> in lower case with '.' and '_' written '-'; a name
// longer than maxName keeps the end of the owner and 8 hex digits of its SHA-256.
func NameFor(owner string) string {
	if owner == "" || owner == config.FallbackOwner {
		return Name
	}
	s := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r + ('a' - 'A')
		}
		return '-'
	}, owner)
	name := Name + "-" + s
	if len(name) > maxName {
		sum := sha256.Sum256([]byte(owner))
		suffix := "-" + hex.EncodeToString(sum[:4])
		tail := strings.TrimLeft(s[len(s)-(maxName-len(Name)-1-len(suffix)):], "-")
		name = Name + "-" + tail + suffix
	}
	return name
}

// Without returns the items that are not hook objects, so that a run on its own output replaces them.
func Without(items []*yaml.RNode) []*yaml.RNode {
	out := make([]*yaml.RNode, 0, len(items))
	for _, it := range items {
		if !IsHook(it) {
			out = append(out, it)
		}
	}
	return out
}

// Build returns the hook objects for the config, and the results that explain what is missing. It returns no
// objects when the hook is disabled, or cannot be built (an error or warning result says why).
//
// withStatus are the Gateway API objects the render wrote a status on: with spec.syncHook.writeStatus, those the
// hook writes the status of.
func Build(h config.SyncHook, owner, controllerName string, inv *inventory.Inventory, apis []API, withStatus ...inventory.Key) ([]*yaml.RNode, framework.Results) {
	if !h.Enabled {
		return nil, nil
	}
	var results framework.Results
	ctxKey, problem := operatorContext(h, controllerName, inv)
	if problem != "" {
		return nil, append(results, &framework.Result{Severity: framework.Error, Message: problem,
			Field: &framework.Field{Path: "spec.syncHook.context"}})
	}
	scope := h.Namespaces
	if len(scope) == 0 {
		scope = routeNamespaces(inv, apis)
	}
	if len(scope) == 0 {
		return nil, append(results, &framework.Result{Severity: framework.Warning, Field: &framework.Field{Path: "spec.syncHook.namespaces"},
			Message: "spec.syncHook: the input has no HTTPRoute and spec.syncHook.namespaces is empty, so the sync " +
				"would cover no namespace: the hook is not emitted (list the namespaces whose APIs it should keep or prune)"})
	}
	jobNS := h.Namespace
	if jobNS == "" {
		jobNS = ctxKey.Namespace
	}

	perms := permissions{}
	for _, ns := range scope {
		perms.at(ns).configMaps = true
	}
	perms.at(ctxKey.Namespace).contexts[ctxKey.Name] = true
	if oc := inv.OperatorContexts[ctxKey]; oc == nil {
		results = append(results, &framework.Result{Severity: framework.Warning, Field: &framework.Field{Path: "spec.syncHook.context"},
			Message: fmt.Sprintf("spec.syncHook: OperatorContext %s is not in the input, so the hook's Role cannot name the "+
				"Secret of its secretRef, nor the data-plane Service of its spec.dataPlane; give the OperatorContext as input, "+
				"or grant ServiceAccount %s/%s get on that Secret (and, for an open-source data plane, get on that Service and "+
				"list on EndpointSlices in %s)", ctxKey, jobNS, Name, ctxKey.Namespace)})
	} else {
		if ref := oc.Spec.SecretRef; ref != nil && ref.Name != "" {
			ns := ref.Namespace
			if ns == "" {
				ns = ctxKey.Namespace
			}
			perms.at(ns).secrets[ref.Name] = true
		}
		// An open-source data plane's replicas are synced each: the sync reads the Service's ports and its
		// EndpointSlices (found by the real API server: without them it refused the sync's first read).
		if dp := oc.Spec.DataPlane; dp != nil && dp.ServiceRef != nil && dp.ServiceRef.Name != "" &&
			(oc.Spec.Env == nil || !strings.EqualFold(oc.Spec.Env.Mode, "pro")) {
			g := perms.at(ctxKey.Namespace)
			g.services[dp.ServiceRef.Name] = true
			g.endpointSlices = true
		}
	}
	for _, gw := range gateways(apis) {
		for _, secret := range inventory.CertificateSecrets(gw) {
			perms.at(gw.Namespace).gateways[gw.Name] = true
			perms.at(secret.Namespace).secrets[secret.Name] = true
		}
	}

	args := []string{"sync", "--operator-context", ctxKey.String(), "--owner", owner}
	for _, ns := range scope {
		args = append(args, "--namespace", ns)
	}
	classes := map[string]bool{}
	if h.WriteStatus {
		args = append(args, "--write-status")
		for _, k := range withStatus {
			switch {
			case k.Kind == inventory.KindGatewayClass:
				classes[k.Name] = true
				args = append(args, "--status-object", k.Kind+"/"+k.Name)
			default:
				// An input of the render is this application's object, whichever namespace it is in (a
				// Gateway often lives apart from its routes, outside the namespaces the sync covers).
				g := perms.at(k.Namespace)
				if k.Kind == inventory.KindGateway {
					g.gatewayStatus[k.Name] = true
				} else {
					g.routeStatus[k.Name] = true
				}
				args = append(args, "--status-object", k.Kind+"/"+k.Namespace+"/"+k.Name)
			}
		}
	}
	name := NameFor(owner)
	objs := []map[string]any{serviceAccount(name, jobNS)}
	for _, ns := range perms.namespaces() {
		objs = append(objs, role(name, ns, perms[ns]), roleBinding(name, ns, jobNS))
	}
	if len(classes) > 0 {
		objs = append(objs, clusterRole(name, jobNS, classes), clusterRoleBinding(name, jobNS))
	}
	objs = append(objs, job(name, jobNS, h.Image, args))
	nodes := make([]*yaml.RNode, 0, len(objs))
	for _, o := range objs {
		b, err := k8syaml.Marshal(o)
		if err != nil {
			return nil, append(results, &framework.Result{Severity: framework.Error, Message: "spec.syncHook: " + err.Error()})
		}
		n, err := yaml.Parse(string(b))
		if err != nil {
			return nil, append(results, &framework.Result{Severity: framework.Error, Message: "spec.syncHook: " + err.Error()})
		}
		nodes = append(nodes, n)
	}
	return nodes, results
}

// operatorContext is spec.syncHook.context, else the one OperatorContext the parametersRef of our GatewayClasses name.
func operatorContext(h config.SyncHook, controllerName string, inv *inventory.Inventory) (types.NamespacedName, string) {
	if h.Context != "" {
		ns, name, _ := strings.Cut(h.Context, "/")
		return types.NamespacedName{Namespace: ns, Name: name}, ""
	}
	found := map[types.NamespacedName]bool{}
	for _, gc := range inv.ClassList {
		ref := gc.Spec.ParametersRef
		if string(gc.Spec.ControllerName) != controllerName || ref == nil || string(ref.Group) != tykapi.Group ||
			string(ref.Kind) != tykapi.KindOperatorContext || ref.Namespace == nil || *ref.Namespace == "" {
			continue
		}
		found[types.NamespacedName{Namespace: string(*ref.Namespace), Name: ref.Name}] = true
	}
	if len(found) == 1 {
		for k := range found {
			return k, ""
		}
	}
	var names []string
	for k := range found {
		names = append(names, k.String())
	}
	sort.Strings(names)
	why := "no GatewayClass of controller " + controllerName + " names an OperatorContext in its parametersRef"
	if len(names) > 1 {
		why = "the GatewayClasses of controller " + controllerName + " name several OperatorContexts (" +
			strings.Join(names, ", ") + ")"
	}
	return types.NamespacedName{}, "spec.syncHook.context: not set, and " + why + ": set it to the NAMESPACE/NAME " +
		"of the OperatorContext whose Tyk the sync pushes to"
}

func routeNamespaces(inv *inventory.Inventory, apis []API) []string {
	set := map[string]bool{}
	for _, r := range inv.RouteList {
		set[r.Namespace] = true
	}
	for _, a := range apis {
		set[a.Namespace] = true
	}
	return sortedKeys(set)
}

func gateways(apis []API) []*gwv1.Gateway {
	seen := map[types.NamespacedName]*gwv1.Gateway{}
	for _, a := range apis {
		if a.Gateway != nil {
			seen[types.NamespacedName{Namespace: a.Gateway.Namespace, Name: a.Gateway.Name}] = a.Gateway
		}
	}
	keys := make([]types.NamespacedName, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	out := make([]*gwv1.Gateway, len(keys))
	for i, k := range keys {
		out[i] = seen[k]
	}
	return out
}

// grant is what the hook may read in one namespace, and the objects whose status it may write.
type grant struct {
	configMaps, endpointSlices            bool
	gateways, secrets, contexts, services map[string]bool
	gatewayStatus, routeStatus            map[string]bool
}

type permissions map[string]*grant

func (p permissions) at(ns string) *grant {
	g := p[ns]
	if g == nil {
		g = &grant{gateways: map[string]bool{}, secrets: map[string]bool{}, contexts: map[string]bool{}, services: map[string]bool{},
			gatewayStatus: map[string]bool{}, routeStatus: map[string]bool{}}
		p[ns] = g
	}
	return g
}

func (p permissions) namespaces() []string {
	out := make([]string, 0, len(p))
	for ns := range p {
		out = append(out, ns)
	}
	sort.Strings(out)
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func labels() map[string]any {
	return map[string]any{LabelManagedBy: ManagedBy, LabelName: ManagedBy, LabelComponent: Component}
}

func metadata(name, ns string) map[string]any {
	return map[string]any{"name": name, "namespace": ns, "labels": labels()}
}

func serviceAccount(name, ns string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": metadata(name, ns)}
}

func role(name, ns string, g *grant) map[string]any {
	var rules []any
	if g.configMaps {
		// RBAC cannot limit a list to a label selector: the sync lists with
		// app.kubernetes.io/managed-by=gateway2tyk, but may read every ConfigMap here.
		rules = append(rules, map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps"},
			"verbs": []any{"get", "list"}})
	}
	named := func(group, resource string, names map[string]bool) {
		if r := namedRule(group, resource, "get", names); r != nil {
			rules = append(rules, r)
		}
	}
	named(tykapi.Group, "operatorcontexts", g.contexts)
	// The status writer reads the Gateways and HTTPRoutes it writes the status of (their generation and the
	// status other controllers wrote), and patches only their status subresource.
	named(gwv1.GroupName, "gateways", union(g.gateways, g.gatewayStatus))
	named("", "secrets", g.secrets)
	named("", "services", g.services)
	named(gwv1.GroupName, "httproutes", g.routeStatus)
	for _, r := range []map[string]any{namedRule(gwv1.GroupName, "gateways/status", "patch", g.gatewayStatus),
		namedRule(gwv1.GroupName, "httproutes/status", "patch", g.routeStatus)} {
		if r != nil {
			rules = append(rules, r)
		}
	}
	if g.endpointSlices {
		// RBAC cannot limit a list to a label selector either: the sync lists those of the data-plane Service
		// (kubernetes.io/service-name), but may read every EndpointSlice here (addresses and ports, no secret).
		rules = append(rules, map[string]any{"apiGroups": []any{"discovery.k8s.io"}, "resources": []any{"endpointslices"},
			"verbs": []any{"list"}})
	}
	return map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": metadata(name, ns),
		"rules": rules}
}

// namedRule allows verb on the named objects of a resource; nil when there are none.
func namedRule(group, resource, verb string, names map[string]bool) map[string]any {
	if len(names) == 0 {
		return nil
	}
	var list []any
	for _, n := range sortedKeys(names) {
		list = append(list, n)
	}
	return map[string]any{"apiGroups": []any{group}, "resources": []any{resource}, "resourceNames": list, "verbs": []any{verb}}
}

func union(a, b map[string]bool) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// clusterRoleName is the ClusterRole of the GatewayClasses' status: cluster-scoped, so its name says whose it is.
func clusterRoleName(name, jobNS string) string { return name + "-" + jobNS }

// clusterRole lets the status writer get the GatewayClasses and patch their status, by name.
func clusterRole(name, jobNS string, classes map[string]bool) map[string]any {
	md := metadata(name, "")
	delete(md, "namespace")
	md["name"] = clusterRoleName(name, jobNS)
	return map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": md,
		"rules": []any{namedRule(gwv1.GroupName, "gatewayclasses", "get", classes),
			namedRule(gwv1.GroupName, "gatewayclasses/status", "patch", classes)}}
}

func clusterRoleBinding(name, jobNS string) map[string]any {
	md := metadata(name, "")
	delete(md, "namespace")
	md["name"] = clusterRoleName(name, jobNS)
	return map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": md,
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": clusterRoleName(name, jobNS)},
		"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": name, "namespace": jobNS}}}
}

func roleBinding(name, ns, saNS string) map[string]any {
	return map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": metadata(name, ns),
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
		"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": name, "namespace": saNS}}}
}

func job(name, ns, image string, args []string) map[string]any {
	md := metadata(name, ns)
	md["annotations"] = map[string]any{AnnotationHook: HookPostSync, AnnotationDeletePolicy: DeletePolicy}
	argv := make([]any, len(args))
	for i, a := range args {
		argv[i] = a
	}
	return map[string]any{"apiVersion": "batch/v1", "kind": "Job", "metadata": md, "spec": map[string]any{
		// The sync retries each call itself; a second Pod covers a node lost mid-run.
		"backoffLimit":          int64(1),
		"activeDeadlineSeconds": int64(900),
		"template": map[string]any{
			"metadata": map[string]any{"labels": labels()},
			"spec": map[string]any{
				"serviceAccountName": name,
				"restartPolicy":      "Never",
				"securityContext": map[string]any{"runAsNonRoot": true, "runAsUser": int64(65534), "runAsGroup": int64(65534),
					"seccompProfile": map[string]any{"type": "RuntimeDefault"}},
				"containers": []any{map[string]any{
					"name": "sync", "image": image, "args": argv,
					"securityContext": map[string]any{"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true,
						"capabilities": map[string]any{"drop": []any{"ALL"}}},
				}},
			},
		},
	}}
}
