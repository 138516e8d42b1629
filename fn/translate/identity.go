package translate

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
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
// label becomes a named pattern, so "*.example.com" is "{h:.+}.example.com". No hostname has no custom domain.
// Where other listeners of the Gateway on the port claim hostnames within it (isolated, isolation.go), a
// wildcard or no hostname is every host but theirs: isolatedDomain.
func customDomain(hostname string, isolated []string) string {
	if d := isolatedDomain("h", hostname, isolated); d != "" {
		return d
	}
	if strings.HasPrefix(hostname, "*.") {
		return "{h:.+}" + hostname[1:]
	}
	return hostname
}

// plainDomain writes the hostname of an API whose hostname and listen path an API on a higher Tyk port has too
// (sharedClaims) as a host template that matches the same hosts but is another string, since Tyk keeps one API
// per custom domain string and listen path whatever its port: the first label becomes a variable named name
// whose pattern is the label itself, so on the listen_port (name "http") "shop.example.com" is
// "{http:shop}.example.com" and "*.example.com" is "{http:.+}.example.com". gorilla/mux anchors a host template and compares the host without its port when the
// template has no ":" (as here), so exactly the hosts of customDomain reach the API.
func plainDomain(hostname, name string, isolated []string) string {
	if d := isolatedDomain(name, hostname, isolated); d != "" {
		return d
	}
	label, rest, more := strings.Cut(hostname, ".")
	if label == "*" {
		label = ".+"
	} else {
		label = regexp.QuoteMeta(label)
	}
	out := "{" + name + ":" + label + "}"
	if more {
		out += "." + rest
	}
	return out
}
