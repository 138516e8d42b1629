package apiserver

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A route the CEL rules refuse (an exact path with a query) and one they accept.
const (
	celRefused = `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: refused, namespace: shop}
spec:
  rules:
  - matches: [{path: {type: Exact, value: "/orders?x=1"}}]
`
	celAccepted = `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: accepted, namespace: shop}
spec:
  rules:
  - matches: [{path: {type: PathPrefix, value: /orders}}]
`
)

func judgeAll(t *testing.T, srcs ...string) []Verdict {
	t.Helper()
	var out []Verdict
	for _, src := range srcs {
		v, served, err := AdmitCustomResource(Standard, "HTTPRoute", "v1", decoded(t, src))
		require.NoError(t, err)
		require.True(t, served)
		out = append(out, v)
	}
	return out
}

func TestMemoryGivesTheVerdictsOfValidate(t *testing.T) {
	Forget()
	fresh := judgeAll(t, celRefused, celAccepted)
	require.NotEmpty(t, fresh[0].Problems, "the CEL rules refuse the exact path with a query")
	require.Empty(t, fresh[1].Problems)

	dir := t.TempDir()
	t.Cleanup(Forget)
	first, err := Remember(dir)
	require.NoError(t, err)
	assert.Equal(t, fresh, judgeAll(t, celRefused, celAccepted))
	hits, judged := first.Counts()
	assert.Equal(t, [2]int64{0, 2}, [2]int64{hits, judged}, "an empty memory judges everything")
	require.NoError(t, first.Save())

	second, err := Remember(dir)
	require.NoError(t, err)
	assert.Equal(t, fresh, judgeAll(t, celRefused, celAccepted), "remembered verdicts are Validate's, problems and stored object")
	hits, judged = second.Counts()
	assert.Equal(t, [2]int64{2, 0}, [2]int64{hits, judged}, "both verdicts come from memory")

	t.Run("a changed object is judged anew", func(t *testing.T) {
		changed := judgeAll(t, celAccepted+"  hostnames: [shop.example.com]\n")
		assert.Empty(t, changed[0].Problems)
		_, judged := second.Counts()
		assert.Equal(t, int64(1), judged)
	})
	t.Run("unknown fields are found on every run, not remembered", func(t *testing.T) {
		v := judgeAll(t, celAccepted+"  hostname: typo\n")
		assert.Equal(t, []string{"spec.hostname"}, fields(v[0]))
	})
	t.Run("an unreadable memory is an empty one", func(t *testing.T) {
		names, err := filepath.Glob(filepath.Join(dir, "verdicts-*.gob"))
		require.NoError(t, err)
		require.Len(t, names, 1)
		require.NoError(t, os.WriteFile(names[0], []byte("not gob"), 0o600))
		m, err := Remember(dir)
		require.NoError(t, err)
		assert.Equal(t, fresh, judgeAll(t, celRefused, celAccepted))
		hits, judged := m.Counts()
		assert.Equal(t, [2]int64{0, 2}, [2]int64{hits, judged})
		require.NoError(t, m.Save())
	})
	t.Run("another binary's file is removed when this one's is written", func(t *testing.T) {
		other := filepath.Join(dir, "verdicts-0123456789abcdef.gob")
		require.NoError(t, os.WriteFile(other, nil, 0o600))
		m, err := Remember(dir)
		require.NoError(t, err)
		judgeAll(t, celAccepted+"  hostnames: [other.example.com]\n")
		require.NoError(t, m.Save())
		assert.NoFileExists(t, other)
	})
}

func TestExecutableIdentityIsTheGoBuildID(t *testing.T) {
	id, err := executableIdentity()
	require.NoError(t, err)
	assert.Regexp(t, `^go-build-id:[A-Za-z0-9_/-]{20,}$`, id, "a test binary on Linux is ELF with a Go build ID")
}
