package kustomization

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/inputfiles"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/meta"
)

// FileNames are the names kustomize reads a kustomization from, in its order.
var FileNames = inputfiles.KustomizationNames

const (
	configGroup            = "gateway2tyk.io/"
	localConfigAnnotation  = "config.kubernetes.io/local-config"
	functionAnnotation     = "config.kubernetes.io/function"
	transformersField      = "transformers"
	sortOptionsField       = "sortOptions"
	legacySortOrder        = "legacy"
	legacySortOptionsField = "legacySortOptions"
)

// untransforming are the kustomization fields that leave the objects of its resources as they are: a
// kustomization that holds cluster facts may have only these (and gateway2tyk as its last transformer).
var untransforming = map[string]bool{
	"apiVersion": true, "kind": true, "metadata": true, "resources": true, "components": true,
	transformersField: true, sortOptionsField: true, "configMapGenerator": true, "secretGenerator": true,
	"generatorOptions": true, "crds": true, "openapi": true, "buildMetadata": true, "helmCharts": true,
	"helmGlobals": true,
}

// App is what the transformer would have seen besides kustomize's output.
type App struct {
	// Dir is the application directory, Kustomization its kustomization file ("" for a directory without one).
	Dir, Kustomization string
	// Config is the RenderConfig; ConfigSource the file it was read from (the kustomization for an inline one).
	Config       *yaml.RNode
	ConfigSource string
	// Transformer is the kustomization's transformers entry that names the RenderConfig ("" when it is not
	// listed): kustomize must build the application without it.
	Transformer string
	// Facts are the local-config objects of the kustomization's local resources, in file order.
	Facts []*yaml.RNode
	// Order is kustomize's legacy sort order for this kustomization.
	Order Order
}

// Unfaithful is returned by Load when rendering after `kustomize build` could give other objects than the
// transformer path: the application must be built with gateway2tyk as a transformer.
type Unfaithful struct{ Reason string }

func (e *Unfaithful) Error() string {
	return "the large-app path would not give the transformer's output: " + e.Reason
}

// Load reads the application directory dir.
func Load(dir string) (*App, error) { return load(dir, true) }

// LoadToDetach is Load for Detach alone: it makes the same checks and refuses the same applications, but reads
// the resource files for cluster facts only when their presence could decide (some kustomization of the
// application sets a field kustomize would apply to them), and leaves Facts empty. On the Argo CD plugin's path
// the facts are read by the render that follows.
func LoadToDetach(dir string) (*App, error) { return load(dir, false) }

func load(dir string, collect bool) (*App, error) {
	app := &App{Dir: dir, Order: DefaultOrder()}
	kfile, err := findKustomization(dir)
	if err != nil {
		return nil, err
	}
	app.Kustomization = kfile
	if kfile != "" {
		if err := app.readTop(kfile); err != nil {
			return nil, err
		}
		w := factWalk{read: collect, seen: map[string]bool{}}
		f, err := w.facts(kfile)
		if err == nil && !collect && w.transforming {
			// A kustomization applies fields to its objects: whether it holds facts decides.
			w = factWalk{read: true, seen: map[string]bool{}}
			_, err = w.facts(kfile)
		}
		if err != nil {
			return nil, err
		}
		if collect {
			app.Facts = f
		}
	}
	if app.Config == nil {
		if err := app.findConfig(); err != nil {
			return nil, err
		}
	}
	return app, nil
}

func findKustomization(dir string) (string, error) {
	var found []string
	for _, name := range FileNames {
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			found = append(found, p)
		}
	}
	if len(found) > 1 {
		return "", fmt.Errorf("%s: found %s; kustomize reads only one", dir, strings.Join(found, " and "))
	}
	if len(found) == 0 {
		return "", nil
	}
	return found[0], nil
}

func readKustomization(file string) (*yaml.RNode, error) {
	k, err := yaml.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if k.YNode().Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a kustomization (a YAML mapping)", file)
	}
	return k, nil
}

