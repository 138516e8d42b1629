package apiserver

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sync"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// Channel is a Gateway API release channel: the CRDs a cluster has installed. The experimental channel's
// CRDs accept every standard field and more; a standard-channel cluster refuses the experimental fields.
type Channel string

const (
	Standard     Channel = "standard"
	Experimental Channel = "experimental"
)

// crdFiles are the CRDs of the kinds the render reads, from the gateway-api module of go.mod (see crds_test.go).
//
//go:embed crds
var crdFiles embed.FS

// crdFile names the CRD file of a Gateway API kind, as the gateway-api module names them.
var crdFile = map[string]string{
	"GatewayClass":     "gateway.networking.k8s.io_gatewayclasses.yaml",
	"Gateway":          "gateway.networking.k8s.io_gateways.yaml",
	"HTTPRoute":        "gateway.networking.k8s.io_httproutes.yaml",
	"ReferenceGrant":   "gateway.networking.k8s.io_referencegrants.yaml",
	"BackendTLSPolicy": "gateway.networking.k8s.io_backendtlspolicies.yaml",
	"ListenerSet":      "gateway.networking.k8s.io_listenersets.yaml",
}

// validator is what the API server's custom resource storage holds for one served version of a CRD.
type validator struct {
	// channel, kind and version name the validator in the Memory's keys.
	channel    Channel
	kind       string
	version    string
	namespaced bool
	structural *structuralschema.Structural
	// status is the CRD's status subresource, which PrepareForCreate reads (prepareForCreate).
	status *apiextensionsinternal.CustomResourceSubresourceStatus
	// strategy is the strategy's Validate over the CRD's schema (createValidation), built on the first Validate,
	// so that a run whose verdicts all come from the Memory does not compile the CRD's CEL rules (60 ms for
	// HTTPRoute).
	strategy func() (*createValidation, error)
}

// crdKey names one CRD of one channel.
type crdKey struct {
	channel Channel
	kind    string
}

var (
	crdMu    sync.Mutex
	crdCache = map[crdKey]*crdEntry{}
)

// crdEntry is one CRD, parsed on first use, and the validators of its versions, each built on first use: building
// one compiles its CEL rules, and most renders meet one version of each kind.
type crdEntry struct {
	parse    sync.Once
	crd      *apiextensionsv1.CustomResourceDefinition
	err      error
	mu       sync.Mutex
	versions map[string]*versionEntry
}

type versionEntry struct {
	once sync.Once
	val  *validator
	err  error
}

// validatorFor returns the API server's validator for a Gateway API kind in one version, building it on first
// use. It returns nil, nil when the CRD does not serve that version.
func validatorFor(channel Channel, kind, version string) (*validator, error) {
	crdMu.Lock()
	e, ok := crdCache[crdKey{channel, kind}]
	if !ok {
		e = &crdEntry{versions: map[string]*versionEntry{}}
		crdCache[crdKey{channel, kind}] = e
	}
	crdMu.Unlock()
	e.parse.Do(func() { e.crd, e.err = readCRD(channel, kind) })
	if e.err != nil {
		return nil, e.err
	}
	e.mu.Lock()
	ve, ok := e.versions[version]
	if !ok {
		ve = &versionEntry{}
		e.versions[version] = ve
	}
	e.mu.Unlock()
	ve.once.Do(func() { ve.val, ve.err = newValidator(channel, e.crd, version) })
	return ve.val, ve.err
}

