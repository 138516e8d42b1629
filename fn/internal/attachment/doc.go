// Package attachment owns the Gateway API semantics of the render, free of Tyk and of YAML: which
// GatewayClasses and Gateways are ours and whether they are accepted, which listeners are valid, which routes
// attach to which listeners (parentRef matching, allowedRoutes, kinds, hostname intersection), how many routes
// each listener has, and which backend and certificate references resolve (ReferenceGrant included).
//
// What is implementation-specific (what a GatewayClass's parametersRef must point at, which Service fronts a
// Gateway's data plane) comes in through the Environment interface, so the rules here stand alone and are
// tested alone. Every decision is recorded as Gateway API conditions on the result; nothing is written back to
// the inventory.
package attachment
