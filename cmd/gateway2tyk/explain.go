package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gateway2tyk/gateway2tyk/fn/explain"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

func newExplainCommand() *cobra.Command {
	var configPath, kdir, gateway, request, output, tykVersion string
	var strict bool
	var headers []string
	cmd := &cobra.Command{
		Use:   "explain [-c CONFIG] [-k DIR] [--gateway NS/NAME] [--strict-routes] [--tyk-version X.Y] [-o text|json] --request \"METHOD URL\" PATH...",
		Short: "Explain what Tyk would do with a request, offline",
		Long: "explain renders PATH in memory and answers what Tyk would do with one request: the listener, route, rule,\n" +
			"API and operation, the upstream URL after rewrites and the header changes, or the status Tyk answers\n" +
			"itself and the condition or dropped rule responsible.\n" +
			"With -k DIR, the PATHs (- for stdin) hold what `kustomize build DIR` printed, as render -k takes them.",
		Args:          needPaths("explain"),
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, paths []string) error {
			if output != "text" && output != "json" {
				return usage("-o must be text or json (got %q)", output)
			}
			req, err := explain.ParseRequest(request)
			if err != nil {
				return usage("%v", err)
			}
			if req.Header, err = explain.ParseHeaders(headers); err != nil {
				return usage("%v", err)
			}
			var version tykroute.Version
			if tykVersion != "" {
				if version, err = tykroute.ParseVersion(tykVersion); err != nil {
					return usage("--tyk-version: %v", err)
				}
			}
			out, _, err := renderPaths(cmd, paths, configPath, kdir)
			if err != nil {
				return err
			}
			if version.IsZero() {
				version = out.TykVersion // the release the render writes for
			}
			answer, err := explain.Explain(out, req, explain.Options{Gateway: gateway, StrictRoutes: strict, Version: version})
			if err != nil {
				return usage("%v", err)
			}
			if output == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				return enc.Encode(answer)
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), answer.Text(req))
			return err
		},
	}
	configFlag(cmd, &configPath)
	kustomizationFlag(cmd, &kdir)
	cmd.Flags().StringVar(&gateway, "gateway", "", "the Gateway `NS/NAME` the request reaches; needed when the input has several")
	cmd.Flags().BoolVar(&strict, "strict-routes", false, "the Tyk Gateways set http_server_options.enable_strict_routes")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "text or json")
	cmd.Flags().StringVar(&tykVersion, "tyk-version", "", "answer for this Tyk Gateway release `X.Y` or X.Y.Z (the patch counts on the 5.8 line); default: "+
		"the release the render writes for (the RenderConfig's spec.tykVersion, else "+tykroute.NewestVersion.String()+")")
	cmd.Flags().StringVar(&request, "request", "", "the request, \"METHOD URL\"")
	cmd.Flags().StringArrayVarP(&headers, "header", "H", nil, "a request header, \"Name: value\" (repeat it for more), which header matches read")
	return cmd
}
