package e2e_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// citedPath is a path of the repository as prose cites it: a top-level directory of the repository and what
// follows it, after a space, a quote, a backquote or a bracket (so that an import path, which has a host before
// it, is not one).
var citedPath = regexp.MustCompile("(?:^|[\\s(`'\"\\[])((?:cmd|fn|sync|e2e|conformance|examples|tools|docs|third_party|bench)/[A-Za-z0-9_./-]*[A-Za-z0-9_-])")

// notInTheTree are cited paths that are not files of the repository on purpose, with why.
var notInTheTree = map[string]string{
	"sync/atomic":   "the standard library's package",
	"cmd/test2json": "Go's own command",
	"bench/out":     "what make bench generates (git-ignored)",
	// paths of other trees that happen to start alike
	"examples/labelled":     "a copy of examples/basic that advice_test makes in a temporary tree",
	"examples/experimental": "the gateway-api module's own examples (kubecorpus_test reads them from the module cache)",
}

// TestCitedPathsExist holds every repository path that the README, docs/ and the Go code cite (comments, test
// messages) to the tree (issue 44): a renamed file or package leaves no reference behind it. A path with a Go
// identifier after it (fn/hook.Without) is the package's; a placeholder (examples/NAME) is not a path.
func TestCitedPathsExist(t *testing.T) {
	root := repoRoot(t)
	checked := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch d.Name() {
			case ".git", "bin", "testdata", "third_party", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, ".md") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		s := bufio.NewScanner(f)
		s.Buffer(make([]byte, 0, 1<<20), 1<<20)
		for n := 1; s.Scan(); n++ {
			for _, m := range citedPath.FindAllStringSubmatch(s.Text(), -1) {
				checked++
				if c := m[1]; !cited(root, c) {
					t.Errorf("%s:%d cites %s, which is not in the repository", rel, n, c)
				}
			}
		}
		return s.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 400 {
		t.Fatalf("only %d cited paths found: the pattern no longer reads the tree", checked)
	}
	t.Logf("%d cited paths checked", checked)
}

// cited reports whether cited path c names something of the tree (or is known not to).
func cited(root, c string) bool {
	for p := c; p != ""; {
		if _, ok := notInTheTree[p]; ok {
			return true
		}
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			p = p[:i]
		} else {
			p = ""
		}
	}
	if _, err := os.Stat(filepath.Join(root, c)); err == nil {
		return true
	}
	dir, last := filepath.Split(c)
	// A package and one of its identifiers: fn/hook.Without, sync/status.Client.
	if pkg, ident, ok := strings.Cut(last, "."); ok && ident != "" && ident[0] >= 'A' && ident[0] <= 'Z' {
		if _, err := os.Stat(filepath.Join(root, dir, pkg)); err == nil {
			return true
		}
	}
	// A placeholder: examples/NAME.
	return last == strings.ToUpper(last) && strings.ToUpper(last) != strings.ToLower(last)
}
