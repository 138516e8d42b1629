package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// shellEnv is a copy of the repository (what the commands may change stays in the test) and a PATH that has
// gateway2tyk and kustomize first, as the README's commands expect.
func shellEnv(t *testing.T) (dir string, env []string) {
	t.Helper()
	root := repoRoot(t)
	fnDir := functionDir(t, root)
	kust := findKustomize(t, root)
	kDir := t.TempDir()
	if err := os.Symlink(kust, filepath.Join(kDir, "kustomize")); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(filepath.Join(dir, "examples"), os.DirFS(filepath.Join(root, "examples"))); err != nil {
		t.Fatal(err)
	}
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "PATH=") && !strings.HasPrefix(e, "ARGOCD_") {
			env = append(env, e)
		}
	}
	env = append(env, "PATH="+fnDir+string(os.PathListSeparator)+kDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir, env
}

func shell(t *testing.T, dir string, env []string, line string) (string, int) {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), exitCode(err)
}

// Every shell command in the code blocks of the README and the manual (docs/) that uses the shipped examples runs
// as written, from the repository's root (issue 30, finding 8: `cat examples/basic/*.yaml | gateway2tyk render -`
// failed, and so did the local-render section's kustomize build). make targets are tested by the Makefile's own
// runs; kpt, which this project does not install, is run when it is on PATH (the kpt tests say so when it is not).
func TestReadmeCommandsRun(t *testing.T) {
	root := repoRoot(t)
	files := []string{filepath.Join(root, "README.md")}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join(root, "docs", "*", "*.md"))
	files = append(append(files, docs...), more...)
	var lines []string
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile("(?ms)^( *)```sh\n(.*?)^( *)```").FindAllStringSubmatch(string(data), -1) {
			for _, line := range strings.Split(m[2], "\n") {
				line = strings.TrimSpace(line)
				if strings.Contains(line, "examples/") && !strings.HasPrefix(line, "make ") && !strings.HasPrefix(line, "#") {
					lines = append(lines, line)
				}
			}
		}
	}
	if len(lines) < 5 {
		t.Fatalf("found %d commands of the README and docs/ that use the examples: %q", len(lines), lines)
	}
	dir, env := shellEnv(t)
	for _, line := range lines {
		t.Run(line, func(t *testing.T) {
			if strings.HasPrefix(line, "kpt ") {
				if _, err := exec.LookPath("kpt"); err != nil {
					t.Skip("SKIPPED: kpt is not on PATH (docs/pipelines/kpt.md: this project does not install it)")
				}
			}
			if out, code := shell(t, dir, env, line); code != 0 {
				t.Errorf("%s: exit %d\n%s", line, code, out)
			}
		})
	}
}

// backquoted is every `command` of a message that starts with a tool's name.
var backquoted = regexp.MustCompile("`((?:kustomize|gateway2tyk) [^`]*)`")

// Every command a message suggests works on the input that prompted it (issue 30, finding 9): the refusals of a
// directory whose kustomization only kustomize can build, each for render, explain and graph.
func TestSuggestedCommandsWork(t *testing.T) {
	dir, env := shellEnv(t)
	// basic with commonLabels: only the transformer path can render it (the labels would reach its facts).
	labelled := filepath.Join(dir, "examples", "labelled")
	if err := os.CopyFS(labelled, os.DirFS(filepath.Join(dir, "examples", "basic"))); err != nil {
		t.Fatal(err)
	}
	k := filepath.Join(labelled, "kustomization.yaml")
	b, _ := os.ReadFile(k)
	if err := os.WriteFile(k, append(b, []byte("commonLabels: {team: shop}\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ cmd, want string }{
		{"gateway2tyk render examples/labelled", "--enable-exec examples/labelled`"},
		{"gateway2tyk render examples/secured", "| gateway2tyk render -k examples/secured -`"},
		{"gateway2tyk graph examples/secured", "| gateway2tyk graph -k examples/secured -`"},
		{"gateway2tyk render examples/argocd", "-k cannot take its kustomize output either"},
		{"gateway2tyk render -k examples/kpt -", "holds no kustomization"},
	} {
		t.Run(c.cmd, func(t *testing.T) {
			out, code := shell(t, dir, env, c.cmd+" </dev/null")
			if code != 2 || !strings.Contains(out, c.want) {
				t.Fatalf("%s: exit %d, want 2 and %q:\n%s", c.cmd, code, c.want, out)
			}
			for _, m := range backquoted.FindAllStringSubmatch(out, -1) {
				suggested := m[1]
				if strings.Contains(suggested, "...") || strings.Contains(suggested, "OLDDIR") {
					continue // a pattern to fill in, not a command
				}
				if got, code := shell(t, dir, env, suggested+" >/dev/null"); code != 0 {
					t.Errorf("%s suggests `%s`, which exits %d:\n%s", c.cmd, suggested, code, got)
				}
			}
		})
	}
}
