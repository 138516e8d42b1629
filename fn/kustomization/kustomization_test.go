package kustomization

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
}

const renderConfig = "apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: g}\nspec: {output: ConfigMap}\n"

// The order is kustomize's legacy order, as `kustomize build` 5.8.2 prints it: Namespaces first (a core Namespace
// before one of another group), ConfigMaps before Secrets before Services, other kinds by group, version and kind,
// webhooks last; then by namespace and name.
func TestWriteSortsInKustomizesLegacyOrder(t *testing.T) {
	var items []*yaml.RNode
	for _, s := range []string{
		"apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: w}\n",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: b, namespace: shop}\n",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: a, namespace: shop}\n",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: g, namespace: shop}\n",
		"apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: shop}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop}\n",
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n",
		"apiVersion: example.com/v1\nkind: Namespace\nmetadata: {name: other}\n",
	} {
		items = append(items, yaml.MustParse(s))
	}
	var b bytes.Buffer
	require.NoError(t, Write(&b, items, DefaultOrder()))
	var got []string
	for _, doc := range strings.Split(b.String(), "---\n") {
		n := yaml.MustParse(doc)
		got = append(got, n.GetKind()+"/"+n.GetName())
	}
	require.Equal(t, []string{"Namespace/shop", "Namespace/other", "ConfigMap/c", "Service/s", "Gateway/g",
		"HTTPRoute/a", "HTTPRoute/b", "ValidatingWebhookConfiguration/w"}, got)
	require.True(t, strings.HasPrefix(b.String(), "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n---\n"),
		"keys sorted, as kustomize's JSON to YAML writes them:\n%s", b.String())
}

func TestLoadFindsTheConfigAndTheFactsOfLocalBases(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "kustomization.yaml", "resources: [routes.yaml, facts]\ntransformers: [gateway2tyk.yaml]\n")
	write(t, dir, "gateway2tyk.yaml", renderConfig)
	write(t, dir, "routes.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: deployed}\n---\n"+
		"apiVersion: v1\nkind: Service\nmetadata: {name: fact-a, annotations: {config.kubernetes.io/local-config: 'true'}}\n")
	write(t, dir, "facts/kustomization.yaml", "resources: [facts.yaml]\n")
	write(t, dir, "facts/facts.yaml", "apiVersion: v1\nkind: Secret\nmetadata: {name: fact-b, annotations: {config.kubernetes.io/local-config: 'true'}}\n")
	app, err := Load(dir)
	require.NoError(t, err)
	require.Equal(t, "gateway2tyk.yaml", app.Transformer)
	require.Equal(t, "RenderConfig", app.Config.GetKind())
	var names []string
	for _, f := range app.Facts {
		names = append(names, f.GetName())
	}
	require.Equal(t, []string{"fact-a", "fact-b"}, names)

	// Detach removes the entry and keeps the rest of the file; afterwards the config is found beside it.
	write(t, dir, "kustomization.yaml", "# the shop\nresources: [routes.yaml, facts]  # inputs\ntransformers: [gateway2tyk.yaml]\n")
	app, err = Load(dir)
	require.NoError(t, err)
	_, err = app.Detach()
	require.NoError(t, err)
	k, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	require.NoError(t, err)
	require.NotContains(t, string(k), "transformers")
	require.Contains(t, string(k), "# the shop")
	require.Contains(t, string(k), "# inputs")
	app, err = Load(dir)
	require.NoError(t, err)
	require.Equal(t, "", app.Transformer)
	require.Equal(t, filepath.Join(dir, "gateway2tyk.yaml"), app.ConfigSource)
}

// Detach changes the transformers entry and nothing else: lists indented under their key stay so (kyaml's own
// writer had re-indented every list of the file, `  - x` becoming `- x`), and so do unindented ones.
func TestDetachKeepsListIndentation(t *testing.T) {
	for name, c := range map[string]struct{ before, after string }{
		"indented": {
			"# the shop\nresources:\n  - routes.yaml  # inputs\n  - services.yaml\ntransformers:\n  - gateway2tyk.yaml\nlabels:\n  - pairs: {a: b}\n",
			// yaml.v3's emitter writes one space before a line comment.
			"# the shop\nresources:\n  - routes.yaml # inputs\n  - services.yaml\nlabels:\n  - pairs: {a: b}\n",
		},
		"not indented": {
			"resources:\n- routes.yaml\ntransformers:\n- other.yaml\n- gateway2tyk.yaml\n",
			"resources:\n- routes.yaml\ntransformers:\n- other.yaml\n",
		},
	} {
		dir := t.TempDir()
		write(t, dir, "kustomization.yaml", c.before)
		write(t, dir, "gateway2tyk.yaml", renderConfig)
		write(t, dir, "routes.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n")
		write(t, dir, "services.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: b}\n")
		app := &App{Kustomization: filepath.Join(dir, "kustomization.yaml"), Transformer: "gateway2tyk.yaml"}
		removed, err := app.Detach()
		require.NoError(t, err, name)
		assert.Equal(t, "gateway2tyk.yaml", removed)
		k, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
		require.NoError(t, err)
		assert.Equal(t, c.after, string(k), name)
	}
}

