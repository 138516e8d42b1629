package e2e_test

// kpt over examples/kpt, with the real kpt: `kpt fn eval --exec` and `kpt fn render --allow-exec` (twice), each
// on a temporary copy of the package with the function first on PATH. kpt is not installed by the project (it is
// no Debian package, and the Go module proxy does not serve all of its dependencies): without kpt on PATH, or
// $KPT, these tests skip and say so.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

const kptExampleDir = "examples/kpt"

// findKpt returns $KPT, or else kpt from PATH; it skips the test when there is neither.
func findKpt(t *testing.T) string {
	t.Helper()
	if k := os.Getenv("KPT"); k != "" {
		if _, err := os.Stat(k); err != nil {
			t.Fatalf("$KPT=%s: %v", k, err)
		}
		return k
	}
	k, err := exec.LookPath("kpt")
	if err != nil {
		t.Skip("SKIPPED: kpt is not on PATH and $KPT is unset, so the kpt pipeline is not tested here " +
			"(kpt is no Debian package and `go install github.com/kptdev/kpt` fails through the Go module proxy; see docs/pipelines/kpt.md)")
	}
	return k
}

// kptRun runs kpt with the function first on PATH and a HOME of its own; it returns stdout, stderr and the exit
// status.
func kptRun(t *testing.T, args ...string) (stdout, stderr []byte, code int) {
	t.Helper()
	root := repoRoot(t)
	kpt := findKpt(t)
	cmd := exec.Command(kpt, args...)
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "PATH=") && !strings.HasPrefix(e, "HOME=") && !strings.HasPrefix(e, "ARGOCD_") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	cmd.Env = append(cmd.Env, "PATH="+functionDir(t, root)+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+t.TempDir())
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	code = exitCode(cmd.Run())
	if code < 0 {
		t.Fatalf("kpt %s did not run", strings.Join(args, " "))
	}
	return o.Bytes(), e.Bytes(), code
}

// kptPackageCopy copies examples/kpt into a temporary directory and returns the copy.
func kptPackageCopy(t *testing.T) string {
	t.Helper()
	return copyAppTree(t, repoRoot(t), kptExampleDir)
}

// readPackage reads every object of a package directory (the Kptfile too), as kpt would, and fails t when two
// of them share apiVersion, kind, namespace and name. The objects it returns carry no reader annotations.
func readPackage(t *testing.T, dir string) []*yaml.RNode {
	t.Helper()
	read := func(omit bool) []*yaml.RNode {
		items, err := kio.LocalPackageReader{
			PackagePath: dir, MatchFilesGlob: append(kio.DefaultMatch, "Kptfile"), OmitReaderAnnotations: omit,
		}.Read()
		if err != nil {
			t.Fatalf("reading the package %s: %v", dir, err)
		}
		return items
	}
	noDuplicates(t, read(false))
	return read(true)
}

// snapshot is every file of a directory and its bytes.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// noDuplicates fails t when two objects of the package share apiVersion, kind, namespace and name.
func noDuplicates(t *testing.T, items []*yaml.RNode) {
	t.Helper()
	seen := map[string]string{}
	for _, it := range items {
		key := fmt.Sprintf("%s %s %s/%s", it.GetApiVersion(), it.GetKind(), it.GetNamespace(), it.GetName())
		path := it.GetAnnotations()["internal.config.kubernetes.io/path"]
		if first, dup := seen[key]; dup {
			t.Errorf("%s is in the package twice: %s and %s", key, first, path)
		}
		seen[key] = path
	}
}

func TestKptFnRenderTwice(t *testing.T) {
	findKpt(t)
	t.Parallel()
	pkg := kptPackageCopy(t)
	before := snapshot(t, pkg)

	_, stderr, code := kptRun(t, "fn", "render", "--allow-exec", pkg)
	if code != 0 {
		t.Fatalf("kpt fn render --allow-exec: exit %d\n%s", code, stderr)
	}
	noStackTrace(t, stderr)
	first := snapshot(t, pkg)
	items := readPackage(t, pkg)
	checkBasicAPIs(t, items)
	checkBasicStatus(t, items)
	// The APIs are new files of the package; the inputs are where they were.
	for _, e := range basicAPIs {
		f := filepath.Join(e.namespace, "configmap_"+e.id()+".yaml")
		if _, ok := first[f]; !ok {
			t.Errorf("no %s after the render; files: %v", f, keys(first))
		}
	}
	for f := range before {
		if _, ok := first[f]; !ok {
			t.Errorf("%s is gone after the render", f)
		}
	}
	// Only the status annotations were added to the inputs: the files with nothing of ours to hold are as they were.
	for f, b := range before {
		if f == "gateway2tyk.yaml" || f == "services.yaml" || f == "cluster-facts.yaml" {
			if first[f] != b {
				t.Errorf("%s changed, but the function has nothing to write in it:\n%s", f, first[f])
			}
		}
	}

	_, stderr, code = kptRun(t, "fn", "render", "--allow-exec", pkg)
	if code != 0 {
		t.Fatalf("second kpt fn render --allow-exec: exit %d\n%s", code, stderr)
	}
	second := snapshot(t, pkg)
	readPackage(t, pkg)
	if len(second) != len(first) {
		t.Errorf("the second render left %d files, the first %d: %v vs %v", len(second), len(first), keys(second), keys(first))
	}
	for f, b := range first {
		if second[f] != b {
			t.Errorf("the second render changed %s:\n--- first\n%s\n--- second\n%s", f, b, second[f])
		}
	}
}

