package upstream

import (
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/gateway-api/conformance"
	"sigs.k8s.io/gateway-api/conformance/utils/kubernetes"
	"sigs.k8s.io/kustomize/kyaml/kio"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/yaml"

	"github.com/gateway2tyk/gateway2tyk/e2e/servedcheck"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

// TestNothingLostOnSuiteManifests holds the render of every manifest of the upstream suite, in both profiles, to
// what its routes' statuses promise (issue 45; e2e/servedcheck says what that is): each manifest of tests/ as the
// suite applies it (on its base manifests, with the Secrets the suite makes in code and the platform this module
// gives the suite: the GatewayClass, its OperatorContext, the data plane's Service). It renders offline, so it
// runs in a second where the suite itself takes minutes, and it covers the tests of features a profile does not
// claim too.
func TestNothingLostOnSuiteManifests(t *testing.T) {
	base := suiteManifest(t, "base/manifests.yaml") + platformManifests(t)
	tests, err := fs.Glob(conformance.Manifests, "tests/*.yaml")
	require.NoError(t, err)
	require.Greater(t, len(tests), 100, "the suite's test manifests")
	checked := map[config.Profile]int{}
	for _, profile := range []config.Profile{config.ProfileOperator, config.ProfileGatewayAPI} {
		cfg, err := config.Load(parse(t, renderConfig(string(profile), "", "")))
		require.NoError(t, err)
		for _, file := range tests {
			items, err := (&kio.ByteReader{Reader: strings.NewReader(base + suiteManifest(t, file)), OmitReaderAnnotations: true}).Read()
			require.NoError(t, err, file)
			out, err := fn.Render(items, cfg)
			require.NoError(t, err, file)
			checked[profile] += servedcheck.Check(t, string(profile)+" "+path.Base(file), out)
		}
	}
	// Every promise of the suite's routes: a change that made a profile serve far fewer would show here.
	require.Greater(t, checked[config.ProfileOperator], 80)
	require.Greater(t, checked[config.ProfileGatewayAPI], 160)
	t.Logf("(rule, listener, hostname) promises checked over %d manifests: %v", len(tests), checked)
}

// suiteManifest is one of the suite's embedded manifests as its applier applies it: the GatewayClass and the
// controller named.
func suiteManifest(t *testing.T, name string) string {
	t.Helper()
	data, err := fs.ReadFile(conformance.Manifests, name)
	require.NoError(t, err)
	text := strings.NewReplacer("{GATEWAY_CLASS_NAME}", gatewayClassName, "{GATEWAY_CONTROLLER_NAME}", controllerName).Replace(string(data))
	return "\n---\n" + text
}

// platformManifests are what platform creates in the cluster, and the Secrets the suite creates in code
// (utils/suite: the listeners' certificates), as YAML.
func platformManifests(t *testing.T) string {
	t.Helper()
	objs := []any{
		map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": systemNamespace}},
		map[string]any{"apiVersion": "tyk.tyk.io/v1alpha1", "kind": "OperatorContext",
			"metadata": map[string]any{"name": contextName, "namespace": systemNamespace},
			"spec": map[string]any{"env": map[string]any{"mode": "ce", "url": "http://tyk:8080", "auth": "secret"},
				"dataPlane": map[string]any{"serviceRef": map[string]any{"name": dataPlaneService}}}},
		map[string]any{"apiVersion": "v1", "kind": "Service",
			"metadata": map[string]any{"name": dataPlaneService, "namespace": systemNamespace},
			"spec": map[string]any{"type": "LoadBalancer", "selector": map[string]any{"app": "tyk-gateway"},
				"ports": []any{map[string]any{"name": "http", "port": 80, "targetPort": 8080},
					map[string]any{"name": "https", "port": 443, "targetPort": 8443}}},
			"status": map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": loadBalancerIP}}}}},
		map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GatewayClass",
			"metadata": map[string]any{"name": gatewayClassName},
			"spec": map[string]any{"controllerName": controllerName, "parametersRef": map[string]any{
				"group": "tyk.tyk.io", "kind": "OperatorContext", "name": contextName, "namespace": systemNamespace}}},
	}
	for _, s := range []*corev1.Secret{
		kubernetes.MustCreateSelfSignedCertSecret(t, "gateway-conformance-web-backend", "certificate", []string{"*"}),
		kubernetes.MustCreateSelfSignedCertSecret(t, "gateway-conformance-infra", "tls-validity-checks-certificate",
			[]string{"*", "*.org", "*.wildcard.org"}),
	} {
		s.APIVersion, s.Kind = "v1", "Secret"
		objs = append(objs, s)
	}
	var b strings.Builder
	for _, o := range objs {
		data, err := yaml.Marshal(o)
		require.NoError(t, err)
		b.WriteString("\n---\n" + string(data))
	}
	return b.String()
}

func parse(t *testing.T, data []byte) *kyaml.RNode {
	t.Helper()
	n, err := kyaml.Parse(string(data))
	require.NoError(t, err)
	return n
}
