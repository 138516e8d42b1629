package conformance

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/e2e/explaincheck"
	"github.com/gateway2tyk/gateway2tyk/e2e/keptcheck"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
)

// TestRealTykRequestTables renders each request table's manifests, loads the APIs of the Gateways the table
// sends requests to into a real open-source Tyk Gateway, and checks that the table's requests, and the
// requests explaincheck generates to cover every API, get from the Gateway the answer explain gives.
func TestRealTykRequestTables(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	dir := conformanceDir(t)
	base := readManifests(t, dir, "base/manifests.yaml")
	secrets := suiteSecrets(t)
	var total explaincheck.Tally
	for _, rt := range requestTables {
		t.Run(rt.ShortName, func(t *testing.T) {
			var extra []*yaml.RNode
			for _, m := range rt.Manifests {
				extra = append(extra, readManifests(t, dir, m)...)
			}
			out, _ := renderOutput(t, base, secrets, extra)
			gateways := []string{rt.Gateway.String()}
			var requests []explaincheck.Request
			for _, c := range rt.Cases {
				if c.gateway != nil && !slices.Contains(gateways, c.gateway.String()) {
					gateways = append(gateways, c.gateway.String())
				}
				requests = append(requests, tableRequest(c))
			}
			tally := explaincheck.Check(t, g, out, explaincheck.Options{Gateways: gateways, Extra: requests})
			t.Logf("%s: %d requests compared with explain, %d agreed", rt.ShortName, tally.Compared, tally.Agreed)
			total.Compared += tally.Compared
			total.Agreed += tally.Agreed
		})
	}
	t.Logf("request tables: %d requests compared with explain, %d agreed (Tyk Gateway %s)", total.Compared, total.Agreed, g.Version)
}

// tableRequest is a request of a table as the suite sends it: to the Gateway address when it names no host.
func tableRequest(c requestCase) explaincheck.Request {
	r := explaincheck.Request{Method: c.method, Host: c.host, Path: c.path, RawQuery: c.query, Header: c.headers}
	if r.Method == "" {
		r.Method = "GET"
	}
	if r.Host == "" {
		r.Host = gatewayAddress
	}
	if r.Path == "" {
		r.Path = "/"
	}
	return r
}

// TestRealTykConformanceKeptAsSent syncs the APIs of every conformance story (each test's and each request table's
// manifests, after the suite's base) to a real open-source Tyk Gateway, one story after another, and checks that the
// Gateway lists each document as sent and that a second sync changes nothing (keptcheck).
func TestRealTykConformanceKeptAsSent(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	dir := conformanceDir(t)
	base := readManifests(t, dir, "base/manifests.yaml")
	secrets := suiteSecrets(t)
	stories := map[string][]string{}
	var names []string
	add := func(name string, manifests []string) {
		key := strings.Join(manifests, "\n")
		if _, seen := stories[key]; !seen {
			names = append(names, key)
		}
		stories[key] = append(stories[key], name)
	}
	add("SuiteSetup", nil)
	for _, ct := range conformanceTests {
		add(ct.ShortName, ct.Manifests)
	}
	for _, rt := range requestTables {
		add(rt.ShortName, rt.Manifests)
	}
	var total keptcheck.Tally
	for _, key := range names {
		t.Run(strings.Join(stories[key], "+"), func(t *testing.T) {
			var extra []*yaml.RNode
			if key != "" {
				for _, m := range strings.Split(key, "\n") {
					extra = append(extra, readManifests(t, dir, m)...)
				}
			}
			out, _ := renderOutput(t, base, secrets, extra)
			total.Add(keptcheck.Check(t, g, out.Items))
		})
	}
	t.Logf("conformance stories kept as sent: %d stories, %d APIs sent, %d listed as sent, %d with only the differences "+
		"tykroute knows for the release, %d syncs (Tyk Gateway %s)", len(names), total.Sent, total.Kept, total.Known, total.Syncs, g.Version)
	if total.Sent == 0 {
		t.Fatal("no API was sent")
	}
}
