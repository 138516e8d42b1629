package attachment

import (
	"fmt"
	"sort"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

type conflict struct {
	reason, message string
}

// listenerConflicts applies the Gateway spec's distinctness rules to the listeners Tyk can serve (HTTP and
// HTTPS; listeners of other protocols are rejected anyway and take no part). Listeners on one port must share
// one protocol, else every one of them is ProtocolConflict; listeners that share port and protocol must have
// different hostnames (no hostname counts as a value), else every one of them is HostnameConflict. No listener
// is picked as a winner: all indistinct listeners are rejected. The result is keyed by listener index.
func listenerConflicts(listeners []gwv1.Listener) map[int]conflict {
	byPort := map[gwv1.PortNumber][]int{}
	for i, l := range listeners {
		if supportedProtocol(l.Protocol) {
			byPort[l.Port] = append(byPort[l.Port], i)
		}
	}
	out := map[int]conflict{}
	for port, idx := range byPort {
		protocols := map[gwv1.ProtocolType]bool{}
		for _, i := range idx {
			protocols[listeners[i].Protocol] = true
		}
		if len(protocols) > 1 {
			msg := fmt.Sprintf("listeners %s share port %d with different protocols (%s)",
				names(listeners, idx), port, sortedProtocols(protocols))
			for _, i := range idx {
				out[i] = conflict{reason: string(gwv1.ListenerReasonProtocolConflict), message: msg}
			}
			continue
		}
		byHost := map[string][]int{}
		for _, i := range idx {
			byHost[hostnameOf(listeners[i])] = append(byHost[hostnameOf(listeners[i])], i)
		}
		for host, same := range byHost {
			if len(same) < 2 {
				continue
			}
			shown := host
			if shown == "" {
				shown = "no hostname"
			}
			msg := fmt.Sprintf("listeners %s share port %d and hostname (%s)", names(listeners, same), port, shown)
			for _, i := range same {
				out[i] = conflict{reason: string(gwv1.ListenerReasonHostnameConflict), message: msg}
			}
		}
	}
	return out
}

func hostnameOf(l gwv1.Listener) string {
	if l.Hostname == nil {
		return ""
	}
	return string(*l.Hostname)
}

func names(listeners []gwv1.Listener, idx []int) string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = string(listeners[i].Name)
	}
	return strings.Join(out, ", ")
}

func sortedProtocols(set map[gwv1.ProtocolType]bool) string {
	var out []string
	for p := range set {
		out = append(out, string(p))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
