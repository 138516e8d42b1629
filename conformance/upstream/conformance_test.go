package upstream

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/websocket"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/gateway-api/conformance"
	confv1 "sigs.k8s.io/gateway-api/conformance/apis/v1"
	"sigs.k8s.io/gateway-api/conformance/tests"
	"sigs.k8s.io/gateway-api/conformance/utils/config"
	"sigs.k8s.io/gateway-api/conformance/utils/roundtripper"
	"sigs.k8s.io/gateway-api/conformance/utils/suite"
	"sigs.k8s.io/gateway-api/pkg/features"
	"sigs.k8s.io/yaml"

	"github.com/gateway2tyk/gateway2tyk/e2e/modcache"
	"github.com/gateway2tyk/gateway2tyk/e2e/realkube"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

const (
	gatewayAPIVersion = "v1.6.3"
	channel           = "standard"
	// The GatewayClass the suite runs against, its OperatorContext and the data-plane Service, in systemNamespace.
	gatewayClassName = "gateway2tyk"
	systemNamespace  = "gateway2tyk-system"
	contextName      = "tyk"
	dataPlaneService = "tyk-gateway"
	controllerName   = "tyk.tyk.io/gateway-controller"
)

// Profiles are the render's profiles the test runs the suite with: $PROFILE ("operator", "gateway-api", or both,
// separated by spaces or commas), else both.
func profiles() []string {
	p := strings.FieldsFunc(os.Getenv("PROFILE"), func(r rune) bool { return r == ',' || r == ' ' })
	if len(p) == 0 {
		return []string{"operator", "gateway-api"}
	}
	return p
}

// TestRealConformance runs the upstream suite (tests.ConformanceTests, the GATEWAY-HTTP profile) once per render
// profile, each in a process of its own (TestRealConformanceRun) on a cluster, a Tyk Gateway and backends of its
// own, and holds the suite's ConformanceReport to the one checked in under conformance/reports
// (GATEWAY2TYK_CONFORMANCE_REPORT=write writes it there instead). The suite's own tests fail where gateway2tyk
// does not conform; what this test asserts is that the run's results are the checked-in ones, so the report can
// neither go stale nor hide a change. The child's log goes to bin/conformance-logs/, and the first error of each
// failed test is printed here: it is what docs/conformance.md's reasons cite.
func TestRealConformance(t *testing.T) {
	root := RepoRoot(t)
	DefaultBinaries(root)
	for _, p := range profiles() {
		t.Run(p, func(t *testing.T) {
			needBinaries(t)
			logs := filepath.Join(root, "bin", "conformance-logs")
			if err := os.MkdirAll(logs, 0o755); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "report.yaml")
			tyk := os.Getenv("TYK_GATEWAY_VERSION") // one log per profile and Gateway build: runs on two builds may overlap
			if tyk == "" {
				tyk = "bin-tyk"
			}
			logPath := filepath.Join(logs, p+"-"+tyk+".log")
			log, err := os.Create(logPath)
			if err != nil {
				t.Fatal(err)
			}
			defer log.Close()
			cmd := exec.Command(os.Args[0], "-test.run=^TestRealConformanceRun$", "-test.v", "-test.timeout=0")
			cmd.Env = append(os.Environ(), childEnv+"="+p, outEnv+"="+out)
			cmd.Stdout, cmd.Stderr = log, log
			begin := time.Now()
			runErr := cmd.Run()
			t.Logf("the suite's run (profile %s) took %v and ended with %v; its log: %s", p,
				time.Since(begin).Round(time.Second), runErr, logPath)
			raw, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("the run wrote no report (%v); the end of its log:\n%s", err, tail(logPath, 40))
			}
			var report confv1.ConformanceReport
			if err := yaml.UnmarshalStrict(raw, &report); err != nil {
				t.Fatal(err)
			}
			t.Logf("failed tests and their first error, as the run showed them:\n%s", firstErrors(logPath))
			t.Logf("why the loop's syncs failed, as gateway2tyk sync said it:\n%s", syncFailures(logPath))
			CheckReport(t, root, &report)
		})
	}
}

