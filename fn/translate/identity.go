package translate

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// APIID is the contract's API ID: "gwapi-" and the first 20 hex characters of
// sha256(routeNamespace/routeName \n path \n gatewayNamespace/gatewayName \n hostname). The rule order takes no
// part, so reordering rules keeps every ID.
func APIID(routeNamespace, routeName, path, gatewayNamespace, gatewayName, hostname string) string {
	sum := sha256.Sum256([]byte(routeNamespace + "/" + routeName + "\n" + path + "\n" +
		gatewayNamespace + "/" + gatewayName + "\n" + hostname))
	return "gwapi-" + hex.EncodeToString(sum[:])[:20]
}

// customDomain writes an effective hostname as Tyk's custom domain, a gorilla/mux host template: a wildcard
// label becomes a named pattern, so "*.example.com" is "{h:.+}.example.com".
func customDomain(hostname string) string {
	if strings.HasPrefix(hostname, "*.") {
		return "{h:.+}" + hostname[1:]
	}
	return hostname
}
