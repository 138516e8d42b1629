package tyk

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tableRow is a row of README.md's table: | `file` | ... | sha256 |.
var tableRow = regexp.MustCompile("^\\| `([^`]+)` \\|.*\\| ([0-9a-f]{64}) \\|$")

// TestReadmeListsEveryFile: every embedded file but README.md is a row of README.md's table, with the SHA-256
// the file has, and every row names an embedded file, so a file changed or added without its source, version
// and licence noted fails here.
func TestReadmeListsEveryFile(t *testing.T) {
	want := map[string]string{}
	for _, line := range strings.Split(string(Read("README.md")), "\n") {
		if m := tableRow.FindStringSubmatch(line); m != nil {
			want[m[1]] = m[2]
		}
	}
	require.NotEmpty(t, want, "README.md has no table rows")
	got := map[string]string{}
	require.NoError(t, fs.WalkDir(Files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == "README.md" {
			return err
		}
		sum := sha256.Sum256(Read(path))
		got[path] = hex.EncodeToString(sum[:])
		return nil
	}))
	assert.Equal(t, want, got)
	for _, name := range []string{Schema, DashboardAPI, GatewayAPI, OperatorContextCRD, TykOasAPICRD} {
		assert.Contains(t, got, name)
	}
}
