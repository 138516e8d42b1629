package apiserver

import (
	"context"
	"fmt"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/api/operation"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// What the API server does to a custom resource on a create, after decoding and defaulting it: the custom
// resource strategy's PrepareForCreate and Validate (apiextensions-apiserver v0.37.2,
// pkg/registry/customresource, strategy.go and validator.go). That package is the API server's storage layer: it
// links etcd's client, gRPC, OpenTelemetry and Prometheus (170 packages, most of the binary's weight) for its
// REST storage, none of which a create's checks use. So the checks are made here by the packages the strategy
// calls, in its order; TestRealKubeParity and the stored-object tests hold the result to a real API server.

// prepareForCreate is PrepareForCreate: a create cannot set the status of a kind with the status subresource,
// and the object's generation is 1.
func prepareForCreate(u *unstructured.Unstructured, status *apiextensionsinternal.CustomResourceSubresourceStatus) {
	if status != nil {
		delete(u.Object, "status")
	}
	u.SetGeneration(1)
}

// createValidation is Validate for one served version: the schema validator of its OpenAPI schema and the CEL
// validator of its structural schema (NewStrategy compiles the CEL rules; so does newCreateValidation).
type createValidation struct {
	gvk        schema.GroupVersionKind
	namespaced bool
	structural *structuralschema.Structural
	schema     apiservervalidation.SchemaValidator
	cel        *cel.Validator
}

func newCreateValidation(gvk schema.GroupVersionKind, namespaced bool, openAPI *apiextensionsinternal.JSONSchemaProps,
	s *structuralschema.Structural) (*createValidation, error) {
	schemaValidator, _, err := apiservervalidation.NewSchemaValidator(openAPI)
	if err != nil {
		return nil, err
	}
	return &createValidation{gvk: gvk, namespaced: namespaced, structural: s, schema: schemaValidator,
		cel: cel.NewValidator(s, true, celconfig.PerCallLimit)}, nil
}

// Validate is the strategy's Validate on a create (the kind has no scale subresource).
func (c *createValidation) Validate(ctx context.Context, u *unstructured.Unstructured) field.ErrorList {
	// customResourceValidator.Validate: the type, then the metadata and the schema.
	if errs := c.validateTypeMeta(u); len(errs) > 0 {
		return errs
	}
	var errs field.ErrorList
	errs = append(errs, c.validateObjectMeta(ctx, u)...)
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u.UnstructuredContent(), c.schema)...)
	// Embedded resources, and the invariants of x-kubernetes-list-type map and set.
	errs = append(errs, schemaobjectmeta.Validate(ctx, nil, u.Object, c.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, c.structural, u.Object)...)
	// The x-kubernetes-validations rules, unless an error above would make them fail for want of a value.
	if blocking(errs) {
		return append(errs, field.Invalid(nil, nil, "some validation rules were not checked because the object "+
			"was invalid; correct the existing errors to complete validation"))
	}
	celErrs, _ := c.cel.Validate(ctx, nil, c.structural, u.Object, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

// blocking says whether the strategy skips the CEL rules after these errors (hasBlockingErr).
func blocking(errs field.ErrorList) bool {
	for _, err := range errs {
		switch err.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany,
			field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

func (c *createValidation) validateTypeMeta(u *unstructured.Unstructured) field.ErrorList {
	var errs field.ErrorList
	if u.GetKind() != c.gvk.Kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), u.GetKind(), fmt.Sprintf("must be %v", c.gvk.Kind)))
	}
	if want := c.gvk.GroupVersion().String(); u.GetAPIVersion() != want {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), u.GetAPIVersion(), fmt.Sprintf("must be %v", want)))
	}
	return errs
}

// validateObjectMeta is validateObjectMetaDeclaratively for a create: the metadata converted to ObjectMeta, then
// apimachinery's declarative ObjectMeta validation, under the API server's DeclarativeValidationBeta gate.
func (c *createValidation) validateObjectMeta(ctx context.Context, u *unstructured.Unstructured) field.ErrorList {
	meta := &metav1.ObjectMeta{}
	if raw := u.UnstructuredContent()["metadata"]; raw != nil {
		m, ok := raw.(map[string]any)
		if !ok {
			return field.ErrorList{field.Invalid(field.NewPath("metadata"), raw, fmt.Sprintf("expected map[string]interface{}, got %T", raw))}
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, meta); err != nil {
			return field.ErrorList{field.Invalid(field.NewPath("metadata"), raw, err.Error())}
		}
	}
	return apivalidation.ValidateObjectMetaDeclaratively(ctx, operation.Create, meta, nil, c.namespaced,
		apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"), utilfeature.DefaultFeatureGate.Enabled(features.DeclarativeValidationBeta))
}
