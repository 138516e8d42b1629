package kustomization

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Detach removes the RenderConfig from the kustomization's transformers (the field goes when it is left empty),
// so that `kustomize build` builds the inputs only; kyaml keeps the file's comments and layout. It is for a
// throw-away copy of the application, such as the one Argo CD gives its plugins. Nothing is written when the
// RenderConfig is not listed.
func (app *App) Detach() error {
	if app.Transformer == "" {
		return nil
	}
	k, err := readKustomization(app.Kustomization)
	if err != nil {
		return err
	}
	list := k.Field(transformersField).Value.YNode()
	kept := list.Content[:0:0]
	for _, e := range list.Content {
		if e.Value != app.Transformer {
			kept = append(kept, e)
		}
	}
	if len(kept) == len(list.Content) {
		return fmt.Errorf("%s: transformer %q is no longer listed", app.Kustomization, short(app.Transformer))
	}
	list.Content = kept
	if len(kept) == 0 {
		if _, err := k.Pipe(yaml.Clear(transformersField)); err != nil {
			return err
		}
	}
	if err := yaml.WriteFile(k, app.Kustomization); err != nil {
		return err
	}
	app.Transformer = ""
	return nil
}
