package attachment

import "strings"

// HostSpecificity ranks how a listener or route hostname takes a request host, as Gateway API picks among them:
// -1 it does not take it, 0 no hostname (any host), a wildcard 1 plus its number of labels (the longer suffix is
// the more specific), an exact hostname ExactHostname. Hostnames compare case-insensitively.
func HostSpecificity(hostname, host string) int {
	hostname, host = strings.ToLower(hostname), strings.ToLower(host)
	switch {
	case hostname == "":
		return 0
	case hostname == host:
		return ExactHostname
	case wildcardMatches(hostname, host) && !strings.HasPrefix(host, "*."):
		return 1 + strings.Count(hostname, ".")
	}
	return -1
}

// ExactHostname is HostSpecificity's rank of an exact hostname: above every wildcard.
const ExactHostname = 1000

// HostTakes reports whether a listener or route hostname (exact, wildcard, or "" for any) takes a request host.
func HostTakes(hostname, host string) bool { return HostSpecificity(hostname, host) >= 0 }

// PathPrefixTakes reports whether a Gateway API PathPrefix match takes the request path p: element by element,
// so "/orders" takes "/orders" and "/orders/7", not "/ordersx"; "/" takes every path.
func PathPrefixTakes(prefix, p string) bool {
	v := strings.TrimSuffix(prefix, "/")
	return v == "" || p == v || strings.HasPrefix(p, v+"/")
}
