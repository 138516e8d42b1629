package e2e_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/bench/resourcelist"
	"github.com/gateway2tyk/gateway2tyk/e2e/explaincheck"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

// TestRealTykExamples renders every example (and the stories of testdata/realtyk), loads each Gateway's APIs into a real open-source Tyk Gateway and
// checks that every request covering them gets the answer explain gives (explaincheck).
func TestRealTykExamples(t *testing.T) {
	root := repoRoot(t)
	g := realtyk.Start(t, realtyk.Find(t))
	var total explaincheck.Tally
	for _, ex := range []string{"examples/basic", "examples/kpt", "examples/storefront", "examples/secured", "e2e/testdata/realtyk/base-middleware", "e2e/testdata/realtyk/exact-and-wildcard"} {
		t.Run(ex, func(t *testing.T) {
			out := renderExample(t, filepath.Join(root, ex))
			if len(out.Translation.APIs) == 0 {
				t.Fatalf("%s renders no API", ex)
			}
			tally := explaincheck.Check(t, g, out, explaincheck.Options{})
			t.Logf("%s: %d requests compared with explain, %d agreed", ex, tally.Compared, tally.Agreed)
			total.Compared += tally.Compared
			total.Agreed += tally.Agreed
		})
	}
	t.Logf("all examples: %d requests compared with explain, %d agreed (Tyk Gateway %s)", total.Compared, total.Agreed, g.Version)
}

// TestRealTykFleet does the same for a small generated fleet (bench/resourcelist: 60 routes over three
// Gateways with HTTPS and HTTP listeners, method matches, header filters, canary weights, prefix rewrites,
// redirects, headless backends and invalid routes of every kind the generator makes).
func TestRealTykFleet(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	out := renderFleet(t, 60)
	tally := explaincheck.Check(t, g, out, explaincheck.Options{})
	t.Logf("fleet of 60 routes, %d APIs: %d requests compared with explain, %d agreed (Tyk Gateway %s)",
		len(out.Translation.APIs), tally.Compared, tally.Agreed, g.Version)
}

// renderFleet renders a generated fleet of n routes (bench/resourcelist) in memory.
func renderFleet(t *testing.T, n int) *fn.Output {
	t.Helper()
	var buf bytes.Buffer
	resourcelist.Generate(&buf, n, 1)
	rw := &kio.ByteReadWriter{Reader: &buf}
	items, err := rw.Read()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(rw.FunctionConfig)
	if err != nil {
		t.Fatal(err)
	}
	out, err := fn.Render(items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// renderExample renders an example directory in memory as `gateway2tyk render` reads it, plus the ConfigMaps
// its kustomization generates from files (configMapGenerator: bases/*.json as tyk-oas.json).
func renderExample(t *testing.T, dir string) *fn.Output {
	t.Helper()
	nodes, err := kio.LocalPackageReader{PackagePath: dir, OmitReaderAnnotations: true}.Read()
	if err != nil {
		t.Fatal(err)
	}
	var items []*yaml.RNode
	var fnConfig *yaml.RNode
	for _, n := range nodes {
		switch n.GetKind() {
		case "Kustomization", "Kptfile":
		case "RenderConfig":
			fnConfig = n
		default:
			items = append(items, n)
		}
	}
	bases, _ := filepath.Glob(filepath.Join(dir, "bases", "*.json"))
	for _, b := range bases {
		data, err := os.ReadFile(b)
		if err != nil {
			t.Fatal(err)
		}
		cm := yaml.NewMapRNode(nil)
		name := strings.TrimSuffix(filepath.Base(b), filepath.Ext(b))
		for _, f := range []yaml.Filter{
			yaml.SetField("apiVersion", yaml.NewStringRNode("v1")), yaml.SetField("kind", yaml.NewStringRNode("ConfigMap")),
		} {
			if _, err := cm.Pipe(f); err != nil {
				t.Fatal(err)
			}
		}
		if err := cm.SetName(name); err != nil {
			t.Fatal(err)
		}
		if err := cm.SetNamespace("shop"); err != nil {
			t.Fatal(err)
		}
		cm.SetDataMap(map[string]string{"tyk-oas.json": string(data)})
		items = append(items, cm)
	}
	cfg, err := config.Load(fnConfig)
	if err != nil {
		t.Fatal(err)
	}
	out, err := fn.Render(items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
