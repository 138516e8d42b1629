package realkube

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/gateway2tyk/gateway2tyk/e2e/internal/localproc"
)

// RequiredEnv, set to "required", turns missing binaries into a failure instead of a skip.
const RequiredEnv = "GATEWAY2TYK_REAL_KUBE"

// Binaries are the programs a cluster needs.
type Binaries struct {
	APIServer string // kube-apiserver
	Etcd      string // etcd
}

// Cluster is a running API server and its etcd.
type Cluster struct {
	// Config is an admin's client configuration (a system:masters client certificate).
	Config  *rest.Config
	Client  kubernetes.Interface
	Dynamic dynamic.Interface
	// Version is what the API server's /version says (gitVersion).
	Version string
	// StartTime is how long the API server took from its start to answering /readyz.
	StartTime time.Duration

	pki       *pki
	dir       string
	bins      Binaries
	apiPort   int
	etcdPort  int
	peerPort  int
	mu        sync.Mutex
	apiserver *exec.Cmd
	apiExited chan struct{}
	etcd      *exec.Cmd
}

// Find locates kube-apiserver and etcd ($KUBE_APISERVER and $ETCD, or else bin/ of the module the test runs in).
// When one is missing it skips t, or fails it when RequiredEnv says the real API server is required.
func Find(t testing.TB) Binaries {
	t.Helper()
	root := localproc.ModuleRoot()
	b := Binaries{
		APIServer: localproc.EnvOr("KUBE_APISERVER", filepath.Join(root, "bin", "kube-apiserver")),
		Etcd:      localproc.EnvOr("ETCD", filepath.Join(root, "bin", "etcd")),
	}
	localproc.Short(t, "API server", RequiredEnv, "e2e-kube")
	var missing []string
	for _, p := range []string{b.APIServer, b.Etcd} {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p+" (make bin/kube-apiserver bin/etcd builds it)")
		}
	}
	if len(missing) > 0 {
		localproc.Missing(t, "API server", missing, RequiredEnv, "e2e-kube")
	}
	return b
}

var (
	shared     *Cluster
	sharedErr  error
	sharedOnce sync.Once
)

// Shared is one cluster for every test of the test binary, started on first use (the API server takes seconds
// to start) and stopped by Main. Tests keep apart by working in namespaces of their own (Namespace).
func Shared(t testing.TB) *Cluster {
	t.Helper()
	bins := Find(t)
	sharedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gateway2tyk-realkube-")
		if err != nil {
			sharedErr = err
			return
		}
		shared, sharedErr = start(bins, dir)
	})
	if sharedErr != nil {
		t.Fatalf("starting the API server: %v", sharedErr)
	}
	return shared
}

// Main runs the tests of a package that uses Shared, then stops the shared cluster and removes its files:
// `func TestMain(m *testing.M) { os.Exit(realkube.Main(m)) }`.
func Main(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		shared.Stop()
		os.RemoveAll(shared.dir)
	}
	return code
}

// Start runs a cluster of t's own, stopped when t ends (for tests that stop or restart the API server).
func Start(t testing.TB) *Cluster {
	t.Helper()
	c, err := start(Find(t), t.TempDir())
	if err != nil {
		t.Fatalf("starting the API server: %v", err)
	}
	t.Cleanup(c.Stop)
	return c
}

func start(bins Binaries, dir string) (*Cluster, error) {
	p, err := newPKI(dir)
	if err != nil {
		return nil, err
	}
	c := &Cluster{pki: p, dir: dir, bins: bins}
	c.etcdPort, c.peerPort, c.apiPort = localproc.FreePort(), localproc.FreePort(), localproc.FreePort()
	if err := c.startEtcd(); err != nil {
		return nil, err
	}
	c.Config = &rest.Config{
		Host:            "https://127.0.0.1:" + strconv.Itoa(c.apiPort),
		TLSClientConfig: rest.TLSClientConfig{CAFile: p.caCert, CertFile: p.adminCert, KeyFile: p.adminKey},
		QPS:             500, Burst: 1000,
	}
	if err := c.StartAPIServer(); err != nil {
		c.Stop()
		return nil, err
	}
	if c.Client, err = kubernetes.NewForConfig(c.Config); err != nil {
		c.Stop()
		return nil, err
	}
	if c.Dynamic, err = dynamic.NewForConfig(c.Config); err != nil {
		c.Stop()
		return nil, err
	}
	v, err := c.Client.Discovery().ServerVersion()
	if err != nil {
		c.Stop()
		return nil, err
	}
	c.Version = v.GitVersion
	return c, nil
}

