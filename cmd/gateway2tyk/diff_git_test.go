package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gitRepo makes a repository in a temporary directory whose app/ is a story's old side at the first commit and
// its new side at the second; the working tree is left at the new side. The test runs in the repository.
func gitRepo(t *testing.T, story string) (repo string) {
	t.Helper()
	oldDir, newDir := storySides(t, story)
	repo = t.TempDir()
	gitIn := gitCommand(t, repo)
	app := filepath.Join(repo, "app")
	put := func(from string) {
		require.NoError(t, os.RemoveAll(app))
		require.NoError(t, os.CopyFS(app, os.DirFS(from)))
	}
	gitIn("init", "-q")
	put(oldDir)
	gitIn("add", "-A")
	gitIn("commit", "-qm", "old")
	put(newDir)
	gitIn("add", "-A")
	gitIn("commit", "-qm", "new")
	t.Chdir(repo)
	return repo
}

// gitCommand runs git in repo, with a configuration of its own (no user's, no system's).
func gitCommand(t *testing.T, repo string) func(args ...string) {
	return func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com",
			"-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
}

// The git form reports what the plain form reports for the same two sides: a revision against the working tree,
// two revisions, and a path given from a subdirectory.
func TestDiffGit(t *testing.T) {
	oldDir, newDir := storySides(t, "upstream-weights")
	_, want, _ := cli(t, "", "diff", oldDir, newDir)
	repo := gitRepo(t, "upstream-weights")
	// The application is the repository's directory app on both sides (the plain form's copies are in no
	// repository: the fallback owner).
	want = strings.Replace(want, "; owner gateway2tyk\n", "; owner app\n", 1)

	code, out, stderr := cli(t, "", "diff", "--git", "HEAD~1", "app")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, want, out, "revision against the working tree")

	code, out, stderr = cli(t, "", "diff", "--git", "HEAD~1", "HEAD", "app")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, want, out, "two revisions")

	t.Chdir(filepath.Join(repo, "app"))
	code, out, stderr = cli(t, "", "diff", "--git", "HEAD~1", ".")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, want, out, "from a subdirectory")

	// A path that the revision does not have (a new application): that side is empty, everything is added.
	t.Chdir(repo)
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "later"), 0o755))
	require.NoError(t, os.CopyFS(filepath.Join(repo, "later", "app"), os.DirFS(newDir)))
	code, out, stderr = cli(t, "", "diff", "--git", "HEAD", "later/app")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "gateway2tyk diff: 2 APIs added, 0 removed, 0 changed, 0 unchanged;")
}

func TestDiffGitBadInput(t *testing.T) {
	gitRepo(t, "methods")
	for _, c := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"missing revision", []string{"diff", "--git", "no-such-branch", "app"}, `gateway2tyk: diff --git: revision "no-such-branch" does not exist in `},
		{"path on neither side", []string{"diff", "--git", "HEAD~1", "HEAD", "apps"}, "gateway2tyk: diff --git: apps is on neither side (not in HEAD~1, nor in HEAD)"},
		{"too many arguments", []string{"diff", "--git", "a", "b", "c", "d"}, "gateway2tyk: diff --git takes REV [REV2] PATH (got 4 arguments)"},
		{"outside the repository", []string{"diff", "--git", "HEAD", os.TempDir()}, "gateway2tyk: diff --git: " + os.TempDir() + " is not in a git work tree"},
	} {
		t.Run(c.name, func(t *testing.T) { usageErrorLine(t, c.stderr, c.args...) })
	}
	t.Chdir(t.TempDir())
	usageErrorLine(t, "gateway2tyk: diff --git: . is not in a git work tree", "diff", "--git", "HEAD", ".")
}

