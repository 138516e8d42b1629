package main

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gateway2tyk/gateway2tyk/fn/inputfiles"
)

// workCopy copies the repository around dir (fn/inputfiles.Repository: bases may be anywhere in it; .git left
// out) into a new temporary directory, and returns where dir is in the copy and a function that removes it.
// Links are copied as links, so that a relative one points into the copy.
func workCopy(dir string) (string, func(), error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, err
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return "", nil, err
	}
	root := inputfiles.Repository(abs)
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return "", nil, err
	}
	tmp, err := os.MkdirTemp("", "gateway2tyk-argocd-")
	if err != nil {
		return "", nil, err
	}
	remove := func() { os.RemoveAll(tmp) }
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(root, p)
		to := filepath.Join(tmp, r)
		switch {
		case d.IsDir() && d.Name() == ".git" && p != root:
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, to)
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, data, 0o644)
		}
		return nil
	})
	if err != nil {
		remove()
		return "", nil, err
	}
	return filepath.Join(tmp, rel), remove, nil
}