const (
	// childEnv names the render profile a TestRealConformanceRun process runs; outEnv where it writes its report.
	childEnv = "GATEWAY2TYK_CONFORMANCE_CHILD"
	outEnv   = "GATEWAY2TYK_CONFORMANCE_OUT"
)

// TestRealConformanceRun is one run of the suite, in the process TestRealConformance starts; run alone it skips.
func TestRealConformanceRun(t *testing.T) {
	profile := os.Getenv(childEnv)
	if profile == "" {
		t.Skip("run by TestRealConformance, in a process of its own")
	}
	runProfile(t, RepoRoot(t), profile)
}

// needBinaries fails or skips t (as realkube and realtyk do) when a real system or a binary is missing.
func needBinaries(t *testing.T) {
	t.Helper()
	realkube.Find(t)
	realtyk.Find(t)
	for _, f := range []string{os.Getenv("GATEWAY2TYK"), os.Getenv("ECHO_BASIC")} {
		if _, err := os.Stat(f); err != nil {
			msg := fmt.Sprintf("%s is missing (make build bin/echo-basic)", f)
			if os.Getenv(realkube.RequiredEnv) == "required" {
				t.Fatal(msg)
			}
			t.Skip("SKIPPED: " + msg)
		}
	}
}

func runProfile(t *testing.T, root, profile string) {
	begin := time.Now()
	needBinaries(t)
	tykBins := realtyk.Find(t)
	bin, echo := os.Getenv("GATEWAY2TYK"), os.Getenv("ECHO_BASIC")
	crds := GatewayAPICRDs(t, modcache.Dir(t, "sigs.k8s.io/gateway-api", gatewayAPIVersion), channel)
	crds = append(crds, TykCRDs(t, root)...)

	c := realkube.Start(t)
	t.Logf("kube-apiserver %s ready in %v", c.Version, c.StartTime.Round(time.Millisecond))
	c.InstallCRDs(t, crds...)
	backends := StartBackends(t, echo, c.Client, 200*time.Millisecond)
	proxy := StartProxy(t, c.Client, backends)
	tykBegin := time.Now()
	pool := ""
	if profile == "gateway-api" {
		from, to := gatewayPool(t)
		pool = fmt.Sprintf("%d-%d", from, to)
	}
	dns := StartClusterDNS(t, c.Client, proxy)
	var g *realtyk.Gateway
	if dns.Bindable != nil {
		t.Logf("the cluster DNS stand-in for the connections Tyk dials itself cannot be given to it here (%v): "+
			"h2c:// upstreams are not reached", dns.Bindable)
		g = realtyk.StartWith(t, tykBins, proxy.URL, tykSettings(profile, pool))
	} else {
		g = realtyk.StartWithHosts(t, tykBins, proxy.URL, tykSettings(profile, pool), dns.Hosts)
	}
	t.Logf("Tyk Gateway %s (/hello %s) ready in %v on %s", g.Version, g.Hello, time.Since(tykBegin).Round(time.Millisecond), g.URL)

	kubeconfig := AdminKubeconfig(t, c.Config)
	platform(t, c, g)
	version := binaryVersion(t, bin)
	loop := &GitOps{
		Binary:       bin,
		RenderConfig: renderConfig(profile, g.Version, pool),
		SyncArgs:     []string{"--mode", "ce", "--url", g.URL, "--kubeconfig", kubeconfig, "--write-status", "--allow-empty"},
		SyncEnv:      []string{"TYK_AUTH=" + g.Secret},
		Poll:         100 * time.Millisecond,
	}
	if v := os.Getenv("TYK_GATEWAY_VERSION"); v != "" {
		// A Gateway built from source understates its release on /hello (v5.5.0-dev): the release is stated, as
		// e2e-tyk-source states it, and sync checks that instead.
		loop.SyncArgs = append(loop.SyncArgs, "--tyk-version", v)
	}
	loop.Start(t, c)
	defer func() { logRounds(t, loop.Rounds()) }()

	t.Setenv("KUBECONFIG", kubeconfig)
	opts := conformance.DefaultOptions(t)
	opts.GatewayClassName = gatewayClassName
	opts.ConformanceProfiles = []suite.ConformanceProfileName{suite.GatewayHTTPConformanceProfileName}
	opts.Implementation = confv1.Implementation{Organization: "gateway2tyk", Project: "gateway2tyk",
		URL: "https://github.com/gateway2tyk/gateway2tyk", Version: version, Contact: []string{"@gateway2tyk/maintainers"}}
	opts.Mode = profile + "-tyk-" + g.Version
	opts.TimeoutConfig = timeouts()
	config.SetupTimeoutConfig(&opts.TimeoutConfig)
	lbs := StartLoadBalancers(t, c.Client, 100*time.Millisecond, dialTo(loadBalancerPorts(g)))
	opts.RoundTripper = &roundtripper.DefaultRoundTripper{TimeoutConfig: opts.TimeoutConfig, CustomDialContext: lbs.Dial}
	opts.WebSocketDialer = wsDialer{dial: lbs.Dial}
	opts.CleanupBaseResources = false // the cluster goes with the test
	opts.SkipTests = skipTests(t)
	if opts.DisableParallelTests = loadsNone(profile, g.Version); opts.DisableParallelTests {
		t.Logf("DisableParallelTests: Tyk Gateway %s loads none of the %s profile's APIs (older than %s), so the "+
			"suite's parallel tests would decide each other's results", g.Version, profile, tykroute.MinVersion)
	}

	// The suite infers the supported features from the GatewayClass's status.supportedFeatures, which the loop's
	// sync writes; it reads them once, so wait for the class to be accepted first.
	classStatus := waitForClass(t, c, opts.TimeoutConfig.GWCMustBeAccepted)
	t.Logf("GatewayClass %s status after %v: %s", gatewayClassName, time.Since(begin).Round(time.Millisecond), classStatus)
	cs, err := suite.NewConformanceTestSuite(opts)
	if err != nil && profile == "operator" {
		// Tyk Operator's GatewayClass status lists no supportedFeatures, so the suite cannot infer any. To see how
		// far the suite gets, the profile's Core features are stated instead (the suite adds them itself).
		t.Logf("NewConformanceTestSuite with inferred features: %v; running with GATEWAY-HTTP's Core features stated", err)
		opts.SupportedFeatures = features.SetsToNamesSet(features.GatewayCoreFeatures).UnsortedList()
		cs, err = suite.NewConformanceTestSuite(opts)
	}
	if err != nil {
		t.Fatalf("NewConformanceTestSuite: %v", err)
	}
	// The suite's Run marks itself done in a cleanup of t, and Report refuses before that: the report is made in a
	// cleanup registered first, so it runs after the suite's.
	setupOK := false
	t.Cleanup(func() {
		report, err := cs.Report()
		if err != nil {
			t.Fatal(err)
		}
		raw, err := yaml.Marshal(report)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(os.Getenv(outEnv), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("profile %s on Tyk %s: the run took %v (setup passed: %v)", profile, g.Version,
			time.Since(begin).Round(time.Second), setupOK)
	})
	setupOK = t.Run("Setup", func(t *testing.T) { cs.Setup(t, tests.ConformanceTests) })
	if setupOK {
		if err := cs.Run(t, tests.ConformanceTests); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Logf("the suite's Setup failed after %v, so no test ran; the report has no results. The Gateways' status:\n%s",
			time.Since(begin).Round(time.Second), gatewayConditions(t, c))
	}
}

// platform creates what an operator of the platform installs once: the OperatorContext with the Tyk connection,
// the data-plane Service with its load-balancer address (the stand-in of standins.go) and the GatewayClass.
func platform(t *testing.T, c *realkube.Cluster, g *realtyk.Gateway) {
	t.Helper()
	ctx := realkube.Context(t)
	if _, err := c.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: systemNamespace}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	oc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "tyk.tyk.io/v1alpha1", "kind": "OperatorContext",
		"metadata": map[string]any{"name": contextName, "namespace": systemNamespace},
		"spec": map[string]any{
			"env":       map[string]any{"mode": "ce", "url": g.URL, "auth": g.Secret},
			"dataPlane": map[string]any{"serviceRef": map[string]any{"name": dataPlaneService}},
		},
	}}
	gvr := schema.GroupVersionResource{Group: "tyk.tyk.io", Version: "v1alpha1", Resource: "operatorcontexts"}
	if _, err := c.Dynamic.Resource(gvr).Namespace(systemNamespace).Create(ctx, oc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc, err := c.Client.CoreV1().Services(systemNamespace).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: dataPlaneService, Namespace: systemNamespace},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "tyk-gateway"},
			Ports: []corev1.ServicePort{
				{Name: "http", Port: 80, TargetPort: intstr.FromInt32(int32(g.Port))},
				{Name: "https", Port: 443, TargetPort: intstr.FromInt32(int32(g.TLSPort))},
				{Name: "http-8080", Port: 8080, TargetPort: intstr.FromInt32(int32(g.HTTPPorts[0]))},
				{Name: "http-8090", Port: 8090, TargetPort: intstr.FromInt32(int32(g.HTTPPorts[1]))}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: loadBalancerIP}}
	if _, err := c.Client.CoreV1().Services(systemNamespace).UpdateStatus(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	ns := systemNamespace
	gc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GatewayClass",
		"metadata": map[string]any{"name": gatewayClassName},
		"spec": map[string]any{"controllerName": controllerName, "parametersRef": map[string]any{
			"group": "tyk.tyk.io", "kind": "OperatorContext", "name": contextName, "namespace": ns}},
	}}
	gcs := schema.GroupVersionResource{Group: gwv1.GroupName, Version: "v1", Resource: "gatewayclasses"}
	if _, err := c.Dynamic.Resource(gcs).Create(ctx, gc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// tykSettings are the tyk.conf settings of a profile's Gateway on top of examples/tyk-gateway/tyk.conf: the
// gateway-api profile's Gateway keeps header names as written (ignore_canonical_mime_header_key), which its
// RenderConfig declares (renderConfig), so a response header is added beside the backend's, and may open the
// ports of pool ("from-to"), where the render's Services for Gateways send their listeners; the operator
// profile's runs as Tyk Operator's users run it, with Tyk's default.
func tykSettings(profile, pool string) realtyk.Settings {
	if profile != "gateway-api" {
		return nil
	}
	settings := realtyk.Settings{"ignore_canonical_mime_header_key": true}
	var from, to int
	if _, err := fmt.Sscanf(pool, "%d-%d", &from, &to); err == nil {
		ranges := []any{map[string]any{"from": from, "to": to}}
		settings["ports_whitelist"] = map[string]any{"http": map[string]any{"ranges": ranges},
			"https": map[string]any{"ranges": ranges}}
	}
	return settings
}

// renderConfig is the RenderConfig the loop renders with: the profile, ConfigMap output, the standard channel, and
// the Tyk release the APIs are for (tyk, the Gateway's: a timeout that is not whole seconds is a duration for 5.14,
// which an older Gateway refuses, so the render writes whole seconds for it, and claims no timeout feature). A
// Gateway older than any release the render writes for (CI's 5.4 line, which refuses the APIs) gets APIs for the
// oldest it does (tykroute.MinVersion), as a user who gave that release would: the report then shows what such a
// Gateway serves of them. The gateway-api profile declares the header names its Gateway keeps (tykSettings), and
// gives the render pool for Gateways' own Services (gatewayPorts), when there is one.
func renderConfig(profile, tyk, pool string) []byte {
	if v, err := tykroute.ParseVersion(tyk); err == nil && v.Less(tykroute.MinVersion) {
		tyk = tykroute.MinVersion.String()
	}
	kept := ""
	if tykSettings(profile, "")["ignore_canonical_mime_header_key"] == true {
		kept = "  ignoreCanonicalMIMEHeaderKey: true\n"
	}
	if pool != "" {
		kept += "  gatewayPorts: \"" + pool + "\"\n"
	}
	return []byte(fmt.Sprintf(`apiVersion: gateway2tyk.io/v1alpha1
kind: RenderConfig
metadata: {name: conformance}
spec:
  profile: %s
  output: ConfigMap
  gatewayAPIChannel: %s
  tykVersion: %s
%s`, profile, channel, tyk, kept))
}

// timeouts are the suite's defaults, shortened where a wait can only end in failure once the loop has had its
// time: a round (change seen, render, apply, sync with Tyk's reload, status written) takes about half a second to
// two seconds (the rounds are logged at the end), so 15 s is several rounds, and a failing test ends in well under
// a minute instead of up to five.
func timeouts() config.TimeoutConfig {
	tc := config.DefaultTimeoutConfig()
	tc.GWCMustBeAccepted = 60 * time.Second
	tc.NamespacesMustBeReady = 60 * time.Second
	tc.GatewayMustHaveAddress = 20 * time.Second
	tc.GatewayMustHaveCondition = 20 * time.Second
	tc.CreateTimeout = 30 * time.Second
	for _, wait := range []*time.Duration{&tc.HTTPRouteMustHaveCondition, &tc.HTTPRouteMustNotHaveParents,
		&tc.RouteMustHaveParents, &tc.GatewayStatusMustHaveListeners, &tc.GatewayListenersMustHaveConditions,
		&tc.LatestObservedGenerationSet, &tc.MaxTimeToConsistency} {
		*wait = 15 * time.Second
	}
	tc.DefaultTestTimeout = 20 * time.Second
	return tc
}

// skipTests are the tests skipped through the suite's own SkipTests (the report lists them as skipped), each
// logged with why.
func skipTests(t *testing.T) []string {
	var skip []string
	for name, reason := range skipped {
		t.Logf("SkipTests: %s: %s", name, reason)
		skip = append(skip, name)
	}
	slices.Sort(skip)
	return skip
}

// skipped is the tests every run skips, with why. None: every test whose features the GatewayClass claims runs.
var skipped = map[string]string{}

// loadsNone reports whether the Gateway (release tyk) loads none of the profile's APIs: the gateway-api profile's
// on a Gateway older than tykroute.MinVersion (CI's 5.4 line), where sync refuses every push that holds an API, and
// so writes no status for anything while any test's route exists. The suite's parallel tests then fail or pass by
// which others run beside them (on the 5.4 line ListenerSetDefaultNotAllowed failed in one run and
// ListenerSetProtocolConflict in the next, each waiting for Gateways of the other tests), so such a run is made
// sequential with the suite's own DisableParallelTests, and its report is the same run after run.
func loadsNone(profile, tyk string) bool {
	v, err := tykroute.ParseVersion(tyk)
	return profile == "gateway-api" && err == nil && v.Less(tykroute.MinVersion)
}

// loadBalancerPorts are the loopback ports the data-plane Service's load balancer forwards each of its ports to
// (standins.go): its targetPorts on the Tyk Gateway.
func loadBalancerPorts(g *realtyk.Gateway) map[string]int {
	return map[string]int{"80": g.Port, "443": g.TLSPort, "8080": g.HTTPPorts[0], "8090": g.HTTPPorts[1]}
}

// dialTo dials where the data-plane Service's load balancer forwards each of its ports (loadBalancerPorts); an
// address on another port goes to port 80's.
func dialTo(ports map[string]int) func(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		to := ports["80"]
		if _, p, err := net.SplitHostPort(addr); err == nil && ports[p] != 0 {
			to = ports[p]
		}
		return d.DialContext(ctx, network, net.JoinHostPort("127.0.0.1", fmt.Sprint(to)))
	}
}

