package conformance

import (
	"slices"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/e2e/explaincheck"
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
