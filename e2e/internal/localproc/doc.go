// Package localproc owns what the tests that run real servers (e2e/realtyk, e2e/realkube) need of the local
// machine: free loopback ports, processes that die with the test binary, the module's bin/ and their logs.
package localproc

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FreePort is a TCP port on 127.0.0.1 that nothing listens on at the time of the call. It panics when no port
// can be had: the machine is then unfit for any of these tests.
func FreePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic("no free loopback port: " + err.Error())
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// ModuleRoot is the nearest directory at or above the working directory (a test's package directory) that
// holds go.mod; "" when there is none. The real servers are built into its bin/.
func ModuleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// EnvOr is the environment variable name, or def when it is unset or empty.
func EnvOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// Tail is the last n lines of a log file (or why it cannot be read).
func Tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Missing ends a test that lacks the real system it runs against: missing names what is not there. It fails t when
// the environment variable requiredEnv is "required" (as make test sets it), and otherwise skips t, saying so and
// which make target builds and requires it.
func Missing(t testing.TB, system string, missing []string, requiredEnv, makeTarget string) {
	t.Helper()
	msg := "no real " + system + ": missing " + strings.Join(missing, ", ")
	if os.Getenv(requiredEnv) == "required" {
		t.Fatalf("%s; %s=required", msg, requiredEnv)
	}
	t.Skipf("SKIPPED: %s; run `make %s`, which builds and requires it", msg, makeTarget)
}

// Short skips t under go test -short (make check, the tier without real systems) unless requiredEnv says the
// real system is required (make test): a test against a real system takes seconds to minutes, and the fast tier
// is for the inner loop. make test never passes -short.
func Short(t testing.TB, system, requiredEnv, makeTarget string) {
	t.Helper()
	if testing.Short() && os.Getenv(requiredEnv) != "required" {
		t.Skipf("SKIPPED: -short (make check) runs no real %s; make %s and make test do", system, makeTarget)
	}
}