func TestKptFnRenderBrokenInput(t *testing.T) {
	findKpt(t)
	t.Parallel()
	pkg := kptPackageCopy(t)
	replaceIn("routes.yaml", "          port: 8080\n", "")(t, pkg)
	before := snapshot(t, pkg)
	_, stderr, code := kptRun(t, "fn", "render", "--allow-exec", pkg)
	if code == 0 {
		t.Fatalf("kpt fn render of a route without a backend port: exit 0, want non-zero\n%s", stderr)
	}
	for _, w := range []string{"HTTPRoute/shop/orders", "spec.rules[0].backendRefs[0]: Invalid value: Must have port for Service reference"} {
		if !bytes.Contains(stderr, []byte(w)) {
			t.Errorf("kpt's stderr does not say %q:\n%s", w, stderr)
		}
	}
	noStackTrace(t, stderr)
	after := snapshot(t, pkg)
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("a failed render changed the package: files %v, were %v", keys(after), keys(before))
	}
}

func TestKptFnEvalExec(t *testing.T) {
	findKpt(t)
	t.Parallel()

	t.Run("fn-config, to stdout", func(t *testing.T) {
		pkg := kptPackageCopy(t)
		before := snapshot(t, pkg)
		stdout, stderr, code := kptRun(t, "fn", "eval", pkg, "--exec", "gateway2tyk",
			"--fn-config", filepath.Join(pkg, "gateway2tyk.yaml"), "-o", "unwrap")
		if code != 0 {
			t.Fatalf("kpt fn eval --exec gateway2tyk: exit %d\n%s", code, stderr)
		}
		items := parseStream(t, stdout)
		noDuplicates(t, items)
		checkBasicAPIs(t, items)
		checkBasicStatus(t, items)
		if fmt.Sprint(snapshot(t, pkg)) != fmt.Sprint(before) {
			t.Errorf("kpt fn eval -o unwrap changed the package")
		}
	})

	t.Run("key=value config, in place, twice", func(t *testing.T) {
		pkg := kptPackageCopy(t)
		var first map[string]string
		for run := 1; run <= 2; run++ {
			_, stderr, code := kptRun(t, "fn", "eval", pkg, "--exec", "gateway2tyk", "--", "output=TykOasApiDefinition")
			if code != 0 {
				t.Fatalf("kpt fn eval --exec gateway2tyk -- output=TykOasApiDefinition (run %d): exit %d\n%s", run, code, stderr)
			}
			items := readPackage(t, pkg)
			checkBasicAPIs(t, items)
			for _, e := range basicAPIs {
				if find(items, "TykOasApiDefinition", e.namespace, e.id()) == nil {
					t.Errorf("run %d: no TykOasApiDefinition %s/%s in the package", run, e.namespace, e.id())
				}
			}
			if run == 1 {
				first = snapshot(t, pkg)
			} else if s := snapshot(t, pkg); fmt.Sprint(s) != fmt.Sprint(first) {
				t.Errorf("the second eval changed the package: files %v, were %v", keys(s), keys(first))
			}
		}
	})

	t.Run("bad key=value config", func(t *testing.T) {
		pkg := kptPackageCopy(t)
		_, stderr, code := kptRun(t, "fn", "eval", pkg, "--exec", "gateway2tyk", "--", "output=Bogus")
		if code == 0 {
			t.Fatalf("kpt fn eval -- output=Bogus: exit 0, want non-zero\n%s", stderr)
		}
		if !bytes.Contains(stderr, []byte("data.output")) {
			t.Errorf("kpt's stderr does not name data.output:\n%s", stderr)
		}
		noStackTrace(t, stderr)
	})
}

func keys(m map[string]string) []string {
	var k []string
	for f := range m {
		k = append(k, f)
	}
	sort.Strings(k)
	return k
}
