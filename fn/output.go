package fn

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
	"github.com/gateway2tyk/gateway2tyk/fn/read"
	"github.com/gateway2tyk/gateway2tyk/fn/status"
	"github.com/gateway2tyk/gateway2tyk/fn/translate"
)

// emitAPIs builds the output objects of every API, in API ID order.
func emitAPIs(tr *translate.Output, cfg config.Spec) ([]*yaml.RNode, error) {
	conds := parentConditions(tr)
	var out []*yaml.RNode
	for _, api := range tr.APIs {
		doc, err := api.Encode()
		if err != nil {
			return nil, err
		}
		cj, err := status.Encode(conds[api.Parent])
		if err != nil {
			return nil, err
		}
		hr, gw := api.Route.Route, api.Parent.Gateway.Gateway
		e := emit.API{
			ID: api.ID, Namespace: hr.Namespace,
			Route: hr.Namespace + "/" + hr.Name, Gateway: gw.Namespace + "/" + gw.Name,
			Hostname: api.Hostname, Path: api.Path, Conditions: cj, Document: doc,
		}
		cm, err := emit.ConfigMap(e)
		if err != nil {
			return nil, err
		}
		out = append(out, cm)
		if cfg.Output == config.OutputTykOasApiDefinition {
			def, err := emit.TykOasApiDefinition(e)
			if err != nil {
				return nil, err
			}
			out = append(out, def)
		}
	}
	return out, nil
}

func upsert(items, emitted []*yaml.RNode) []*yaml.RNode { return emit.Upsert(items, emitted) }

// dropInputs leaves out the Gateway API objects and attached TykOasApiDefinitions that were read, for
// inputs: Drop; everything else passes through.
func dropInputs(items []*yaml.RNode, in *read.Result) []*yaml.RNode {
	drop := map[*yaml.RNode]bool{}
	for key, node := range in.Nodes {
		switch {
		case key.Group == inventory.GatewayGroup:
			drop[node] = true
		case key.Kind == "TykOasApiDefinition" && len(in.Inventory.TykOasApiDefinitions[key.NN()].Spec.TargetRefs) > 0:
			drop[node] = true
		}
	}
	var out []*yaml.RNode
	for _, it := range items {
		if !drop[it] {
			out = append(out, it)
		}
	}
	return out
}
