package e2e_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestGoldenPackages: make golden runs go test -update in exactly the packages whose tests declare the -update
// flag (go test ./... -update would fail in every other package), so that one command refreshes every golden
// file.
func TestGoldenPackages(t *testing.T) {
	root := repoRoot(t)
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^GOLDEN_PKGS := (.*)$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("the Makefile has no GOLDEN_PKGS := line")
	}
	listed := strings.Fields(string(m[1]))
	slices.Sort(listed)

	var declared []string
	flagDecl := regexp.MustCompile(`flag\.Bool\("update",`)
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "bin" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil || !flagDecl.Match(data) {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		if pkg := "./" + filepath.ToSlash(rel); !slices.Contains(declared, pkg) {
			declared = append(declared, pkg)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(declared)
	if !slices.Equal(listed, declared) {
		t.Errorf("GOLDEN_PKGS in the Makefile is %v; the packages whose tests take -update are %v", listed, declared)
	}
}
