package fn

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/config"
	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/hook"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/parallel"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/status"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
	"github.com/gateway2tyk/gateway2tyk/fn/read"
	"github.com/gateway2tyk/gateway2tyk/fn/translate"
)

// emitAPIs builds the output objects of every API, in API ID order. The APIs are independent: their documents
// are encoded on every core (parallel.Map keeps the order), unless TranslateEncoded already did, and the
// conditions of each parent are encoded once.
func emitAPIs(tr *translate.Output, cfg config.Spec) ([]*yaml.RNode, []*sizeLimit, error) {
	conds := parentConditions(tr)
	condJSON := map[*attachment.Parent]string{}
	for _, api := range tr.APIs {
		if _, done := condJSON[api.Parent]; done {
			continue
		}
		cj, err := status.Encode(conds[api.Parent])
		if err != nil {
			return nil, nil, err
		}
		condJSON[api.Parent] = cj
	}
	type built struct {
		nodes []*yaml.RNode
		limit *sizeLimit
		err   error
	}
	all := parallel.Map(len(tr.APIs), func(i int) built {
		api := tr.APIs[i]
		doc, err := api.Final()
		if err != nil {
			return built{err: err}
		}
		api.Encoded = nil // held by the ConfigMap from here
		hr, gw := api.Route.Route, api.Parent.Gateway.Gateway
		e := emit.API{
			ID: api.ID, Namespace: hr.Namespace,
			Route: hr.Namespace + "/" + hr.Name, Gateway: gw.Namespace + "/" + gw.Name,
			Hostname: api.Hostname, Path: api.Path, Role: api.RoleAnnotation(), Owner: cfg.Owner, Conditions: condJSON[api.Parent], Document: doc,
		}
		cm, err := emit.ConfigMap(e)
		if err != nil {
			return built{err: err}
		}
		route := inventory.Key{Group: inventory.GatewayGroup, Kind: inventory.KindHTTPRoute, Namespace: hr.Namespace, Name: hr.Name}
		limit := checkSize(route, e, len(doc), cm.MarshalJSON)
		if cfg.Output != config.OutputTykOasApiDefinition {
			return built{nodes: []*yaml.RNode{cm}, limit: limit}
		}
		def, err := emit.TykOasApiDefinition(e)
		if err != nil {
			return built{err: err}
		}
		return built{nodes: []*yaml.RNode{cm, def}, limit: limit}
	})
	var out []*yaml.RNode
	var limits []*sizeLimit
	for _, b := range all {
		if b.err != nil {
			return nil, nil, b.err
		}
		out = append(out, b.nodes...)
		if b.limit != nil {
			limits = append(limits, b.limit)
		}
	}
	return out, limits, nil
}

// upsert replaces the objects of an earlier run (APIs and the sync hook) with this run's.
func upsert(items, emitted []*yaml.RNode) []*yaml.RNode {
	return emit.Upsert(hook.Without(items), emitted)
}

// hookAPIs is what the sync hook needs of the APIs: their namespaces and Gateways.
func hookAPIs(tr *translate.Output) []hook.API {
	out := make([]hook.API, 0, len(tr.APIs))
	for _, api := range tr.APIs {
		out = append(out, hook.API{Namespace: api.Route.Route.Namespace, Gateway: api.Parent.Gateway.Gateway})
	}
	return out
}

// dropInputs leaves out the Gateway API objects and attached TykOasApiDefinitions that were read, for
// inputs: Drop; everything else passes through. A BackendTLSPolicy or ListenerSet passes through too: the
// contract names what Drop leaves out, and these, read only to say what the render does not serve, were passed
// through before they were read.
func dropInputs(items []*yaml.RNode, in *read.Result) []*yaml.RNode {
	drop := map[*yaml.RNode]bool{}
	for key, node := range in.Nodes {
		switch {
		case key.Group == inventory.GatewayGroup && key.Kind != inventory.KindBackendTLSPolicy && key.Kind != inventory.KindListenerSet:
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