// readCRD parses the CRD of a kind in a channel.
func readCRD(channel Channel, kind string) (*apiextensionsv1.CustomResourceDefinition, error) {
	file, ok := crdFile[kind]
	if !ok {
		return nil, fmt.Errorf("no CRD for kind %s", kind)
	}
	data, err := fs.ReadFile(crdFiles, path.Join("crds", string(channel), file))
	if err != nil {
		return nil, fmt.Errorf("the %s channel has no CRD for %s: %w", channel, kind, err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(data, &crd); err != nil {
		return nil, fmt.Errorf("CRD %s: %w", file, err)
	}
	return &crd, nil
}

// newValidator builds, for a served version of a CRD, the structural schema and (on first use) the strategy's
// schema and CEL validators, as apiextensions-apiserver's crdHandler does when it starts serving a CRD
// (getOrCreateServingInfoFor): the structural schema with its defaults pruned, and what NewStrategy builds,
// which compiles the CEL rules (create.go). It returns nil, nil when the CRD does not serve the version.
func newValidator(channel Channel, crd *apiextensionsv1.CustomResourceDefinition, version string) (*validator, error) {
	name := crd.Name
	for _, v := range crd.Spec.Versions {
		if v.Name != version || !v.Served || v.Schema == nil {
			continue
		}
		var internal apiextensionsinternal.CustomResourceValidation
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, &internal, nil); err != nil {
			return nil, fmt.Errorf("CRD %s version %s: %w", name, v.Name, err)
		}
		s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
		if err != nil {
			return nil, fmt.Errorf("CRD %s version %s: %w", name, v.Name, err)
		}
		s = s.DeepCopy()
		if err := structuraldefaulting.PruneDefaults(s); err != nil {
			return nil, fmt.Errorf("CRD %s version %s: %w", name, v.Name, err)
		}
		var status *apiextensionsinternal.CustomResourceSubresourceStatus
		if v.Subresources != nil && v.Subresources.Status != nil {
			status = &apiextensionsinternal.CustomResourceSubresourceStatus{}
		}
		gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
		namespaced := crd.Spec.Scope == apiextensionsv1.NamespaceScoped
		openAPI := internal.OpenAPIV3Schema
		return &validator{
			channel:    channel,
			kind:       crd.Spec.Names.Kind,
			version:    v.Name,
			namespaced: namespaced,
			structural: s,
			status:     status,
			strategy: sync.OnceValues(func() (*createValidation, error) {
				c, err := newCreateValidation(gvk, namespaced, openAPI, s)
				if err != nil {
					return nil, fmt.Errorf("CRD %s version %s: %w", name, gvk.Version, err)
				}
				return c, nil
			}),
		}, nil
	}
	return nil, nil
}

// admit runs, on a decoded object, what the API server runs on a create of it: the schema coercion of its
// decoder (unknown metadata fields, pruning of unknown fields with their paths, the removal of nulls the schema
// does not allow), its defaulter, then the strategy's PrepareForCreate and Validate. obj is changed in place
// into what the API server would store. The unknown fields are those strict field validation refuses. Validate's
// verdict comes from the Memory in use when it knows the object (see Memory).
func (v *validator) admit(obj map[string]any) (unknown []string, problems []Problem, err error) {
	objectMeta, foundMeta, metaUnknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj,
		schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, nil, err
	}
	unknown = append(unknown, metaUnknown...)
	kind, apiVersion := obj["kind"], obj["apiVersion"]
	unknown = append(unknown, structuralpruning.PruneWithOptions(obj, v.structural, true,
		structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, v.structural)
	fieldErr, paths := schemaobjectmeta.CoerceWithOptions(nil, obj, v.structural, false,
		schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if fieldErr != nil {
		return unknown, fieldProblems(field.ErrorList{fieldErr}), nil
	}
	unknown = append(unknown, paths...)
	obj["kind"], obj["apiVersion"] = kind, apiVersion
	if foundMeta {
		if err := schemaobjectmeta.SetObjectMeta(obj, objectMeta); err != nil {
			return unknown, nil, err
		}
	}
	structuraldefaulting.Default(obj, v.structural)
	u := &unstructured.Unstructured{Object: obj}
	ctx := context.Background()
	prepareForCreate(u, v.status)
	validate := func() ([]Problem, error) {
		st, err := v.strategy()
		if err != nil {
			return nil, err
		}
		return fieldProblems(st.Validate(ctx, u)), nil
	}
	m := memory.Load()
	if m == nil {
		problems, err = validate()
		return unknown, problems, err
	}
	canonical, err := json.Marshal(obj)
	if err != nil {
		problems, err = validate()
		return unknown, problems, err
	}
	problems, err = m.remembered(keyOf(v.channel, v.kind, v.version, canonical), validate)
	return unknown, problems, err
}
