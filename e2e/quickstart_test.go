package e2e_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

const (
	quickStartBegin = "<!-- quick-start: begin"
	quickStartEnd   = "<!-- quick-start: end -->"
	// The address and secret the quick start's sync commands name: a Gateway on localhost:8080 with
	// examples/tyk-gateway/tyk.conf's secret.
	quickStartURL    = "http://localhost:8080"
	quickStartSecret = "replace-with-the-secret-sync-sends"
)

// quickStart is the README's quick start: the file its listing is saved as, the listing, and its commands in order.
func quickStart(t *testing.T) (file, listing string, commands []string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(data), quickStartBegin)
	require.True(t, ok, "README.md has no %q", quickStartBegin)
	section, _, ok := strings.Cut(rest, quickStartEnd)
	require.True(t, ok, "README.md has no %q", quickStartEnd)
	m := regexp.MustCompile("Save this as `([^`]+)`").FindStringSubmatch(section)
	require.NotNil(t, m, "the quick start says no file to save its listing as")
	file = m[1]
	blocks := regexp.MustCompile("(?ms)^```(yaml|sh)\n(.*?)^```").FindAllStringSubmatch(section, -1)
	for _, b := range blocks {
		if b[1] == "yaml" {
			require.Empty(t, listing, "the quick start has two listings")
			listing = b[2]
			continue
		}
		for _, line := range strings.Split(b[2], "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				commands = append(commands, line)
			}
		}
	}
	require.NotEmpty(t, listing, "the quick start has no listing")
	return file, listing, commands
}

// TestQuickStart runs every command of the README's quick start as written, in a directory holding only its
// listing (saved as the quick start says), with gateway2tyk on PATH: render and explain, then sync and
// sync --check against a real Tyk Gateway started with examples/tyk-gateway/tyk.conf (its address and secret
// put in for localhost:8080 and the file's secret). Each must exit 0; the render must emit an API, explain must
// proxy the request, and the check must find the Gateway in sync. On a Gateway older than the render writes for
// (the 5.4 line, which CI builds) the documents go through tykroute.RemoveNewer and sync gets --tyk-version,
// as every real-Gateway test does there (docs/tyk-releases.md); on 5.8 and later the commands run unchanged, but
// for --tyk-version on a build from source, which reports a pre-release older than itself.
func TestQuickStart(t *testing.T) {
	file, listing, commands := quickStart(t)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, file)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, file), []byte(listing), 0o644))
	_, env := shellEnv(t)
	var g *realtyk.Gateway
	syncs := 0
	for _, line := range commands {
		if !strings.Contains(line, "gateway2tyk sync") {
			out, code := shell(t, dir, env, line)
			require.Equal(t, 0, code, "%s:\n%s", line, out)
			switch {
			case strings.HasPrefix(line, "gateway2tyk render"):
				require.Contains(t, out, "gateway2tyk.io/api-id", "%s renders no API", line)
			case strings.HasPrefix(line, "gateway2tyk explain"):
				require.Contains(t, out, "status     proxied", "%s", line)
			}
			continue
		}
		if g == nil {
			g = realtyk.Start(t, realtyk.Find(t))
		}
		syncs++
		render, syncCmd, ok := strings.Cut(line, " | ")
		require.True(t, ok, "%s: the quick start pipes the render into sync", line)
		require.Contains(t, syncCmd, quickStartURL, line)
		require.Contains(t, syncCmd, quickStartSecret, line)
		syncCmd = strings.ReplaceAll(strings.ReplaceAll(syncCmd, quickStartURL, g.URL), quickStartSecret, g.Secret)
		v, err := tykroute.ParseVersion(g.Version)
		require.NoError(t, err)
		if v.Less(tykroute.MinVersion) {
			rendered := runShell(t, dir, env, render, "")
			stream := loadableOn(t, rendered, v)
			syncCmd += " --tyk-version " + tykroute.MinVersion.String()
			t.Logf("Tyk %s is older than the render's %s: the documents without the newer fields, sync told %s",
				g.Version, tykroute.MinVersion, tykroute.MinVersion)
			out := runShell(t, dir, env, syncCmd, stream)
			checkQuickStartSync(t, line, out)
			continue
		}
		if g.Hello != g.Version {
			// A Gateway built from Tyk's source reports a pre-release older than itself (v5.5.0-dev for v5.14.0);
			// a released Gateway reports its release. sync is told it, as docs/sync.md says.
			syncCmd += " --tyk-version " + g.Version
			t.Logf("Tyk %s reports %s (a build from source): sync told --tyk-version %s", g.Version, g.Hello, g.Version)
		}
		out := runShell(t, dir, env, render+" | "+syncCmd, "")
		checkQuickStartSync(t, line, out)
	}
	require.Equal(t, 2, syncs, "the quick start syncs and checks")
	ids, err := g.LoadedIDs()
	require.NoError(t, err)
	require.NotEmpty(t, ids, "the Gateway holds no API after the quick start's sync")
	t.Logf("Tyk %s: %d commands of the quick start ran, the Gateway holds %v", g.Version, len(commands), ids)
}

// checkQuickStartSync holds what the quick start's sync lines print: the first creates, the check finds it in sync.
func checkQuickStartSync(t *testing.T, line, out string) {
	t.Helper()
	if strings.Contains(line, "--check") {
		require.Contains(t, out, "gateway2tyk sync --check: in sync: ", "%s:\n%s", line, out)
	} else {
		require.Contains(t, out, "1 created", "%s:\n%s", line, out)
	}
}

// runShell runs line with sh in dir, stdin given, and fails the test unless it exits 0; it returns stdout.
func runShell(t *testing.T, dir string, env []string, line, stdin string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), "%s:\n%s%s", line, out.String(), errb.String())
	return out.String()
}

// loadableOn is a rendered YAML stream with the fields release v does not take removed from each API document.
func loadableOn(t *testing.T, stream string, v tykroute.Version) string {
	t.Helper()
	nodes, err := (&kio.ByteReader{Reader: strings.NewReader(stream), OmitReaderAnnotations: true}).Read()
	require.NoError(t, err)
	for _, n := range nodes {
		if n.GetKind() != "ConfigMap" || !emit.IsEmitted(n) {
			continue
		}
		doc := loadableDocument(t, n.GetDataMap()[emit.DocumentKey], v)
		require.NoError(t, n.PipeE(yaml.Lookup("data"), yaml.SetField(emit.DocumentKey, yaml.NewStringRNode(doc))))
	}
	var out bytes.Buffer
	require.NoError(t, kio.ByteWriter{Writer: &out}.Write(nodes))
	return out.String()
}

// loadableDocument is a rendered Tyk OAS document without the fields Tyk release v does not know
// (tykroute.RemoveNewer), as a Gateway older than the render's oldest release is given it.
func loadableDocument(t *testing.T, doc string, v tykroute.Version) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(doc), &m))
	if tyk, ok := m["x-tyk-api-gateway"].(map[string]any); ok {
		tykroute.RemoveNewer(tyk, v)
	}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return string(b)
}
