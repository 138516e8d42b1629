package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Application is named as Argo CD names it: ARGOCD_APP_NAME is <namespace>_<name> outside Argo CD's
// namespace, and ARGOCD_APP_NAMESPACE is the destination (reposerver/repository.newEnv, Application.InstanceName).
func TestArgoApplicationName(t *testing.T) {
	for _, c := range []struct{ name, namespace, want string }{
		{"shop-apis", "shop", "shop-apis (destination namespace shop)"},
		{"team-a_shop-apis", "shop", "team-a/shop-apis (destination namespace shop)"},
		{"shop-apis", "", "shop-apis"},
		{"", "shop", ""},
	} {
		t.Setenv("ARGOCD_APP_NAME", c.name)
		t.Setenv("ARGOCD_APP_NAMESPACE", c.namespace)
		assert.Equal(t, c.want, argoApplication(), "ARGOCD_APP_NAME=%q ARGOCD_APP_NAMESPACE=%q", c.name, c.namespace)
	}
}

// A parameter wins over plugin env, which wins over the RenderConfig in git (nothing set); an empty parameter
// keeps what env says.
func TestArgoSettings(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	s, err := readArgoSettings(env(map[string]string{"PARAM_OUTPUT": "TykOasApiDefinition", "ARGOCD_ENV_GATEWAY2TYK_OUTPUT": "ConfigMap",
		"PARAM_FAIL_ON": "", "ARGOCD_ENV_GATEWAY2TYK_FAIL_ON": "Warning",
		"ARGOCD_ENV_GATEWAY2TYK_KUSTOMIZE_FLAGS": " --load-restrictor  LoadRestrictionsNone ", "ARGOCD_ENV_GATEWAY2TYK_TIMEOUT": "110s"}))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"output": "TykOasApiDefinition", "failOn": "Warning"}, s.set)
	assert.Equal(t, []string{"--load-restrictor", "LoadRestrictionsNone"}, s.kustomizeFlags)
	assert.Equal(t, 110*time.Second, s.timeout)

	s, err = readArgoSettings(env(nil))
	require.NoError(t, err)
	assert.Empty(t, s.set)
	assert.Equal(t, defaultArgoTimeout, s.timeout)

	_, err = readArgoSettings(env(map[string]string{"ARGOCD_ENV_GATEWAY2TYK_TIMEOUT": "soon"}))
	assert.ErrorContains(t, err, `GATEWAY2TYK_TIMEOUT="soon"`)

	// The owner comes from the Application's parameter only; the Application's name in the environment is not
	// read for it (the default is made from the repository).
	s, err = readArgoSettings(env(map[string]string{"PARAM_OWNER": "shop-apis", "ARGOCD_APP_NAME": "shop"}))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"owner": "shop-apis"}, s.set)
	s, err = readArgoSettings(env(map[string]string{"ARGOCD_APP_NAME": "shop", "ARGOCD_ENV_GATEWAY2TYK_OWNER": "x"}))
	require.NoError(t, err)
	assert.Empty(t, s.set)
}
