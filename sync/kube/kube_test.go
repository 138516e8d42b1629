package kube

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
)

func TestConnectWithKubeconfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	require.NoError(t, os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`), 0o600))
	c, err := Connect(path)
	require.NoError(t, err)
	assert.NotNil(t, c.Core)
	assert.NotNil(t, c.Dynamic)

	_, err = Connect(filepath.Join(t.TempDir(), "missing"))
	assert.Error(t, err)
}

func TestOperatorContext(t *testing.T) {
	oc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "tyk.tyk.io/v1alpha1", "kind": "OperatorContext",
		"metadata": map[string]any{"name": "dash", "namespace": "tyk"},
		"spec": map[string]any{
			"env":       map[string]any{"mode": "pro", "url": "http://dashboard.tyk:3000", "org": "5e9d"},
			"secretRef": map[string]any{"name": "tyk-operator-conf"},
		},
	}}
	c := &Cluster{Core: fake.NewSimpleClientset(), Dynamic: dynamicfake.NewSimpleDynamicClient(runtime.NewScheme(), oc)}
	got, err := c.OperatorContext(context.Background(), "tyk", "dash")
	require.NoError(t, err)
	assert.Equal(t, "http://dashboard.tyk:3000", got.Spec.Env.URL)
	assert.Equal(t, "tyk-operator-conf", got.Spec.SecretRef.Name)

	_, err = c.OperatorContext(context.Background(), "tyk", "missing")
	assert.ErrorContains(t, err, `reading OperatorContext tyk/missing: operatorcontexts.tyk.tyk.io "missing" not found`)
	_, err = c.Secret(context.Background(), "tyk", "missing")
	assert.ErrorContains(t, err, "reading Secret tyk/missing")
}
