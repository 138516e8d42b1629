package e2e_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/e2e/modcache"
	"github.com/gateway2tyk/gateway2tyk/fn/apiserver"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

// story is a set of objects a user could have written together, judged by one Gateway API channel.
type story struct {
	name    string
	channel apiserver.Channel
	cfg     config.Spec
	items   []*yaml.RNode
}

// corpusStories is every set of input objects the project has: the examples, every testdata story (fn's and
// e2e's), and the Gateway API v1.6.3 conformance manifests and examples.
func corpusStories(t *testing.T) []story {
	t.Helper()
	root := repoRoot(t)
	var out []story
	for _, ex := range []string{"examples/basic", "examples/kpt", "examples/storefront", "examples/secured"} {
		nodes, err := kio.LocalPackageReader{PackagePath: filepath.Join(root, ex), OmitReaderAnnotations: true}.Read()
		if err != nil {
			t.Fatalf("%s: %v", ex, err)
		}
		out = append(out, newStory(t, ex, nodes))
	}
	for _, dir := range []string{"fn/testdata", "fn/hook/testdata", "fn/graph/testdata", "cmd/gateway2tyk/testdata", "e2e/testdata"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") || strings.Contains(path, "/fuzz/") {
				return err
			}
			if d.Name() == "expected.yaml" {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			nodes, fnConfig := readStoryFile(t, path)
			s := newStory(t, rel, nodes)
			if fnConfig != nil {
				if cfg, err := config.Load(fnConfig); err == nil {
					s.cfg, s.channel = cfg, apiserver.Channel(cfg.GatewayAPIChannel)
				}
			}
			out = append(out, s)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	conf := modcache.Dir(t, "sigs.k8s.io/gateway-api/conformance", "v1.6.3")
	for _, rel := range globYAML(t, conf, "base", "tests") {
		s := newStory(t, "conformance/"+rel, readFileNodes(t, filepath.Join(conf, rel)))
		out = append(out, s)
	}
	api := modcache.Dir(t, "sigs.k8s.io/gateway-api", "v1.6.3")
	for _, rel := range globYAML(t, api, "examples") {
		s := newStory(t, "gateway-api/"+rel, readFileNodes(t, filepath.Join(api, rel)))
		if strings.HasPrefix(rel, "examples/experimental/") {
			s.channel, s.cfg.GatewayAPIChannel = apiserver.Experimental, config.ChannelExperimental
		}
		out = append(out, s)
	}
	return out
}

// newStory is a story of nodes, judged by the standard channel with the default config.
func newStory(t *testing.T, name string, nodes []*yaml.RNode) story {
	t.Helper()
	s := story{name: name, channel: apiserver.Standard, cfg: config.Default()}
	for _, n := range nodes {
		s.items = append(s.items, n)
	}
	return s
}

func readFileNodes(t *testing.T, path string) []*yaml.RNode {
	nodes, _ := readStoryFile(t, path)
	return nodes
}

// readStoryFile reads a stream or a ResourceList (its items, and its function config).
func readStoryFile(t *testing.T, path string) ([]*yaml.RNode, *yaml.RNode) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := &kio.ByteReader{Reader: bytes.NewReader(data), OmitReaderAnnotations: true}
	nodes, err := r.Read()
	if err != nil {
		// A file kyaml cannot read (the bad-input stories) holds no object to judge.
		return nil, nil
	}
	return nodes, r.FunctionConfig
}

// globYAML lists the .yaml files under dir's subdirectories, sorted, relative to dir.
func globYAML(t *testing.T, dir string, subdirs ...string) []string {
	t.Helper()
	var out []string
	for _, sub := range subdirs {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
				return err
			}
			rel, _ := filepath.Rel(dir, path)
			out = append(out, rel)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(out)
	return out
}
