// Package basedoc owns the TykOasApiDefinitions attached to HTTPRoutes and Gateways (policy attachment through
// spec.targetRefs): which definition applies to which target and why the others do not, reading each one's
// base document from its ConfigMap, checking that the base leaves the route's settings to the route, and
// laying the route-derived settings over the base to make the final API. It knows Tyk and the typed objects,
// not YAML.
//
// The model:
//   - a definition applies to the targets of its targetRefs (HTTPRoute or Gateway, in its own namespace);
//   - among definitions on one target, the oldest creationTimestamp, then namespace/name, wins; the others
//     are AttachmentConflict;
//   - an API gets the winner on its route, else the winner on its Gateway;
//   - the base brings what the route does not own (authentication with its securitySchemes and security,
//     global middleware, ...); a base that sets a route-owned setting is DocumentInvalid;
//   - the merge fails closed: a route whose base cannot be read or is invalid gets no API at all, never one
//     without its authentication.
package basedoc
