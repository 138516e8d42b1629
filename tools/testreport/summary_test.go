package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stream is a go test -json run of two packages: a passes one test, skips two (one for a reason the may-skip
// file lists, one not); b fails one test and dies in another.
const stream = `{"Action":"start","Package":"x/a"}
{"Action":"run","Package":"x/a","Test":"TestOK"}
{"Action":"output","Package":"x/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"output","Package":"x/a","Test":"TestOK","Output":"quiet when it passes\n"}
{"Action":"pass","Package":"x/a","Test":"TestOK","Elapsed":0}
{"Action":"run","Package":"x/a","Test":"TestKpt"}
{"Action":"output","Package":"x/a","Test":"TestKpt","Output":"=== RUN   TestKpt\n"}
{"Action":"output","Package":"x/a","Test":"TestKpt","Output":"    kpt_test.go:35: SKIPPED: kpt is not on PATH\n"}
{"Action":"output","Package":"x/a","Test":"TestKpt","Output":"--- SKIP: TestKpt (0.00s)\n"}
{"Action":"skip","Package":"x/a","Test":"TestKpt","Elapsed":0}
{"Action":"run","Package":"x/a","Test":"TestSchema/doc"}
{"Action":"output","Package":"x/a","Test":"TestSchema/doc","Output":"    v.go:50: schema is absent\n"}
{"Action":"skip","Package":"x/a","Test":"TestSchema/doc","Elapsed":0}
{"Action":"pass","Package":"x/a","Elapsed":0.5}
not json: printed as it is
{"Action":"run","Package":"x/b","Test":"TestBad"}
{"Action":"output","Package":"x/b","Test":"TestBad","Output":"    b_test.go:9: want 1, got 2\n"}
{"Action":"fail","Package":"x/b","Test":"TestBad","Elapsed":0}
{"Action":"run","Package":"x/b","Test":"TestPanics"}
{"Action":"output","Package":"x/b","Test":"TestPanics","Output":"panic: boom\n"}
{"Action":"output","Package":"x/b","Output":"FAIL\tx/b\t0.1s\n"}
{"Action":"fail","Package":"x/b","Elapsed":0.1}
{"ImportPath":"x/c [x/c.test]","Action":"build-output","Output":"c.go:1: syntax error\n"}
{"ImportPath":"x/c [x/c.test]","Action":"build-fail"}
{"Action":"skip","Package":"x/d","Elapsed":0}
`

func TestReport(t *testing.T) {
	may, err := parseAllowances("# comment\n\n" + `^x/a$ | ^TestKpt$ | kpt is not on PATH | kpt cannot be installed here` + "\n")
	require.NoError(t, err)

	var out bytes.Buffer
	s := newSummary(&out)
	require.NoError(t, s.read(strings.NewReader(stream)))
	green := s.report(&out, may, "may-skip.txt")
	got := out.String()

	assert.False(t, green, "a failed test, a failed package and a skip that may not happen")
	assert.Contains(t, got, "ok  \tx/a\t0.500s\n")
	assert.NotContains(t, got, "quiet when it passes", "a passing test's output is not printed")
	assert.Contains(t, got, "not json: printed as it is\n")
	assert.Contains(t, got, "b_test.go:9: want 1, got 2\n", "a failed test's output is printed")
	assert.Contains(t, got, "panic: boom\n", "the output of a test that never ended is printed when its package fails")
	assert.Contains(t, got, "FAIL\tx/b\t0.100s\n")
	assert.Contains(t, got, "c.go:1: syntax error\n", "a build failure is printed")
	assert.Contains(t, got, "?   \tx/d\t[no test files]\n")
	assert.Contains(t, got, "Skipped, as may-skip.txt allows (1):\n  x/a TestKpt: kpt_test.go:35: SKIPPED: kpt is not on PATH\n      may skip: kpt cannot be installed here\n")
	assert.Contains(t, got, "SKIPPED, and must not (a check that did not run; the run fails) (1):\n  x/a TestSchema/doc: v.go:50: schema is absent\n")
	assert.Contains(t, got, "1 of 2 packages failed\n")
	assert.True(t, strings.HasSuffix(got, "\ntests: 1 passed, 1 failed, 2 skipped\n"), got)
}

func TestReportGreen(t *testing.T) {
	for _, c := range []struct {
		name, stream, may string
		green             bool
	}{
		{"passes", `{"Action":"run","Package":"x/a","Test":"T"}` + "\n" + `{"Action":"pass","Package":"x/a","Test":"T"}` + "\n" +
			`{"Action":"pass","Package":"x/a"}`, "", true},
		{"an allowed skip", `{"Action":"skip","Package":"x/a","Test":"T","Output":""}` + "\n" + `{"Action":"pass","Package":"x/a"}`,
			`x/a | ^T$ | because | why`, false}, // the reason must match too: the test printed nothing
		{"an allowed skip with its reason", `{"Action":"output","Package":"x/a","Test":"T","Output":"because\n"}` + "\n" +
			`{"Action":"skip","Package":"x/a","Test":"T"}` + "\n" + `{"Action":"pass","Package":"x/a"}`, `x/a | ^T$ | because | why`, true},
		{"the test name must match", `{"Action":"output","Package":"x/a","Test":"U","Output":"because\n"}` + "\n" +
			`{"Action":"skip","Package":"x/a","Test":"U"}` + "\n" + `{"Action":"pass","Package":"x/a"}`, `x/a | ^T$ | because | why`, false},
		{"no package ran", `{"Action":"skip","Package":"x/a"}`, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			may, err := parseAllowances(c.may)
			require.NoError(t, err)
			s := newSummary(&bytes.Buffer{})
			require.NoError(t, s.read(strings.NewReader(c.stream)))
			assert.Equal(t, c.green, s.report(&bytes.Buffer{}, may, "f"))
		})
	}
}

