package config

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// Output selects what the render emits for each API.
type Output string

// Inputs selects whether the Gateway API inputs are passed through.
type Inputs string

// Severity is the failOn threshold.
type Severity string

// Channel is the Gateway API release channel of the cluster's CRDs.
type Channel string

const (
	// APIVersion and Kind identify the typed function config.
	// Group is gateway2tyk's API group: an object of it among the inputs is meant as the function config.
	Group      = "gateway2tyk.io"
	APIVersion = Group + "/v1alpha1"
	Kind       = "RenderConfig"

	// DefaultControllerName is Tyk Operator's own controller name, so that a
	// repository written for the operator renders without any config.
	DefaultControllerName = "tyk.tyk.io/gateway-controller"

	OutputConfigMap           Output = "ConfigMap"
	OutputTykOasApiDefinition Output = "TykOasApiDefinition"

	InputsKeep Inputs = "Keep"
	InputsDrop Inputs = "Drop"

	FailOnError   Severity = "Error"
	FailOnWarning Severity = "Warning"

	// The Gateway API release channels: which CRDs the cluster has installed, and so which fields the API
	// server accepts. Standard is the default: a standard-channel cluster refuses the experimental fields.
	ChannelStandard     Channel = "standard"
	ChannelExperimental Channel = "experimental"
)

// configMapKind is the kind `kpt fn eval -- key=value` wraps the keys in.
const configMapKind = "ConfigMap"

// maxControllerNameLength mirrors the Gateway API CRD's limit on
// GatewayClass spec.controllerName: a longer name can never match a class.
const maxControllerNameLength = 253

// Spec is the validated, defaulted configuration.
type Spec struct {
	ControllerName string   `json:"controllerName,omitempty"`
	Output         Output   `json:"output,omitempty"`
	Inputs         Inputs   `json:"inputs,omitempty"`
	FailOn         Severity `json:"failOn,omitempty"`
	// GatewayAPIChannel is the Gateway API channel whose CRDs judge the inputs (ChannelStandard or
	// ChannelExperimental).
	GatewayAPIChannel Channel `json:"gatewayAPIChannel,omitempty"`
	// DefaultNamespace is the namespace of the namespaced inputs that have none, for pipelines that give them
	// one only on apply (kubectl apply -n, an Argo CD destination); empty: such an input is an error.
	DefaultNamespace string `json:"defaultNamespace,omitempty"`
	// Owner is the application that owns the rendered APIs (the label gateway2tyk.io/owner of each, and the
	// owner field of the marker the sync writes into each API on Tyk): the sync creates, updates and deletes only
	// the APIs of its input's owners. Load leaves it empty when spec.owner (data.owner) is not set; the render
	// then takes DefaultOwner's answer (see owner.go).
	Owner string `json:"owner,omitempty"`
	// Profile is whose semantics the render follows: ProfileOperator (Tyk Operator's reference) or
	// ProfileGatewayAPI (see profile.go).
	Profile Profile `json:"profile,omitempty"`
	// TykVersion is the oldest Tyk Gateway release the rendered APIs must load on (tykVersion.go); empty: the
	// newest the render knows.
	TykVersion string `json:"tykVersion,omitempty"`
	// HeaderNamesKept says the Tyk Gateways run with tyk.conf's ignore_canonical_mime_header_key: true, so a
	// header transform writes a header by the name as given, and a name that is not in canonical form is a
	// header line of its own beside the canonical one (headernames.go). The gateway-api profile serves a
	// ResponseHeaderModifier's add with it; the operator profile does not read it.
	HeaderNamesKept bool `json:"ignoreCanonicalMIMEHeaderKey,omitempty"`
	// GatewayPorts are the ports of the Tyk Pods the render may send Gateways' own Services to (gatewayports.go),
	// as written ("20100-20149,20200"); empty: it emits none. The gateway-api profile only.
	GatewayPorts string   `json:"gatewayPorts,omitempty"`
	SyncHook     SyncHook `json:"syncHook,omitempty"`
}

