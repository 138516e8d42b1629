package main

import (
	"os"
	"path/filepath"
)

// appDir is the application's directory of a render of paths, from which the owner of its APIs is made when the
// config sets none (config.DefaultOwner): the one directory the paths are (a directory given, or the directory of
// the files given), else the directory of the config file given with -c; "" when the paths name several
// directories or only stdin, so that the owner does not depend on which of them came first.
func appDir(paths []string, configPath string) string {
	dir := ""
	for _, p := range paths {
		if p == "-" {
			continue
		}
		d := p
		if info, err := os.Stat(p); err != nil || !info.IsDir() {
			d = filepath.Dir(p)
		}
		d = filepath.Clean(d)
		if dir != "" && d != dir {
			return ""
		}
		dir = d
	}
	if dir == "" && configPath != "" {
		dir = filepath.Dir(configPath)
	}
	return dir
}

// workingDir is the KRM function's working directory: the kustomization's root when kustomize runs it (see
// fn.Processor.KustomizeDir), "" when it cannot be read.
func workingDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return wd
}
