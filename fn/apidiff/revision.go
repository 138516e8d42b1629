package apidiff

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Revision is one side of `diff --git`: a path as a git revision has it. Git itself reads the revision (rev-parse,
// ls-tree, archive); the archive is unpacked with archive/tar.
type Revision struct {
	// Top is the top of the work tree the command runs in; Rel is the path relative to it.
	Top, Rel string
}

// OpenRevisions finds the repository that holds path (asking git in the nearest directory of path that exists,
// so that the command may run from anywhere) and checks that path is inside its work tree.
func OpenRevisions(path string) (*Revision, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	from := existingDir(abs)
	top, err := git(from, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("--git: %s is not in a git work tree (%v)", path, err)
	}
	top = strings.TrimSpace(top)
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	rel, err := filepath.Rel(top, resolveExisting(abs))
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return nil, fmt.Errorf("--git: %s is outside the git work tree %s", path, top)
	}
	return &Revision{Top: top, Rel: filepath.ToSlash(rel)}, nil
}

// existingDir is the nearest directory at or above p that exists.
func existingDir(p string) string {
	for {
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			return p
		}
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		p = parent
	}
}

// resolveExisting resolves the symbolic links of the longest part of p that exists, so that a path that exists
// only in a revision still compares with the work tree's top.
func resolveExisting(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(resolveExisting(parent), filepath.Base(p))
}

// Extract writes the path as revision rev has it below dir and returns where it is; present is false when the
// revision does not have the path (the side is then empty). A revision that does not exist is an error.
func (r *Revision) Extract(rev, dir string) (path string, present bool, err error) {
	if _, err := git(r.Top, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}"); err != nil {
		return "", false, fmt.Errorf("--git: revision %q does not exist in %s", rev, r.Top)
	}
	listed, err := git(r.Top, "ls-tree", "--name-only", rev, "--", r.Rel)
	if err != nil {
		return "", false, fmt.Errorf("--git: %s: %v", rev, err)
	}
	if strings.TrimSpace(listed) == "" && r.Rel != "." {
		return "", false, nil
	}
	cmd := exec.Command("git", "-C", r.Top, "archive", "--format=tar", rev, "--", r.Rel)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", false, err
	}
	if err := cmd.Start(); err != nil {
		return "", false, fmt.Errorf("--git: git archive: %v", err)
	}
	untarErr := untar(out, dir)
	_, _ = io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return "", false, fmt.Errorf("--git: git archive %s: %s", rev, firstLine(stderr.String(), err))
	}
	if untarErr != nil {
		return "", false, fmt.Errorf("--git: unpacking %s: %v", rev, untarErr)
	}
	return filepath.Join(dir, filepath.FromSlash(r.Rel)), true, nil
}

// untar writes the directories and regular files of a tar stream below dir; links and other entries are not
// inputs of a render and are left out.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !filepath.IsLocal(h.Name) {
			return fmt.Errorf("entry %q is outside the archive", h.Name)
		}
		target := filepath.Join(dir, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}

// git runs git in dir (the current directory when "") and returns its output, or its first line of stderr.
func git(dir string, args ...string) (string, error) {
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	cmd := exec.Command("git", args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", errors.New(firstLine(stderr.String(), err))
	}
	return stdout.String(), nil
}

func firstLine(s string, err error) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return err.Error()
	}
	line, _, _ := strings.Cut(s, "\n")
	return line
}
