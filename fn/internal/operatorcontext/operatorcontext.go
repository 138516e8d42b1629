// Package operatorcontext owns what Tyk Operator reads from its OperatorContexts: whether a GatewayClass's
// parametersRef is acceptable, which OperatorContext and data-plane Service serve a Gateway, and the gateway
// tags and organisation its APIs get. It implements attachment.Environment, so the attachment stage can stay
// free of Tyk.
package operatorcontext

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/emit"
	"github.com/gateway2tyk/gateway2tyk/fn/internal/attachment"
	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
	"github.com/gateway2tyk/gateway2tyk/fn/tykapi"
	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// Environment resolves OperatorContexts from the inventory.
type Environment struct {
	inv *inventory.Inventory
	// gatewayAPI is the gateway-api profile (profile.go): a Gateway without infrastructure.parametersRef is served
	// from its GatewayClass's OperatorContext, and a data plane shared by two parents serves both; without it
	// such a Gateway has no data plane, as the reference says.
	gatewayAPI bool
	// tyk is the oldest Tyk release the APIs are for (spec.tykVersion; zero: the newest), in the gateway-api
	// profile.
	tyk tykroute.Version
	// headerNamesKept: the Tyk Gateways keep header names as written (GatewayAPIProfile).
	headerNamesKept bool
	// services are the Services the render emits for Gateways (WithGatewayServices), nil: none.
	services *servicePlan
	// labelled are the input's Services by their gateway.networking.k8s.io/gateway-name label, where
	// gatewayService looks (the gateway-api profile: GatewayAPIProfile indexes them once).
	labelled map[string][]*corev1.Service
}

var _ attachment.Environment = Environment{}

// New returns the environment of an inventory.
func New(inv *inventory.Inventory) Environment { return Environment{inv: inv} }

// ClassParameters implements the GatewayClass InvalidParameters rule of the reference: a parametersRef must
// refer to an OperatorContext (group tyk.tyk.io, kind OperatorContext) with a namespace; the OperatorContext
// must set env or secretRef, and the Secret must exist. A class without parametersRef uses the operator's own
// connection and is accepted.
func (e Environment) ClassParameters(gc *gwv1.GatewayClass) string {
	ref := gc.Spec.ParametersRef
	if ref == nil {
		return ""
	}
	if string(ref.Group) != tykapi.Group || string(ref.Kind) != tykapi.KindOperatorContext {
		return fmt.Sprintf("spec.parametersRef must refer to an OperatorContext (group %s, kind %s), not %s",
			tykapi.Group, tykapi.KindOperatorContext, describe(string(ref.Group), string(ref.Kind)))
	}
	if ref.Namespace == nil || *ref.Namespace == "" {
		return "spec.parametersRef must set the namespace of the OperatorContext"
	}
	key := types.NamespacedName{Namespace: string(*ref.Namespace), Name: ref.Name}
	ctx := e.inv.OperatorContexts[key]
	if ctx == nil {
		return fmt.Sprintf("OperatorContext %s does not exist", key)
	}
	if ctx.Spec.Env == nil && ctx.Spec.SecretRef == nil {
		return fmt.Sprintf("OperatorContext %s sets neither env nor secretRef", key)
	}
	if ctx.Spec.SecretRef != nil {
		secret := secretKey(ctx)
		if e.inv.Secrets[secret] == nil {
			return fmt.Sprintf("Secret %s (spec.secretRef of OperatorContext %s) does not exist; give it as a "+
				"config.kubernetes.io/local-config object if it is created outside the repository", secret, key)
		}
	}
	return ""
}

