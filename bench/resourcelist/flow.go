package resourcelist

import (
	"bytes"
	"fmt"
	"io"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// maxFlowScalars is the most scalars a mapping or sequence may hold to be written in flow style: what fits on a
// line, as in examples/ (`parentRefs: [{name: edge, namespace: gateways}]`).
const maxFlowScalars = 8

// Flow rewrites a ResourceList the way people write YAML by hand: inside each item's spec, every mapping or
// sequence of at most maxFlowScalars scalars in flow style; a comment above each HTTPRoute's rules and on the
// line of each of its hostnames. Parsing and writing it is kyaml's, so the result reads back as the same objects.
func Flow(w io.Writer, r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	rl, err := yaml.Parse(string(data))
	if err != nil {
		return err
	}
	items, err := rl.Pipe(yaml.Lookup("items"))
	if err != nil || items == nil {
		return fmt.Errorf("no items: %v", err)
	}
	elems, err := items.Elements()
	if err != nil {
		return err
	}
	for _, it := range elems {
		spec := it.Field("spec")
		if spec == nil {
			continue
		}
		flowSmall(spec.Value.YNode())
		if it.GetKind() != "HTTPRoute" {
			continue
		}
		if rules := spec.Value.Field("rules"); rules != nil {
			rules.Key.YNode().HeadComment = "# one rule for each version of the API"
		}
		if hosts := spec.Value.Field("hostnames"); hosts != nil && hosts.Value.YNode().Style != yaml.FlowStyle {
			for _, h := range hosts.Value.YNode().Content {
				h.LineComment = "# owned by the team"
			}
		}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(rl.YNode()); err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}

// flowSmall sets flow style on the small collections below n (n itself stays block, as a spec is written).
func flowSmall(n *yaml.Node) {
	for _, c := range n.Content {
		if c.Kind != yaml.MappingNode && c.Kind != yaml.SequenceNode {
			continue
		}
		if scalars(c) <= maxFlowScalars {
			c.Style = yaml.FlowStyle
			continue
		}
		flowSmall(c)
	}
}

func scalars(n *yaml.Node) int {
	if n.Kind == yaml.ScalarNode {
		return 1
	}
	total := 0
	for _, c := range n.Content {
		total += scalars(c)
	}
	return total
}
