package main

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// A mistyped subcommand or a stray argument is a usage error on one line, with cobra's suggestion; only no
// argument at all is the KRM function.
func TestUnknownSubcommand(t *testing.T) {
	for _, c := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"typo", []string{"dif", "a", "b"}, `gateway2tyk: unknown command "dif" for "gateway2tyk" Did you mean this? diff`},
		{"typo of render", []string{"rendr", "a"}, `gateway2tyk: unknown command "rendr" for "gateway2tyk" Did you mean this? render`},
		{"stray word", []string{"shop"}, `gateway2tyk: unknown command "shop" for "gateway2tyk"`},
	} {
		t.Run(c.name, func(t *testing.T) { usageErrorLine(t, c.stderr, c.args...) })
	}
}

// With no argument gateway2tyk is still the KRM function: a ResourceList in, a ResourceList out.
func TestNoArgumentIsTheKRMFunction(t *testing.T) {
	in := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: a\n    namespace: shop\n"
	code, out, stderr := cli(t, in)
	assert.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr, "no summary line in KRM function mode")
	assert.Contains(t, out, "kind: ResourceList")
	assert.Contains(t, out, "name: a")
}

// Run by hand on a terminal, the KRM function says what it wants instead of waiting silently for a ResourceList.
func TestNoArgumentOnATerminal(t *testing.T) {
	tty := openPTY(t)
	root := newRoot()
	var out, errb bytes.Buffer
	root.SetArgs([]string{}) // not nil: cobra would read the test binary's own flags (make golden's -update)
	root.SetIn(tty)
	root.SetOut(&out)
	root.SetErr(&errb)
	code := exitStatus(root.Execute(), &errb)
	assert.Equal(t, 2, code)
	assert.Empty(t, out.String())
	assert.Equal(t, "gateway2tyk: with no command, gateway2tyk is a KRM function: it reads a ResourceList on stdin, "+
		"which is a terminal here; pipe one in (as kustomize and kpt do), or run 'gateway2tyk render PATH' "+
		"(gateway2tyk --help lists the commands)\n", errb.String())
}

// openPTY opens a pseudo-terminal and returns its terminal side.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("SKIPPED: no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	fd := int(ptmx.Fd())
	require.NoError(t, unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0))
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	require.NoError(t, err)
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { tty.Close() })
	return tty
}

// "-" on a terminal is refused rather than waited on, for render and for -k.
func TestDashOnATerminal(t *testing.T) {
	for _, args := range [][]string{{"render", "-"}, {"render", "-k", "../../examples/basic", "-"}, {"graph", "-"}} {
		root := newRoot()
		var out, errb bytes.Buffer
		root.SetArgs(args)
		root.SetIn(openPTY(t))
		root.SetOut(&out)
		root.SetErr(&errb)
		assert.Equal(t, 2, exitStatus(root.Execute(), &errb), "%v", args)
		assert.Contains(t, errb.String(), "- is stdin, which is a terminal here", "%v", args)
	}
}

// TestMain keeps the commands the tests run from the user's memory of verdicts (see rememberVerdicts).
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gateway2tyk-cmd-verdicts-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(cacheEnv, dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
