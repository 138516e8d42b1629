package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// gatewayPortsKey is the field of Spec.GatewayPorts in spec, and its key in the ConfigMap form's data.
//
// With it the gateway-api profile gives every Gateway of ours a Service of its own (package
// fn/internal/operatorcontext, gatewayservices.go), in the namespace of the Tyk Pods' Service, which sends each
// listener port to one of these ports of the Pods: Tyk serves the Gateway's APIs there alone (server.port), so
// each Gateway has an address of its own, as Gateway API asks. Tyk must be allowed to open them
// (tyk.conf's ports_whitelist, http and https, or disable_ports_whitelist).
const gatewayPortsKey = "gatewayPorts"

// maxGatewayPorts bounds the ports a RenderConfig may give: each is a port the Tyk Pods may listen on.
const maxGatewayPorts = 4096

// ParsePorts reads a list of ports and ranges, "20100-20149,20200", into the ports, ascending, each once.
func ParsePorts(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		from, to, isRange := strings.Cut(part, "-")
		a, err := port(from)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = port(to); err != nil {
				return nil, err
			}
			if b < a {
				return nil, fmt.Errorf("the range %s ends before it starts", part)
			}
		}
		if len(out)+b-a+1 > maxGatewayPorts {
			return nil, fmt.Errorf("more than %d ports", maxGatewayPorts)
		}
		for p := a; p <= b; p++ {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("must list ports or ranges of ports, such as 20100-20149,20200")
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func port(s string) (int, error) {
	p, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || p < 1 || p > 65535 {
		return 0, fmt.Errorf("%q is not a port (1 to 65535)", strings.TrimSpace(s))
	}
	return p, nil
}
