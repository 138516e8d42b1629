package e2e_test

import (
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/gateway2tyk/gateway2tyk/e2e/keptcheck"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
)

// TestRealTykKeptAsSent syncs every document of every example, of the stories of testdata/realtyk, of a generated
// fleet and of every story of fn/testdata (its expected.yaml, the render's output TestGolden holds it to, failing
// stories included) to a real Tyk Gateway, one render after another, and checks that the Gateway lists each as
// sent and that a second sync changes nothing (keptcheck). The conformance stories are checked in conformance/.
func TestRealTykKeptAsSent(t *testing.T) {
	root := repoRoot(t)
	g := realtyk.Start(t, realtyk.Find(t))
	var total keptcheck.Tally
	check := func(name string, out func(t *testing.T) *kio.PackageBuffer) {
		t.Run(name, func(t *testing.T) {
			tally := keptcheck.Check(t, g, out(t).Nodes)
			total.Add(tally)
		})
	}
	for _, ex := range []string{"examples/basic", "examples/kpt", "examples/storefront", "examples/secured", "e2e/testdata/realtyk/base-middleware"} {
		check(ex, func(t *testing.T) *kio.PackageBuffer {
			return &kio.PackageBuffer{Nodes: renderExample(t, filepath.Join(root, ex)).Items}
		})
	}
	check("fleet", func(t *testing.T) *kio.PackageBuffer {
		return &kio.PackageBuffer{Nodes: renderFleet(t, 60).Items}
	})
	stories, err := filepath.Glob(filepath.Join(root, "fn", "testdata", "*", "expected.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	failing, _ := filepath.Glob(filepath.Join(root, "fn", "testdata", "failing", "*", "expected.yaml"))
	stories = append(stories, failing...)
	if len(stories) < 100 {
		t.Fatalf("found %d stories under fn/testdata: the layout changed", len(stories))
	}
	for _, s := range stories {
		rel, _ := filepath.Rel(filepath.Join(root, "fn", "testdata"), filepath.Dir(s))
		check("fn/testdata/"+rel, func(t *testing.T) *kio.PackageBuffer {
			f, err := os.Open(s)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			items, err := (&kio.ByteReadWriter{Reader: f}).Read()
			if err != nil {
				t.Fatal(err)
			}
			return &kio.PackageBuffer{Nodes: items}
		})
	}
	t.Logf("kept as sent: %d APIs sent, %d listed as sent, %d with only the differences tykroute knows for the release, %d syncs (Tyk Gateway %s)",
		total.Sent, total.Kept, total.Known, total.Syncs, g.Version)
	if total.Sent == 0 {
		t.Fatal("no API was sent")
	}
}
