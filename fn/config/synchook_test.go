package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func TestLoadSyncHook(t *testing.T) {
	const header = "apiVersion: gateway2tyk.io/v1alpha1\nkind: RenderConfig\nmetadata: {name: tyk}\n"
	const cmHeader = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fn-config}\n"
	withHook := func(h SyncHook) Spec { s := Default(); s.SyncHook = h; return s }
	tests := []struct {
		name    string
		in      string
		want    Spec
		wantErr string
	}{
		{name: "absent", in: header + "spec: {}", want: Default()},
		{name: "null", in: header + "spec: {syncHook: ~}", want: Default()},
		{name: "empty", in: header + "spec: {syncHook: {}}", want: Default()},
		{
			name: "all fields",
			in: header + `spec:
  syncHook:
    enabled: true
    image: registry.example.com/gateway2tyk:v1.2.3
    context: tyk/dashboard
    namespace: platform
    namespaces: [shop, blog]`,
			want: withHook(SyncHook{Enabled: true, Image: "registry.example.com/gateway2tyk:v1.2.3", Context: "tyk/dashboard",
				Namespace: "platform", Namespaces: []string{"shop", "blog"}}),
		},
		{
			name: "writeStatus",
			in:   header + "spec: {syncHook: {enabled: true, image: g:1, writeStatus: true}}",
			want: withHook(SyncHook{Enabled: true, Image: "g:1", WriteStatus: true}),
		},
		{
			name: "writeStatus in the ConfigMap form",
			in:   cmHeader + "data: {syncHook.enabled: 'true', syncHook.image: 'g:1', syncHook.writeStatus: 'true'}",
			want: withHook(SyncHook{Enabled: true, Image: "g:1", WriteStatus: true}),
		},
		{
			name: "disabled with settings",
			in:   header + "spec: {syncHook: {enabled: false, context: tyk/dashboard}}",
			want: withHook(SyncHook{Context: "tyk/dashboard"}),
		},
		{
			name: "ConfigMap form",
			in: cmHeader + `data:
  syncHook.enabled: "true"
  syncHook.image: gateway2tyk:dev
  syncHook.context: tyk/dashboard
  syncHook.namespaces: "shop, blog"`,
			want: withHook(SyncHook{Enabled: true, Image: "gateway2tyk:dev", Context: "tyk/dashboard", Namespaces: []string{"shop", "blog"}}),
		},

		// Errors name the field.
		{name: "not a mapping", in: header + "spec: {syncHook: true}", wantErr: `RenderConfig tyk: spec.syncHook: must be a mapping (got boolean)`},
		{name: "unknown field", in: header + "spec: {syncHook: {enable: true}}", wantErr: `RenderConfig tyk: spec.syncHook.enable: unknown field`},
		{name: "duplicate field", in: header + "spec:\n  syncHook:\n    image: a\n    image: b", wantErr: `RenderConfig tyk: spec.syncHook.image: duplicate field`},
		{name: "enabled not a boolean", in: header + "spec: {syncHook: {enabled: 'yes'}}", wantErr: `RenderConfig tyk: spec.syncHook.enabled: must be a boolean (got str)`},
		{name: "writeStatus not a boolean", in: header + "spec: {syncHook: {writeStatus: 'yes'}}", wantErr: `RenderConfig tyk: spec.syncHook.writeStatus: must be a boolean (got str)`},
		{name: "writeStatus with inputs Drop", in: header + "spec: {inputs: Drop, syncHook: {enabled: true, image: g:1, writeStatus: true}}", wantErr: `RenderConfig tyk: spec.syncHook.writeStatus: needs inputs Keep: the hook reads the status from the annotation the render writes on its inputs, as Argo CD applied them`},
		{name: "ConfigMap bad writeStatus", in: cmHeader + "data: {syncHook.writeStatus: 'on'}", wantErr: `ConfigMap fn-config: data.syncHook.writeStatus: must be true or false (got "on")`},
		{name: "image required", in: header + "spec: {syncHook: {enabled: true}}", wantErr: `RenderConfig tyk: spec.syncHook.image: required when spec.syncHook.enabled is true`},
		{name: "image with space", in: header + "spec: {syncHook: {image: 'a b'}}", wantErr: `RenderConfig tyk: spec.syncHook.image: must be an image reference such as registry.example.com/gateway2tyk:v1 (got "a b")`},
		{name: "image not a string", in: header + "spec: {syncHook: {image: 3}}", wantErr: `RenderConfig tyk: spec.syncHook.image: must be a string (got integer)`},
		{name: "context without namespace", in: header + "spec: {syncHook: {context: dashboard}}", wantErr: `RenderConfig tyk: spec.syncHook.context: must be NAMESPACE/NAME of an OperatorContext (got "dashboard")`},
		{name: "bad namespace", in: header + "spec: {syncHook: {namespace: Tyk}}", wantErr: `RenderConfig tyk: spec.syncHook.namespace: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?') (got "Tyk")`},
		{name: "namespaces not a list", in: header + "spec: {syncHook: {namespaces: shop}}", wantErr: `RenderConfig tyk: spec.syncHook.namespaces: must be a sequence of namespaces (got str)`},
		{name: "bad namespaces entry", in: header + "spec: {syncHook: {namespaces: [shop, 'a b']}}", wantErr: `RenderConfig tyk: spec.syncHook.namespaces[1]: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?') (got "a b")`},
		{name: "duplicate namespaces", in: header + "spec: {syncHook: {namespaces: [shop, shop]}}", wantErr: `RenderConfig tyk: spec.syncHook.namespaces[1]: duplicate namespace "shop"`},
		{name: "with TykOasApiDefinition", in: header + "spec: {output: TykOasApiDefinition, syncHook: {enabled: true, image: g:1}}", wantErr: `RenderConfig tyk: spec.syncHook.enabled: needs output ConfigMap: with output TykOasApiDefinition Tyk Operator pushes the APIs, and the sync would fight it`},
		{name: "ConfigMap nested key", in: cmHeader + "data: {syncHook: 'true'}", wantErr: `ConfigMap fn-config: data.syncHook: unknown field; in a ConfigMap the keys are syncHook.enabled, syncHook.image, syncHook.context, syncHook.namespace, syncHook.namespaces and syncHook.writeStatus`},
		{name: "ConfigMap unknown key", in: cmHeader + "data: {syncHook.colour: blue}", wantErr: `ConfigMap fn-config: data.syncHook.colour: unknown field`},
		{name: "ConfigMap bad boolean", in: cmHeader + "data: {syncHook.enabled: 'on'}", wantErr: `ConfigMap fn-config: data.syncHook.enabled: must be true or false (got "on")`},
		{name: "ConfigMap image required", in: cmHeader + "data: {syncHook.enabled: 'true'}", wantErr: `ConfigMap fn-config: data.syncHook.image: required when data.syncHook.enabled is true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node, err := yaml.Parse(tt.in)
			require.NoError(t, err)
			got, err := Load(node)
			if tt.wantErr != "" {
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
