package upstream

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/gateway2tyk/gateway2tyk/e2e/realkube"
)

// RepoRoot is the gateway2tyk repository this module sits in (two directories up).
func RepoRoot(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd))
}

// DefaultBinaries points the real-system packages at the repository's bin/ when their env variables are unset:
// they look in bin/ of the module the test runs in, which is this one.
func DefaultBinaries(root string) {
	for env, file := range map[string]string{"KUBE_APISERVER": "kube-apiserver", "ETCD": "etcd", "TYK_GATEWAY": "tyk",
		"TYK_TEMPLATES": "tyk-templates", "GATEWAY2TYK": "gateway2tyk", "ECHO_BASIC": "echo-basic"} {
		if os.Getenv(env) == "" {
			_ = os.Setenv(env, filepath.Join(root, "bin", file))
		}
	}
}

// TykCRDs reads Tyk Operator's CRDs ($TYK_OPERATOR_CRDS, else the repository's copy,
// third_party/tyk/operator-1.4.2-crds) and adds the OperatorContext's spec.dataPlane (Operator 1.6's field, which 1.4.2's CRD lacks and
// the API server would prune). It fails t, saying where it looked, when they are absent.
func TykCRDs(t testing.TB, root string) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	dir := os.Getenv("TYK_OPERATOR_CRDS")
	if dir == "" {
		dir = filepath.Join(root, "third_party", "tyk", "operator-1.4.2-crds")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(files) == 0 {
		t.Fatalf("Tyk Operator's CRDs are not in %s (the repository's third_party/tyk, or "+
			"$TYK_OPERATOR_CRDS): the suite's cluster needs the OperatorContext kind", dir)
	}
	crds := realkube.ReadCRDs(t, files...)
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	for _, crd := range crds {
		if crd.Spec.Names.Kind != "OperatorContext" {
			continue
		}
		for i := range crd.Spec.Versions {
			schema := crd.Spec.Versions[i].Schema.OpenAPIV3Schema
			spec := schema.Properties["spec"]
			spec.Properties["dataPlane"] = apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"serviceRef": {Type: "object", Required: []string{"name"}, Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": str}},
				"tags":       {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &str}},
			}}
			schema.Properties["spec"] = spec
		}
	}
	return crds
}

// GatewayAPICRDs are the CRDs of the gateway-api module's channel (config/crd/<channel>).
func GatewayAPICRDs(t testing.TB, moduleDir, channel string) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(moduleDir, "config", "crd", channel, "*.yaml"))
	if len(files) == 0 {
		t.Fatalf("no CRDs in %s", filepath.Join(moduleDir, "config", "crd", channel))
	}
	return realkube.ReadCRDs(t, files...)
}

// AdminKubeconfig writes a kubeconfig with the admin's client certificate of cfg and returns its path.
func AdminKubeconfig(t testing.TB, cfg *rest.Config) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["test"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthority: cfg.CAFile}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificate: cfg.CertFile, ClientKey: cfg.KeyFile}
	kc.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "admin"}
	kc.CurrentContext = "test"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// versionOf is the first word after "gateway2tyk " in `gateway2tyk version`'s first line, without parentheses.
func versionOf(text string) string {
	first, _, _ := strings.Cut(text, "\n")
	fields := strings.Fields(strings.TrimSuffix(first, ","))
	if len(fields) < 2 {
		return "unknown"
	}
	return strings.Trim(strings.TrimSuffix(fields[1], ","), "()")
}
