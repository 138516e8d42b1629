package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
)

// profileOverride is --profile of render and the read-only views: the profile to render with whatever the
// function config says, so that a user can try the other profile without editing the RenderConfig. A command
// made anew (newRoot) starts it empty.
var profileOverride string

func profileFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&profileOverride, "profile", "", "render with this profile (operator or gateway-api) "+
		"instead of the function config's spec.profile")
}

// withProfile is the function config with its profile set to --profile's, or the config itself without the
// flag: a RenderConfig's spec.profile, a ConfigMap's data.profile, or a RenderConfig of its own when the input
// has none. Only the copy the render reads changes; no file is written.
func withProfile(fnConfig *yaml.RNode) (*yaml.RNode, error) {
	if profileOverride == "" {
		return fnConfig, nil
	}
	switch config.Profile(profileOverride) {
	case config.ProfileOperator, config.ProfileGatewayAPI:
	default:
		return nil, fmt.Errorf("--profile must be %s or %s (got %q)", config.ProfileOperator, config.ProfileGatewayAPI, profileOverride)
	}
	if fnConfig == nil {
		return yaml.Parse("apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: gateway2tyk}\n" +
			"spec: {profile: " + profileOverride + "}\n")
	}
	out := fnConfig.Copy()
	field := []string{"spec"}
	if out.GetKind() == "ConfigMap" {
		field = []string{"data"}
	}
	if err := out.PipeE(yaml.LookupCreate(yaml.MappingNode, field...), yaml.SetField("profile", yaml.NewStringRNode(profileOverride))); err != nil {
		return nil, fmt.Errorf("--profile: the function config: %v", err)
	}
	return out, nil
}
