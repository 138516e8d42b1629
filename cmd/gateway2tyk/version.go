package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// readBuildInfo is the seam the tests replace: the binary's build information.
var readBuildInfo = debug.ReadBuildInfo

// versionText is what `gateway2tyk version` and `--version` print: the module's version and VCS revision as the
// Go toolchain recorded them (go install pkg@vX gives the version; a build in a git work tree without
// -buildvcs=false gives the revision), and what the render targets, for bug reports and CI pins.
func versionText() string {
	version, revision, modified, gatewayAPI, goVersion := "unknown", "", false, "unknown", "unknown"
	if info, ok := readBuildInfo(); ok {
		goVersion = info.GoVersion
		if v := info.Main.Version; v != "" {
			version = v
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		for _, d := range info.Deps {
			if d.Path == "sigs.k8s.io/gateway-api" {
				gatewayAPI = d.Version
				if d.Replace != nil {
					gatewayAPI = d.Replace.Version
				}
			}
		}
	}
	rev := "revision unknown (built without VCS information)"
	if revision != "" {
		rev = "revision " + revision
		if modified {
			rev += " (with uncommitted changes)"
		}
	}
	return fmt.Sprintf("gateway2tyk %s, %s, %s\n"+
		"targets: Gateway API %s (%s/%s HTTPRoute), Tyk Gateway %s.0 or later (Tyk OAS APIs), Tyk Operator 1.6.0's conditions\n",
		version, rev, goVersion, gatewayAPI, gwv1.GroupName, gwv1.GroupVersion.Version, tykroute.MinVersion)
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:           "version",
		Short:         "Print gateway2tyk's version and VCS revision, and the Gateway API and Tyk versions it targets",
		Args:          cobra.NoArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprint(cmd.OutOrStdout(), versionText())
			return err
		},
	}
}