// SyncHook asks the render to emit the Argo CD PostSync hook that runs `gateway2tyk sync` (package fn/hook).
// In the RenderConfig it is the mapping spec.syncHook; in the ConfigMap form its fields are the data keys
// syncHook.enabled ("true" or "false"), syncHook.image, syncHook.context, syncHook.namespace,
// syncHook.namespaces (comma-separated) and syncHook.writeStatus ("true" or "false").
type SyncHook struct {
	// Enabled emits the hook; it needs Image and output ConfigMap.
	Enabled bool `json:"enabled,omitempty"`
	// Image is the gateway2tyk image the Job runs.
	Image string `json:"image,omitempty"`
	// Context is the OperatorContext NAMESPACE/NAME with the Tyk connection; empty means the one the
	// parametersRef of our GatewayClass names.
	Context string `json:"context,omitempty"`
	// Namespace is where the Job and its ServiceAccount live; empty means the context's namespace.
	Namespace string `json:"namespace,omitempty"`
	// Namespaces are those the sync covers (reads ConfigMaps from, and deletes APIs of); empty means the
	// namespaces of the HTTPRoutes in the input.
	Namespaces []string `json:"namespaces,omitempty"`
	// WriteStatus makes the hook write the would-be status of the GatewayClasses, Gateways and HTTPRoutes it
	// renders to their status subresource (`sync --write-status`), and grants it the patch on them.
	WriteStatus bool `json:"writeStatus,omitempty"`
}

// syncHookKey is the spec field of SyncHook, and the prefix of its keys in the ConfigMap form.
const syncHookKey = "syncHook"

// Default is the configuration used when no function config is given.
func Default() Spec {
	return Spec{
		ControllerName:    DefaultControllerName,
		Output:            OutputConfigMap,
		Inputs:            InputsKeep,
		FailOn:            FailOnError,
		GatewayAPIChannel: ChannelStandard,
		Profile:           ProfileOperator,
	}
}

// Fails reports whether a KRM result of the given severity ("error",
// "warning" or "info", as in the ResourceList's results) reaches the failOn
// threshold, so the caller can decide the exit status in one place.
func (s Severity) Fails(resultSeverity string) bool {
	rank := map[string]int{"info": 0, "warning": 1, "error": 2}
	r, ok := rank[strings.ToLower(resultSeverity)]
	if !ok {
		// An unknown severity is treated as the worst so that it is never
		// silently ignored.
		r = rank["error"]
	}
	threshold := rank["error"]
	if s == FailOnWarning {
		threshold = rank["warning"]
	}
	return r >= threshold
}

// FieldError names the config object and the offending field, e.g.
//
//	RenderConfig tyk: spec.output: must be one of ConfigMap, TykOasApiDefinition (got "Secret")
//	ConfigMap fn-config: data.colour: unknown field
type FieldError struct {
	Kind, Name, Field, Message string
}

func (e *FieldError) Error() string {
	label := e.Kind
	if label == "" {
		// Without a kind the user still needs to know which file is meant.
		label = "function config"
	}
	if e.Name != "" {
		label += " " + e.Name
	}
	if e.Field == "" {
		return label + ": " + e.Message
	}
	return label + ": " + e.Field + ": " + e.Message
}

