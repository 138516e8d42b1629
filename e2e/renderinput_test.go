package e2e_test

import (
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// renderInput renders a ResourceList (a story's input.yaml) with its own function config, in memory: the items
// read and the render's output.
func renderInput(t *testing.T, input string) ([]*yaml.RNode, *fn.Output) {
	t.Helper()
	rw := &kio.ByteReader{Reader: strings.NewReader(input), WrapBareSeqNode: false}
	items, err := rw.Read()
	require.NoError(t, err)
	cfg, err := config.Load(rw.FunctionConfig)
	require.NoError(t, err)
	out, err := fn.Render(items, cfg)
	require.NoError(t, err)
	return items, out
}

// renderStoryFor renders a gateway-api story of fn/testdata (its RenderConfig written "spec: {profile:
// gateway-api}") for the release Gateway g runs (spec.tykVersion), and gives that release.
func renderStoryFor(t *testing.T, story string, g *realtyk.Gateway) (tykroute.Version, *fn.Output) {
	t.Helper()
	version, err := tykroute.ParseVersion(g.Version)
	require.NoError(t, err)
	_, out := renderInput(t, forRelease(t, story, storyInput(t, story, nil), version))
	return version, out
}

// storyInput is a story's input.yaml with each targetPort its data-plane Service writes as a key of ports (as
// written: "targetPort: 8443}") made the port it maps to.
func storyInput(t *testing.T, story string, ports map[string]int) string {
	t.Helper()
	data, err := os.ReadFile("../fn/testdata/" + story + "/input.yaml")
	require.NoError(t, err)
	input := string(data)
	for from, to := range ports {
		require.Contains(t, input, from, "story %s: its Service changed shape", story)
		repl := fmt.Sprintf("targetPort: %d", to)
		if strings.HasSuffix(from, "}") {
			repl += "}"
		}
		input = strings.Replace(input, from, repl, 1)
	}
	return input
}

// forRelease is a gateway-api story's input (its RenderConfig written "spec: {profile: gateway-api" and maybe
// more fields, "}") rendered for the release a Gateway of release v is (spec.tykVersion: renderedFor).
func forRelease(t *testing.T, story, input string, v tykroute.Version) string {
	t.Helper()
	out := strings.Replace(input, "spec: {profile: gateway-api", "spec: {profile: gateway-api, tykVersion: \""+renderedFor(v).String()+"\"", 1)
	require.NotEqual(t, input, out, "story %s: its RenderConfig changed shape", story)
	return out
}

// renderedFor is the release a test renders for on a Gateway of release v: its own, or tykroute.MinVersion for an
// older one (the config refuses an older spec.tykVersion), whose refusal of the APIs the test then asserts.
func renderedFor(v tykroute.Version) tykroute.Version {
	if v.Less(tykroute.MinVersion) {
		return tykroute.MinVersion
	}
	return v
}

// finalDocs are the final documents of the render's APIs (what sync sends) by API ID.
func finalDocs(t *testing.T, out *fn.Output) map[string][]byte {
	t.Helper()
	docs := map[string][]byte{}
	for _, a := range out.Translation.APIs {
		b, err := a.Final()
		require.NoError(t, err)
		docs[a.ID] = b
	}
	return docs
}

// refusesOwnPorts reports whether g is older than the rendered APIs need (tykroute.MinVersion), after holding it
// to refuse docs, whose APIs carry server.port and server.protocol, naming both fields (the 5.4 line's schema has
// neither, which is why sync's version check names them).
func refusesOwnPorts(t *testing.T, g *realtyk.Gateway, version tykroute.Version, docs map[string][]byte) bool {
	t.Helper()
	if !version.Less(tykroute.MinVersion) {
		return false
	}
	err := g.Replace(docs)
	require.Error(t, err, "Tyk %s loaded an API with server.port", g.Version)
	for _, f := range []string{"port", "protocol"} {
		assert.Contains(t, err.Error(), "x-tyk-api-gateway.server: Additional property "+f+" is not allowed")
	}
	t.Logf("Tyk %s refuses server.port and server.protocol: %v", g.Version, err)
	return true
}

// tlsStoryInput is a story's input.yaml with its data-plane Service's targetPort 8443 (the HTTPS listener's TLS
// port) made the TLS port Gateway g may open.
func tlsStoryInput(t *testing.T, story string, g *realtyk.Gateway) string {
	t.Helper()
	return storyInput(t, story, map[string]int{"targetPort: 8443": g.TLSPort})
}

// uploadTLSSecret uploads the certificate and key of the story's kubernetes.io/tls Secret name to g for org, as
// sync does, and gives a pool that trusts the certificate.
func uploadTLSSecret(t *testing.T, g *realtyk.Gateway, items []*yaml.RNode, name, org string) *x509.CertPool {
	t.Helper()
	var certPEM, keyPEM []byte
	for _, it := range items {
		if it.GetKind() == "Secret" && it.GetName() == name {
			m := it.GetDataMap()
			var err error
			certPEM, err = base64.StdEncoding.DecodeString(m["tls.crt"])
			require.NoError(t, err)
			keyPEM, err = base64.StdEncoding.DecodeString(m["tls.key"])
			require.NoError(t, err)
		}
	}
	require.NotEmpty(t, certPEM, "Secret %s", name)
	require.NoError(t, g.UploadCertificate(org, append(append(certPEM, '\n'), keyPEM...)))
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(certPEM))
	return roots
}

// inlineStoryHead and inlineStoryTail frame the stories tests write inline, as fn/testdata's are written: the
// GatewayClass tyk and its OperatorContext tyk/tyk (whose data plane is the Service tyk/tyk-gateway, which the
// story gives), and the RenderConfig of the gateway-api profile.
const (
	inlineStoryHead = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
  - apiVersion: gateway.networking.k8s.io/v1
    kind: GatewayClass
    metadata: {name: tyk}
    spec:
      controllerName: tyk.tyk.io/gateway-controller
      parametersRef: {group: tyk.tyk.io, kind: OperatorContext, name: tyk, namespace: tyk}
  - apiVersion: tyk.tyk.io/v1alpha1
    kind: OperatorContext
    metadata: {name: tyk, namespace: tyk}
    spec:
      env: {mode: ce, url: "http://tyk-gateway.tyk.svc.cluster.local:8080"}
      dataPlane: {serviceRef: {name: tyk-gateway}}
`
	inlineStoryTail = `functionConfig:
  apiVersion: gateway2tyk.io/v1alpha1
  kind: RenderConfig
  metadata: {name: gateway2tyk}
  spec: {profile: gateway-api}
`
)
