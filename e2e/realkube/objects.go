package realkube

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"
)

// Namespace creates a namespace of t's own (named after prefix, with a random suffix) and returns its name.
// Nothing deletes it: without a controller-manager a namespace is never finalized, and the cluster is thrown
// away with the test binary.
func (c *Cluster) Namespace(t testing.TB, prefix string) string {
	t.Helper()
	ns, err := c.Client.CoreV1().Namespaces().Create(Context(t), &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating a namespace: %v", err)
	}
	return ns.Name
}

// InstallCRDs creates (or updates) the CRDs of the given YAML documents and waits until the API server serves
// each of them (Established).
func (c *Cluster) InstallCRDs(t testing.TB, crds ...*apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	client, err := apiextensionsclient.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	api := client.ApiextensionsV1().CustomResourceDefinitions()
	for _, crd := range crds {
		existing, err := api.Get(Context(t), crd.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			_, err = api.Create(Context(t), crd, metav1.CreateOptions{})
		case err == nil:
			crd = crd.DeepCopy()
			crd.ResourceVersion = existing.ResourceVersion
			_, err = api.Update(Context(t), crd, metav1.UpdateOptions{})
		}
		if err != nil {
			t.Fatalf("installing CRD %s: %v", crd.Name, err)
		}
	}
	for _, crd := range crds {
		err := wait.PollUntilContextTimeout(Context(t), 100*time.Millisecond, 20*time.Second, true,
			func(ctx context.Context) (bool, error) {
				got, err := api.Get(ctx, crd.Name, metav1.GetOptions{})
				if err != nil {
					return false, nil
				}
				for _, cond := range got.Status.Conditions {
					if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
						return true, nil
					}
				}
				return false, nil
			})
		if err != nil {
			t.Fatalf("CRD %s is not established: %v", crd.Name, err)
		}
	}
	// Discovery caches of clients made before this call do not know the new kinds; the dynamic client needs none.
}

// ReadCRDs reads CRD files (one or more YAML documents each).
func ReadCRDs(t testing.TB, files ...string) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, DecodeCRDs(t, f, data)...)
	}
	return out
}

// DecodeCRDs decodes the CustomResourceDefinitions of a YAML stream (named name in failures); other kinds are
// left out.
func DecodeCRDs(t testing.TB, name string, data []byte) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	docs, err := SplitYAML(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, doc := range docs {
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil || tm.Kind != "CustomResourceDefinition" {
			continue // the gateway-api module's ValidatingAdmissionPolicy beside its CRDs, say
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(doc, &crd); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, &crd)
	}
	return out
}

// TokenKubeconfig writes a kubeconfig that authenticates as the service account namespace/name with a token from
// the TokenRequest API, as a Pod of that service account gets one, and returns its path.
func (c *Cluster) TokenKubeconfig(t testing.TB, namespace, name string) string {
	t.Helper()
	expiry := int64(3600)
	tr, err := c.Client.CoreV1().ServiceAccounts(namespace).CreateToken(Context(t), name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest for %s/%s: %v", namespace, name, err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test"] = &clientcmdapi.Cluster{Server: c.Config.Host, CertificateAuthorityData: c.CAData()}
	cfg.AuthInfos["sa"] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "sa", Namespace: namespace}
	cfg.CurrentContext = "test"
	path := filepath.Join(t.TempDir(), fmt.Sprintf("kubeconfig-%s-%s", namespace, name))
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// SplitYAML splits a YAML stream into its documents, as kubectl reads a file.
func SplitYAML(data []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(doc)) > 0 {
			out = append(out, doc)
		}
	}
}
