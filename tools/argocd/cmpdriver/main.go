// Command argocd-cmpdriver plays Argo CD's part for the project's tests, with Argo CD v3.6.1's own code: the
// repo-server's manifest generation and app details against a real argocd-cmp-server on a unix socket, and the
// application controller's health assessment with the argocd-cm health customizations. It reads one JSON request
// on stdin and writes one JSON answer on stdout; the tests (e2e/argocd_test.go) run it as a subprocess, since
// the project's own module cannot import Argo CD (it needs Go 1.27).
//
// ARGOCD_PLUGINSOCKFILEPATH names the directory of the CMP server's socket, as in the repo-server.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/health"
	grpc_retry "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/retry"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/reposerver/apiclient"
	"github.com/argoproj/argo-cd/v3/reposerver/repository"
	"github.com/argoproj/argo-cd/v3/util/app/discovery"
	"github.com/argoproj/argo-cd/v3/util/cmp"
	"github.com/argoproj/argo-cd/v3/util/lua"
	"github.com/argoproj/argo-cd/v3/util/settings"
)

// request is one question. Op "generate": the repo-server's GenerateManifests for the Application; "parameters":
// its app details for a plugin source (the parameters announcement); "health": the health of Objects under the
// argocd-cm ConfigMap given (and Argo CD's built-in health of the same objects, for comparison).
type request struct {
	Op string `json:"op"`

	// The Application (generate, parameters).
	Application *v1alpha1.Application `json:"application,omitempty"`
	// ArgoCDNamespace is where Argo CD runs (an Application elsewhere is named <namespace>_<name>).
	ArgoCDNamespace string   `json:"argocdNamespace,omitempty"`
	RepoRoot        string   `json:"repoRoot,omitempty"`
	Revision        string   `json:"revision,omitempty"`
	TimeoutSeconds  int      `json:"timeoutSeconds,omitempty"`
	TarExclusions   []string `json:"tarExclusions,omitempty"`

	// Health.
	ArgoCDConfigMap *corev1.ConfigMap           `json:"argocdConfigMap,omitempty"`
	Objects         []unstructured.Unstructured `json:"objects,omitempty"`
}

type healthAnswer struct {
	Kind      string               `json:"kind"`
	Namespace string               `json:"namespace,omitempty"`
	Name      string               `json:"name"`
	Health    *health.HealthStatus `json:"health"`
	BuiltIn   *health.HealthStatus `json:"builtIn"`
	Error     string               `json:"error,omitempty"`
}

type answer struct {
	Manifests  []string                           `json:"manifests,omitempty"`
	SourceType string                             `json:"sourceType,omitempty"`
	Parameters []*apiclient.ParameterAnnouncement `json:"parameters,omitempty"`
	Health     []healthAnswer                     `json:"health,omitempty"`
	Error      string                             `json:"error,omitempty"`
	Seconds    float64                            `json:"seconds"`
}

func main() {
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		fmt.Fprintln(os.Stderr, "argocd-cmpdriver: bad request:", err)
		os.Exit(2)
	}
	start := time.Now()
	var ans answer
	var err error
	switch req.Op {
	case "generate":
		err = generate(req, &ans)
	case "parameters":
		err = parameters(req, &ans)
	case "health":
		err = assess(req, &ans)
	default:
		err = fmt.Errorf("unknown op %q", req.Op)
	}
	if err != nil {
		ans.Error = err.Error()
	}
	ans.Seconds = time.Since(start).Seconds()
	if err := json.NewEncoder(os.Stdout).Encode(ans); err != nil {
		os.Exit(2)
	}
}

// deadline is the repo-server's gRPC deadline (--repo-server-timeout-seconds, 60 s by default), which the
// controller's call carries into the repo-server and so to the CMP server.
func deadline(req request) (context.Context, context.CancelFunc) {
	s := req.TimeoutSeconds
	if s == 0 {
		s = 60
	}
	return context.WithTimeout(context.Background(), time.Duration(s)*time.Second)
}

