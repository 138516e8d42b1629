// Package yamlrand makes random yaml.Node trees for the tests that hold a direct writer to a YAML library's own
// output (directyaml to yaml.v3's encoder, kustomization's yaml.v2 input to JSONToYAML): nested mappings and
// sequences, empty ones now and then, scalars drawn from a test's corpus with random styles and tags.
package yamlrand

import (
	"math/rand/v2"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Gen describes the trees to make.
type Gen struct {
	R *rand.Rand
	// Scalars are the values and Keys the usual keys; a key is drawn from Scalars one time in KeyFromScalars.
	Scalars, Keys  []string
	KeyFromScalars int
	// Styles and Tags are drawn for a value one time in ValueOdds, for a key one time in KeyOdds.
	Styles    []yaml.Style
	Tags      []string
	ValueOdds int
	KeyOdds   int
	// Odd, when set, makes a collection flow-style, tags a mapping !!map and puts a line comment on a scalar
	// now and then.
	Odd bool
	// Scalar, when set, may change a scalar once made (for example to tag it as the parser would).
	Scalar func(r *rand.Rand, n *yaml.Node)
	// Comments, when set, puts a head, line or foot comment on a node (key, value or item) one time in Comments;
	// Flow, when set, makes a collection flow-style one time in Flow.
	Comments, Flow int
}

// decorate gives a node the comment and style drawn for it.
func (g *Gen) decorate(n *yaml.Node) *yaml.Node {
	if g.Flow > 0 && n.Kind != yaml.ScalarNode && g.R.IntN(g.Flow) == 0 {
		n.Style = yaml.FlowStyle
	}
	if g.Comments > 0 && g.R.IntN(g.Comments) == 0 {
		switch g.R.IntN(3) {
		case 0:
			n.HeadComment = "# head"
		case 1:
			n.LineComment = "# line"
		default:
			n.FootComment = "# foot"
		}
	}
	return n
}

// Mapping makes a mapping of the given depth (deeper ones hold only scalars).
func (g *Gen) Mapping(depth int) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for range g.size() {
		n.Content = append(n.Content, g.scalar(true), g.node(depth))
	}
	if g.Odd && g.R.IntN(40) == 0 {
		n.Style = yaml.FlowStyle
	}
	if g.Odd && g.R.IntN(30) == 0 {
		n.Tag = "!!map"
	}
	return g.decorate(n)
}

func (g *Gen) node(depth int) *yaml.Node {
	switch k := g.R.IntN(5); {
	case depth > 3 || k < 2:
		return g.scalar(false)
	case k < 4:
		return g.Mapping(depth + 1)
	default:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for range g.size() {
			n.Content = append(n.Content, g.node(depth+1))
		}
		if g.Odd && g.R.IntN(40) == 0 {
			n.Style = yaml.FlowStyle
		}
		return g.decorate(n)
	}
}

// size is the number of entries of a collection: now and then none.
func (g *Gen) size() int {
	if g.R.IntN(12) == 0 {
		return 0
	}
	return 1 + g.R.IntN(4)
}

func (g *Gen) scalar(key bool) *yaml.Node {
	r := g.R
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: g.Scalars[r.IntN(len(g.Scalars))]}
	odds := g.ValueOdds
	if key {
		odds = g.KeyOdds
		if r.IntN(g.KeyFromScalars) > 0 {
			n.Value = g.Keys[r.IntN(len(g.Keys))]
		}
	}
	if r.IntN(odds) == 0 {
		n.Style = g.Styles[r.IntN(len(g.Styles))]
	}
	if r.IntN(odds) == 0 {
		n.Tag = g.Tags[r.IntN(len(g.Tags))]
	}
	if g.Odd && r.IntN(80) == 0 {
		n.LineComment = "# c"
	}
	if g.Scalar != nil {
		g.Scalar(r, n)
	}
	return g.decorate(n)
}
