package kustomization

import (
	"bytes"
	"fmt"
	"os"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Detach removes the RenderConfig from the kustomization's transformers (the field goes when it is left empty),
// so that `kustomize build` builds the inputs only; kyaml keeps the file's comments and layout, and the
// indentation of its lists (its reader records whether they are indented under their key, and its writer
// indents them so). It is for a throw-away copy of the application, such as the one Argo CD gives its plugins,
// or for a user who moves the application to the large-app path. Nothing is written when the RenderConfig is
// not listed; removed is the entry it removed ("" then).
func (app *App) Detach() (removed string, err error) {
	if app.Transformer == "" {
		return "", nil
	}
	data, err := os.ReadFile(app.Kustomization)
	if err != nil {
		return "", err
	}
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(data), PreserveSeqIndent: true}).Read()
	if err != nil {
		return "", fmt.Errorf("%s: %w", app.Kustomization, err)
	}
	if len(nodes) != 1 || nodes[0].YNode().Kind != yaml.MappingNode {
		return "", fmt.Errorf("%s: not a kustomization (one YAML mapping)", app.Kustomization)
	}
	k := nodes[0]
	list := k.Field(transformersField).Value.YNode()
	kept := list.Content[:0:0]
	for _, e := range list.Content {
		if e.Value != app.Transformer {
			kept = append(kept, e)
		}
	}
	if len(kept) == len(list.Content) {
		return "", fmt.Errorf("%s: transformer %q is no longer listed", app.Kustomization, short(app.Transformer))
	}
	list.Content = kept
	if len(kept) == 0 {
		if _, err := k.Pipe(yaml.Clear(transformersField)); err != nil {
			return "", err
		}
	}
	var out bytes.Buffer
	w := kio.ByteWriter{Writer: &out, ClearAnnotations: []string{kioutil.SeqIndentAnnotation,
		kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation}}
	if err := w.Write(nodes); err != nil {
		return "", fmt.Errorf("%s: %w", app.Kustomization, err)
	}
	info, err := os.Stat(app.Kustomization)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(app.Kustomization, out.Bytes(), info.Mode().Perm()); err != nil {
		return "", err
	}
	removed, app.Transformer = app.Transformer, ""
	return short(removed), nil
}
