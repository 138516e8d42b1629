package realtyk

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gateway2tyk/gateway2tyk/e2e/internal/localproc"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// RequiredEnv, set to "required", turns a missing Gateway binary or redis-server into a test failure instead
// of a skip: `make test` and `make e2e-tyk` set it, so CI cannot pass without the real Gateway.
const RequiredEnv = "GATEWAY2TYK_REAL_TYK"

// Gateway is a running Tyk Gateway with its own Redis and upstream proxy, stopped when the test ends.
type Gateway struct {
	// URL is the Gateway's address on loopback (http://127.0.0.1:PORT), for both the APIs and its own /tyk API.
	URL  string
	Port int
	// TLSPort is a second loopback port Tyk may open, for TLS only (ports_whitelist): the port of an API with
	// server.protocol https (the gateway-api profile's HTTPS listeners) when the test renders it there.
	TLSPort int
	// OtherTLSPort is one more loopback port Tyk may open for TLS only: a second HTTPS listener port.
	OtherTLSPort int
	// HTTPPorts are two more loopback ports Tyk may open, for plain HTTP only (ports_whitelist): the ports of APIs
	// with server.protocol http and server.port (the gateway-api profile's HTTP listeners when a Gateway's HTTP
	// listeners are sent to more than one port) when the test renders them there.
	HTTPPorts []int
	// Secret is the Gateway API secret (x-tyk-authorization).
	Secret string
	// Version is the Gateway's release: TYK_GATEWAY_VERSION when set, else what its /hello says.
	Version string
	// Hello is the version the Gateway's /hello says (a build from source understates its release).
	Hello string

	upstreams *upstreamProxy
	client    *http.Client
	logPath   string
	redisPort int

	// The running process, replaced by Restart.
	bin, conf, dir string
	proxyAddr      string
	hosts          string // the file bound over /etc/hosts ("" none: StartWithHosts)
	mu             sync.Mutex
	cmd            *exec.Cmd
	exited         chan struct{}
	logFile        *os.File
}

// Binaries are the programs a Gateway needs.
type Binaries struct {
	Tyk       string // the Gateway binary
	Templates string // its templates directory (template_path)
	Redis     string // redis-server
}

// Find locates the Gateway binary and its templates ($TYK_GATEWAY and $TYK_TEMPLATES, or else bin/ of the
// module the test runs in) and redis-server ($REDIS_SERVER, or else on PATH). When one is missing it skips t, or
// fails it when RequiredEnv says the real Gateway is required.
func Find(t testing.TB) Binaries {
	t.Helper()
	root := localproc.ModuleRoot()
	b := Binaries{
		Tyk:       localproc.EnvOr("TYK_GATEWAY", filepath.Join(root, "bin", "tyk")),
		Templates: localproc.EnvOr("TYK_TEMPLATES", filepath.Join(root, "bin", "tyk-templates")),
		Redis:     os.Getenv("REDIS_SERVER"),
	}
	localproc.Short(t, "Tyk Gateway", RequiredEnv, "e2e-tyk")
	var missing []string
	for _, p := range []string{b.Tyk, b.Templates} {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p+" (make bin/tyk builds it)")
		}
	}
	if b.Redis == "" {
		if p, err := exec.LookPath("redis-server"); err == nil {
			b.Redis = p
		} else {
			missing = append(missing, "redis-server on PATH (Debian package redis-server)")
		}
	}
	if len(missing) > 0 {
		localproc.Missing(t, "Tyk Gateway", missing, RequiredEnv, "e2e-tyk")
	}
	return b
}

// Start runs Redis, the upstream proxy and the Gateway on free loopback ports, waits until the Gateway
// answers /hello, and stops all three when t ends. The Gateway's log is printed when t fails.
func Start(t testing.TB, bins Binaries) *Gateway {
	t.Helper()
	return startOn(t, bins, startRedis(t, bins.Redis, t.TempDir()), "", nil, "")
}

