package inputfiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tree makes files (path -> content) below a new directory, which holds .git so that it is a repository.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, p)
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(content), 0o644))
	}
	return dir
}

func rel(t *testing.T, dir string, paths []string) []string {
	var out []string
	for _, p := range paths {
		r, err := filepath.Rel(dir, p)
		require.NoError(t, err)
		out = append(out, r)
	}
	return out
}

func TestListFollowsALinkedDirectoryInsideTheRepository(t *testing.T) {
	dir := tree(t, map[string]string{".git/HEAD": "", "shared-routes/routes.yaml": "a: b\n", "app/gateway.yaml": "a: b\n"})
	require.NoError(t, os.Symlink("../shared-routes", filepath.Join(dir, "app/routes")))
	l, err := List(filepath.Join(dir, "app"))
	require.NoError(t, err)
	assert.Equal(t, []string{"app/gateway.yaml", "app/routes/routes.yaml"}, rel(t, dir, l.Files))
}

func TestListRefusesALinkLeavingTheRepository(t *testing.T) {
	outside := tree(t, map[string]string{"routes.yaml": "a: b\n"})
	dir := tree(t, map[string]string{".git/HEAD": "", "app/gateway.yaml": "a: b\n"})
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "app/routes")))
	_, err := List(filepath.Join(dir, "app"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "app/routes")+": a symbolic link to ")
	assert.Contains(t, err.Error(), "outside the repository "+dir)
}

func TestListWithoutGitTheDirectoryIsTheRepository(t *testing.T) {
	dir := tree(t, map[string]string{"shared/routes.yaml": "a: b\n", "app/gateway.yaml": "a: b\n"})
	require.NoError(t, os.Symlink("../shared", filepath.Join(dir, "app/routes")))
	_, err := List(filepath.Join(dir, "app"))
	require.ErrorContains(t, err, "outside the repository")
	l, err := List(dir) // from the top, the link stays inside, and its file is read once
	require.NoError(t, err)
	assert.Equal(t, []string{"app/gateway.yaml", "app/routes/routes.yaml"}, rel(t, dir, l.Files))
	require.Len(t, l.Skipped, 1)
	assert.Contains(t, l.Skipped[0].String(), "shared/routes.yaml: the same file as ")
}

func TestListRefusesLoopsAndDanglingLinks(t *testing.T) {
	dir := tree(t, map[string]string{".git/HEAD": "", "app/gateway.yaml": "a: b\n"})
	require.NoError(t, os.Symlink("..", filepath.Join(dir, "app/up")))
	_, err := List(filepath.Join(dir, "app"))
	require.ErrorContains(t, err, "app/up: a symbolic link to "+dir+", a directory that holds the link: a loop")

	dir = tree(t, map[string]string{".git/HEAD": "", "app/gateway.yaml": "a: b\n"})
	require.NoError(t, os.Symlink("missing", filepath.Join(dir, "app/routes.yaml")))
	_, err = List(filepath.Join(dir, "app"))
	require.ErrorContains(t, err, "app/routes.yaml: a symbolic link to missing, which cannot be followed")
}

func TestListSkipsHiddenAndIgnoredWithAReason(t *testing.T) {
	dir := tree(t, map[string]string{
		".git/x.yaml": "a: b\n", ".github/workflows/ci.yml": "a: b\n", ".hidden.yaml": "a: b\n",
		".krmignore": "drafts/\n", "drafts/r.yaml": "a: b\n", "kustomization.yaml": "resources: []\n",
		"routes.yaml": "a: b\n", "README.md": "",
	})
	l, err := List(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"routes.yaml"}, rel(t, dir, l.Files))
	assert.Equal(t, []string{"kustomization.yaml"}, rel(t, dir, l.Kustomizations))
	var skipped []string
	for _, s := range l.Skipped {
		r, _ := filepath.Rel(dir, s.Path)
		skipped = append(skipped, r+": "+strings.SplitN(s.Reason, " ", 2)[0])
	}
	assert.Equal(t, []string{".git: hidden", ".github: hidden", ".hidden.yaml: hidden", "drafts: left"}, skipped)
}

func TestListOfAFileIsTheFile(t *testing.T) {
	dir := tree(t, map[string]string{"r.yaml": "a: b\n"})
	l, err := List(filepath.Join(dir, "r.yaml"))
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, "r.yaml")}, l.Files)
}