// Load reads the function config node (nil or an empty node → Default()). It
// accepts kind RenderConfig with apiVersion gateway2tyk.io/v1alpha1, or a v1
// ConfigMap whose data holds the same keys. It returns a *FieldError for an
// unknown kind/apiVersion, an unknown field (in spec, or an unknown data key),
// a value of the wrong type, or a bad value.
func Load(node *yaml.RNode) (Spec, error) {
	if node == nil {
		return Default(), nil
	}
	root := deref(node.YNode())
	if isEmpty(root) {
		return Default(), nil
	}
	l := &loader{}
	if root.Kind != yaml.MappingNode {
		return Spec{}, l.fail("", "must be a mapping (got %s)", describe(root))
	}
	topOrder, top, err := l.fields(root, "")
	if err != nil {
		return Spec{}, err
	}

	// The name and kind are read first so that every later error, even one
	// about metadata itself, can say which object it is about.
	if md, ok := top["metadata"]; ok && !isNull(md) {
		if md.Kind != yaml.MappingNode {
			return Spec{}, l.fail("metadata", "must be a mapping (got %s)", describe(md))
		}
		_, mdFields, err := l.fields(md, "metadata")
		if err != nil {
			return Spec{}, err
		}
		if n, ok := mdFields["name"]; ok {
			if l.name, err = l.str(n, "metadata.name"); err != nil {
				return Spec{}, err
			}
		}
	}
	kind, err := l.str(top["kind"], "kind")
	if err != nil {
		return Spec{}, err
	}
	l.kind = kind
	apiVersion, err := l.str(top["apiVersion"], "apiVersion")
	if err != nil {
		return Spec{}, err
	}

	var body, wantAPIVersion string
	switch kind {
	case Kind:
		body, wantAPIVersion = "spec", APIVersion
	case configMapKind:
		body, wantAPIVersion = "data", "v1"
	case "":
		return Spec{}, l.fail("kind", "missing; must be %s (%s) or %s (v1)", Kind, APIVersion, configMapKind)
	default:
		return Spec{}, l.fail("kind", "must be %s (%s) or %s (v1) (got %q)", Kind, APIVersion, configMapKind, kind)
	}
	if apiVersion != wantAPIVersion {
		return Spec{}, l.fail("apiVersion", "must be %s (got %q)", wantAPIVersion, apiVersion)
	}
	for _, k := range topOrder {
		switch k {
		case "apiVersion", "kind", "metadata", body:
		case "immutable":
			// A legitimate ConfigMap field that changes nothing for us.
			if kind != configMapKind {
				return Spec{}, l.fail(k, "unknown field")
			}
		default:
			return Spec{}, l.fail(k, "unknown field")
		}
	}

	spec := Default()
	b, ok := top[body]
	if !ok || isNull(b) {
		return spec, nil
	}
	if b.Kind != yaml.MappingNode {
		return Spec{}, l.fail(body, "must be a mapping (got %s)", describe(b))
	}
	order, values, err := l.fields(b, body)
	if err != nil {
		return Spec{}, err
	}
	// Document order, so that the first offending field in the file is the
	// one reported.
	for _, k := range order {
		path := body + "." + k
		switch sub, dotted := strings.CutPrefix(k, syncHookKey+"."); {
		case k == syncHookKey && kind == Kind:
			if err := l.syncHook(values[k], path, &spec.SyncHook); err != nil {
				return Spec{}, err
			}
			continue
		case k == syncHookKey:
			return Spec{}, l.fail(path, "unknown field; in a ConfigMap the keys are %s.enabled, %s.image, %s.context, "+
				"%s.namespace, %s.namespaces and %s.writeStatus", syncHookKey, syncHookKey, syncHookKey, syncHookKey, syncHookKey,
				syncHookKey)
		case dotted && kind == configMapKind:
			if err := l.syncHookField(sub, values[k], path, true, &spec.SyncHook); err != nil {
				return Spec{}, err
			}
			continue
		case k == HeaderNamesKey:
			if err := l.boolean(values[k], path, kind == configMapKind, &spec.HeaderNamesKept); err != nil {
				return Spec{}, err
			}
			continue
		}
		// The key is checked before its value so that a misspelt key is
		// reported as such even when its value is empty or of the wrong type.
		if !knownField[k] {
			return Spec{}, l.fail(path, "unknown field")
		}
		v, err := l.str(values[k], path)
		if k == tykVersionKey {
			// A release is written as a number as often as a string (tykVersion: 5.8); its text is the release.
			v, err = l.release(values[k], path)
		}
		if err != nil {
			return Spec{}, err
		}
		if v == "" {
			continue
		}
		switch k {
		case "controllerName":
			if msg := controllerNameError(v); msg != "" {
				return Spec{}, l.fail(path, "%s (got %q)", msg, v)
			}
			spec.ControllerName = v
		case "output":
			if err := l.enum(path, v, OutputConfigMap, OutputTykOasApiDefinition); err != nil {
				return Spec{}, err
			}
			spec.Output = Output(v)
		case "inputs":
			if err := l.enum(path, v, InputsKeep, InputsDrop); err != nil {
				return Spec{}, err
			}
			spec.Inputs = Inputs(v)
		case "failOn":
			if err := l.enum(path, v, FailOnError, FailOnWarning); err != nil {
				return Spec{}, err
			}
			spec.FailOn = Severity(v)
		case "gatewayAPIChannel":
			if err := l.enum(path, v, ChannelStandard, ChannelExperimental); err != nil {
				return Spec{}, err
			}
			spec.GatewayAPIChannel = Channel(v)
		case "defaultNamespace":
			if errs := validation.IsDNS1123Label(v); len(errs) > 0 {
				return Spec{}, l.fail(path, "%s (got %q)", strings.Join(errs, "; "), v)
			}
			spec.DefaultNamespace = v
		case profileKey:
			if err := l.enum(path, v, ProfileOperator, ProfileGatewayAPI); err != nil {
				return Spec{}, err
			}
			spec.Profile = Profile(v)
		case tykVersionKey:
			r, err := tykroute.ParseVersion(v)
			if err != nil {
				return Spec{}, l.fail(path, "%v", err)
			}
			if r.Less(tykroute.MinVersion) {
				return Spec{}, l.fail(path, "%s", tooOld(v))
			}
			spec.TykVersion = v
		case gatewayPortsKey:
			if _, err := ParsePorts(v); err != nil {
				return Spec{}, l.fail(path, "%v (got %q)", err, v)
			}
			spec.GatewayPorts = v
		case "owner":
			if msg := OwnerError(v); msg != "" {
				return Spec{}, l.fail(path, "%s (got %q)", msg, v)
			}
			spec.Owner = v
		}
	}
	if err := l.checkSyncHook(body, spec); err != nil {
		return Spec{}, err
	}
	if spec.GatewayPorts != "" && !spec.Profile.GatewayAPI() {
		return Spec{}, l.fail(body+"."+gatewayPortsKey, "only the gateway-api profile reads it (%s.%s: %s)", body,
			profileKey, ProfileGatewayAPI)
	}
	if spec.HeaderNamesKept && !spec.Profile.GatewayAPI() {
		return Spec{}, l.fail(body+"."+HeaderNamesKey, "only the gateway-api profile reads it (%s.%s: %s): the "+
			"operator profile writes header names as Tyk Operator does, for Tyk Gateways that canonicalize them",
			body, profileKey, ProfileGatewayAPI)
	}
	return spec, nil
}

