package e2e_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/tykoas/tykoastest"
)

// storefrontDoc is the part of a Tyk OAS document the storefront checks read.
type storefrontDoc struct {
	Tyk struct {
		Server struct {
			ListenPath   struct{ Value string }
			CustomDomain struct {
				Name         string
				Certificates []string
			}
			GatewayTags struct{ Tags []string }
		}
		Upstream struct {
			URL           string
			LoadBalancing *struct {
				Enabled bool
				Targets []struct {
					URL    string
					Weight int
				}
			}
		}
		Middleware struct {
			Operations map[string]struct {
				MockResponse *struct {
					Code    int
					Headers []struct{ Name, Value string }
				}
				TransformRequestHeaders *struct {
					Add []struct{ Name, Value string }
				}
				TransformResponseHeaders *struct{ Remove []string }
			}
		}
	} `json:"x-tyk-api-gateway"`
}

// TestKustomizeBuildStorefrontExample renders examples/storefront (HTTPS listener with its certificate, a
// weighted canary, header filters, a constant redirect, a cross-namespace backend with a ReferenceGrant) with
// the real kustomize and checks each API against what the reference says it must be.
func TestKustomizeBuildStorefrontExample(t *testing.T) {
	out := kustomizeBuild(t, "examples/storefront")
	require.NotContains(t, string(out), "PRIVATE KEY", "no private key material may reach the output")
	items := parseStream(t, out)

	const route, gateway, host = "storefront/shop", "storefront/storefront", "shop.storefront.example.com"
	certID := "5e9d9544a1dcd60001d0ed20" + leafSHA256(t, filepath.Join(repoRoot(t), "examples/storefront/cluster-facts.yaml"))

	docs := map[string]storefrontDoc{}
	for _, path := range []string{"/products", "/legacy", "/search"} {
		id := apiID(route, path, gateway, host)
		cm := find(items, "ConfigMap", "storefront", id)
		require.NotNil(t, cm, "ConfigMap of the API for %s", path)
		raw := cm.GetDataMap()["tyk-oas.json"]
		tykoastest.Validate(t, []byte(raw))
		var d storefrontDoc
		require.NoError(t, json.Unmarshal([]byte(raw), &d))
		assert.Equal(t, path, d.Tyk.Server.ListenPath.Value)
		assert.Equal(t, host, d.Tyk.Server.CustomDomain.Name)
		assert.Equal(t, []string{certID}, d.Tyk.Server.CustomDomain.Certificates, "the HTTPS listener's certificate, by its Tyk ID")
		assert.Equal(t, []string{"storefront"}, d.Tyk.Server.GatewayTags.Tags)
		docs[path] = d

		def := find(items, "TykOasApiDefinition", "storefront", id)
		require.NotNil(t, def, "output: TykOasApiDefinition emits a definition for %s", path)
		assert.Equal(t, id, field(t, def, "spec", "tykOAS", "configmapRef", "name"))
	}

	// The canary: 90/10 becomes Tyk weights 9 and 1; every method gets the header changes.
	products := docs["/products"]
	require.NotNil(t, products.Tyk.Upstream.LoadBalancing)
	var targets []string
	for _, tg := range products.Tyk.Upstream.LoadBalancing.Targets {
		targets = append(targets, fmt.Sprintf("%s %d", tg.URL, tg.Weight))
	}
	assert.Equal(t, []string{
		"http://products-v1.storefront.svc.cluster.local:8080/products 9",
		"http://products-v2.storefront.svc.cluster.local:8080/products 1",
	}, targets)
	get := products.Tyk.Middleware.Operations["get"]
	require.NotNil(t, get.TransformRequestHeaders)
	assert.Equal(t, "X-Gateway", get.TransformRequestHeaders.Add[0].Name)
	require.NotNil(t, get.TransformResponseHeaders)
	assert.Equal(t, []string{"Server"}, get.TransformResponseHeaders.Remove)

	// The redirect: every method answers 301 with the fixed Location.
	for _, m := range []string{"get", "post", "delete"} {
		op := docs["/legacy"].Tyk.Middleware.Operations[m]
		require.NotNil(t, op.MockResponse, "%s /legacy", m)
		assert.Equal(t, 301, op.MockResponse.Code)
		assert.Equal(t, "https://docs.storefront.example.com/shop", op.MockResponse.Headers[0].Value)
	}

	// The search backend in another namespace, allowed by the grant; the prefix replaced; only GET served.
	search := docs["/search"]
	assert.Equal(t, "http://search.search.svc.cluster.local:9000/v1/query", search.Tyk.Upstream.URL)
	assert.Nil(t, search.Tyk.Middleware.Operations["get"].MockResponse)
	post := search.Tyk.Middleware.Operations["post"]
	require.NotNil(t, post.MockResponse)
	assert.Equal(t, 404, post.MockResponse.Code)

	// The route is accepted with all references resolved.
	hr := find(items, "HTTPRoute", "storefront", "shop")
	require.NotNil(t, hr)
	var st struct {
		Parents []struct {
			Conditions []condition `json:"conditions"`
		} `json:"parents"`
	}
	require.NoError(t, json.Unmarshal([]byte(hr.GetAnnotations()["gateway2tyk.io/status"]), &st))
	require.Len(t, st.Parents, 1)
	checkCondition(t, "HTTPRoute storefront/shop", st.Parents[0].Conditions, "Accepted", "True")
	checkCondition(t, "HTTPRoute storefront/shop", st.Parents[0].Conditions, "ResolvedRefs", "True")
}

// leafSHA256 reads the certificate of the local-config Secret in a file and returns the hex SHA-256 of its DER
// bytes, computed here independently of the project's code.
func leafSHA256(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(data), OmitReaderAnnotations: true}).Read()
	require.NoError(t, err)
	for _, n := range nodes {
		if n.GetKind() != "Secret" {
			continue
		}
		crt := field(t, n, "stringData", "tls.crt")
		if crt == "" {
			continue
		}
		block, _ := pem.Decode([]byte(crt))
		require.NotNil(t, block)
		sum := sha256.Sum256(block.Bytes)
		return hex.EncodeToString(sum[:])
	}
	t.Fatalf("no Secret with stringData tls.crt in %s", file)
	return ""
}

// field returns the scalar at a path of a node, "" when absent.
func field(t *testing.T, n *yaml.RNode, path ...string) string {
	t.Helper()
	v, err := n.Pipe(yaml.Lookup(path...))
	require.NoError(t, err)
	if v == nil {
		return ""
	}
	return v.YNode().Value
}
