package kustomization

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gateway2tyk/gateway2tyk/fn/inputfiles"
)

// NeedsBuild is returned by CheckPlain when reading a kustomization's directory as plain YAML files (what
// `gateway2tyk render DIR` and the read-only views do) would give other objects than `kustomize build`: only
// kustomize can say what the application is.
type NeedsBuild struct {
	// Kustomization is the kustomization file, Dir its directory, Reason what kustomize would do.
	Kustomization, Dir, Reason string
}

func (e *NeedsBuild) Error() string { return e.Kustomization + " " + e.Reason }

// plainFields are the kustomization fields under which `kustomize build` gives the objects of the resource files
// as they are written: a kustomization with any other field generates objects (configMapGenerator, helmCharts,
// ...) or changes them (namespace, patches, labels, images, ...).
var plainFields = map[string]bool{
	"apiVersion": true, "kind": true, "metadata": true, "resources": true, "components": true,
	transformersField: true, sortOptionsField: true, "buildMetadata": true, "openapi": true, "crds": true,
}

// CheckPlain reports (*NeedsBuild) whether the kustomization file kfile, read as a directory of plain YAML files
// below root, would give other objects than kustomize builds from it: a field that generates or transforms
// objects, a transformer other than gateway2tyk's, validators, or a resource or component that is remote or
// outside root (reading root would miss it). Bases inside root have kustomizations of their own, checked as
// the walk over root meets them. Another error is a kustomization that cannot be read.
func CheckPlain(kfile, root string) error {
	k, err := readKustomization(kfile)
	if err != nil {
		return err
	}
	dir := filepath.Dir(kfile)
	needs := func(format string, args ...any) error {
		return &NeedsBuild{Kustomization: kfile, Dir: dir, Reason: fmt.Sprintf(format, args...)}
	}
	fields, err := k.Fields()
	if err != nil {
		return fmt.Errorf("%s: %w", kfile, err)
	}
	for _, f := range fields {
		if !plainFields[f] {
			return needs("sets %s, which only kustomize applies", f)
		}
	}
	entries, err := stringList(k, kfile, transformersField)
	if err != nil {
		return err
	}
	for _, e := range entries {
		_, node, err := transformerConfig(dir, kfile, e)
		if _, remote := err.(*Unfaithful); remote {
			return needs("lists transformer %q, which is not a local file", short(e))
		}
		if err != nil {
			return err
		}
		if !isRenderConfig(node) {
			return needs("lists transformer %q, which only kustomize runs", short(e))
		}
	}
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	for _, field := range []string{"resources", "components"} {
		entries, err := stringList(k, kfile, field)
		if err != nil {
			return err
		}
		for _, e := range entries {
			p := filepath.Join(dir, e)
			if _, err := os.Stat(p); err != nil {
				return needs("lists %s entry %q, which is not a local file or directory", field, e)
			}
			abs, err := filepath.Abs(p)
			if err != nil {
				return err
			}
			if rel, err := filepath.Rel(rootAbs, abs); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return needs("lists %s entry %q, which is outside %s", field, e, root)
			}
		}
	}
	return nil
}

// IsFileName reports whether a file's base name is one kustomize reads a kustomization from.
func IsFileName(base string) bool {
	return inputfiles.IsKustomization(base)
}