// wsDialer is the suite's WebSocket client (suite.WebSocketDialer) dialing through the stand-in load balancer,
// as its RoundTripper does (dialTo): the suite's default dials the Gateway's address itself, where nothing listens.
type wsDialer struct {
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

func (d wsDialer) Dial(url, protocol, origin string) (*websocket.Conn, error) {
	cfg, err := websocket.NewConfig(url, origin)
	if err != nil {
		return nil, err
	}
	if protocol != "" {
		cfg.Protocol = []string{protocol}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := d.dial(ctx, "tcp", cfg.Location.Host)
	if err != nil {
		return nil, err
	}
	ws, err := websocket.NewClient(cfg, conn)
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	return ws, nil
}

// waitForClass waits until the GatewayClass's Accepted condition is True or False and returns its status.
func waitForClass(t *testing.T, c *realkube.Cluster, timeout time.Duration) string {
	t.Helper()
	gcs := schema.GroupVersionResource{Group: gwv1.GroupName, Version: "v1", Resource: "gatewayclasses"}
	var last string
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		u, err := c.Dynamic.Resource(gcs).Get(ctx, gatewayClassName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || err != nil {
			return false, nil
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		st, _, _ := unstructured.NestedMap(u.Object, "status")
		last = fmt.Sprint(st)
		for _, c := range conds {
			// The CRD's default status is Accepted Unknown (Pending): waiting for a controller.
			if m, ok := c.(map[string]any); ok && m["type"] == "Accepted" && m["status"] != "Unknown" {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("GatewayClass %s has no condition after %v (the loop's sync writes it): last status %s", gatewayClassName, timeout, last)
	}
	return last
}

func binaryVersion(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	return versionOf(string(out))
}

// logRounds prints the loop's latency (from a change seen to the end of its sync) and what its steps took.
func logRounds(t *testing.T, rounds []Round) {
	if len(rounds) == 0 {
		t.Log("gitops: no round")
		return
	}
	lat := make([]time.Duration, len(rounds))
	var render, sync time.Duration
	failed := 0
	for i, r := range rounds {
		lat[i] = r.Latency
		render += r.Render
		sync += r.Sync
		if r.SyncExit != 0 {
			failed++
		}
	}
	slices.Sort(lat)
	n := time.Duration(len(rounds))
	t.Logf("gitops: %d rounds (%d with a failed sync); latency median %v, p90 %v, max %v; render mean %v, sync mean %v",
		len(rounds), failed, lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)*9/10].Round(time.Millisecond),
		lat[len(lat)-1].Round(time.Millisecond), (render / n).Round(time.Millisecond), (sync / n).Round(time.Millisecond))
}

// gatewayConditions is each Gateway's Accepted and Programmed condition, one line each, as the API server has them.
func gatewayConditions(t *testing.T, c *realkube.Cluster) string {
	t.Helper()
	gws := schema.GroupVersionResource{Group: gwv1.GroupName, Version: "v1", Resource: "gateways"}
	list, err := c.Dynamic.Resource(gws).List(realkube.Context(t), metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, u := range list.Items {
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, x := range conds {
			m, _ := x.(map[string]any)
			fmt.Fprintf(&b, "  Gateway %s/%s: %v %v %v: %v\n", u.GetNamespace(), u.GetName(), m["type"], m["status"], m["reason"], m["message"])
		}
	}
	return b.String()
}
