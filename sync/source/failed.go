package source

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

// FailedRenderError is a ResourceList whose results fail its own function config's failOn: the KRM function
// wrote it, and exited non-zero. Its items are what the render could make, which may be some APIs only:
// syncing them would delete the others (a typo in one route would delete that route's API).
type FailedRenderError struct{ Failing int }

func (e *FailedRenderError) Error() string {
	return fmt.Sprintf("the input is the ResourceList of a failed render (%d result(s) at or above its failOn): "+
		"fix the render first", e.Failing)
}

// failedRender reports a ResourceList read by r whose results fail the render (FailedRenderError). A function
// config that does not load is judged with the default failOn (Error).
func failedRender(r *kio.ByteReader) error {
	if r.Results == nil {
		return nil
	}
	cfg, err := config.Load(r.FunctionConfig)
	if err != nil {
		cfg = config.Default()
	}
	results, err := r.Results.Elements()
	if err != nil {
		return nil // not a list of results: not a render's
	}
	failing := 0
	for _, res := range results {
		severity := "info" // kyaml's default for a result without one
		if f := res.Field("severity"); f != nil && yaml.GetValue(f.Value) != "" {
			severity = yaml.GetValue(f.Value)
		}
		if cfg.FailOn.Fails(severity) {
			failing++
		}
	}
	if failing > 0 {
		return &FailedRenderError{Failing: failing}
	}
	return nil
}
