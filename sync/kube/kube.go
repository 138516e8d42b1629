// Package kube is the sync's access to a cluster, through client-go: it reads the rendered ConfigMaps (by the
// label app.kubernetes.io/managed-by=gateway2tyk), OperatorContexts, Gateways and Secrets, and the ready
// endpoints of an OperatorContext's data-plane Service (its Service and EndpointSlices); its one write is the
// status subresource of the objects the status writer (sync/status, --write-status) names. It connects with the
// in-cluster config (a Pod's service account) or a kubeconfig (KUBECONFIG, ~/.kube/config or --kubeconfig), as
// clientcmd resolves them. Tests give it client-go's fake clientsets.
package kube

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/tykapi"
)

// Resources read through the dynamic client (no typed clientset is needed for two kinds).
var (
	OperatorContexts = schema.GroupVersionResource{Group: tykapi.Group, Version: tykapi.Version, Resource: "operatorcontexts"}
	Gateways         = schema.GroupVersionResource{Group: gwv1.GroupName, Version: "v1", Resource: "gateways"}
)

// RenderedSelector selects the ConfigMaps that hold a rendered API.
const RenderedSelector = "app.kubernetes.io/managed-by=gateway2tyk,gateway2tyk.io/api-id"

// Cluster reads from one cluster.
type Cluster struct {
	Core    kubernetes.Interface
	Dynamic dynamic.Interface
	// Timeout of each call (default 30s).
	Timeout time.Duration
}

// ErrNoCluster is Connect's error when no cluster is configured: not in a cluster's pod, and no kubeconfig.
var ErrNoCluster = errors.New("no cluster configured: not running in a cluster, and no --kubeconfig, KUBECONFIG or ~/.kube/config")

// Connect builds the clients from a kubeconfig path ("" for the default loading rules, which fall back to the
// in-cluster config inside a Pod).
func Connect(kubeconfig string) (*Cluster, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if clientcmd.IsEmptyConfig(err) {
		// client-go's own message asks for KUBERNETES_MASTER, which nothing here reads.
		return nil, ErrNoCluster
	}
	if err != nil {
		return nil, fmt.Errorf("no cluster to read from (in-cluster config or kubeconfig): %w", err)
	}
	cfg.UserAgent = "gateway2tyk-sync"
	// client-go's own default is 5 requests a second (a burst of 10: rest.DefaultQPS): the status writer (two
	// requests per object) took 78 s for 200 routes on the real API server, 2.1 s (written) to 7.9 s (unchanged,
	// past the burst) with these, which kubectl gives its discovery client; the API server's priority and
	// fairness protects it.
	cfg.QPS, cfg.Burst = 50, 300
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Cluster{Core: core, Dynamic: dyn}, nil
}

func (c *Cluster) ctx(parent context.Context) (context.Context, context.CancelFunc) {
	t := c.Timeout
	if t <= 0 {
		t = 30 * time.Second
	}
	return context.WithTimeout(parent, t)
}

// ConfigMaps lists the rendered ConfigMaps of the namespaces (every namespace when none is given), of one owner
// when owner is set.
func (c *Cluster) ConfigMaps(parent context.Context, namespaces []string, owner string) ([]corev1.ConfigMap, error) {
	if len(namespaces) == 0 {
		namespaces = []string{metav1.NamespaceAll}
	}
	selector := RenderedSelector
	if owner != "" {
		req, err := labels.NewRequirement(emit.LabelOwner, selection.Equals, []string{owner})
		if err != nil {
			return nil, fmt.Errorf("owner %q: %w", owner, err)
		}
		selector += "," + req.String()
	}
	var out []corev1.ConfigMap
	for _, ns := range namespaces {
		ctx, cancel := c.ctx(parent)
		list, err := c.Core.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		cancel()
		if err != nil {
			where := "every namespace"
			if ns != "" {
				where = "namespace " + ns
			}
			return nil, fmt.Errorf("listing the rendered ConfigMaps of %s: %w", where, err)
		}
		out = append(out, list.Items...)
	}
	return out, nil
}

// Secret reads a Secret.
func (c *Cluster) Secret(parent context.Context, namespace, name string) (*corev1.Secret, error) {
	ctx, cancel := c.ctx(parent)
	defer cancel()
	s, err := c.Core.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading Secret %s/%s: %w", namespace, name, err)
	}
	return s, nil
}

// ConfigMap reads a ConfigMap.
func (c *Cluster) ConfigMap(parent context.Context, namespace, name string) (*corev1.ConfigMap, error) {
	ctx, cancel := c.ctx(parent)
	defer cancel()
	cm, err := c.Core.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", namespace, name, err)
	}
	return cm, nil
}

// OperatorContext reads an OperatorContext.
func (c *Cluster) OperatorContext(parent context.Context, namespace, name string) (*tykapi.OperatorContext, error) {
	var oc tykapi.OperatorContext
	if err := c.get(parent, OperatorContexts, namespace, name, &oc); err != nil {
		return nil, fmt.Errorf("reading OperatorContext %s/%s: %w", namespace, name, err)
	}
	return &oc, nil
}

// Gateway reads a Gateway.
func (c *Cluster) Gateway(parent context.Context, namespace, name string) (*gwv1.Gateway, error) {
	var gw gwv1.Gateway
	if err := c.get(parent, Gateways, namespace, name, &gw); err != nil {
		return nil, fmt.Errorf("reading Gateway %s/%s: %w", namespace, name, err)
	}
	return &gw, nil
}

func (c *Cluster) get(parent context.Context, gvr schema.GroupVersionResource, namespace, name string, into any) error {
	if c.Dynamic == nil {
		return fmt.Errorf("no dynamic client")
	}
	ctx, cancel := c.ctx(parent)
	defer cancel()
	u, err := c.Dynamic.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into)
}
