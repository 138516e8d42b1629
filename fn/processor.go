package fn

import (
	"fmt"
	"github.com/gateway2tyk/gateway2tyk/fn/apiserver"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/hook"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/basedoc"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/meta"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/operatorcontext"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/status"
	"github.com/gateway2tyk/gateway2tyk/fn/read"
	"github.com/gateway2tyk/gateway2tyk/fn/translate"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// Processor is the gateway2tyk KRM function.
type Processor struct {
	// Context, when set, is prefixed to the error that fails the run (for example the Argo CD application), so
	// a user reading a log knows which render failed. It never changes the output.
	Context string
	// Counts, when set, is filled with what the render made of its input (gateway2tyk render's summary line).
	Counts *Counts
	// DefaultNamespace is the namespace the pipeline gives objects without one (the Argo CD plugin passes its
	// destination); the RenderConfig's spec.defaultNamespace wins over it.
	DefaultNamespace string
	// Dir is the application's directory, when the caller knows it (render, the Argo CD plugin): the owner of
	// the APIs is made from it when the config sets none (config.DefaultOwner).
	Dir string
	// KustomizeDir is the working directory, which is the application's directory only when kustomize runs the
	// function (kustomize runs exec functions in the kustomization's root): it counts when every item carries
	// kustomize's annotation kustomize.config.k8s.io/id, and is ignored otherwise, since any other caller's
	// working directory is wherever it happens to be.
	KustomizeDir string
}

// kustomizeIDAnnotation is the annotation kustomize puts on every item it hands to a function.
const kustomizeIDAnnotation = "kustomize.config.k8s.io/id"

// dir is the application's directory as far as the run can tell.
func (p Processor) dir(items []*yaml.RNode) string {
	if p.Dir != "" || p.KustomizeDir == "" || len(items) == 0 {
		return p.Dir
	}
	for _, it := range items {
		if _, ok := meta.Annotations(it)[kustomizeIDAnnotation]; !ok {
			return ""
		}
	}
	return p.KustomizeDir
}

var _ framework.ResourceListProcessor = Processor{}

// Process renders the ResourceList in place.
func (p Processor) Process(rl *framework.ResourceList) error {
	cfg, err := config.Load(rl.FunctionConfig)
	if err != nil {
		rl.Results = append(rl.Results, &framework.Result{Severity: framework.Error, Message: err.Error()})
		return p.fail(rl.Results, err.Error())
	}
	if cfg.DefaultNamespace == "" {
		cfg.DefaultNamespace = p.DefaultNamespace
	}
	chosen := cfg.Owner != ""
	cfg = cfg.WithOwner(p.dir(rl.Items))
	out, err := render(rl.Items, cfg, false)
	out.Counts.Owner, out.Counts.OwnerFallback = cfg.Owner, !chosen && cfg.Owner == config.FallbackOwner
	if p.Counts != nil {
		*p.Counts = out.Counts
	}
	rl.Items = out.Items
	rl.Results = append(rl.Results, out.Results...)
	if err != nil {
		rl.Results = append(rl.Results, &framework.Result{Severity: framework.Error, Message: err.Error()})
		return p.fail(rl.Results, err.Error())
	}
	if failing := countFailing(rl.Results, cfg.FailOn); failing > 0 {
		return p.fail(rl.Results, fmt.Sprintf("%d result(s) at or above failOn %s", failing, cfg.FailOn))
	}
	return nil
}

func (p Processor) fail(results framework.Results, summary string) error {
	var b strings.Builder
	if p.Context != "" {
		b.WriteString(p.Context + ": ")
	}
	b.WriteString("gateway2tyk: " + summary + "\n")
	for _, r := range results {
		b.WriteString("  " + r.String() + "\n")
	}
	return fmt.Errorf("%s", strings.TrimRight(b.String(), "\n"))
}

func countFailing(results framework.Results, failOn config.Severity) int {
	n := 0
	for _, r := range results {
		if failOn.Fails(string(r.Severity)) {
			n++
		}
	}
	return n
}

// Output is the result of a render.
type Output struct {
	Items   []*yaml.RNode
	Results framework.Results
	// Attachment and Translation are the decisions behind the output, for the read-only views (explain, graph).
	Attachment  *attachment.Result
	Translation *translate.Output
	Bases       *basedoc.Result
	Counts      Counts
	// Profile is the config's: whose semantics the decisions follow, for the views that model Tyk (explain).
	Profile config.Profile
	// TykVersion is the Tyk release the render writes for: spec.tykVersion, else tykroute.NewestVersion (the
	// release explain answers for unless told another).
	TykVersion tykroute.Version
	// HeaderNamesKept is the config's: the Tyk Gateways keep header names as written (for explain's model).
	HeaderNamesKept bool
}

// Render runs the stages over the items. It returns an error only when an output object cannot be built; every
// problem with the input is a result. The APIs' owner is cfg.Owner (config.FallbackOwner when empty: give
// cfg.WithOwner the application's directory).
func Render(items []*yaml.RNode, cfg config.Spec) (*Output, error) { return render(items, cfg, true) }

// render is Render; the KRM function, which needs only the items and results, passes keepDocuments false, so that
// each API's document is encoded as soon as the translation builds it and let go (translate.TranslateEncoded).
func render(items []*yaml.RNode, cfg config.Spec, keepDocuments bool) (*Output, error) {
	if err := defaultNamespaces(items, cfg.DefaultNamespace); err != nil {
		return &Output{Items: items}, err
	}
	cfg = cfg.WithOwner("")
	in := read.Items(items, apiserver.Channel(cfg.GatewayAPIChannel))
	env := operatorcontext.New(in.Inventory)
	if cfg.Profile.GatewayAPI() {
		env = env.GatewayAPIProfile(cfg.TykRelease(), cfg.HeaderNamesKept)
		if pool, err := config.ParsePorts(cfg.GatewayPorts); err == nil {
			env = env.WithGatewayServices(pool, cfg.ControllerName)
		}
	}
	att := attachment.Attach(in.Inventory, cfg.ControllerName, env)
	bases := basedoc.Resolve(in.Inventory)
	translateAPIs := translate.Translate
	if !keepDocuments {
		translateAPIs = translate.TranslateEncoded
	}
	tr := translateAPIs(att, env, bases)
	final := parentConditions(tr)
	attachment.CountAttachedRoutes(att, func(p *attachment.Parent) bool {
		return status.IsTrue(final[p], string(gwv1.RouteConditionAccepted))
	})

	out := &Output{Attachment: att, Translation: tr, Bases: bases, Results: readResults(in),
		Counts: count(in, len(att.Gateways), tr), Profile: cfg.Profile, TykVersion: cfg.TykRelease(),
		HeaderNamesKept: cfg.HeaderNamesKept}
	if out.TykVersion.IsZero() {
		out.TykVersion = tykroute.NewestVersion
	}
	out.Results = append(out.Results, controllerResults(in.Inventory, cfg.ControllerName)...)
	out.Results = append(out.Results, hostPrecedenceResults(in, tr)...)
	out.Results = append(out.Results, conditionResults(in, att, tr)...)
	out.Results = append(out.Results, definitionResults(in, bases)...)
	withStatus, err := writeStatus(in, att, tr, bases, cfg)
	if err != nil {
		return &Output{Items: items, Results: out.Results, Counts: out.Counts}, err
	}
	emitted, limits, err := emitAPIs(tr, cfg)
	if err != nil {
		return &Output{Items: items, Results: out.Results, Counts: out.Counts}, err
	}
	out.Results = append(out.Results, sizeResults(in, limits)...)
	hookObjects, hookResults := hook.Build(cfg.SyncHook, cfg.Owner, cfg.ControllerName, in.Inventory, hookAPIs(tr), withStatus...)
	out.Results = append(out.Results, hookResults...)
	emitted = append(emitted, hookObjects...)
	for _, svc := range env.GatewayServices() {
		n, err := emit.GatewayService(svc)
		if err != nil {
			return &Output{Items: items, Results: out.Results, Counts: out.Counts}, err
		}
		emitted = append(emitted, n)
	}
	kept := items
	if cfg.Inputs == config.InputsDrop {
		kept = dropInputs(items, in)
	}
	out.Items = upsert(kept, emitted)
	return out, nil
}