func (c *Cluster) startEtcd() error {
	peer := "http://127.0.0.1:" + strconv.Itoa(c.peerPort)
	client := "http://127.0.0.1:" + strconv.Itoa(c.etcdPort)
	cmd := exec.Command(c.bins.Etcd,
		"--name", "default", "--data-dir", filepath.Join(c.dir, "etcd"),
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "default="+peer, "--log-level", "error",
		// A test cluster's data does not outlive the test; fsync would only slow every write.
		"--unsafe-no-fsync")
	log, err := os.Create(filepath.Join(c.dir, "etcd.log"))
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = log, log
	localproc.DieWithTest(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	c.etcd = cmd
	go cmd.Wait() //nolint:errcheck // the exit is seen by the API server's failure to start
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(client + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("etcd did not answer /health within 20 s:\n%s", localproc.Tail(filepath.Join(c.dir, "etcd.log"), 20))
}

// StartAPIServer starts the API server (again, after StopAPIServer) on the same port and etcd, and waits until
// it is ready.
func (c *Cluster) StartAPIServer() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pki
	cmd := exec.Command(c.bins.APIServer,
		"--etcd-servers", "http://127.0.0.1:"+strconv.Itoa(c.etcdPort),
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(c.apiPort), "--cert-dir", filepath.Join(c.dir, "certs"),
		"--tls-cert-file", p.serverCert, "--tls-private-key-file", p.server, "--client-ca-file", p.caCert,
		"--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file", p.saPub, "--service-account-signing-key-file", p.saKey,
		"--api-audiences", "https://kubernetes.default.svc.cluster.local",
		"--authorization-mode", "RBAC",
		// The kubernetes Service's endpoints would name the advertise address, which may not be loopback; the tests never
		// reach the API server through that Service.
		"--endpoint-reconciler-type", "none",
		"--service-cluster-ip-range", "10.96.0.0/12", // kubeadm's default, which the stories' cluster IPs are in
		"--profiling=false", "--enable-priority-and-fairness=false", "--v", "0")
	log, err := os.OpenFile(filepath.Join(c.dir, "apiserver.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = log, log
	localproc.DieWithTest(cmd)
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); log.Close(); close(exited) }() //nolint:errcheck // exit is reported by the readiness wait
	c.apiserver, c.apiExited = cmd, exited
	client, err := rest.HTTPClientFor(c.Config)
	if err != nil {
		return err
	}
	client.Timeout = 2 * time.Second
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("kube-apiserver exited:\n%s", c.Log(30))
		default:
		}
		if resp, err := client.Get(c.Config.Host + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				c.StartTime = time.Since(begin)
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("kube-apiserver was not ready within 60 s:\n%s", c.Log(30))
}

// StopAPIServer kills the API server (etcd keeps running), as a control plane that goes away mid-request.
func (c *Cluster) StopAPIServer() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.apiserver != nil && c.apiserver.Process != nil {
		c.apiserver.Process.Kill() //nolint:errcheck // it may have exited already
		<-c.apiExited
	}
	c.apiserver = nil
}

// Stop stops the API server and etcd.
func (c *Cluster) Stop() {
	c.StopAPIServer()
	if c.etcd != nil && c.etcd.Process != nil {
		c.etcd.Process.Kill() //nolint:errcheck // it may have exited already
	}
}

// Log is the last n lines of the API server's log.
func (c *Cluster) Log(n int) string { return localproc.Tail(filepath.Join(c.dir, "apiserver.log"), n) }

// CAData is the cluster CA certificate (PEM), for kubeconfigs.
func (c *Cluster) CAData() []byte { return c.pki.caPEM }

// Context is a context for one call to the cluster.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
