// Package inputfiles owns one question: which files of a directory are a render's inputs. render, explain,
// graph, diff, the Argo CD plugin's discover and generate, configure and the large-app path's search for the
// function config all ask it here, so that none of them sees a file the others do not.
//
// The answer: every *.yaml and *.yml file at or below the directory, in lexical order, except
//   - files and directories whose name starts with "." (.git, .github: a repository's own machinery), each
//     named in Skipped;
//   - what the directory's .krmignore leaves out (kpt's and kyaml's convention), each named in Skipped;
//   - kustomization files (kustomization.yaml, ...), which are build files: they are listed apart.
//
// Symbolic links are followed when they stay inside the repository (the nearest directory above the PATH that
// holds .git, or else the PATH itself): a directory shared between applications through a link is read, not
// skipped. A link that leaves the repository, one that does not resolve and a directory loop are errors naming
// the link, since reading or skipping them silently would render another application's objects or lose these.
package inputfiles

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	gitignore "github.com/monochromegane/go-gitignore"
)

// IgnoreFile is the file whose patterns (gitignore syntax) leave files of the directory out.
const IgnoreFile = ".krmignore"

// Skip is a file or directory left out, and why.
type Skip struct {
	Path   string
	Reason string
}

func (s Skip) String() string { return s.Path + ": " + s.Reason }

// Listing is the inputs of one PATH.
type Listing struct {
	// Files are the YAML files to read, as paths below the PATH given.
	Files []string
	// Kustomizations are the kustomization files met (build files, not inputs).
	Kustomizations []string
	// Skipped are the YAML files and directories left out, each with why.
	Skipped []Skip
}

// List lists the inputs of path: path itself when it is a file (or a link to one), else the YAML files below it.
func List(path string) (*Listing, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return &Listing{Files: []string{path}}, nil
	}
	realPath, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	realPath, err = filepath.Abs(realPath)
	if err != nil {
		return nil, err
	}
	w := &walk{root: Repository(realPath), out: &Listing{}, ignore: gitignore.DummyIgnoreMatcher(false),
		seen: map[string]string{}}
	if m, err := gitignore.NewGitIgnore(filepath.Join(path, IgnoreFile), path); err == nil {
		w.ignore = m
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	if err := w.dir(path, realPath, nil); err != nil {
		return nil, err
	}
	return w.out, nil
}

// Repository is the directory symbolic links may point into: the nearest directory at or above dir (an absolute
// path with no links) that holds .git, or else dir itself.
func Repository(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// IsYAML reports whether a file name is one a directory's inputs are read from.
func IsYAML(name string) bool {
	ext := filepath.Ext(name)
	return ext == ".yaml" || ext == ".yml"
}

// KustomizationNames are the names kustomize reads a kustomization from, in its order.
var KustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// IsKustomization reports whether a file name is one kustomize reads as a kustomization.
func IsKustomization(name string) bool {
	for _, n := range KustomizationNames {
		if name == n {
			return true
		}
	}
	return false
}

type walk struct {
	root   string // links must resolve inside it
	ignore gitignore.IgnoreMatcher
	out    *Listing
	seen   map[string]string // real path of a listed file -> the path it was listed as
}

// dir lists the directory shown as path (its real location real); open holds the real directories being walked
// above it, so that a link back to one of them is a loop.
func (w *walk) dir(path, real string, open []string) error {
	open = append(open, real)
	entries, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(path, e.Name())
		name := e.Name()
		isDir := e.IsDir()
		target := filepath.Join(real, name)
		if e.Type()&os.ModeSymlink != 0 {
			resolved, err := filepath.EvalSymlinks(p)
			if err != nil {
				link, _ := os.Readlink(p)
				return fmt.Errorf("%s: a symbolic link to %s, which cannot be followed (%v)", p, link, errCause(err))
			}
			if resolved, err = filepath.Abs(resolved); err != nil {
				return err
			}
			if !within(w.root, resolved) {
				return fmt.Errorf("%s: a symbolic link to %s, outside the repository %s: links are followed only "+
					"inside it (copy the files, or give %s as a PATH of its own)", p, resolved, w.root, resolved)
			}
			info, err := os.Stat(resolved)
			if err != nil {
				return err
			}
			isDir, target = info.IsDir(), resolved
			for _, o := range open {
				if isDir && o == resolved {
					return fmt.Errorf("%s: a symbolic link to %s, a directory that holds the link: a loop", p, resolved)
				}
			}
		}
		if strings.HasPrefix(name, ".") {
			if isDir || IsYAML(name) {
				w.out.Skipped = append(w.out.Skipped, Skip{p, "hidden (its name starts with a dot): not read"})
			}
			continue
		}
		if (isDir || IsYAML(name) || IsKustomization(name)) && w.ignore.Match(p, isDir) {
			w.out.Skipped = append(w.out.Skipped, Skip{p, "left out by " + IgnoreFile})
			continue
		}
		switch {
		case isDir:
			if err := w.dir(p, target, open); err != nil {
				return err
			}
		case IsKustomization(name):
			w.out.Kustomizations = append(w.out.Kustomizations, p)
		case IsYAML(name):
			// A file reached twice (a linked directory that is also below the PATH) is read once.
			if first, ok := w.seen[target]; ok {
				w.out.Skipped = append(w.out.Skipped, Skip{p, "the same file as " + first + ": read once"})
				continue
			}
			w.seen[target] = p
			w.out.Files = append(w.out.Files, p)
		}
	}
	return nil
}

// within reports whether p is root or below it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// errCause is the reason of a path error without the path, which the message names already.
func errCause(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