// Settings are tyk.conf keys a test sets on top of examples/tyk-gateway/tyk.conf, for a behaviour that needs the
// Gateway configured otherwise (ignore_canonical_mime_header_key), which the RenderConfig then declares. An
// object is merged into the one the Gateway has (ports_whitelist's http ranges beside its ports).
type Settings map[string]any

// merge sets each key of over in conf, merging objects into objects.
func merge(conf, over map[string]any) {
	for k, v := range over {
		sub, isMap := v.(map[string]any)
		if into, ok := conf[k].(map[string]any); ok && isMap {
			merge(into, sub)
			continue
		}
		conf[k] = v
	}
}

// StartWith runs a Gateway as Start does, with settings on top of the example tyk.conf; proxyAddr is
// StartBehindProxy's ("" for a recording proxy of its own).
func StartWith(t testing.TB, bins Binaries, proxyAddr string, settings Settings) *Gateway {
	t.Helper()
	return startOn(t, bins, startRedis(t, bins.Redis, t.TempDir()), proxyAddr, settings, "")
}

// StartWithHosts runs a Gateway as StartWith does, whose name lookups read the file hosts in place of
// /etc/hosts (hostsCommand; BindHosts says whether this machine allows it): for the connections Tyk dials
// itself, past its HTTP_PROXY (an h2c:// upstream), to names the caller stands in for. The file may be rewritten
// in place (not replaced) while the Gateway runs.
func StartWithHosts(t testing.TB, bins Binaries, proxyAddr string, settings Settings, hosts string) *Gateway {
	t.Helper()
	return startOn(t, bins, startRedis(t, bins.Redis, t.TempDir()), proxyAddr, settings, hosts)
}

// StartBehindProxy runs Redis and the Gateway as Start does, but the Gateway's upstream requests go to the
// proxy at proxyAddr (the Gateway's HTTP_PROXY: host:port of an HTTP forward proxy, or a URL such as
// socks5://host:port) instead of the recording proxy of its own, for
// tests that bring real upstreams behind a proxy of theirs (Send then finds no upstream request recorded).
func StartBehindProxy(t testing.TB, bins Binaries, proxyAddr string) *Gateway {
	t.Helper()
	return startOn(t, bins, startRedis(t, bins.Redis, t.TempDir()), proxyAddr, nil, "")
}

// StartReplicas runs n Gateways that share one Redis, as the replicas of a data plane behind one Service do:
// each has its own port, API files (app_path) and upstream proxy, and a group reload reaches all of them.
func StartReplicas(t testing.TB, bins Binaries, n int) []*Gateway {
	t.Helper()
	redisPort := startRedis(t, bins.Redis, t.TempDir())
	out := make([]*Gateway, n)
	for i := range out {
		out[i] = startOn(t, bins, redisPort, "", nil, "")
	}
	return out
}

// AddReplica starts one more Gateway on the Redis of g, empty, as a replica added to a data plane.
func (g *Gateway) AddReplica(t testing.TB, bins Binaries) *Gateway {
	t.Helper()
	return startOn(t, bins, g.redisPort, "", nil, "")
}