// Infrastructure implements the Gateway rows of the reference: the OperatorContext of
// infrastructure.parametersRef must be readable (else Invalid); without one, or without its
// dataPlane.serviceRef, or when that Service does not exist, the Gateway has no address (UnsupportedAddress).
// In the gateway-api profile a Gateway's own Service (gatewayservice.go), given or emitted, fronts it.
func (e Environment) Infrastructure(gw *gwv1.Gateway) attachment.Infrastructure {
	svc, infra := e.dataPlaneService(gw)
	if svc == nil {
		return infra
	}
	own := e.gatewayService(gw, svc)
	if own != nil && emit.Ours(own.Labels) == emit.NotOurs {
		return attachment.Infrastructure{Service: own, DataPlane: svc, AddressesRequested: e.gatewayAPI}
	}
	if e.services != nil {
		key := types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}
		if planned := e.services.byGateway[key]; planned != nil {
			return attachment.Infrastructure{Service: planned, DataPlane: svc, AddressesRequested: e.gatewayAPI}
		}
		if why := e.services.short[key]; why != "" {
			return attachment.Infrastructure{NoService: why}
		}
	}
	// An earlier render's Service for the Gateway, which this one no longer emits (gatewayPorts unset), is
	// on its way out: the Gateway is served through the data plane's.
	return attachment.Infrastructure{Service: svc, AddressesRequested: e.gatewayAPI}
}

// dataPlaneService is the Service of the Tyk Pods that serve a Gateway (its OperatorContext's
// dataPlane.serviceRef), or nil and the Gateway's infrastructure saying why there is none.
func (e Environment) dataPlaneService(gw *gwv1.Gateway) (*corev1.Service, attachment.Infrastructure) {
	ctx, why := e.Context(gw)
	if why != "" { // the Gateway's own parametersRef (Context)
		return nil, attachment.Infrastructure{Invalid: why, InvalidParameters: e.gatewayAPI}
	}
	if ctx == nil {
		return nil, attachment.Infrastructure{NoService: e.noContext(gw)}
	}
	key := types.NamespacedName{Namespace: ctx.Namespace, Name: ctx.Name}.String() + e.contextOrigin(gw)
	if ctx.Spec.DataPlane == nil || ctx.Spec.DataPlane.ServiceRef == nil || ctx.Spec.DataPlane.ServiceRef.Name == "" {
		return nil, attachment.Infrastructure{NoService: fmt.Sprintf("OperatorContext %s has no dataPlane.serviceRef", key)}
	}
	svcKey := types.NamespacedName{Namespace: ctx.Namespace, Name: ctx.Spec.DataPlane.ServiceRef.Name}
	svc := e.inv.Services[svcKey]
	if svc == nil {
		return nil, attachment.Infrastructure{NoService: fmt.Sprintf("Service %s (dataPlane.serviceRef of OperatorContext %s) "+
			"does not exist; give it as a config.kubernetes.io/local-config object if it is deployed outside the repository",
			svcKey, key)}
	}
	return svc, attachment.Infrastructure{}
}

// Context returns the OperatorContext of a Gateway's infrastructure.parametersRef (in the Gateway's
// namespace), or why it cannot be read. A Gateway without parametersRef has none, and no reason; in the
// gateway-api profile it has its GatewayClass's, if that has one (classContext).
func (e Environment) Context(gw *gwv1.Gateway) (*tykapi.OperatorContext, string) {
	if gw.Spec.Infrastructure == nil || gw.Spec.Infrastructure.ParametersRef == nil {
		if e.gatewayAPI {
			return e.classContext(gw), ""
		}
		return nil, ""
	}
	ref := gw.Spec.Infrastructure.ParametersRef
	if string(ref.Group) != tykapi.Group || string(ref.Kind) != tykapi.KindOperatorContext {
		return nil, fmt.Sprintf("spec.infrastructure.parametersRef must refer to an OperatorContext (group %s, kind %s), not %s",
			tykapi.Group, tykapi.KindOperatorContext, describe(string(ref.Group), string(ref.Kind)))
	}
	key := types.NamespacedName{Namespace: gw.Namespace, Name: ref.Name}
	ctx := e.inv.OperatorContexts[key]
	if ctx == nil {
		return nil, fmt.Sprintf("OperatorContext %s (spec.infrastructure.parametersRef) does not exist", key)
	}
	return ctx, ""
}

