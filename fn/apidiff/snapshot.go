package apidiff

import (
	"github.com/gateway2tyk/gateway2tyk/fn/apiserver"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/basedoc"
	"github.com/gateway2tyk/gateway2tyk/fn/read"
)

// Snapshot is one side of a diff: what a render produced.
type Snapshot struct {
	// APIs by API ID.
	APIs map[string]*API
	// Status is the gateway2tyk.io/status annotation (JSON) of every object that carries one, by object.
	Status map[Object]string
	// Results are the render's results as one line each, sorted; ResultsKnown is false for an already rendered
	// stream, which does not carry them.
	Results      []string
	ResultsKnown bool
}

// API is one rendered API: its identity and its Tyk OAS document as emitted.
type API struct {
	Ref
	Document string
	// Base names the TykOasApiDefinition whose base document applies ("" when none does).
	Base string
	// HeaderNamesKept is the render's config: the Tyk Gateways keep header names as written (Describe). An
	// already rendered stream does not say, and is read as Tyk's default (false).
	HeaderNamesKept bool
}

// Ref is what names an API to a reviewer.
type Ref struct {
	ID       string `json:"id"`
	Route    string `json:"route"`
	Gateway  string `json:"gateway"`
	Hostname string `json:"hostname"`
	Path     string `json:"path"`
	// Role is what an API of a routed path is for (emit.AnnotationRole: "router", "internal spec.rules[N]",
	// "no rule"), "" for a plain API.
	Role string `json:"role,omitempty"`
	// Owner is the application that owns the API (the render's label gateway2tyk.io/owner, or on a target the
	// marker's owner); "" when not known, or for an API made before owners.
	Owner string `json:"owner,omitempty"`
}

// Object names an object with a status.
type Object struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

func (o Object) String() string {
	if o.Namespace == "" {
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
}

// IsRendered reports whether items are a render's output rather than its input: they hold APIs that
// gateway2tyk emitted. Such a stream is compared as it is.
func IsRendered(items []*yaml.RNode) bool {
	for _, it := range items {
		if emit.IsEmitted(it) {
			return true
		}
	}
	return false
}

// Load makes the snapshot of one side: items read as `render` reads them, rendered with fnConfig, or taken as
// they are when they are already rendered (IsRendered). An error is a config that does not load or an output
// that cannot be built. dir is the application's directory, which the owner of its APIs is made from when the
// config sets none (config.DefaultOwner; "" when not known).
func Load(items []*yaml.RNode, fnConfig *yaml.RNode, dir string) (*Snapshot, error) {
	if IsRendered(items) {
		return FromRendered(items), nil
	}
	return Render(items, fnConfig, dir)
}

// Render makes the snapshot of items rendered with fnConfig, even when they hold an earlier render's output
// (kustomize's output of a kustomization that runs gateway2tyk: the render reads past its own earlier output),
// so that the results are known. dir is as for Load.
func Render(items []*yaml.RNode, fnConfig *yaml.RNode, dir string) (*Snapshot, error) {
	cfg, err := config.Load(fnConfig)
	if err != nil {
		return nil, err
	}
	out, err := fn.Render(items, cfg.WithOwner(dir))
	if err != nil {
		return nil, err
	}
	return FromRender(out), nil
}

// FromRender is the snapshot of a render done in memory; the base document of each API is the render's own
// decision (fn.Output.Bases).
func FromRender(out *fn.Output) *Snapshot {
	base := map[string]string{}
	for _, api := range out.Translation.APIs {
		if d := out.Bases.For(api.Route.Route, api.Parent.Gateway.Gateway); d != nil {
			base[api.ID] = d.Name()
		}
	}
	s := fromItems(out.Items, func(r Ref) string { return base[r.ID] })
	for _, a := range s.APIs {
		a.HeaderNamesKept = out.HeaderNamesKept
	}
	s.ResultsKnown = true
	s.Results = resultLines(out.Results)
	return s
}

// FromRendered is the snapshot of an already rendered stream. Which base document applies is decided again by
// basedoc over the stream's TykOasApiDefinitions (they are in it unless the render dropped its inputs).
func FromRendered(items []*yaml.RNode) *Snapshot {
	// A rendered stream holds inputs a render already admitted; the experimental channel, which admits every
	// standard field, reads them whatever channel that render judged them by.
	var inv = read.Items(items, apiserver.Experimental).Inventory
	bases := basedoc.Resolve(inv)
	return fromItems(items, func(r Ref) string {
		route := inv.HTTPRoutes[namespacedName(r.Route)]
		gw := inv.Gateways[namespacedName(r.Gateway)]
		if route == nil || gw == nil {
			return ""
		}
		if d := bases.For(route, gw); d != nil {
			return d.Name()
		}
		return ""
	})
}

func fromItems(items []*yaml.RNode, base func(Ref) string) *Snapshot {
	s := &Snapshot{APIs: map[string]*API{}, Status: map[Object]string{}}
	for _, it := range items {
		meta, err := it.GetMeta()
		if err != nil {
			continue
		}
		if emit.IsEmitted(it) {
			if meta.Kind != "ConfigMap" {
				continue // the TykOasApiDefinition of output: TykOasApiDefinition points at the ConfigMap
			}
			a := meta.Annotations
			doc, _ := it.GetDataMap()[emit.DocumentKey]
			ref := Ref{ID: meta.Labels[emit.LabelAPIID], Route: a[emit.AnnotationRoute], Gateway: a[emit.AnnotationGateway],
				Hostname: a[emit.AnnotationHostname], Path: a[emit.AnnotationPath], Role: a[emit.AnnotationRole], Owner: emit.Owner(meta.Labels)}
			s.APIs[ref.ID] = &API{Ref: ref, Document: doc, Base: base(ref)}
			continue
		}
		if st, ok := meta.Annotations[emit.AnnotationStatus]; ok {
			s.Status[Object{Kind: meta.Kind, Namespace: meta.Namespace, Name: meta.Name}] = st
		}
	}
	return s
}

// owners are the owners of the snapshot's APIs, sorted ("" of an older release's output left out).
func (s *Snapshot) owners() []string {
	seen := map[string]bool{}
	for _, a := range s.APIs {
		if a.Owner != "" {
			seen[a.Owner] = true
		}
	}
	out := make([]string, 0, len(seen))
	for o := range seen {
		out = append(out, o)
	}
	sort.Strings(out)
	return out
}

func resultLines(results framework.Results) []string {
	out := make([]string, 0, len(results))
	for _, r := range results {
		out = append(out, r.String())
	}
	sort.Strings(out)
	return out
}

// namespacedName reads the "<namespace>/<name>" of the route and gateway annotations.
func namespacedName(s string) types.NamespacedName {
	ns, name, _ := strings.Cut(s, "/")
	return types.NamespacedName{Namespace: ns, Name: name}
}
