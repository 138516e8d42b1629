// Package modcache locates a Go module's files in the module cache for tests that read another project's data
// (the Gateway API conformance manifests, its examples and CRDs) without importing it: `go mod download -json`,
// run outside any module so that nothing is looked up in or written to this module's go.mod.
package modcache

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Dir is the directory of module@version, downloaded if needed. When it cannot be had (offline, no proxy) it
// skips t, saying why.
func Dir(t testing.TB, module, version string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("skipping: the go command is not on PATH, so %s@%s cannot be located: %v", module, version, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, "mod", "download", "-json", module+"@"+version)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var info struct{ Dir, Error string }
	jsonErr := json.Unmarshal(out, &info)
	if runErr != nil || jsonErr != nil || info.Dir == "" {
		why := strings.TrimSpace(strings.Join([]string{info.Error, stderr.String()}, " "))
		if runErr != nil {
			why = strings.TrimSpace(runErr.Error() + ": " + why)
		} else if jsonErr != nil {
			why = strings.TrimSpace(fmt.Sprintf("unreadable output of go mod download: %v: %s", jsonErr, why))
		}
		t.Skipf("skipping: %s@%s is not available: `go mod download -json` failed (offline, or GOPROXY/GOFLAGS "+
			"forbid the download): %s", module, version, why)
	}
	return info.Dir
}
