package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func TestParsePorts(t *testing.T) {
	got, err := ParsePorts("20103, 20100-20102,20101")
	assert.NoError(t, err)
	assert.Equal(t, []int{20100, 20101, 20102, 20103}, got)
	for in, msg := range map[string]string{
		"":          "must list ports",
		"8081-8080": "ends before it starts",
		"http":      `"http" is not a port`,
		"0":         `"0" is not a port`,
		"1-65535":   "more than 4096 ports",
		"20100-x":   `"x" is not a port`,
	} {
		_, err := ParsePorts(in)
		if assert.Error(t, err, in) {
			assert.Contains(t, err.Error(), msg, in)
		}
	}
}

func TestLoadGatewayPorts(t *testing.T) {
	load := func(in string) (Spec, error) {
		node, err := yaml.Parse(in)
		require.NoError(t, err)
		return Load(node)
	}
	spec, err := load("apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: tyk}\n" +
		"spec: {profile: gateway-api, gatewayPorts: \"20100-20149\", ignoreCanonicalMIMEHeaderKey: true}\n")
	require.NoError(t, err)
	assert.Equal(t, "20100-20149", spec.GatewayPorts)
	assert.True(t, spec.HeaderNamesKept)
	spec, err = load("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fn}\n" +
		"data: {profile: gateway-api, gatewayPorts: \"8081,8082\", ignoreCanonicalMIMEHeaderKey: \"true\"}\n")
	require.NoError(t, err)
	assert.Equal(t, "8081,8082", spec.GatewayPorts)
	assert.True(t, spec.HeaderNamesKept)
	for in, msg := range map[string]string{
		"spec: {gatewayPorts: \"8081\"}": "RenderConfig tyk: spec.gatewayPorts: only the gateway-api profile reads it",
		"spec: {ignoreCanonicalMIMEHeaderKey: true}": "RenderConfig tyk: spec.ignoreCanonicalMIMEHeaderKey: only the " +
			"gateway-api profile reads it",
		"spec: {profile: gateway-api, gatewayPorts: \"80-x\"}":            `RenderConfig tyk: spec.gatewayPorts: "x" is not a port (1 to 65535) (got "80-x")`,
		"spec: {profile: gateway-api, ignoreCanonicalMIMEHeaderKey: yes}": "RenderConfig tyk: spec.ignoreCanonicalMIMEHeaderKey: must be a boolean",
	} {
		_, err := load("apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: tyk}\n" + in + "\n")
		if assert.Error(t, err, in) {
			assert.Contains(t, err.Error(), msg, in)
		}
	}
}
