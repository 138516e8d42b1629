package resourcelist

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Apps are the directories WriteApps makes, each holding the fleet's items in resources.yaml as a person keeps
// them in git (kustomize's and kpt's annotations removed), one directory per pipeline and its baseline:
const (
	AppKustomize      = "kustomize"       // kustomization with gateway2tyk.yaml as its transformer
	AppKustomizePlain = "kustomize-plain" // the same kustomization without the transformer
	AppYAML           = "yaml"            // no kustomization: resources.yaml and gateway2tyk.yaml (gateway2tyk render)
	AppKpt            = "kpt"             // a kpt package whose Kptfile pipeline runs gateway2tyk
	AppKptPlain       = "kpt-plain"       // the same package without a pipeline
)

// WriteApps reads a ResourceList that Generate wrote and writes its items and function config under dir as the
// application directories above.
func WriteApps(dir string, resourceList io.Reader) error {
	r := &kio.ByteReader{Reader: resourceList, OmitReaderAnnotations: true}
	items, err := r.Read()
	if err != nil {
		return err
	}
	if r.FunctionConfig == nil {
		return fmt.Errorf("the ResourceList has no functionConfig")
	}
	build := []string{
		kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation, kioutil.IdAnnotation, kioutil.LegacyIdAnnotation,
		kioutil.PathAnnotation, kioutil.LegacyPathAnnotation,
	}
	resources, err := encode(items, build)
	if err != nil {
		return err
	}
	fnConfig := r.FunctionConfig.Copy()
	if _, err := fnConfig.Pipe(yaml.ClearAnnotation(kioutil.LegacyIndexAnnotation)); err != nil {
		return err
	}
	config, err := encode([]*yaml.RNode{fnConfig}, append(build, "config.kubernetes.io/local-config"))
	if err != nil {
		return err
	}
	const kustomization = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [resources.yaml]\n"
	const kptfile = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: fleet\n  annotations:\n" +
		"    config.kubernetes.io/local-config: \"true\"\n"
	files := map[string]string{
		AppKustomize + "/kustomization.yaml":      kustomization + "transformers: [gateway2tyk.yaml]\n",
		AppKustomize + "/gateway2tyk.yaml":        config,
		AppKustomizePlain + "/kustomization.yaml": kustomization,
		AppYAML + "/gateway2tyk.yaml":             config,
		AppKpt + "/Kptfile":                       kptfile + "pipeline:\n  mutators:\n  - exec: gateway2tyk\n    configPath: gateway2tyk.yaml\n",
		AppKpt + "/gateway2tyk.yaml":              config,
		AppKptPlain + "/Kptfile":                  kptfile,
	}
	for _, app := range []string{AppKustomize, AppKustomizePlain, AppYAML, AppKpt, AppKptPlain} {
		files[app+"/resources.yaml"] = resources
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func encode(items []*yaml.RNode, clear []string) (string, error) {
	var b bytes.Buffer
	if err := (kio.ByteWriter{Writer: &b, ClearAnnotations: clear}).Write(items); err != nil {
		return "", err
	}
	return b.String(), nil
}