// PATH decides the repository, not the current directory: diff --git runs from outside the repository.
func TestDiffGitFromOutsideTheRepository(t *testing.T) {
	oldDir, newDir := storySides(t, "upstream-weights")
	_, want, _ := cli(t, "", "diff", oldDir, newDir)
	repo := gitRepo(t, "upstream-weights")
	want = strings.Replace(want, "; owner gateway2tyk\n", "; owner app\n", 1)
	t.Chdir(t.TempDir())
	code, out, stderr := cli(t, "", "diff", "--git", "HEAD~1", filepath.Join(repo, "app"))
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, want, out)
}

// A revision whose kustomization generates objects (examples/secured: its base documents come from a
// configMapGenerator) is built with kustomize: deleting the orders route's authentication is auth-off, which
// fails, in both forms. Read as plain files, both sides were answered with BaseDocumentUnresolved, and 0 risky
// changes.
func TestDiffGitBuildsKustomizations(t *testing.T) {
	kustomizeOnPath(t)
	repo := t.TempDir()
	gitIn := gitCommand(t, repo)
	app := filepath.Join(repo, "apps", "shop")
	require.NoError(t, os.CopyFS(app, os.DirFS(filepath.Join("..", "..", "examples", "secured"))))
	gitIn("init", "-q")
	gitIn("add", "-A")
	gitIn("commit", "-qm", "old")
	defs := filepath.Join(app, "definitions.yaml")
	b, err := os.ReadFile(defs)
	require.NoError(t, err)
	var kept []string
	for _, d := range strings.Split(string(b), "\n---\n") {
		if !strings.Contains(d, "name: orders-auth") {
			kept = append(kept, d)
		}
	}
	require.NoError(t, os.WriteFile(defs, []byte(strings.Join(kept, "\n---\n")), 0o644))

	code, out, stderr := cli(t, "", "diff", "--git", "HEAD", app)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, out, "authentication  [risk: auth-off, fails]", "working tree")
	assert.NotContains(t, out, "BaseDocumentUnresolved")

	gitIn("commit", "-qam", "new")
	code, out2, stderr := cli(t, "", "diff", "--git", "HEAD~1", "HEAD", app)
	assert.Equal(t, 1, code, stderr)
	assert.Equal(t, out, out2, "two revisions")
	assert.NotContains(t, out, "results not compared", "built sides are rendered: their results are compared")

	// Only PATH itself is built: a kustomization below it is named, with the PATH to give.
	usageErrorLine(t, "gateway2tyk: diff: OLD: shop/kustomization.yaml sets configMapGenerator, which only kustomize applies: "+
		"diff --git builds a kustomization with kustomize when PATH is its directory: give PATH/shop",
		"diff", "--git", "HEAD~1", "HEAD", filepath.Join(repo, "apps"))
}

// An already rendered stream on each side gives the report of its sources, except the results, which a rendered
// stream does not carry; the base document is found from the stream's own definitions.
func TestDiffRenderedStreams(t *testing.T) {
	for _, story := range []string{"methods", "auth-off", "certificates"} {
		t.Run(story, func(t *testing.T) {
			oldDir, newDir := storySides(t, story)
			_, want, _ := cli(t, "", "diff", oldDir, newDir)
			rendered := func(dir string) string {
				code, out, stderr := cli(t, "", "render", dir)
				require.Equal(t, 0, code, stderr)
				p := filepath.Join(t.TempDir(), "rendered.yaml")
				require.NoError(t, os.WriteFile(p, []byte(out), 0o644))
				return p
			}
			_, got, stderr := cli(t, "", "diff", rendered(oldDir), rendered(newDir))
			assert.Empty(t, stderr)
			assert.Equal(t, strings.Replace(want, "results 0 appeared, 0 disappeared", "results not compared (rendered input)", 1), got)
			// One side rendered, the other sources.
			_, got, _ = cli(t, "", "diff", rendered(oldDir), newDir)
			assert.Equal(t, strings.Replace(want, "results 0 appeared, 0 disappeared", "results not compared (rendered input)", 1), got)
		})
	}
}
