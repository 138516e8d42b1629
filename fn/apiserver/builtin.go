package apiserver

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/kyaml/kio/filters"
)

// DecodeStrict decodes a built-in kind's JSON into its Go type as the API server's serializer does with strict
// field validation (kubectl apply's default): unknown and duplicate fields are problems, and numbers keep their
// integer type. err is a decoding failure (a value of the wrong type), for the caller to locate.
func DecodeStrict(data []byte, obj any) (problems []Problem, err error) {
	strict, err := kjson.UnmarshalStrict(data, obj, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil {
		return nil, err
	}
	for _, e := range strict {
		problems = append(problems, strictProblem(e.Error()))
	}
	return problems, nil
}

// strictProblem words one strict decoding error of sigs.k8s.io/json (`unknown field "spec.foo"`, `duplicate field
// "x"`), naming its field.
func strictProblem(msg string) Problem {
	for _, kind := range []string{"unknown field", "duplicate field"} {
		rest, ok := strings.CutPrefix(msg, kind+" ")
		if !ok {
			continue
		}
		name, err := strconv.Unquote(rest)
		if err != nil {
			break
		}
		if kind == "unknown field" {
			return unknownProblems([]string{name})[0]
		}
		return Problem{Field: name, Message: "duplicate field: the API server refuses it with strict field validation"}
	}
	return Problem{Message: msg}
}

// localConfig reports whether an object is a local-config one (kustomize's and kpt's annotation): a fact of the
// cluster written for the render, never applied.
func localConfig(m metav1.Object) bool {
	return m.GetAnnotations()[filters.LocalConfigAnnotation] == "true"
}

// ValidateBuiltin validates what the API server validates of a built-in or Tyk object that the render depends on:
// its metadata, with apimachinery's ObjectMeta validation and the name rule of its kind (a Service's name is a
// DNS-1035 label, as a label of its cluster hostname; a Namespace's a DNS-1123 label; any other a DNS-1123
// subdomain); for a Service, the port numbers; for a TLS Secret, its certificate and key. The rest of the kinds' validation (k8s.io/kubernetes/pkg/apis/core/validation) is not importable
// by a library; the render reads no other field whose invalid value would change what it does.
func ValidateBuiltin(obj any) []Problem {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil
	}
	namespaced := true
	name := apivalidation.NameIsDNSSubdomain
	switch obj.(type) {
	case *corev1.Service:
		name = apivalidation.NameIsDNS1035Label
	case *corev1.Namespace:
		name, namespaced = apivalidation.NameIsDNSLabel, false
	}
	// The request's namespace, as in AdmitCustomResource; the object is given back as it came.
	ns := m.GetNamespace()
	switch {
	case !namespaced:
		m.SetNamespace("")
	case ns == "":
		m.SetNamespace(placeholderNamespace)
	}
	errs := apivalidation.ValidateObjectMetaAccessor(m, namespaced, name, field.NewPath("metadata"))
	m.SetNamespace(ns)
	switch o := obj.(type) {
	case *corev1.Service:
		for i, p := range o.Spec.Ports {
			path := field.NewPath("spec", "ports").Index(i).Child("port")
			for _, msg := range validation.IsValidPortNum(int(p.Port)) {
				errs = append(errs, field.Invalid(path, p.Port, msg))
			}
		}
	case *corev1.Secret:
		// Core validation's ValidateSecret: a TLS Secret holds a certificate and a key. A local-config stand-in
		// (a cluster fact; docs/reference/inputs.md) may leave its data out: the key has no
		// place in a repository, it is never applied, and the render judges the certificate it reads itself
		// (a listener's ResolvedRefs).
		if o.Type == corev1.SecretTypeTLS && !localConfig(o) {
			for _, key := range []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey} {
				_, has := o.Data[key]
				if _, inString := o.StringData[key]; !has && !inString {
					errs = append(errs, field.Required(field.NewPath("data").Key(key), ""))
				}
			}
		}
	case *discoveryv1.EndpointSlice:
		if o.AddressType == "" {
			errs = append(errs, field.Required(field.NewPath("addressType"), ""))
		}
	}
	return sorted(fieldProblems(errs))
}
