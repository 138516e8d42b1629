package apiserver

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Problem is one reason the API server would refuse an object: the field it names (as the API server writes
// field paths, spec.rules[0].matches[0].path.value) and what is wrong with it.
type Problem struct {
	Field   string
	Message string
}

// Verdict is what the API server would make of a create of one object.
type Verdict struct {
	// Problems are the reasons it would refuse the object; none means it would store it.
	Problems []Problem
	// Object is the object as the API server would store it (defaulted; unknown fields pruned). It is set for
	// custom resources only; built-in kinds are decoded into their Go types by the caller.
	Object map[string]any
}

// placeholderNamespace stands in for a namespaced object's missing namespace while it is judged. The render
// reads objects as written in a repository, where the namespace is often left to kustomize, kpt or the kubectl
// context; the API server takes it from the request, so a missing namespace is not a reason to refuse.
const placeholderNamespace = "default"

// AdmitCustomResource judges a Gateway API object of the given kind and version (decoded from JSON as the API
// server decodes it: numbers as int64 or float64) against the CRDs of the channel. obj becomes the object as it
// would be stored. ok is false when the channel's CRD does not serve that version.
func AdmitCustomResource(channel Channel, kind, version string, obj map[string]any) (v Verdict, ok bool, err error) {
	val, err := validatorFor(channel, kind, version)
	if err != nil || val == nil {
		return Verdict{}, false, err
	}
	meta, _ := obj["metadata"].(map[string]any)
	// The request's namespace: the object's own, the placeholder when it has none, and none for a
	// cluster-scoped kind (the API server clears it before validating).
	namespace, hadNamespace := any(nil), false
	generation, hadGeneration := any(nil), false
	if meta != nil {
		namespace, hadNamespace = meta["namespace"]
		generation, hadGeneration = meta["generation"]
		if !val.namespaced {
			delete(meta, "namespace")
		} else if ns, _ := namespace.(string); ns == "" {
			meta["namespace"] = placeholderNamespace
		}
	}
	unknown, problems, err := val.admit(obj)
	if err != nil {
		return Verdict{}, true, err
	}
	// PrepareForCreate set the generation (to 1) as a create does; the render reads the object's own.
	if meta, _ := obj["metadata"].(map[string]any); meta != nil {
		if hadGeneration {
			meta["generation"] = generation
		} else {
			delete(meta, "generation")
		}
		if hadNamespace {
			meta["namespace"] = namespace
		} else {
			delete(meta, "namespace")
		}
	}
	v.Problems = sorted(append(unknownProblems(unknown), problems...))
	if len(v.Problems) == 0 {
		v.Object = obj
	}
	return v, true, nil
}

// sorted orders problems by field, the object as a whole last: the schema validator's errors come in the order
// of Go map iteration, and the render's output must not depend on it.
func sorted(ps []Problem) []Problem {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		if (a.Field == "") != (b.Field == "") {
			if a.Field == "" {
				return 1
			}
			return -1
		}
		return cmp.Or(strings.Compare(a.Field, b.Field), strings.Compare(a.Message, b.Message))
	})
	return ps
}

// unknownProblems words the fields strict field validation refuses. The API server's own message is
// `strict decoding error: unknown field "spec.hostname"`.
func unknownProblems(paths []string) []Problem {
	out := make([]Problem, 0, len(paths))
	for _, p := range paths {
		out = append(out, Problem{Field: p, Message: "unknown field: the API server refuses it with strict field " +
			"validation (kubectl apply's default) and prunes it otherwise; check its spelling and the CRD's version"})
	}
	return out
}

// fieldProblems turns the API server's field errors into problems, in the API server's words (which repeat the
// refused value: the render's results cut long values where they are made, fn's shorten).
func fieldProblems(errs field.ErrorList) []Problem {
	out := make([]Problem, 0, len(errs))
	for _, e := range errs {
		// The strategy adds "some validation rules were not checked because the object was invalid" (for the
		// whole object) whenever other errors kept it from running the CEL rules: it never comes alone, and
		// repeated on every refused object it would double the count of errors a user sees.
		if e.Field == "<nil>" && len(errs) > 1 && strings.Contains(e.Detail, "some validation rules were not checked") {
			continue
		}
		path := e.Field
		if path == "<nil>" { // the object as a whole (field.Path's String of a nil path)
			path = ""
		}
		out = append(out, Problem{Field: path, Message: e.ErrorBody()})
	}
	return out
}

// Default applies to a Gateway API object in its Go type the defaults of the channel's CRD, as the API server
// would on create (for tests and callers that build objects in Go rather than read them).
func Default(channel Channel, obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := utiljson.Unmarshal(data, &m); err != nil {
		return err
	}
	// A Go object often has no TypeMeta: its type names the kind, and v1 is the version.
	kind, _ := m["kind"].(string)
	if kind == "" {
		kind = reflect.TypeOf(obj).Elem().Name()
	}
	version := "v1"
	if apiVersion, _ := m["apiVersion"].(string); apiVersion != "" {
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil {
			return err
		}
		version = gv.Version
	}
	val, err := validatorFor(channel, kind, version)
	if err != nil {
		return err
	}
	if val == nil {
		return fmt.Errorf("the %s channel does not serve %s %s", channel, kind, version)
	}
	structuraldefaulting.Default(m, val.structural)
	if data, err = json.Marshal(m); err != nil {
		return err
	}
	return json.Unmarshal(data, obj)
}