// Tags returns the dataPlane.tags that the APIs of a Gateway carry, or nil.
func (e Environment) Tags(gw *gwv1.Gateway) []string {
	ctx, _ := e.Context(gw)
	if ctx == nil || ctx.Spec.DataPlane == nil {
		return nil
	}
	return ctx.Spec.DataPlane.Tags
}

// Org is the Tyk organisation of a Gateway's APIs, for certificate IDs: the env.org of the Gateway's own
// OperatorContext, else of its GatewayClass's, else the TYK_ORG key of that context's Secret when the input
// carries it; "" when none says.
func (e Environment) Org(gw *gwv1.Gateway) string {
	if ctx, _ := e.Context(gw); ctx != nil {
		if org := e.contextOrg(ctx); org != "" {
			return org
		}
	}
	gc := e.inv.GatewayClasses[string(gw.Spec.GatewayClassName)]
	if gc == nil || gc.Spec.ParametersRef == nil || gc.Spec.ParametersRef.Namespace == nil {
		return ""
	}
	ctx := e.inv.OperatorContexts[types.NamespacedName{Namespace: string(*gc.Spec.ParametersRef.Namespace), Name: gc.Spec.ParametersRef.Name}]
	if ctx == nil {
		return ""
	}
	return e.contextOrg(ctx)
}

func (e Environment) contextOrg(ctx *tykapi.OperatorContext) string {
	if ctx.Spec.Env != nil && ctx.Spec.Env.Org != "" {
		return ctx.Spec.Env.Org
	}
	if ctx.Spec.SecretRef != nil {
		if s := e.inv.Secrets[secretKey(ctx)]; s != nil {
			return string(s.Data["TYK_ORG"])
		}
	}
	return ""
}

// Connection implements the reference's EnvironmentUnresolved: the Tyk connection of the Gateway's class must
// be readable, i.e. its OperatorContext must give a mode and a URL, in env or in its Secret (TYK_MODE,
// TYK_URL). A Secret given without data (a stand-in for one that lives in the cluster) is taken as complete;
// a class without parametersRef uses the operator's own connection.
func (e Environment) Connection(gw *gwv1.Gateway) string {
	gc := e.inv.GatewayClasses[string(gw.Spec.GatewayClassName)]
	if gc == nil || gc.Spec.ParametersRef == nil || gc.Spec.ParametersRef.Namespace == nil {
		return ""
	}
	key := types.NamespacedName{Namespace: string(*gc.Spec.ParametersRef.Namespace), Name: gc.Spec.ParametersRef.Name}
	ctx := e.inv.OperatorContexts[key]
	if ctx == nil {
		return "" // the class is not accepted, and the route not attached: reported there
	}
	var mode, url string
	if ctx.Spec.Env != nil {
		mode, url = ctx.Spec.Env.Mode, ctx.Spec.Env.URL
	}
	if ctx.Spec.SecretRef != nil {
		s := e.inv.Secrets[secretKey(ctx)]
		if s == nil || len(s.Data) == 0 {
			return ""
		}
		if mode == "" {
			mode = string(s.Data["TYK_MODE"])
		}
		if url == "" {
			url = string(s.Data["TYK_URL"])
		}
	}
	var missing []string
	if mode == "" {
		missing = append(missing, "the mode (env.mode or TYK_MODE)")
	}
	if url == "" {
		missing = append(missing, "the URL (env.url or TYK_URL)")
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("the Tyk connection of GatewayClass %s cannot be read: OperatorContext %s does not give %s",
		gc.Name, key, strings.Join(missing, " or "))
}

func secretKey(ctx *tykapi.OperatorContext) types.NamespacedName {
	ns := ctx.Spec.SecretRef.Namespace
	if ns == "" {
		ns = ctx.Namespace
	}
	return types.NamespacedName{Namespace: ns, Name: ctx.Spec.SecretRef.Name}
}

func describe(group, kind string) string {
	if group == "" {
		group = corev1.GroupName
		if group == "" {
			group = "core"
		}
	}
	return kind + " in group " + group
}
