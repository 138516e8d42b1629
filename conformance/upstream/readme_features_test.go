package upstream

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/gateway-api/pkg/features"
)

// featuresHeader opens README.md's table of Extended features.
const featuresHeader = "| Extended feature | Claimed | Passes on | Not claimed: why |"

// TestReadmeExtendedFeatures holds README.md's table of Extended features to Gateway API's own list: each
// Extended feature of Gateways and HTTPRoutes, and BackendTLSPolicy's features, is named in exactly one row; a
// row that claims nothing ("no") says why; and the features the rows claim on every release or some are exactly
// those the checked-in report of the gateway-api profile on v5.14.0 claims (the releases' own reports are held
// to the GatewayClass by the harness).
func TestReadmeExtendedFeatures(t *testing.T) {
	root := RepoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := featureRows(t, string(b))
	want := sets.New[string]()
	for _, set := range []sets.Set[features.Feature]{features.GatewayExtendedFeatures, features.HTTPRouteExtendedFeatures,
		features.BackendTLSPolicyCoreFeatures, features.BackendTLSPolicyExtendedFeatures} {
		for f := range set {
			want.Insert(string(f.Name))
		}
	}
	named := map[string]int{}
	claimed := sets.New[string]()
	for _, r := range rows {
		for _, f := range r.features {
			named[f]++
			if r.claimed != "no" {
				claimed.Insert(f)
			}
		}
		if r.claimed == "no" && strings.TrimSpace(r.why) == "" {
			t.Errorf("README.md: the row of %v claims nothing and says not why", r.features)
		}
	}
	for _, f := range sets.List(want) {
		if named[f] != 1 {
			t.Errorf("README.md's table of Extended features names %s %d times, not once", f, named[f])
		}
	}
	for f := range named {
		if !want.Has(f) {
			t.Errorf("README.md's table of Extended features names %s, not an Extended feature of Gateway API", f)
		}
	}
	reports, err := ReadReports(filepath.Join(root, ReportsDir))
	if err != nil {
		t.Fatal(err)
	}
	var reported []string
	for _, r := range reports {
		if r.Mode != "gateway-api-tyk-v5.14.0" {
			continue
		}
		for _, p := range r.ProfileReports {
			if p.Name == "GATEWAY-HTTP" && p.Extended != nil {
				reported = append(reported, p.Extended.SupportedFeatures...)
			}
		}
	}
	sort.Strings(reported)
	if len(reported) == 0 {
		t.Fatal("no checked-in report of mode gateway-api-tyk-v5.14.0 with Extended features")
	}
	if got := sets.List(claimed); strings.Join(got, ",") != strings.Join(reported, ",") {
		t.Errorf("README.md claims %v; the v5.14.0 report of the gateway-api profile %v", got, reported)
	}
}

// featureRow is a row of README.md's table of Extended features.
type featureRow struct {
	features     []string
	claimed, why string
}

var backticked = regexp.MustCompile("`([A-Za-z0-9]+)`")

// featureRows are the rows of the table under featuresHeader: the features named (backticked) in the first cell,
// the second cell and the last.
func featureRows(t *testing.T, readme string) []featureRow {
	t.Helper()
	_, table, ok := strings.Cut(readme, featuresHeader+"\n")
	if !ok {
		t.Fatalf("README.md has no table headed %q", featuresHeader)
	}
	var rows []featureRow
	for i, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if i == 0 {
			continue // |---|
		}
		inner := strings.TrimSuffix(strings.TrimPrefix(strings.ReplaceAll(line, `\|`, "\x00"), "|"), "|")
		cells := strings.Split(inner, "|")
		if len(cells) != 4 {
			t.Fatalf("README.md, a row of the Extended features table has %d cells, not 4: %s", len(cells), line)
		}
		r := featureRow{claimed: strings.TrimSpace(cells[1]), why: strings.TrimSpace(cells[3])}
		for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
			r.features = append(r.features, m[1])
		}
		rows = append(rows, r)
	}
	return rows
}
