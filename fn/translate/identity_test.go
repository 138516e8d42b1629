package translate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
)

// contractID is the API ID of docs/reference/contract.md ("What it emits"), written out again from the contract's words rather
// than from APIID: "gwapi-" and the first 20 hex characters of sha256(routeNamespace + "/" + routeName + "\n" +
// pathValue + "\n" + gatewayNamespace + "/" + gatewayName + "\n" + hostname).
func contractID(routeNS, routeName, path, gwNS, gwName, host string) string {
	input := fmt.Sprintf("%s/%s\n%s\n%s/%s\n%s", routeNS, routeName, path, gwNS, gwName, host)
	sum := sha256.Sum256([]byte(input))
	return "gwapi-" + hex.EncodeToString(sum[:])[:20]
}

func TestAPIIDIsTheContractFormula(t *testing.T) {
	for _, c := range []struct {
		name                                         string
		routeNS, route, path, gwNS, gw, host, wantID string
	}{
		// The ID of testdata/shop-route-served, as it is written in its expected.yaml.
		{name: "golden shop-route-served", routeNS: "shop", route: "orders", path: "/orders", gwNS: "shop", gw: "edge",
			host: "orders.shop.example.com", wantID: "gwapi-53599a2d8b59c6cdad60"},
		{name: "no hostname", routeNS: "shop", route: "checkout", path: "/checkout", gwNS: "shop", gw: "edge"},
		{name: "wildcard hostname as written", routeNS: "shop", route: "orders", path: "/orders", gwNS: "infra",
			gw: "edge", host: "*.shop.example.com"},
		{name: "root path", routeNS: "payments", route: "api", path: "/", gwNS: "infra", gw: "edge", host: "pay.example.com"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := APIID(c.routeNS, c.route, c.path, c.gwNS, c.gw, c.host)
			want := contractID(c.routeNS, c.route, c.path, c.gwNS, c.gw, c.host)
			if got != want {
				t.Fatalf("APIID = %s, the contract formula gives %s", got, want)
			}
			if c.wantID != "" && got != c.wantID {
				t.Fatalf("APIID = %s, want %s", got, c.wantID)
			}
			if len(got) != len("gwapi-")+20 {
				t.Fatalf("APIID %q: want gwapi- and 20 hex characters", got)
			}
		})
	}
}

// Every part of the identity takes part in the ID, and the separators keep parts from running into each other.
func TestAPIIDDistinguishesEveryPart(t *testing.T) {
	base := APIID("shop", "orders", "/orders", "shop", "edge", "api.shop.example.com")
	for name, other := range map[string]string{
		"route namespace": APIID("shop2", "orders", "/orders", "shop", "edge", "api.shop.example.com"),
		"route name":      APIID("shop", "orders2", "/orders", "shop", "edge", "api.shop.example.com"),
		"path":            APIID("shop", "orders", "/orders/v2", "shop", "edge", "api.shop.example.com"),
		"gateway ns":      APIID("shop", "orders", "/orders", "infra", "edge", "api.shop.example.com"),
		"gateway name":    APIID("shop", "orders", "/orders", "shop", "edge-eu", "api.shop.example.com"),
		"hostname":        APIID("shop", "orders", "/orders", "shop", "edge", "www.shop.example.com"),
		"no hostname":     APIID("shop", "orders", "/orders", "shop", "edge", ""),
		"shifted slash":   APIID("shop/orders", "", "/orders", "shop", "edge", "api.shop.example.com"),
	} {
		if other == base {
			t.Errorf("changing the %s keeps the ID %s", name, base)
		}
	}
}

func TestCustomDomain(t *testing.T) {
	for host, want := range map[string]string{
		"api.shop.example.com": "api.shop.example.com",
		"*.shop.example.com":   "{h:.+}.shop.example.com",
		"*.example.com":        "{h:.+}.example.com",
		// Only a leading "*." label is a wildcard in Gateway API hostnames.
		"shop.example.com": "shop.example.com",
	} {
		if got := customDomain(host, nil); got != want {
			t.Errorf("customDomain(%q) = %q, want %q", host, got, want)
		}
	}
}