// startOn starts a Gateway on the Redis at redisPort whose upstream requests go to proxyAddr, or, when it is "",
// to a recording proxy of its own, with settings on top of the example tyk.conf.
func startOn(t testing.TB, bins Binaries, redisPort int, proxyAddr string, settings Settings, hosts string) *Gateway {
	t.Helper()
	dir := t.TempDir()
	up := &upstreamProxy{addr: proxyAddr}
	if proxyAddr == "" {
		up = startUpstreamProxy(t)
	}

	port := localproc.FreePort()
	g := &Gateway{
		URL:          "http://127.0.0.1:" + strconv.Itoa(port),
		Port:         port,
		TLSPort:      localproc.FreePort(),
		OtherTLSPort: localproc.FreePort(),
		HTTPPorts:    []int{localproc.FreePort(), localproc.FreePort()},
		Secret:       "gateway2tyk-test-secret",
		upstreams:    up,
		// No proxy and no redirects for the client: it talks to the Gateway on loopback and reports what the
		// Gateway answers, 3xx included.
		client: &http.Client{
			Transport:     &http.Transport{Proxy: nil, DisableKeepAlives: true},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			Timeout:       20 * time.Second,
		},
		logPath:   filepath.Join(dir, "tyk.log"),
		redisPort: redisPort,
	}
	g.bin, g.conf, g.dir, g.proxyAddr, g.hosts = bins.Tyk, filepath.Join(dir, "tyk.conf"), dir, up.addr, hosts
	conf, err := gatewayConfig(g, port, redisPort, bins.Templates, dir)
	if err != nil {
		t.Fatal(err)
	}
	merge(conf, settings)
	writeJSON(t, g.conf, conf)
	t.Cleanup(func() {
		g.Stop()
		if t.Failed() {
			t.Logf("Tyk Gateway log (%s), last lines:\n%s", g.logPath, localproc.Tail(g.logPath, 40))
		}
	})
	if err := g.launch(); err != nil {
		t.Fatal(err)
	}
	return g
}

// launch starts the Gateway process with the configuration written by Start and waits until it is healthy.
func (g *Gateway) launch() error {
	logFile, err := os.OpenFile(g.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(g.bin, "--conf="+g.conf)
	if g.hosts != "" {
		cmd = hostsCommand(g.hosts, g.bin, "--conf="+g.conf)
	}
	cmd.Dir = g.dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = gatewayEnv(g.proxyAddr)
	localproc.DieWithTest(cmd)
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return fmt.Errorf("starting the Tyk Gateway %s: %v", g.bin, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	g.mu.Lock()
	g.cmd, g.exited, g.logFile = cmd, exited, logFile
	g.mu.Unlock()
	if err := g.waitHello(exited); err != nil {
		return fmt.Errorf("the Tyk Gateway did not come up: %v\nlog:\n%s", err, localproc.Tail(g.logPath, 40))
	}
	return nil
}

// Stop stops the Gateway process, as a crash or a rollout would (interrupt, then kill after 10 s); its port
// then refuses connections. Redis, the API files (app_path) and the upstream proxy stay. Stopping a stopped
// Gateway does nothing.
func (g *Gateway) Stop() {
	g.mu.Lock()
	cmd, exited, logFile := g.cmd, g.exited, g.logFile
	g.cmd = nil
	g.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(os.Interrupt)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
	_ = logFile.Close()
}

// Restart starts a stopped Gateway again, on the same port with the same configuration: it loads the APIs
// whose files it has. It waits until the Gateway answers /hello.
func (g *Gateway) Restart() error {
	g.Stop()
	return g.launch()
}

// Log returns the Gateway's log so far.
func (g *Gateway) Log() string {
	b, err := os.ReadFile(g.logPath)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// exampleConfig is examples/tyk-gateway/tyk.conf, the minimal tyk.conf the quick start and docs/sync.md give users: every Gateway
// the tests start runs with it, so what the tests show is what that file gets.
func exampleConfig() (map[string]any, error) {
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		return nil, errors.New("realtyk: cannot tell where its source is, to find examples/tyk-gateway/tyk.conf")
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(self), "..", "..", "examples", "tyk-gateway", "tyk.conf"))
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("examples/tyk-gateway/tyk.conf: %v", err)
	}
	return m, nil
}