// generate is the repo-server's manifest generation for the Application, as the controller asks for it
// (controller/state.go: AppName is InstanceName, Namespace the destination namespace).
func generate(req request, ans *answer) error {
	app := req.Application
	ctx, cancel := deadline(req)
	defer cancel()
	source := app.Spec.GetSource()
	q := &apiclient.ManifestRequest{
		Repo:              &v1alpha1.Repository{Repo: source.RepoURL},
		Revision:          req.Revision,
		AppName:           app.InstanceName(req.ArgoCDNamespace),
		Namespace:         app.Spec.Destination.Namespace,
		ProjectName:       app.Spec.Project,
		ApplicationSource: &source,
		KustomizeOptions:  &v1alpha1.KustomizeOptions{},
		KubeVersion:       "1.37.2",
		ApiVersions:       []string{"v1", "apps/v1", "gateway.networking.k8s.io/v1"},
	}
	appPath := filepath.Join(req.RepoRoot, source.Path)
	res, err := repository.GenerateManifests(ctx, appPath, req.RepoRoot, req.Revision, q, false, nil,
		resource.MustParse("0"), nil, repository.WithCMPTarExcludedGlobs(req.TarExclusions))
	if err != nil {
		return err
	}
	// The controller's deadline covers the repo-server's whole answer, which GenerateManifests finishes (splitting
	// and encoding the manifests) without looking at the context again.
	if ctx.Err() != nil {
		return fmt.Errorf("the repo-server's answer came after the controller's deadline (%v): %w", ctx.Err(), context.DeadlineExceeded)
	}
	ans.Manifests = res.Manifests
	ans.SourceType = res.SourceType
	return nil
}

// parameters is the repo-server's populatePluginAppDetails (unexported in reposerver/repository), step by step
// with the same exported calls: the plugin's parameters announcement the UI shows.
func parameters(req request, ans *answer) error {
	app := req.Application
	ctx, cancel := deadline(req)
	defer cancel()
	source := app.Spec.GetSource()
	appPath := filepath.Join(req.RepoRoot, source.Path)
	env := []string{
		"ARGOCD_APP_NAME=" + app.InstanceName(req.ArgoCDNamespace),
		"ARGOCD_APP_SOURCE_REPO_URL=" + source.RepoURL,
		"ARGOCD_APP_SOURCE_PATH=" + source.Path,
		"ARGOCD_APP_SOURCE_TARGET_REVISION=" + source.TargetRevision,
	}
	pluginName := ""
	if source.Plugin != nil {
		pluginName = source.Plugin.Name
	}
	conn, client, err := discovery.DetectConfigManagementPlugin(ctx, appPath, req.RepoRoot, pluginName, env, req.TarExclusions)
	if err != nil {
		return fmt.Errorf("failed to detect CMP for app: %w", err)
	}
	defer conn.Close()
	stream, err := client.GetParametersAnnouncement(ctx, grpc_retry.Disable())
	if err != nil {
		return err
	}
	if err := cmp.SendRepoStream(ctx, appPath, req.RepoRoot, stream, env, req.TarExclusions); err != nil {
		return err
	}
	res, err := stream.CloseAndRecv()
	if err != nil {
		return err
	}
	ans.Parameters = res.ParameterAnnouncements
	return nil
}

// assess is the controller's health assessment (controller/health.go): the resource overrides Argo CD's settings
// manager reads from argocd-cm, and gitops-engine's GetResourceHealth with them.
func assess(req request, ans *answer) error {
	cm := req.ArgoCDConfigMap
	ns := cm.Namespace
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "argocd-secret", Namespace: ns,
		Labels: map[string]string{"app.kubernetes.io/part-of": "argocd"}}}
	mgr := settings.NewSettingsManager(context.Background(), fake.NewClientset(cm, secret), ns)
	overrides, err := mgr.GetResourceOverrides()
	if err != nil {
		return fmt.Errorf("argocd-cm: %w", err)
	}
	for i := range req.Objects {
		obj := &req.Objects[i]
		a := healthAnswer{Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName()}
		a.Health, err = health.GetResourceHealth(obj, lua.ResourceHealthOverrides(overrides))
		if err != nil {
			a.Error = err.Error()
		}
		a.BuiltIn, _ = health.GetResourceHealth(obj, lua.ResourceHealthOverrides(nil))
		ans.Health = append(ans.Health, a)
	}
	return nil
}
