package tyksync_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/tykapi"
	tyksync "github.com/gateway2tyk/gateway2tyk/sync"
	"github.com/gateway2tyk/gateway2tyk/sync/target"
)

func TestContextValuesSecretWinsOverEnv(t *testing.T) {
	oc := &tykapi.OperatorContext{Spec: tykapi.OperatorContextSpec{Env: &tykapi.Environment{
		Mode: "pro", URL: "http://dashboard:3000", Auth: "from-env", Org: "org-env", InsecureSkipVerify: true}}}
	assert.Equal(t, map[string]string{"TYK_MODE": "pro", "TYK_URL": "http://dashboard:3000", "TYK_AUTH": "from-env",
		"TYK_ORG": "org-env", "TYK_TLS_INSECURE_SKIP_VERIFY": "true"}, tyksync.ContextValues(oc, nil))
	secret := &corev1.Secret{Data: map[string][]byte{"TYK_AUTH": []byte("from-secret\n"), "TYK_ORG": []byte("org-secret")}}
	v := tyksync.ContextValues(oc, secret)
	assert.Equal(t, "from-secret", v["TYK_AUTH"])
	assert.Equal(t, "org-secret", v["TYK_ORG"])
	assert.Equal(t, "pro", v["TYK_MODE"])
}

func TestResolvePrecedence(t *testing.T) {
	ctx := map[string]string{"TYK_MODE": "ce", "TYK_URL": "http://ctx", "TYK_AUTH": "ctx", "TYK_ORG": "ctx",
		"TYK_TLS_INSECURE_SKIP_VERIFY": "true"}
	env := map[string]string{"TYK_URL": "http://env", "TYK_AUTH": "env"}
	s, err := tyksync.Resolve(tyksync.Flags{Auth: "flag"}, func(k string) string { return env[k] }, ctx)
	require.NoError(t, err)
	assert.Equal(t, target.Settings{Mode: target.ModeCE, URL: "http://env", Auth: "flag", Org: "ctx", InsecureSkipVerify: true}, s)

	s, err = tyksync.Resolve(tyksync.Flags{Mode: "pro", URL: "http://flag", Auth: "flag", Org: "flag"}, func(string) string { return "" }, nil)
	require.NoError(t, err)
	assert.Equal(t, target.Settings{Mode: target.ModePro, URL: "http://flag", Auth: "flag", Org: "flag"}, s)
}

func TestResolveErrorsSayWhereToSet(t *testing.T) {
	_, err := tyksync.Resolve(tyksync.Flags{}, func(string) string { return "" }, nil)
	require.Error(t, err)
	assert.Equal(t, "Tyk target: no mode: give --mode pro|ce, TYK_MODE, or --operator-context; no URL: give --url, TYK_URL, "+
		"or --operator-context; no credential: give --auth, TYK_AUTH, or --operator-context", err.Error())

	_, err = tyksync.Resolve(tyksync.Flags{Mode: "enterprise", URL: "http://x", Auth: "k"}, func(string) string { return "" }, nil)
	require.Error(t, err)
	assert.Equal(t, `Tyk target: mode (flag --mode) must be pro (Tyk Dashboard) or ce (open-source Tyk Gateway) (got "enterprise")`, err.Error())

	_, err = tyksync.Resolve(tyksync.Flags{Mode: "ce", URL: "http://x", Auth: "k"},
		func(k string) string { return map[string]string{"TYK_TLS_INSECURE_SKIP_VERIFY": "maybe"}[k] }, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `TYK_TLS_INSECURE_SKIP_VERIFY must be true or false (got "maybe" in environment variable TYK_TLS_INSECURE_SKIP_VERIFY)`)
}
