package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The CI script of examples/ci, run as a pull request job runs it: in a repository whose main branch has the basic
// example and whose working tree changes it.
func TestCIDiffScript(t *testing.T) {
	root := repoRoot(t)
	bin := functionBinary(t, root)
	script := filepath.Join(root, "examples", "ci", "gateway2tyk-diff.sh")

	repo := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com",
			"-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	app := filepath.Join(repo, "apps", "shop")
	if err := os.CopyFS(app, os.DirFS(filepath.Join(root, exampleDir))); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "the shop")

	runScript := func(env ...string) (string, string, int) {
		t.Helper()
		return runCIScript(t, script, repo, append([]string{"GATEWAY2TYK=" + bin, "BASE=main", "APP=apps/shop"}, env...)...)
	}
	report := func() string { return readFile(t, filepath.Join(repo, "gateway2tyk-diff.md")) }

	// No change: status 0, a report that says so.
	out, stderr, code := runScript()
	if code != 0 || !strings.Contains(out, "gateway2tyk diff: 0 APIs added, 0 removed, 0 changed, 2 unchanged;") {
		t.Fatalf("no change: exit %d\n%s\n%s", code, out, stderr)
	}

	// The orders route (the first of routes.yaml) is deleted in the pull request: a risky change, status 1, and
	// the comment lists it.
	routes := filepath.Join(app, "routes.yaml")
	data, err := os.ReadFile(routes)
	if err != nil {
		t.Fatal(err)
	}
	_, catalogOnly, _ := strings.Cut(string(data), "\n---\n")
	if err := os.WriteFile(routes, []byte(catalogOnly), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = runScript()
	if code != 1 {
		t.Fatalf("orders deleted: exit %d, want 1\n%s\n%s", code, out, stderr)
	}
	md := report()
	for _, want := range []string{"#### :warning: Risky changes (1, 1 failing)", "#### Removed APIs (1)",
		"| `shop/orders` | `shop/edge` | `orders.shop.example.com` | `/orders` |",
		"gateway2tyk diff: 0 APIs added, 1 removed, 0 changed, 1 unchanged;"} {
		if !strings.Contains(md, want) {
			t.Errorf("the markdown report lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(out, "APIs removed (1)") || !strings.Contains(stderr, "risky changes fail the check") {
		t.Errorf("the log lacks the text report or the reason:\n%s\n%s", out, stderr)
	}
	// The log's report says the change fails, as the check does (it said "0 failing" before).
	if !strings.Contains(out, "[risk: api-removed, fails]") || !strings.Contains(out, "1 risky change (api-removed), 1 failing") {
		t.Errorf("the log's text report does not say the change fails:\n%s", out)
	}

	// The same with FAIL_ON=none: reported, not failing.
	if _, _, code = runScript("FAIL_ON=none"); code != 0 {
		t.Errorf("FAIL_ON=none: exit %d, want 0", code)
	}
	// A base that does not exist: status 2 and one line saying so.
	_, stderr, code = runScript("BASE=origin/nope")
	if code != 2 || !strings.Contains(stderr, `revision "origin/nope" does not exist`) {
		t.Errorf("missing base: exit %d, want 2\n%s", code, stderr)
	}

	// The workflow runs this script.
	wf, err := yaml.ReadFile(filepath.Join(root, "examples", "ci", "gateway2tyk-diff.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	run, err := wf.Pipe(yaml.Lookup("jobs", "api-diff", "steps", "[name=Diff the APIs]", "run"))
	if err != nil || run == nil || !strings.Contains(run.YNode().Value, "sh examples/ci/gateway2tyk-diff.sh") {
		t.Errorf("the workflow's diff step does not run examples/ci/gateway2tyk-diff.sh: %v", err)
	}
}

// runCIScript runs a script of examples/ci with sh in dir, with env added to the environment, and returns its
// output, its errors and its exit status.
func runCIScript(t *testing.T, script, dir string, env ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command("sh", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	code := exitCode(cmd.Run())
	if code < 0 {
		t.Fatalf("sh %s did not run", script)
	}
	return o.String(), e.String(), code
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