func TestLoadRefusesWhatKustomizeWouldDoDifferently(t *testing.T) {
	for name, c := range map[string]struct{ kustomization, want string }{
		"remote base":                 {"resources: [routes.yaml, https://github.com/example/base]\n", "not a local file"},
		"generators":                  {"resources: [routes.yaml]\ngenerators: [gen.yaml]\n", "lists generators"},
		"patches over facts":          {"resources: [routes.yaml]\npatches: [{path: p.yaml}]\n", "sets patches"},
		"patches over a base's facts": {"resources: [base]\nnamePrefix: x-\n", "sets namePrefix"},
	} {
		dir := t.TempDir()
		write(t, dir, "kustomization.yaml", c.kustomization)
		write(t, dir, "gateway2tyk.yaml", renderConfig)
		fact := "apiVersion: v1\nkind: Service\nmetadata: {name: f, annotations: {config.kubernetes.io/local-config: 'true'}}\n"
		write(t, dir, "routes.yaml", fact)
		write(t, dir, "base/kustomization.yaml", "resources: [facts.yaml]\n")
		write(t, dir, "base/facts.yaml", fact)
		// LoadToDetach, which reads facts only where they could decide, refuses what Load refuses.
		for _, load := range []func(string) (*App, error){Load, LoadToDetach} {
			_, err := load(dir)
			var u *Unfaithful
			require.ErrorAs(t, err, &u, name)
			require.Contains(t, err.Error(), c.want, name)
		}
	}

	// Without a field that would apply to facts, LoadToDetach accepts without reading the resources (a file
	// kustomize would refuse is kustomize's to report) and Load reads the facts.
	dir := t.TempDir()
	write(t, dir, "kustomization.yaml", "resources: [base, routes.yaml]\ntransformers: [gateway2tyk.yaml]\n")
	write(t, dir, "gateway2tyk.yaml", renderConfig)
	write(t, dir, "routes.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: f, annotations: {config.kubernetes.io/local-config: 'true'}}\n")
	write(t, dir, "base/kustomization.yaml", "resources: [broken.yaml]\n")
	write(t, dir, "base/broken.yaml", "metadata: {annotations: {config.kubernetes.io/local-config: [\n")
	app, err := LoadToDetach(dir)
	require.NoError(t, err)
	require.Empty(t, app.Facts)
	require.Equal(t, "gateway2tyk.yaml", app.Transformer)
	_, err = Load(dir)
	require.ErrorContains(t, err, "broken.yaml")

	dir = t.TempDir()
	write(t, dir, "kustomization.yaml", "resources: [routes.yaml]\n")
	write(t, dir, "routes.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n")
	write(t, dir, "a.yaml", renderConfig)
	write(t, dir, "sub/b.yaml", renderConfig)
	_, err = Load(dir)
	require.ErrorContains(t, err, "several gateway2tyk function configs")
}

// TestLoadFindsFactsWrittenWithEscapes checks the shortcut of localObjects: a file is parsed when its text could
// hold the local-config key, also when the key is written with escapes, and a file that cannot is not parsed
// (here one kustomize would refuse: kustomize reports it).
func TestLoadFindsFactsWrittenWithEscapes(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "kustomization.yaml", "resources: [escaped.yaml, plain.yaml, broken.yaml]\ntransformers: [gateway2tyk.yaml]\n")
	write(t, dir, "gateway2tyk.yaml", renderConfig)
	write(t, dir, "escaped.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: fact-escaped\n  annotations:\n"+
		"    \"config.kubernetes.io/local\\x2Dconfig\": 'true'\n")
	write(t, dir, "plain.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: deployed}\n")
	write(t, dir, "broken.yaml", "apiVersion: v1\nkind: [\n")
	app, err := Load(dir)
	require.NoError(t, err)
	require.Len(t, app.Facts, 1)
	require.Equal(t, "fact-escaped", app.Facts[0].GetName())
}
