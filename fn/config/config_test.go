package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func TestLoad(t *testing.T) {
	const header = "apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: tyk}\n"
	const cmHeader = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fn-config}\n"
	tests := []struct {
		name    string
		in      string
		want    Spec
		wantErr string
	}{
		{name: "empty mapping", in: "{}", want: Default()},
		{name: "null", in: "null", want: Default()},
		{name: "no spec", in: header, want: Default()},
		{name: "empty spec", in: header + "spec: {}", want: Default()},
		{name: "empty strings mean default", in: header + "spec: {controllerName: '', output: '', inputs: '', failOn: ''}", want: Default()},
		{name: "null values mean default", in: header + "spec: {controllerName: ~, output: , inputs: null}", want: Default()},
		{
			name: "local-config annotations are normal",
			in: header[:len(header)-len("metadata: {name: tyk}\n")] + `metadata:
  name: tyk
  annotations:
    config.kubernetes.io/local-config: "true"
    config.kubernetes.io/function: |
      exec: {path: gateway2tyk}
spec: {output: TykOasApiDefinition}`,
			want: Spec{ControllerName: DefaultControllerName, Output: OutputTykOasApiDefinition, Inputs: InputsKeep, FailOn: FailOnError, GatewayAPIChannel: ChannelStandard, Profile: ProfileOperator},
		},
		{
			name: "controllerName",
			in:   header + "spec: {controllerName: example.net/gateway-controller}",
			want: Spec{ControllerName: "example.net/gateway-controller", Output: OutputConfigMap, Inputs: InputsKeep, FailOn: FailOnError, GatewayAPIChannel: ChannelStandard, Profile: ProfileOperator},
		},
		{
			name: "output TykOasApiDefinition",
			in:   header + "spec: {output: TykOasApiDefinition}",
			want: Spec{ControllerName: DefaultControllerName, Output: OutputTykOasApiDefinition, Inputs: InputsKeep, FailOn: FailOnError, GatewayAPIChannel: ChannelStandard, Profile: ProfileOperator},
		},
		{
			name: "output ConfigMap",
			in:   header + "spec: {output: ConfigMap}",
			want: Default(),
		},
		{
			name: "inputs Drop",
			in:   header + "spec: {inputs: Drop}",
			want: Spec{ControllerName: DefaultControllerName, Output: OutputConfigMap, Inputs: InputsDrop, FailOn: FailOnError, GatewayAPIChannel: ChannelStandard, Profile: ProfileOperator},
		},
		{
			name: "failOn Warning",
			in:   header + "spec: {failOn: Warning}",
			want: Spec{ControllerName: DefaultControllerName, Output: OutputConfigMap, Inputs: InputsKeep, FailOn: FailOnWarning, GatewayAPIChannel: ChannelStandard, Profile: ProfileOperator},
		},
		{
			name: "all fields",
			in:   header + "spec: {controllerName: acme.io/gw, output: TykOasApiDefinition, inputs: Drop, failOn: Warning}",
			want: Spec{ControllerName: "acme.io/gw", Output: OutputTykOasApiDefinition, Inputs: InputsDrop, FailOn: FailOnWarning, GatewayAPIChannel: ChannelStandard, Profile: ProfileOperator},
		},
		{
			name: "the experimental channel",
			in:   header + "spec: {gatewayAPIChannel: experimental}",
			want: Spec{ControllerName: DefaultControllerName, Output: OutputConfigMap, Inputs: InputsKeep, FailOn: FailOnError, GatewayAPIChannel: ChannelExperimental, Profile: ProfileOperator},
		},
		{
			name: "no metadata",
			in:   "apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\nspec: {inputs: Drop}",
			want: Spec{ControllerName: DefaultControllerName, Output: OutputConfigMap, Inputs: InputsDrop, FailOn: FailOnError, GatewayAPIChannel: ChannelStandard, Profile: ProfileOperator},
		},
		{
			name: "ConfigMap form",
			in:   cmHeader + "data: {controllerName: acme.io/gw, output: TykOasApiDefinition, inputs: Drop, failOn: Warning}",
			want: Spec{ControllerName: "acme.io/gw", Output: OutputTykOasApiDefinition, Inputs: InputsDrop, FailOn: FailOnWarning, GatewayAPIChannel: ChannelStandard, Profile: ProfileOperator},
		},
		{name: "ConfigMap without data", in: cmHeader, want: Default()},

		{
			name: "the gateway-api profile",
			in:   header + "spec: {profile: gateway-api}",
			want: Spec{ControllerName: DefaultControllerName, Output: OutputConfigMap, Inputs: InputsKeep, FailOn: FailOnError, GatewayAPIChannel: ChannelStandard, Profile: ProfileGatewayAPI},
		},
		{name: "the operator profile", in: header + "spec: {profile: operator}", want: Default()},
		{
			name: "ConfigMap form with the gateway-api profile",
			in:   cmHeader + "data: {profile: gateway-api}",
			want: Spec{ControllerName: DefaultControllerName, Output: OutputConfigMap, Inputs: InputsKeep, FailOn: FailOnError, GatewayAPIChannel: ChannelStandard, Profile: ProfileGatewayAPI},
		},

		{
			name: "a Tyk release written as a number",
			in:   header + "spec: {profile: gateway-api, tykVersion: 5.8}",
			want: Spec{ControllerName: DefaultControllerName, Output: OutputConfigMap, Inputs: InputsKeep, FailOn: FailOnError, GatewayAPIChannel: ChannelStandard, Profile: ProfileGatewayAPI, TykVersion: "5.8"},
		},
		{
			name: "a Tyk release as Tyk prints it, in the ConfigMap form",
			in:   cmHeader + "data: {tykVersion: v5.14.0}",
			want: Spec{ControllerName: DefaultControllerName, Output: OutputConfigMap, Inputs: InputsKeep, FailOn: FailOnError, GatewayAPIChannel: ChannelStandard, Profile: ProfileOperator, TykVersion: "v5.14.0"},
		},

		// Bad values.
		{
			name:    "a Tyk release that is not one",
			in:      header + "spec: {tykVersion: 5}",
			wantErr: `RenderConfig tyk: spec.tykVersion: "5" is not a Tyk version (MAJOR.MINOR or vMAJOR.MINOR.PATCH)`,
		},
		{
			// Issue 45 finding 6: "4.2" was taken, and every API it rendered then failed on that Gateway.
			name:    "a Tyk release older than the rendered APIs need",
			in:      header + "spec: {tykVersion: \"4.2\"}",
			wantErr: `RenderConfig tyk: spec.tykVersion: Tyk 4.2 is older than Tyk 5.8, the oldest release that loads the rendered APIs (older ones refuse upstream.preserveHostHeader, which every API that proxies sets); give 5.8 or newer, or leave tykVersion out to render for the newest release`,
		},
		{
			name:    "a build from source older than the rendered APIs need",
			in:      cmHeader + "data: {tykVersion: v5.3.0-dev}",
			wantErr: `ConfigMap fn-config: data.tykVersion: Tyk v5.3.0-dev is older than Tyk 5.8, the oldest release that loads the rendered APIs (older ones refuse upstream.preserveHostHeader, which every API that proxies sets); give 5.8 or newer, or leave tykVersion out to render for the newest release`,
		},
		{
			name:    "a Tyk release that is not a scalar",
			in:      header + "spec: {tykVersion: [5.8]}",
			wantErr: `RenderConfig tyk: spec.tykVersion: must be a string (got sequence)`,
		},
		{
			name:    "a Tyk release that is a boolean",
			in:      cmHeader + "data: {tykVersion: true}",
			wantErr: `ConfigMap fn-config: data.tykVersion: must be a string (got boolean)`,
		},
		{
			name:    "an unknown profile",
			in:      header + "spec: {profile: gatewayapi}",
			wantErr: `RenderConfig tyk: spec.profile: must be one of operator, gateway-api (got "gatewayapi")`,
		},
		{
			name:    "ConfigMap form with an unknown profile",
			in:      cmHeader + "data: {profile: Gateway-API}",
			wantErr: `ConfigMap fn-config: data.profile: must be one of operator, gateway-api (got "Gateway-API")`,
		},
		{
			name:    "a profile that is not a string",
			in:      header + "spec: {profile: [gateway-api]}",
			wantErr: `RenderConfig tyk: spec.profile: must be a string (got sequence)`,
		},
		{
			name:    "an unknown channel",
			in:      header + "spec: {gatewayAPIChannel: Experimental}",
			wantErr: `RenderConfig tyk: spec.gatewayAPIChannel: must be one of standard, experimental (got "Experimental")`,
		},
		{
			name:    "bad output",
			in:      header + "spec: {output: Secret}",
			wantErr: `RenderConfig tyk: spec.output: must be one of ConfigMap, TykOasApiDefinition (got "Secret")`,
		},
		{
			name:    "enum is case-sensitive",
			in:      header + "spec: {output: configmap}",
			wantErr: `RenderConfig tyk: spec.output: must be one of ConfigMap, TykOasApiDefinition (got "configmap")`,
		},
		{
			name:    "bad inputs",
			in:      header + "spec: {inputs: Discard}",
			wantErr: `RenderConfig tyk: spec.inputs: must be one of Keep, Drop (got "Discard")`,
		},
		{
			name:    "bad failOn",
			in:      header + "spec: {failOn: error}",
			wantErr: `RenderConfig tyk: spec.failOn: must be one of Error, Warning (got "error")`,
		},
		{
			name:    "controllerName without domain",
			in:      header + "spec: {controllerName: gateway-controller}",
			wantErr: `RenderConfig tyk: spec.controllerName: must be a domain-prefixed path (such as "acme.io/foo") (got "gateway-controller")`,
		},
		{
			name:    "controllerName with uppercase domain",
			in:      header + "spec: {controllerName: Tyk.io/gw}",
			wantErr: `RenderConfig tyk: spec.controllerName: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*') (got "Tyk.io/gw")`,
		},
		{
			name:    "controllerName with bad path",
			in:      header + "spec: {controllerName: 'tyk.io/a b'}",
			wantErr: `RenderConfig tyk: spec.controllerName: Invalid path (regex used for validation is '[A-Za-z0-9/\-._~%!$&'()*+,;=:]+') (got "tyk.io/a b")`,
		},
		{
			name:    "controllerName too long",
			in:      header + "spec: {controllerName: tyk.io/" + longPath() + "}",
			wantErr: `RenderConfig tyk: spec.controllerName: must be no more than 253 characters (got "tyk.io/` + longPath() + `")`,
		},

		// Unknown fields and wrong types.
		{
			name:    "unknown spec field",
			in:      header + "spec: {output: ConfigMap, colour: blue}",
			wantErr: `RenderConfig tyk: spec.colour: unknown field`,
		},
		{
			name:    "unknown spec field with empty value",
			in:      header + "spec: {colour: ''}",
			wantErr: `RenderConfig tyk: spec.colour: unknown field`,
		},
		{
			name:    "unknown spec field with sequence value",
			in:      header + "spec: {colour: [a]}",
			wantErr: `RenderConfig tyk: spec.colour: unknown field`,
		},
		{
			name:    "unknown top-level field",
			in:      header + "spec: {}\ndata: {output: ConfigMap}",
			wantErr: `RenderConfig tyk: data: unknown field`,
		},
		{
			name:    "duplicate spec field",
			in:      header + "spec:\n  output: ConfigMap\n  output: TykOasApiDefinition",
			wantErr: `RenderConfig tyk: spec.output: duplicate field`,
		},
		{
			name:    "wrong type: sequence",
			in:      header + "spec: {output: [a]}",
			wantErr: `RenderConfig tyk: spec.output: must be a string (got sequence)`,
		},
		{
			name:    "wrong type: boolean",
			in:      header + "spec: {failOn: true}",
			wantErr: `RenderConfig tyk: spec.failOn: must be a string (got boolean)`,
		},
		{
			name:    "wrong type: spec",
			in:      header + "spec: [output]",
			wantErr: `RenderConfig tyk: spec: must be a mapping (got sequence)`,
		},
		{
			name:    "wrong type: metadata",
			in:      "apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\nmetadata: tyk",
			wantErr: `function config: metadata: must be a mapping (got str)`,
		},
		{
			name:    "wrong type: root",
			in:      "- a",
			wantErr: `function config: must be a mapping (got sequence)`,
		},

		// Kind and apiVersion.
		{
			name:    "unknown kind",
			in:      "apiVersion: v1\nkind: Secret\nmetadata: {name: tyk}",
			wantErr: `Secret tyk: kind: must be RenderConfig (gateway2tyk.io/v1alpha1) or ConfigMap (v1) (got "Secret")`,
		},
		{
			name:    "missing kind",
			in:      "apiVersion: gateway2tyk.io/v1alpha1\nspec: {}",
			wantErr: `function config: kind: missing; must be RenderConfig (gateway2tyk.io/v1alpha1) or ConfigMap (v1)`,
		},
		{
			name:    "wrong apiVersion",
			in:      "apiVersion: gateway2tyk.io/v1beta1\nkind: RenderConfig\nmetadata: {name: tyk}",
			wantErr: `RenderConfig tyk: apiVersion: must be gateway2tyk.io/v1alpha1 (got "gateway2tyk.io/v1beta1")`,
		},
		{
			name:    "wrong apiVersion without name",
			in:      "apiVersion: v1\nkind: RenderConfig",
			wantErr: `RenderConfig: apiVersion: must be gateway2tyk.io/v1alpha1 (got "v1")`,
		},
		{
			name:    "bad value without name",
			in:      "apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\nspec: {inputs: All}",
			wantErr: `RenderConfig: spec.inputs: must be one of Keep, Drop (got "All")`,
		},

		// ConfigMap form.
		{
			name:    "ConfigMap unknown data key",
			in:      cmHeader + "data: {colour: blue}",
			wantErr: `ConfigMap fn-config: data.colour: unknown field`,
		},
		{
			name:    "ConfigMap bad value",
			in:      cmHeader + "data: {failOn: Fatal}",
			wantErr: `ConfigMap fn-config: data.failOn: must be one of Error, Warning (got "Fatal")`,
		},
		{
			name:    "ConfigMap spec is unknown",
			in:      cmHeader + "spec: {failOn: Warning}",
			wantErr: `ConfigMap fn-config: spec: unknown field`,
		},
		{
			name:    "ConfigMap wrong apiVersion",
			in:      "apiVersion: gateway2tyk.io/v1alpha1\nkind: ConfigMap\nmetadata: {name: fn-config}",
			wantErr: `ConfigMap fn-config: apiVersion: must be v1 (got "gateway2tyk.io/v1alpha1")`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node, err := yaml.Parse(tt.in)
			require.NoError(t, err)
			got, err := Load(node)
			if tt.wantErr != "" {
				require.Error(t, err)
				var fe *FieldError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, tt.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// longPath makes tyk.io/<longPath> one byte over the CRD's 253 limit.
func longPath() string { return strings.Repeat("a", 247) }

func TestLoadNil(t *testing.T) {
	for name, node := range map[string]*yaml.RNode{
		"nil node":    nil,
		"zero RNode":  yaml.NewRNode(nil),
		"empty map":   yaml.NewMapRNode(nil),
		"zero y.Node": yaml.NewRNode(&yaml.Node{}),
	} {
		t.Run(name, func(t *testing.T) {
			got, err := Load(node)
			require.NoError(t, err)
			assert.Equal(t, Default(), got)
		})
	}
}

func TestDefault(t *testing.T) {
	assert.Equal(t, Spec{
		ControllerName:    "tyk.tyk.io/gateway-controller",
		Output:            "ConfigMap",
		Inputs:            "Keep",
		FailOn:            "Error",
		GatewayAPIChannel: "standard",
		Profile:           "operator",
	}, Default())
}

func TestSeverityFails(t *testing.T) {
	tests := []struct {
		failOn Severity
		result string
		want   bool
	}{
		{FailOnError, "error", true},
		{FailOnError, "warning", false},
		{FailOnError, "info", false},
		{FailOnWarning, "error", true},
		{FailOnWarning, "warning", true},
		{FailOnWarning, "info", false},
		{FailOnError, "", true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.failOn.Fails(tt.result), "failOn %s, result %q", tt.failOn, tt.result)
	}
}
