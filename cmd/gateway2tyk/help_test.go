package main

import (
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
)

// pflag takes a word in backquotes in a flag's usage as the name of its value (`render --help` showed
// "-k, --kustomization kustomize build"): every backquoted word must be a value name.
func TestFlagUsageValueNames(t *testing.T) {
	valueName := regexp.MustCompile(`^[A-Z][A-Z0-9_/.]*$`)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if strings.Contains(f.Usage, "`") {
				name, _ := pflag.UnquoteUsage(f)
				assert.Regexp(t, valueName, name, "%s --%s: %q", c.CommandPath(), f.Name, f.Usage)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot())
}

// Every command says what it does at length in its --help.
func TestEveryCommandHasALongDescription(t *testing.T) {
	for _, c := range newRoot().Commands() {
		if c.Name() == "help" || c.Name() == "completion" || c.Name() == "version" {
			continue
		}
		assert.NotEmpty(t, c.Long, c.Name())
	}
}

// `version` and `--version` print the module version and VCS revision from the build information, and the
// versions the render targets.
func TestVersion(t *testing.T) {
	old := readBuildInfo
	t.Cleanup(func() { readBuildInfo = old })
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"},
			Deps:     []*debug.Module{{Path: "sigs.k8s.io/gateway-api", Version: "v1.6.3"}},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.modified", Value: "true"}}}, true
	}
	want := "gateway2tyk v1.2.3, revision 0123abc (with uncommitted changes), go1.26.8\n" +
		"targets: Gateway API v1.6.3 (gateway.networking.k8s.io/v1 HTTPRoute), Tyk Gateway 5.8.0 or later (Tyk OAS APIs), Tyk Operator 1.6.0's conditions\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, stderr := cli(t, "", args...)
		assert.Equal(t, 0, code, stderr)
		assert.Equal(t, want, out, "%v", args)
	}
	// The test binary's own build information: the Gateway API module it was built with.
	readBuildInfo = old
	_, out, _ := cli(t, "", "version")
	assert.Contains(t, out, "Gateway API v1.6.3")
	assert.Contains(t, out, "revision unknown (built without VCS information)")
}

// A command that reads PATHs says so in its own words when none is given.
func TestNoPathGiven(t *testing.T) {
	for _, args := range [][]string{{"render"}, {"explain", "--request", "GET http://a/"}} {
		usageErrorLine(t, "gateway2tyk: "+args[0]+": no PATH given: name the YAML files or directories to read", args...)
	}
}