// stringList returns the string entries of the list field of a kustomization.
func stringList(k *yaml.RNode, file, field string) ([]string, error) {
	n := k.Field(field)
	if n == nil || yaml.IsYNodeEmptyMap(n.Value.YNode()) || n.Value.IsNil() {
		return nil, nil
	}
	if n.Value.YNode().Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s: %s: must be a list", file, field)
	}
	var out []string
	for _, e := range n.Value.YNode().Content {
		if e.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%s: %s: every entry must be a string", file, field)
		}
		out = append(out, e.Value)
	}
	return out, nil
}

// readTop reads the transformers and sortOptions of the application's own kustomization.
func (app *App) readTop(file string) error {
	k, err := readKustomization(file)
	if err != nil {
		return err
	}
	for _, f := range []string{"generators", "validators"} {
		if entries, err := stringList(k, file, f); err != nil {
			return err
		} else if len(entries) > 0 {
			return &Unfaithful{fmt.Sprintf("%s lists %s, which kustomize would not run the same way", file, f)}
		}
	}
	entries, err := stringList(k, file, transformersField)
	if err != nil {
		return err
	}
	for i, e := range entries {
		source, node, err := transformerConfig(filepath.Dir(file), file, e)
		if err != nil {
			return err
		}
		if !isRenderConfig(node) {
			return &Unfaithful{fmt.Sprintf("%s: transformer %q is not gateway2tyk's: it must run in kustomize, "+
				"before and around gateway2tyk", file, short(e))}
		}
		if i != len(entries)-1 {
			return &Unfaithful{fmt.Sprintf("%s: gateway2tyk (%s) is not the last transformer", file, short(e))}
		}
		app.Config, app.ConfigSource, app.Transformer = node, source, e
	}
	if so := k.Field(sortOptionsField); so != nil && !so.Value.IsNil() {
		order, err := so.Value.Pipe(yaml.Lookup("order"))
		if err != nil {
			return fmt.Errorf("%s: sortOptions: %w", file, err)
		}
		if order == nil || yaml.GetValue(order) != legacySortOrder {
			return &Unfaithful{fmt.Sprintf("%s: sortOptions.order is not legacy", file)}
		}
		if opts := so.Value.Field(legacySortOptionsField); opts != nil && !opts.Value.IsNil() {
			first, err := stringList(opts.Value, file, "orderFirst")
			if err != nil {
				return err
			}
			last, err := stringList(opts.Value, file, "orderLast")
			if err != nil {
				return err
			}
			app.Order = NewOrder(first, last)
		}
	}
	return nil
}

// transformerConfig reads a transformers entry: a file path, or the config itself inline (a string holding a
// newline, as kustomize reads it).
func transformerConfig(dir, kfile, entry string) (source string, node *yaml.RNode, err error) {
	if strings.Contains(entry, "\n") {
		node, err = yaml.Parse(entry)
		if err != nil {
			return "", nil, fmt.Errorf("%s: inline transformer: %w", kfile, err)
		}
		return kfile, node, nil
	}
	p := filepath.Join(dir, entry)
	info, err := os.Stat(p)
	if err != nil || info.IsDir() {
		return "", nil, &Unfaithful{fmt.Sprintf("%s: transformer %q is not a local file", kfile, entry)}
	}
	node, err = yaml.ReadFile(p)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", p, err)
	}
	return p, node, nil
}

func isRenderConfig(n *yaml.RNode) bool {
	return n != nil && strings.HasPrefix(n.GetApiVersion(), configGroup)
}

func short(entry string) string {
	if i := strings.IndexByte(entry, '\n'); i >= 0 {
		return entry[:i] + " ..."
	}
	return entry
}

// factWalk walks a kustomization and its local bases and components. Unless read, it reads no resource file (it
// finds no facts) and records whether some kustomization sets a field that would make facts refused.
type factWalk struct {
	read, transforming bool
	seen               map[string]bool
}

