package fn_test

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/fn/framework/frameworktestutil"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn"
	"github.com/gateway2tyk/gateway2tyk/fn/tykoas/tykoastest"
)

// The golden cases are user stories: testdata/<story>/input.yaml is a ResourceList a user could have
// written (its top comment says the story and the condition it shows), expected.yaml is the ResourceList the
// function writes back, results included. Cases whose render fails (an error result, or failOn reached) live
// under testdata/failing/, so that their output is compared too, rather than only an errors.txt.
//
// To regenerate after an intended change, run `make golden` (go test -update in every package with golden files),
// then read every changed expected.yaml before committing it: golden files are reviewed by reading them.

// update rewrites the golden files from the render's output (make golden).
var update = flag.Bool("update", false, "rewrite every testdata/**/expected.yaml from the render's output")

const (
	goldenDir  = "testdata"
	failingDir = "testdata/failing"
)

// TestGolden runs every story outside testdata/failing: the render succeeds and its output is expected.yaml.
func TestGolden(t *testing.T) {
	ran := 0
	for _, dir := range storyDirs(t, goldenDir, "failing", "fuzz") {
		checker := frameworktestutil.ProcessorResultsChecker{
			TestDataDirectory:        dir,
			Processor:                func() framework.ResourceListProcessor { return fn.Processor{} },
			UpdateExpectedFromActual: *update,
		}
		checker.Assert(t)
		ran += len(checker.TestCasesRun())
	}
	t.Logf("golden: %d succeeding cases ran", ran)
}

// TestGoldenFailing runs the stories under testdata/failing: the render must fail, and its output (with the
// results that made it fail) is still compared with expected.yaml.
func TestGoldenFailing(t *testing.T) {
	checker := frameworktestutil.ProcessorResultsChecker{
		TestDataDirectory:        failingDir,
		Processor:                func() framework.ResourceListProcessor { return mustFail{} },
		UpdateExpectedFromActual: *update,
	}
	checker.Assert(t)
	t.Logf("golden: %d failing cases ran", len(checker.TestCasesRun()))
}

// TestGoldenFailingCasesFail is the plain check behind mustFail: fn.Processor itself returns an error on
// every failing story, and still writes its output.
func TestGoldenFailingCasesFail(t *testing.T) {
	dirs := storyDirs(t, failingDir)
	require.NotEmpty(t, dirs)
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join(dir, frameworktestutil.DefaultInputFilename))
			require.NoError(t, err)
			var out bytes.Buffer
			err = framework.Execute(fn.Processor{}, &kio.ByteReadWriter{Reader: bytes.NewReader(in), Writer: &out})
			require.Error(t, err, "fn.Processor must fail on %s", dir)
			require.Contains(t, err.Error(), "gateway2tyk: ")
			require.Contains(t, out.String(), "results:", "the output, with its results, is still written")
		})
	}
}

// mustFail runs fn.Processor and turns its failure into success, so that the checker compares the output;
// a render that does not fail is the error.
type mustFail struct{}

func (mustFail) Process(rl *framework.ResourceList) error {
	if err := (fn.Processor{}).Process(rl); err == nil {
		return errors.New("fn.Processor succeeded, but a case under testdata/failing must fail")
	}
	return nil
}

// storyDirs lists the story directories directly under root, leaving out skip (testdata/fuzz holds the fuzz
// targets' corpus, not stories).
func storyDirs(t *testing.T, root string, skip ...string) []string {
	t.Helper()
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if e.IsDir() && !slices.Contains(skip, e.Name()) {
			out = append(out, filepath.Join(root, e.Name()))
		}
	}
	return out
}

// TestGoldenDocumentsAreValidTykOAS checks every Tyk OAS API definition written in a golden file, of every story
// (failing ones included), with tykoastest.Validate: a valid OpenAPI 3.0 document (kin-openapi), an
// x-tyk-api-gateway valid against Tyk's own JSON schema (the repository's copy, third_party/tyk), every
// middleware.operations key the operationId of an operation, and every operation with an operationId and
// responses. The documents are those of the ConfigMaps the function emitted (label
// app.kubernetes.io/managed-by: gateway2tyk); input ConfigMaps are not the function's to check.
func TestGoldenDocumentsAreValidTykOAS(t *testing.T) {
	checked := 0
	err := filepath.WalkDir(goldenDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != frameworktestutil.DefaultOutputFilename {
			return err
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		rl, err := yaml.Parse(string(data))
		require.NoError(t, err, path)
		list, err := rl.Pipe(yaml.Lookup("items"))
		require.NoError(t, err, path)
		if list == nil {
			return nil
		}
		items, err := list.Elements()
		require.NoError(t, err, path)
		for _, item := range items {
			if item.GetKind() != "ConfigMap" || item.GetLabels()["app.kubernetes.io/managed-by"] != "gateway2tyk" {
				continue
			}
			doc, ok := item.GetDataMap()["tyk-oas.json"]
			require.True(t, ok, "%s: emitted ConfigMap %s has no tyk-oas.json", path, item.GetName())
			checked++
			t.Run(filepath.Dir(path)+"/"+item.GetName(), func(t *testing.T) {
				tykoastest.Validate(t, []byte(doc))
			})
		}
		return nil
	})
	require.NoError(t, err)
	require.NotZero(t, checked, "no emitted tyk-oas.json found under %s", goldenDir)
	t.Logf("golden: %d Tyk OAS documents checked", checked)
}