// gatewayConfig is examples/tyk-gateway/tyk.conf with what differs per run: loopback addresses and free ports,
// the test's secret, directories and Redis (file-based APIs and policies: the Gateway API writes the files).
func gatewayConfig(g *Gateway, port, redisPort int, templates, dir string) (map[string]any, error) {
	apps := filepath.Join(dir, "apps")
	for _, d := range []string{apps, filepath.Join(dir, "middleware"), filepath.Join(dir, "policies")} {
		_ = os.MkdirAll(d, 0o755)
	}
	m, err := exampleConfig()
	if err != nil {
		return nil, err
	}
	storage, _ := m["storage"].(map[string]any)
	policies, _ := m["policies"].(map[string]any)
	if storage == nil || policies == nil {
		return nil, errors.New("examples/tyk-gateway/tyk.conf: storage and policies must be objects")
	}
	m["listen_address"] = "127.0.0.1"
	m["listen_port"] = port
	m["secret"] = g.Secret
	m["template_path"] = templates
	m["app_path"] = apps
	m["middleware_path"] = filepath.Join(dir, "middleware")
	storage["host"], storage["port"] = "127.0.0.1", redisPort
	policies["policy_path"] = filepath.Join(dir, "policies")
	m["ports_whitelist"] = map[string]any{"https": map[string]any{"ports": []int{g.TLSPort, g.OtherTLSPort}},
		"http": map[string]any{"ports": g.HTTPPorts}}
	m["pid_file_location"] = filepath.Join(dir, "tyk.pid")
	return m, nil
}

// gatewayEnv is the caller's environment with every proxy variable replaced: upstream requests go to the
// recording proxy, and nothing is exempt from it (an exemption would let the Gateway dial a pod address).
func gatewayEnv(proxyAddr string) []string {
	var env []string
	for _, e := range os.Environ() {
		name, _, _ := strings.Cut(e, "=")
		switch strings.ToUpper(name) {
		case "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY":
			continue
		}
		env = append(env, e)
	}
	proxy := proxyAddr
	if !strings.Contains(proxy, "://") {
		proxy = "http://" + proxy
	}
	return append(env, "HTTP_PROXY="+proxy, "http_proxy="+proxy, "HTTPS_PROXY="+proxy, "https_proxy="+proxy,
		"NO_PROXY=", "no_proxy=")
}

func (g *Gateway) waitHello(exited <-chan struct{}) error {
	deadline := time.Now().Add(60 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("the process exited")
		default:
		}
		var hello struct {
			Status  string `json:"status"`
			Version string `json:"version"`
			Details map[string]struct {
				Status string `json:"status"`
			} `json:"details"`
		}
		// Redis is connected in the background: until /hello says it passes, a reload would not reach the
		// Gateway.
		if err := g.call(http.MethodGet, "/hello", nil, &hello); err == nil && hello.Status == "pass" &&
			hello.Details["redis"].Status == "pass" {
			g.Version, g.Hello = hello.Version, hello.Version
			if v := os.Getenv("TYK_GATEWAY_VERSION"); v != "" {
				g.Version = v
			}
			return nil
		} else if err != nil {
			last = err
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("no healthy /hello within 60 s: %v", last)
}

// startRedis runs redis-server on a free loopback port without persistence and waits for PONG.
func startRedis(t testing.TB, bin, dir string) int {
	t.Helper()
	port := localproc.FreePort()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--daemonize", "no")
	logFile, err := os.Create(filepath.Join(dir, "redis.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	localproc.DieWithTest(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = logFile.Close()
	})
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if redisPing(port) == nil {
			return port
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("redis-server did not answer PING on port %d: %s", port, localproc.Tail(filepath.Join(dir, "redis.log"), 20))
	return 0
}

func redisPing(port int) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("redis answered %q", line)
	}
	return nil
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Reloads counts the reloads the Gateway has begun since Start, from its log (Tyk logs "reload: initiating"
// at the start of each reload cycle, whatever asked for it). The message's key is msg until 5.13 and message
// from v5.14.0 (TT-15935, "standardize log message key across all Tyk components"; seen on v5.14.0's log).
func (g *Gateway) Reloads() int {
	log := g.Log()
	return strings.Count(log, `msg="reload: initiating"`) + strings.Count(log, `message="reload: initiating"`)
}
