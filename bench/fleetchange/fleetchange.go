// Package fleetchange makes the "after" of a pull request on a generated fleet (bench/resourcelist): the same
// ResourceList with a few routes changed, for the benchmark of gateway2tyk diff. The change is a request header
// set on the first rule of evenly spread routes, so each changed route changes its APIs and nothing else.
package fleetchange

import (
	"bytes"
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Change returns the ResourceList with n of its HTTPRoutes changed, spread evenly over the routes.
func Change(resourceList []byte, n int) ([]byte, error) {
	rw := &kio.ByteReadWriter{Reader: bytes.NewReader(resourceList), KeepReaderAnnotations: true}
	items, err := rw.Read()
	if err != nil {
		return nil, err
	}
	var routes []*yaml.RNode
	for _, it := range items {
		if it.GetKind() == "HTTPRoute" {
			routes = append(routes, it)
		}
	}
	if n > len(routes) {
		return nil, fmt.Errorf("fleetchange: %d routes to change, the fleet has %d", n, len(routes))
	}
	for i := 0; i < n; i++ {
		route := routes[i*len(routes)/n]
		header, err := yaml.Parse(fmt.Sprintf("{name: X-Changed, value: \"%d\"}", i))
		if err != nil {
			return nil, err
		}
		// A rule holds one RequestHeaderModifier at most (a CRD rule): the header joins the rule's own when it
		// has one.
		rule, err := route.Pipe(yaml.Lookup("spec", "rules", "0"))
		if err != nil || rule == nil {
			return nil, fmt.Errorf("fleetchange: %s: no rule to change", route.GetName())
		}
		filters, err := rule.Pipe(yaml.LookupCreate(yaml.SequenceNode, "filters"))
		if err != nil {
			return nil, err
		}
		modifier, err := filters.Pipe(yaml.MatchElement("type", "RequestHeaderModifier"))
		if err != nil {
			return nil, err
		}
		if modifier == nil {
			if modifier, err = yaml.Parse("type: RequestHeaderModifier\nrequestHeaderModifier: {}\n"); err != nil {
				return nil, err
			}
			if err := filters.PipeE(yaml.Append(modifier.YNode())); err != nil {
				return nil, err
			}
		}
		if err := modifier.PipeE(yaml.LookupCreate(yaml.SequenceNode, "requestHeaderModifier", "set"),
			yaml.Append(header.YNode())); err != nil {
			return nil, fmt.Errorf("fleetchange: %s: %w", route.GetName(), err)
		}
	}
	var out bytes.Buffer
	rw.Writer = &out
	if err := rw.Write(items); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
