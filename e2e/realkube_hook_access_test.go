package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/gateway2tyk/gateway2tyk/e2e/realkube"
	"github.com/gateway2tyk/gateway2tyk/fn/hook"
	"github.com/gateway2tyk/gateway2tyk/sync/kube"
)

// checkRefused shows, as the hook's ServiceAccount, that the API server refuses (403) every access the hook's
// Roles do not grant, and grants those the sync makes (the context, its Secret, the ConfigMaps, the Gateway and
// its certificate Secret, the data-plane Service and its EndpointSlices).
func checkRefused(t *testing.T, c *realkube.Cluster, kubeconfig string) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 500, 1000 // a few hundred access reviews
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	get, list := metav1.GetOptions{}, metav1.ListOptions{}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "shop"}}
	merge := []byte(`{"metadata":{"labels":{"x":"y"}}}`)
	ocs := dyn.Resource(kube.OperatorContexts)
	gws := dyn.Resource(kube.Gateways)
	routes := dyn.Resource(kube.Gateways.GroupVersion().WithResource("httproutes"))
	rendered, err := c.Client.CoreV1().ConfigMaps("shop").List(ctx, metav1.ListOptions{LabelSelector: kube.RenderedSelector})
	if err != nil || len(rendered.Items) == 0 {
		t.Fatalf("no rendered ConfigMap in shop: %v", err)
	}
	one := rendered.Items[0].DeepCopy()
	one.Data["x"] = "y"
	calls := []struct {
		what    string
		allowed bool
		call    func() error
	}{
		// What the sync does.
		{"get Secret tyk/tyk-operator-conf (the context's secretRef)", true, func() error {
			_, err := core.CoreV1().Secrets("tyk").Get(ctx, "tyk-operator-conf", get)
			return err
		}},
		{"list ConfigMaps of shop", true, func() error { _, err := core.CoreV1().ConfigMaps("shop").List(ctx, list); return err }},
		{"get OperatorContext shop/edge", true, func() error { _, err := ocs.Namespace("shop").Get(ctx, "edge", get); return err }},
		{"get Gateway shop/edge (it has an HTTPS listener)", true, func() error { _, err := gws.Namespace("shop").Get(ctx, "edge", get); return err }},
		{"get Secret shop/edge-tls (the listener's certificate)", true, func() error {
			_, err := core.CoreV1().Secrets("shop").Get(ctx, "edge-tls", get)
			return err
		}},
		{"get Service shop/tyk-gateway (the data plane's)", true, func() error {
			_, err := core.CoreV1().Services("shop").Get(ctx, "tyk-gateway", get)
			return err
		}},
		{"list EndpointSlices of shop", true, func() error { _, err := core.DiscoveryV1().EndpointSlices("shop").List(ctx, list); return err }},
		// Other reads.
		{"get Service shop/orders", false, func() error { _, err := core.CoreV1().Services("shop").Get(ctx, "orders", get); return err }},
		{"list Services of shop", false, func() error { _, err := core.CoreV1().Services("shop").List(ctx, list); return err }},
		{"list EndpointSlices of tyk", false, func() error { _, err := core.DiscoveryV1().EndpointSlices("tyk").List(ctx, list); return err }},
		{"get EndpointSlice shop/tyk-gateway-1", false, func() error {
			_, err := core.DiscoveryV1().EndpointSlices("shop").Get(ctx, "tyk-gateway-1", get)
			return err
		}},
		{"get Secret tyk/other", false, func() error { _, err := core.CoreV1().Secrets("tyk").Get(ctx, "other", get); return err }},
		{"get Secret shop/other", false, func() error { _, err := core.CoreV1().Secrets("shop").Get(ctx, "other", get); return err }},
		{"list Secrets of tyk", false, func() error { _, err := core.CoreV1().Secrets("tyk").List(ctx, list); return err }},
		{"list Secrets of shop", false, func() error { _, err := core.CoreV1().Secrets("shop").List(ctx, list); return err }},
		{"list ConfigMaps of tyk (not covered)", false, func() error { _, err := core.CoreV1().ConfigMaps("tyk").List(ctx, list); return err }},
		{"list ConfigMaps of default", false, func() error { _, err := core.CoreV1().ConfigMaps("default").List(ctx, list); return err }},
		{"list ConfigMaps of every namespace", false, func() error { _, err := core.CoreV1().ConfigMaps("").List(ctx, list); return err }},
		{"get OperatorContext tyk/tyk-dashboard", false, func() error { _, err := ocs.Namespace("tyk").Get(ctx, "tyk-dashboard", get); return err }},
		{"list OperatorContexts of shop", false, func() error { _, err := ocs.Namespace("shop").List(ctx, list); return err }},
		{"list Gateways of shop", false, func() error { _, err := gws.Namespace("shop").List(ctx, list); return err }},
		{"list HTTPRoutes of shop", false, func() error { _, err := routes.Namespace("shop").List(ctx, list); return err }},
		{"list Pods of shop", false, func() error { _, err := core.CoreV1().Pods("shop").List(ctx, list); return err }},
		{"list Namespaces", false, func() error { _, err := core.CoreV1().Namespaces().List(ctx, list); return err }},
		// Writes.
		{"create ConfigMap shop/x", false, func() error {
			_, err := core.CoreV1().ConfigMaps("shop").Create(ctx, cm, metav1.CreateOptions{})
			return err
		}},
		{"update ConfigMap " + one.Name, false, func() error {
			_, err := core.CoreV1().ConfigMaps("shop").Update(ctx, one, metav1.UpdateOptions{})
			return err
		}},
		{"patch ConfigMap " + one.Name, false, func() error {
			_, err := core.CoreV1().ConfigMaps("shop").Patch(ctx, one.Name, types.MergePatchType, merge, metav1.PatchOptions{})
			return err
		}},
		{"delete ConfigMap " + one.Name, false, func() error {
			return core.CoreV1().ConfigMaps("shop").Delete(ctx, one.Name, metav1.DeleteOptions{})
		}},
		{"delete every ConfigMap of shop", false, func() error {
			return core.CoreV1().ConfigMaps("shop").DeleteCollection(ctx, metav1.DeleteOptions{}, list)
		}},
		{"patch Secret tyk/tyk-operator-conf", false, func() error {
			_, err := core.CoreV1().Secrets("tyk").Patch(ctx, "tyk-operator-conf", types.MergePatchType, merge, metav1.PatchOptions{})
			return err
		}},
		{"delete Secret tyk/tyk-operator-conf", false, func() error {
			return core.CoreV1().Secrets("tyk").Delete(ctx, "tyk-operator-conf", metav1.DeleteOptions{})
		}},
		{"patch OperatorContext shop/edge", false, func() error {
			_, err := ocs.Namespace("shop").Patch(ctx, "edge", types.MergePatchType, merge, metav1.PatchOptions{})
			return err
		}},
		{"patch Gateway shop/edge", false, func() error {
			_, err := gws.Namespace("shop").Patch(ctx, "edge", types.MergePatchType, merge, metav1.PatchOptions{})
			return err
		}},
		{"delete Job shop/" + hook.Name, false, func() error {
			return core.BatchV1().RESTClient().Delete().Namespace("shop").Resource("jobs").Name(hook.Name).Do(ctx).Error()
		}},
		{"patch Role shop/" + hook.Name, false, func() error {
			_, err := core.RbacV1().Roles("shop").Patch(ctx, hook.Name, types.MergePatchType, merge, metav1.PatchOptions{})
			return err
		}},
		{"create Pod shop/x", false, func() error {
			_, err := core.CoreV1().Pods("shop").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "x", Image: "x"}}}}, metav1.CreateOptions{})
			return err
		}},
		{"create a token for ServiceAccount shop/" + hook.Name, false, func() error {
			_, err := core.CoreV1().ServiceAccounts("shop").CreateToken(ctx, hook.Name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
			return err
		}},
	}
	allowed, refused := 0, 0
	for _, k := range calls {
		err := k.call()
		switch {
		case k.allowed && err != nil:
			t.Errorf("%s: refused, but the sync needs it: %v", k.what, err)
		case k.allowed:
			allowed++
		case err == nil:
			t.Errorf("%s: allowed to the hook's ServiceAccount", k.what)
		case !apierrors.IsForbidden(err):
			t.Errorf("%s: %v, want 403 Forbidden", k.what, err)
		default:
			refused++
		}
	}
	// Every write to every kind of the namespaces involved, as the API server's authorizer judges it.
	var writes []string
	for _, ns := range []string{"shop", "tyk", "default"} {
		for _, res := range [][2]string{{"", "configmaps"}, {"", "secrets"}, {"", "pods"}, {"", "serviceaccounts"},
			{"", "services"}, {"batch", "jobs"}, {"rbac.authorization.k8s.io", "roles"}, {"rbac.authorization.k8s.io", "rolebindings"},
			{"tyk.tyk.io", "operatorcontexts"}, {"tyk.tyk.io", "tykoasapidefinitions"}, {"gateway.networking.k8s.io", "gateways"},
			{"gateway.networking.k8s.io", "httproutes"}, {"discovery.k8s.io", "endpointslices"}} {
			for _, verb := range []string{"create", "update", "patch", "delete", "deletecollection"} {
				review, err := core.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
					Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
						Namespace: ns, Verb: verb, Group: res[0], Resource: res[1]}}}, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				writes = append(writes, verb)
				if review.Status.Allowed {
					t.Errorf("the hook's ServiceAccount may %s %s in %s", verb, res[1], ns)
				}
			}
		}
	}
	rules, err := core.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{
		Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "shop"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var granted []string
	for _, r := range rules.Status.ResourceRules {
		granted = append(granted, fmt.Sprintf("%v %v %v %v", r.Verbs, r.APIGroups, r.Resources, r.ResourceNames))
	}
	t.Logf("as ServiceAccount shop/%s: %d accesses made, %d allowed (the sync's), %d refused with 403; %d writes "+
		"judged by SelfSubjectAccessReview, none allowed; its rules in shop: %s", hook.Name, len(calls), allowed, refused,
		len(writes), strings.Join(granted, "; "))
}
