package e2e_test

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/sync/target/targettest"
)

// The scheduled drift job of examples/ci, run as the workflow runs it, against the Dashboard fake (which
// sync/target's contract test holds to Tyk's published description): the basic example not yet synced is drift
// (missing APIs); after a sync, in sync; an API edited in the Dashboard is drift again, reported in markdown
// (REPORT) and text; the check sends only GET requests; a target that is not given is a usage error.
func TestCIDriftScript(t *testing.T) {
	root := repoRoot(t)
	bin := functionBinary(t, root)
	script := filepath.Join(root, "examples", "ci", "gateway2tyk-drift.sh")
	repo := t.TempDir()
	app := filepath.Join(repo, "apps", "shop")
	if err := os.CopyFS(app, os.DirFS(filepath.Join(root, exampleDir))); err != nil {
		t.Fatal(err)
	}
	f := targettest.NewDashboard(t)
	target := []string{"TYK_MODE=pro", "TYK_URL=" + f.Server.URL, "TYK_AUTH=" + f.Auth}

	runScript := func(env ...string) (string, string, int) {
		t.Helper()
		return runCIScript(t, script, repo, append([]string{"GATEWAY2TYK=" + bin, "APP=apps/shop", "TYK_MODE=", "TYK_URL=", "TYK_AUTH="}, env...)...)
	}
	report := func() string { return readFile(t, filepath.Join(repo, "gateway2tyk-drift.md")) }
	onlyGETs := func(when string) {
		t.Helper()
		for _, c := range f.Calls() {
			if c.Method != http.MethodGet {
				t.Errorf("%s: the drift check sent %s %s", when, c.Method, c.Path)
			}
		}
		f.ResetCalls()
	}

	out, stderr, code := runScript(target...)
	if code != 1 || !strings.Contains(out, "APIs missing on the target (2)") || !strings.Contains(report(), "#### APIs missing on the target (2)") {
		t.Fatalf("before any sync: exit %d, want 1 with two missing APIs\n%s\n%s", code, out, stderr)
	}
	onlyGETs("before any sync")

	sync := exec.Command("sh", "-c", `"$0" render apps/shop | "$0" sync --from -`, bin)
	sync.Dir = repo
	sync.Env = append(os.Environ(), target...)
	if b, err := sync.CombinedOutput(); err != nil {
		t.Fatalf("sync: %v\n%s", err, b)
	}
	f.ResetCalls()
	out, stderr, code = runScript(target...)
	if code != 0 || !strings.Contains(out, "gateway2tyk sync --check: in sync: 0 APIs changed on the target, 0 missing, 0 no longer rendered, 0 held by an API gateway2tyk did not create, 2 in sync") {
		t.Fatalf("after the sync: exit %d, want 0\n%s\n%s", code, out, stderr)
	}
	onlyGETs("in sync")

	// Someone points the orders API at another upstream in the Dashboard.
	var edited string
	for id, doc := range f.APIs() {
		var d map[string]any
		if err := json.Unmarshal(doc, &d); err != nil {
			t.Fatal(err)
		}
		if d["x-gateway2tyk"].(map[string]any)["route"] != "shop/orders" {
			continue
		}
		d["x-tyk-api-gateway"].(map[string]any)["upstream"].(map[string]any)["url"] = "http://orders-debug.shop.svc.cluster.local:8080"
		b, _ := json.Marshal(d)
		f.Put(id, b)
		edited = id
	}
	if edited == "" {
		t.Fatal("no API of route shop/orders on the Dashboard")
	}
	f.ResetCalls()
	out, stderr, code = runScript(target...)
	md := report()
	if code != 1 || !strings.Contains(stderr, "Tyk differs from the render") {
		t.Fatalf("after the edit: exit %d, want 1\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"#### APIs changed on the target (1)", "+ http://orders-debug.shop.svc.cluster.local:8080",
		"(`" + edited + "`)", "gateway2tyk sync --check: drift: 1 API changed on the target, 0 missing"} {
		if !strings.Contains(md, want) {
			t.Errorf("the markdown report lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(out, "  ~ shop/orders on shop/edge, orders.shop.example.com/orders ("+edited+")") {
		t.Errorf("the log lacks the text report:\n%s", out)
	}
	onlyGETs("after the edit")

	// No target: a usage error, status 2.
	if _, stderr, code = runScript(); code != 2 || !strings.Contains(stderr, "no mode") {
		t.Errorf("no target: exit %d, want 2\n%s", code, stderr)
	}

	// The workflow runs this script on a schedule.
	wf, err := yaml.ReadFile(filepath.Join(root, "examples", "ci", "gateway2tyk-drift.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cron, err := wf.Pipe(yaml.Lookup("on", "schedule", "[cron=17 * * * *]"))
	if err != nil || cron == nil {
		t.Errorf("the workflow has no schedule: %v", err)
	}
	run, err := wf.Pipe(yaml.Lookup("jobs", "api-drift", "steps", "[name=Check for drift]", "run"))
	if err != nil || run == nil || !strings.Contains(run.YNode().Value, "sh examples/ci/gateway2tyk-drift.sh") {
		t.Errorf("the workflow's drift step does not run examples/ci/gateway2tyk-drift.sh: %v", err)
	}
}