// facts returns the local-config objects of the local resources of the kustomization file kfile and of its
// local bases and components, refusing what kustomize would read differently than this walk.
func (w *factWalk) facts(kfile string) ([]*yaml.RNode, error) {
	if w.seen[kfile] {
		return nil, nil
	}
	w.seen[kfile] = true
	k, err := readKustomization(kfile)
	if err != nil {
		return nil, err
	}
	transforming, err := transformingField(k, kfile)
	if err != nil {
		return nil, err
	}
	w.transforming = w.transforming || transforming != ""
	dir := filepath.Dir(kfile)
	var out []*yaml.RNode
	for _, field := range []string{"resources", "components"} {
		entries, err := stringList(k, kfile, field)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			p := filepath.Join(dir, e)
			info, err := os.Stat(p)
			if err != nil {
				return nil, &Unfaithful{fmt.Sprintf("%s: %s entry %q is not a local file or directory "+
					"(a remote base's cluster facts cannot be read)", kfile, field, e)}
			}
			if info.IsDir() {
				sub, err := findKustomization(p)
				if err != nil {
					return nil, err
				}
				if sub == "" {
					return nil, fmt.Errorf("%s: %s entry %q is a directory without a kustomization", kfile, field, e)
				}
				if sub != kfile {
					if err := checkSub(sub); err != nil {
						return nil, err
					}
				}
				f, err := w.facts(sub)
				if err != nil {
					return nil, err
				}
				out = append(out, f...)
				continue
			}
			if !w.read {
				continue
			}
			f, err := localObjects(p)
			if err != nil {
				return nil, err
			}
			out = append(out, f...)
		}
	}
	if len(out) > 0 && transforming != "" {
		return nil, &Unfaithful{fmt.Sprintf("%s holds cluster facts (local-config objects) and sets %s, "+
			"which kustomize would apply to them", kfile, transforming)}
	}
	return out, nil
}

// transformingField is the first field of a kustomization that kustomize applies to the objects of its
// resources ("" when there is none).
func transformingField(k *yaml.RNode, kfile string) (string, error) {
	fields, err := k.Fields()
	if err != nil {
		return "", fmt.Errorf("%s: %w", kfile, err)
	}
	for _, f := range fields {
		if !untransforming[f] {
			return f, nil
		}
	}
	return "", nil
}

// checkSub refuses a base or component that runs transformers, generators or validators of its own.
func checkSub(kfile string) error {
	k, err := readKustomization(kfile)
	if err != nil {
		return err
	}
	for _, f := range []string{transformersField, "generators", "validators"} {
		if entries, err := stringList(k, kfile, f); err != nil {
			return err
		} else if len(entries) > 0 {
			return &Unfaithful{fmt.Sprintf("%s lists %s", kfile, f)}
		}
	}
	return nil
}

// localObjects reads the local-config objects of a resource file. A file whose text holds neither the word
// "local-config" nor a backslash cannot hold the annotation's key (a key is written as its text, or with escapes)
// and is not parsed: at fleet scale, parsing every resource file was most of Load's time, paid twice on the
// Argo CD plugin's path (configure --detach-transformer, then render -k). kustomize reports a file it cannot read.
func localObjects(file string) ([]*yaml.RNode, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(b, []byte("local-config")) && !bytes.Contains(b, []byte(`\`)) {
		return nil, nil
	}
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(b), OmitReaderAnnotations: true}).Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var out []*yaml.RNode
	for _, n := range nodes {
		if _, ok := meta.Annotations(n)[localConfigAnnotation]; ok {
			out = append(out, n)
		}
	}
	return out, nil
}

// findConfig finds the one gateway2tyk function config in the application directory or below it, as the
// Argo CD plugin's discovery does: among the files fn/inputfiles lists.
func (app *App) findConfig() error {
	var found []string
	var config *yaml.RNode
	l, err := inputfiles.List(app.Dir)
	if err != nil {
		return err
	}
	for _, p := range l.Files {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !strings.Contains(string(b), configGroup) {
			continue
		}
		nodes, err := kio.FromBytes(b)
		if err != nil {
			continue // not ours to judge: kustomize reports the files it reads
		}
		for _, n := range nodes {
			if isRenderConfig(n) {
				found = append(found, p)
				config = n
			}
		}
	}
	switch len(found) {
	case 0:
		return errors.New(app.Dir + ": no gateway2tyk function config (a YAML file with apiVersion gateway2tyk.io/...) in it or below it")
	case 1:
		app.Config, app.ConfigSource = config, found[0]
		return nil
	}
	sort.Strings(found)
	return fmt.Errorf("%s: several gateway2tyk function configs (%s): name one in the kustomization's transformers",
		app.Dir, strings.Join(found, ", "))
}