// syncHook reads the spec.syncHook mapping.
func (l *loader) syncHook(n *yaml.Node, path string, h *SyncHook) error {
	if n == nil || isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return l.fail(path, "must be a mapping (got %s)", describe(n))
	}
	order, values, err := l.fields(n, path)
	if err != nil {
		return err
	}
	for _, k := range order {
		if err := l.syncHookField(k, values[k], path+"."+k, false, h); err != nil {
			return err
		}
	}
	return nil
}

// syncHookField reads one field of the sync hook; in the ConfigMap form (cm) every value is a string.
func (l *loader) syncHookField(name string, n *yaml.Node, path string, cm bool, h *SyncHook) error {
	switch name {
	case "enabled":
		return l.boolean(n, path, cm, &h.Enabled)
	case "writeStatus":
		return l.boolean(n, path, cm, &h.WriteStatus)
	case "image":
		v, err := l.str(n, path)
		if err != nil {
			return err
		}
		if strings.ContainsFunc(v, func(r rune) bool { return r <= ' ' || r == 0x7f }) || strings.HasPrefix(v, "-") {
			return l.fail(path, "must be an image reference such as registry.example.com/gateway2tyk:v1 (got %q)", v)
		}
		h.Image = v
	case "context":
		v, err := l.str(n, path)
		if err != nil || v == "" {
			return err
		}
		ns, name, ok := strings.Cut(v, "/")
		if !ok || len(validation.IsDNS1123Label(ns)) > 0 || len(validation.IsDNS1123Subdomain(name)) > 0 {
			return l.fail(path, "must be NAMESPACE/NAME of an OperatorContext (got %q)", v)
		}
		h.Context = v
	case "namespace":
		v, err := l.str(n, path)
		if err != nil || v == "" {
			return err
		}
		if errs := validation.IsDNS1123Label(v); len(errs) > 0 {
			return l.fail(path, "%s (got %q)", strings.Join(errs, "; "), v)
		}
		h.Namespace = v
	case "namespaces":
		var list []string
		switch {
		case n == nil || isNull(n):
		case cm:
			v, err := l.str(n, path)
			if err != nil {
				return err
			}
			for _, part := range strings.Split(v, ",") {
				if part = strings.TrimSpace(part); part != "" {
					list = append(list, part)
				}
			}
		case n.Kind != yaml.SequenceNode:
			return l.fail(path, "must be a sequence of namespaces (got %s)", describe(n))
		default:
			for i, item := range n.Content {
				v, err := l.str(deref(item), fmt.Sprintf("%s[%d]", path, i))
				if err != nil {
					return err
				}
				list = append(list, v)
			}
		}
		seen := map[string]bool{}
		for i, ns := range list {
			at := path
			if !cm {
				at = fmt.Sprintf("%s[%d]", path, i)
			}
			if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
				return l.fail(at, "%s (got %q)", strings.Join(errs, "; "), ns)
			}
			if seen[ns] {
				return l.fail(at, "duplicate namespace %q", ns)
			}
			seen[ns] = true
		}
		h.Namespaces = list
	default:
		return l.fail(path, "unknown field")
	}
	return nil
}