func TestParseAllowancesRefuses(t *testing.T) {
	for _, text := range []string{"a | b | c", "a | b | c | ", "a | ( | c | why"} {
		_, err := parseAllowances(text)
		assert.Error(t, err, text)
	}
}

func TestSplitGroups(t *testing.T) {
	assert.Equal(t, [][]string{{"./a", "-count=1"}, {"-race", "./b"}}, splitGroups([]string{"./a", "-count=1", "--", "-race", "./b"}))
	assert.Empty(t, splitGroups([]string{"--"}))
}

// The project's may-skip.txt parses, allows the kpt tests' skip as e2e/kpt_test.go prints it, and nothing else
// seen in a run without the tools make test installs.
func TestMaySkipFile(t *testing.T) {
	data, err := os.ReadFile("may-skip.txt")
	require.NoError(t, err)
	may, err := parseAllowances(string(data))
	require.NoError(t, err)
	allowed := func(sk skip) bool {
		for _, a := range may {
			if a.allows(sk) {
				return true
			}
		}
		return false
	}
	e2e := "github.com/gateway2tyk/gateway2tyk/e2e"
	assert.True(t, allowed(skip{e2e, "TestKptFnEvalExec", "kpt_test.go:35: SKIPPED: kpt is not on PATH and $KPT is unset, " +
		"so the kpt pipeline is not tested here (kpt is no Debian package ...)"}))
	for _, sk := range []skip{
		{e2e, "TestKptFnEvalExec", "kpt_test.go:28: $KPT=/x: no such file"},
		{e2e, "TestGraphDOTRenderedByGraphviz/basic", "graph_test.go:100: SKIPPED: Graphviz `dot` is not on PATH"},
		{"github.com/gateway2tyk/gateway2tyk/sync", "TestRealTykSync", "SKIPPED: no real Tyk Gateway"},
	} {
		assert.False(t, allowed(sk), "%+v", sk)
	}
}