// boolean reads a boolean field; in the ConfigMap form (cm) it is the string "true" or "false".
func (l *loader) boolean(n *yaml.Node, path string, cm bool, v *bool) error {
	if n == nil || isNull(n) {
		return nil
	}
	if !cm {
		if n.Kind != yaml.ScalarNode || n.ShortTag() != yaml.NodeTagBool {
			return l.fail(path, "must be a boolean (got %s)", describe(n))
		}
	}
	s, err := l.scalar(n, path)
	if err != nil {
		return err
	}
	switch strings.ToLower(s) {
	case "true":
		*v = true
	case "false", "":
		*v = false
	default:
		return l.fail(path, "must be true or false (got %q)", s)
	}
	return nil
}

// scalar reads any scalar as its text (for booleans, which the ConfigMap form writes as strings).
func (l *loader) scalar(n *yaml.Node, path string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", l.fail(path, "must be a boolean (got %s)", describe(n))
	}
	return n.Value, nil
}

// checkSyncHook applies the rules that tie the hook's fields to each other and to the output.
func (l *loader) checkSyncHook(body string, spec Spec) error {
	h := spec.SyncHook
	if !h.Enabled {
		return nil
	}
	if h.Image == "" {
		return l.fail(body+"."+syncHookKey+".image", "required when %s.%s.enabled is true", body, syncHookKey)
	}
	if spec.Output != OutputConfigMap {
		return l.fail(body+"."+syncHookKey+".enabled", "needs output %s: with output %s Tyk Operator pushes the APIs, "+
			"and the sync would fight it", OutputConfigMap, spec.Output)
	}
	if h.WriteStatus && spec.Inputs != InputsKeep {
		return l.fail(body+"."+syncHookKey+".writeStatus", "needs inputs %s: the hook reads the status from the "+
			"annotation the render writes on its inputs, as Argo CD applied them", InputsKeep)
	}
	return nil
}

// knownField lists the keys of spec, which are also the keys of data.
var knownField = map[string]bool{"controllerName": true, "output": true, "inputs": true, "failOn": true,
	"gatewayAPIChannel": true, "owner": true, "defaultNamespace": true, profileKey: true,
	tykVersionKey: true, gatewayPortsKey: true}

// loader carries the object's identity so that each error can name it.
type loader struct {
	kind, name string
}

func (l *loader) fail(path, format string, args ...any) *FieldError {
	return &FieldError{Kind: l.kind, Name: l.name, Field: path, Message: fmt.Sprintf(format, args...)}
}

// fields indexes a mapping node and returns its keys in document order; a
// repeated key is an error because which of the two values wins would
// otherwise depend on the reader.
func (l *loader) fields(m *yaml.Node, path string) ([]string, map[string]*yaml.Node, error) {
	out := make(map[string]*yaml.Node, len(m.Content)/2)
	var order []string
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := deref(m.Content[i]).Value
		p := k
		if path != "" {
			p = path + "." + k
		}
		if _, dup := out[k]; dup {
			return nil, nil, l.fail(p, "duplicate field")
		}
		out[k] = deref(m.Content[i+1])
		order = append(order, k)
	}
	return order, out, nil
}

// str reads a string scalar; null and absent read as "", which means default.
// Other scalars are refused rather than stringified, so that `output: 1` or
// `failOn: true` is reported as the type mistake it is.
func (l *loader) str(n *yaml.Node, path string) (string, error) {
	if n == nil || isNull(n) {
		return "", nil
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != yaml.NodeTagString {
		return "", l.fail(path, "must be a string (got %s)", describe(n))
	}
	return n.Value, nil
}

func (l *loader) enum(path, v string, allowed ...fmt.Stringer) error {
	names := make([]string, len(allowed))
	for i, a := range allowed {
		if a.String() == v {
			return nil
		}
		names[i] = a.String()
	}
	return l.fail(path, "must be one of %s (got %q)", strings.Join(names, ", "), v)
}

func (o Output) String() string   { return string(o) }
func (c Channel) String() string  { return string(c) }
func (i Inputs) String() string   { return string(i) }
func (s Severity) String() string { return string(s) }

// controllerNameError applies the Gateway API CRD's rule for
// GatewayClass spec.controllerName, so that a name we accept is one a
// GatewayClass can actually carry. It returns "" for a valid name.
func controllerNameError(v string) string {
	if len(v) > maxControllerNameLength {
		return validation.MaxLenError(maxControllerNameLength)
	}
	errs := validation.IsDomainPrefixedPath(field.NewPath("controllerName"), v)
	if len(errs) == 0 {
		return ""
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Detail
	}
	return strings.Join(msgs, "; ")
}

// deref follows documents and aliases to the node that holds the value.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil {
		switch {
		case n.Kind == yaml.DocumentNode && len(n.Content) == 1:
			n = n.Content[0]
		case n.Kind == yaml.AliasNode && n.Alias != nil:
			n = n.Alias
		default:
			return n
		}
	}
	return nil
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == yaml.NodeTagNull
}

// isEmpty covers the shapes an absent functionConfig takes after a
// ResourceList is read: no node, a zero node, null, or {}.
func isEmpty(n *yaml.Node) bool {
	return n == nil || n.Kind == 0 || isNull(n) ||
		(n.Kind == yaml.MappingNode && len(n.Content) == 0)
}

// describe names a node's type in the user's YAML terms.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "sequence"
	case yaml.ScalarNode:
		switch tag := n.ShortTag(); tag {
		case yaml.NodeTagInt:
			return "integer"
		case yaml.NodeTagBool:
			return "boolean"
		case yaml.NodeTagFloat:
			return "float"
		default:
			return strings.TrimPrefix(tag, "!!")
		}
	}
	return "unknown node"
}
