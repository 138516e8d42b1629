package conformance

// The conformance tests, each with the status assertions of its Go file in the suite (Source), in the order the
// Go code makes them; the t.Run names are the suite's. Requests sent through the Gateway (http.Make...Request)
// are not repeated here.

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

const (
	condTrue  = metav1.ConditionTrue
	condFalse = metav1.ConditionFalse
)

var conformanceTests = []conformanceTest{
	// ---- HTTPRoute backend references ----
	{
		ShortName: "HTTPRouteInvalidCrossNamespaceBackendRef",
		Source:    "tests/httproute-invalid-cross-namespace-backend-ref.go",
		Manifests: []string{"tests/httproute-invalid-cross-namespace-backend-ref.yaml"},
		Test: func(t *testing.T, w *world) {
			routeNN := nsName(infraNamespace, "invalid-cross-namespace-backend-ref")
			gwNN := nsName(infraNamespace, "same-namespace")
			gatewayAndHTTPRoutesMustBeAccepted(t, w, gwNN, nil, routeNN)
			t.Run("HTTPRoute with a cross-namespace BackendRef and no ReferenceGrant has a ResolvedRefs Condition with status False and Reason RefNotPermitted", func(t *testing.T) {
				httpRouteMustHaveCondition(t, w, routeNN, gwNN, cond("ResolvedRefs", condFalse, "RefNotPermitted"))
			})
			// "HTTP Request to invalid cross-namespace backend must receive a 500": traffic, not checked here.
		},
	},
	{
		ShortName: "HTTPRouteInvalidNonExistentBackendRef",
		Source:    "tests/httproute-invalid-nonexistent-backendref.go",
		Manifests: []string{"tests/httproute-invalid-nonexistent-backendref.yaml"},
		Test: func(t *testing.T, w *world) {
			routeNN := nsName(infraNamespace, "invalid-nonexistent-backend-ref")
			gwNN := nsName(infraNamespace, "same-namespace")
			gatewayAndHTTPRoutesMustBeAccepted(t, w, gwNN, nil, routeNN)
			t.Run("HTTPRoute with only a nonexistent BackendRef has a ResolvedRefs Condition with status False and Reason BackendNotFound", func(t *testing.T) {
				httpRouteMustHaveCondition(t, w, routeNN, gwNN, cond("ResolvedRefs", condFalse, "BackendNotFound"))
			})
			// "HTTP Request to invalid nonexistent backend receive a 500": traffic.
		},
	},
	{
		ShortName: "HTTPRouteInvalidBackendRefUnknownKind",
		Source:    "tests/httproute-invalid-backendref-unknown-kind.go",
		Manifests: []string{"tests/httproute-invalid-backendref-unknown-kind.yaml"},
		Test: func(t *testing.T, w *world) {
			routeNN := nsName(infraNamespace, "invalid-backend-ref-unknown-kind")
			gwNN := nsName(infraNamespace, "same-namespace")
			gatewayAndHTTPRoutesMustBeAccepted(t, w, gwNN, nil, routeNN)
			t.Run("HTTPRoute with Invalid Kind has a ResolvedRefs Condition with status False and Reason InvalidKind", func(t *testing.T) {
				httpRouteMustHaveCondition(t, w, routeNN, gwNN, cond("ResolvedRefs", condFalse, "InvalidKind"))
			})
			// "HTTP Request to invalid backend with invalid Kind receives a 500": traffic.
		},
	},
	{
		ShortName: "HTTPRouteReferenceGrant",
		Source:    "tests/httproute-reference-grant.go",
		Manifests: []string{"tests/httproute-reference-grant.yaml"},
		Test: func(t *testing.T, w *world) {
			routeNN := nsName(infraNamespace, "reference-grant")
			gwNN := nsName(infraNamespace, "same-namespace")
			gatewayAndHTTPRoutesMustBeAccepted(t, w, gwNN, nil, routeNN)
			httpRouteMustHaveResolvedRefsConditionsTrue(t, w, routeNN, gwNN)
			// "Simple HTTP request should reach web-backend" and, after the ReferenceGrant is deleted, "... should
			// return 500": traffic only, no status is asserted after the deletion.
		},
	},
	{
		ShortName: "HTTPRouteInvalidReferenceGrant",
		Source:    "tests/httproute-invalid-reference-grant.go",
		Manifests: []string{"tests/httproute-invalid-reference-grant.yaml"},
		Test: func(t *testing.T, w *world) {
			routeNN := nsName(infraNamespace, "reference-grant")
			gwNN := nsName(infraNamespace, "same-namespace")
			gatewayAndHTTPRoutesMustBeAccepted(t, w, gwNN, nil, routeNN)
			t.Run("HTTPRoute with BackendRef in another namespace and no ReferenceGrant covering the Service has a ResolvedRefs Condition with status False and Reason RefNotPermitted", func(t *testing.T) {
				httpRouteMustHaveCondition(t, w, routeNN, gwNN, cond("ResolvedRefs", condFalse, "RefNotPermitted"))
			})
			// "Simple HTTP request not should reach web-backend": traffic.
		},
	},
	{
		ShortName: "HTTPRoutePartiallyInvalidViaInvalidReferenceGrant",
		Source:    "tests/httproute-partially-invalid-via-invalid-reference-grant.go",
		Manifests: []string{"tests/httproute-partially-invalid-via-invalid-reference-grant.yaml"},
		Test: func(t *testing.T, w *world) {
			routeNN := nsName(infraNamespace, "invalid-reference-grant")
			gwNN := nsName(infraNamespace, "same-namespace")
			gatewayAndHTTPRoutesMustBeAccepted(t, w, gwNN, nil, routeNN)
			t.Run("HTTPRoute with BackendRef in another namespace and no ReferenceGrant covering the Service has a ResolvedRefs Condition with status False and Reason RefNotPermitted", func(t *testing.T) {
				httpRouteMustHaveCondition(t, w, routeNN, gwNN, cond("ResolvedRefs", condFalse, "RefNotPermitted"))
			})
			// The requests to the invalid (500) and the valid sibling backend (200): traffic.
		},
	},

	// ---- HTTPRoute parent references ----
	{
		ShortName: "HTTPRouteInvalidCrossNamespaceParentRef",
		Source:    "tests/httproute-invalid-cross-namespace-parent-ref.go",
		Manifests: []string{"tests/httproute-invalid-cross-namespace-parent-ref.yaml"},
		Test: func(t *testing.T, w *world) {
			gwNN := nsName(infraNamespace, "same-namespace")
			routeNN := nsName(webBackendNamespace, "invalid-cross-namespace-parent-ref")
			httpRouteMustHaveResolvedRefsConditionsTrue(t, w, routeNN, gwNN)
			t.Run("HTTPRoute should have an Accepted: false condition with reason NotAllowedByListeners", func(t *testing.T) {
				httpRouteMustHaveCondition(t, w, routeNN, gwNN, cond("Accepted", condFalse, "NotAllowedByListeners"))
			})
			t.Run("Route should not have Parents set in status", func(t *testing.T) {
				httpRouteMustHaveNoAcceptedParents(t, w, routeNN)
			})
			t.Run("Gateway should have 0 Routes attached", func(t *testing.T) {
				gatewayMustHaveZeroRoutes(t, w, gwNN)
			})
		},
	},
	{
		ShortName: "HTTPRouteInvalidParentRefNotMatchingListenerPort",
		Source:    "tests/httproute-invalid-parentref-not-matching-listener-port.go",
		Manifests: []string{"tests/httproute-invalid-parentref-not-matching-listener-port.yaml"},
		Test: func(t *testing.T, w *world) {
			routeNN := nsName(infraNamespace, "httproute-listener-not-matching-route-port")
			gwNN := nsName(infraNamespace, "same-namespace")
			httpRouteMustHaveResolvedRefsConditionsTrue(t, w, routeNN, gwNN)
			t.Run("HTTPRoute with no matching port in ParentRef has an Accepted Condition with status False and Reason NoMatchingParent", func(t *testing.T) {
				httpRouteMustHaveCondition(t, w, routeNN, gwNN, cond("Accepted", condFalse, "NoMatchingParent"))
			})
			t.Run("Route should not have Parents accepted in status", func(t *testing.T) {
				httpRouteMustHaveNoAcceptedParents(t, w, routeNN)
			})
			t.Run("Gateway should have 0 Routes attached", func(t *testing.T) {
				gatewayMustHaveZeroRoutes(t, w, gwNN)
			})
		},
	},
	{
		ShortName: "HTTPRouteInvalidParentRefNotMatchingSectionName",
		Source:    "tests/httproute-invalid-parentref-not-matching-section-name.go",
		Manifests: []string{"tests/httproute-invalid-parentref-not-matching-section-name.yaml"},
		Test: func(t *testing.T, w *world) {
			routeNN := nsName(infraNamespace, "httproute-listener-not-matching-section-name")
			gwNN := nsName(infraNamespace, "same-namespace")
			t.Run("HTTPRoute with no matching sectionName in ParentRef has an Accepted Condition with status False and Reason NoMatchingParent", func(t *testing.T) {
				httpRouteMustHaveCondition(t, w, routeNN, gwNN, cond("Accepted", condFalse, "NoMatchingParent"))
			})
			t.Run("Route should not have Parents accepted in status", func(t *testing.T) {
				httpRouteMustHaveNoAcceptedParents(t, w, routeNN)
			})
			t.Run("Gateway should have 0 Routes attached", func(t *testing.T) {
				gatewayMustHaveZeroRoutes(t, w, gwNN)
			})
		},
	},
	{
		ShortName: "HTTPRouteInvalidParentRefSectionNameNotMatchingPort",
		Source:    "tests/httproute-invalid-parentref-section-name-not-matching-port.go",
		Manifests: []string{"tests/httproute-invalid-parentref-section-name-not-matching-port.yaml"},
		Test: func(t *testing.T, w *world) {
			routeNN := nsName(infraNamespace, "httproute-listener-section-name-not-matching-port")
			gwNN := nsName(infraNamespace, "gateway-with-one-not-matching-port-and-section-name-route")
			t.Run("HTTPRoute with sectionName does not match Port in ParentRef has an Accepted Condition with status False and Reason NoMatchingParent", func(t *testing.T) {
				httpRouteMustHaveCondition(t, w, routeNN, gwNN, cond("Accepted", condFalse, "NoMatchingParent"))
			})
			t.Run("Route should not have Parents accepted in status", func(t *testing.T) {
				httpRouteMustHaveNoAcceptedParents(t, w, routeNN)
			})
			t.Run("Gateway should have 0 Routes attached", func(t *testing.T) {
				gatewayMustHaveZeroRoutes(t, w, gwNN)
			})
		},
	},
	{
		ShortName: "HTTPRouteDisallowedKind",
		Source:    "tests/httproute-disallowed-kind.go",
		Manifests: []string{"tests/httproute-disallowed-kind.yaml"},
		Test: func(t *testing.T, w *world) {
			// The suite runs this test only for implementations that claim SupportTLSRoute (its Features), which
			// Tyk does not: its readiness precondition (the TLS-only Gateway tlsroutes-only Accepted True) cannot
			// hold here, since a Gateway with no HTTP/HTTPS listener is Accepted False ListenersNotValid. The route
			// checks below do not depend on TLSRoute support, so they are kept.
			routeNN := nsName(infraNamespace, "disallowed-kind")
			gwNN := nsName(infraNamespace, "tlsroutes-only")
			httpRouteMustHaveResolvedRefsConditionsTrue(t, w, routeNN, gwNN)
			t.Run("Route should not have been accepted with reason NotAllowedByListeners", func(t *testing.T) {
				httpRouteMustHaveCondition(t, w, routeNN, gwNN, cond("Accepted", condFalse, "NotAllowedByListeners"))
			})
			t.Run("Route should not have Parents set in status", func(t *testing.T) {
				httpRouteMustHaveNoAcceptedParents(t, w, routeNN)
			})
			t.Run("Gateway should have 0 Routes attached", func(t *testing.T) {
				gatewayMustHaveZeroRoutes(t, w, gwNN)
			})
		},
	},

	// ---- HTTPRoute hostnames and listeners ----
	{
		ShortName: "HTTPRouteHostnameIntersection",
		Source:    "tests/httproute-hostname-intersection.go",
		Manifests: []string{"tests/httproute-hostname-intersection.yaml"},
		Test: func(t *testing.T, w *world) {
			ns := infraNamespace
			gwNN := nsName(ns, "httproute-hostname-intersection")
			namespacesMustBeReady(t, w, []string{ns})

			t.Run("HTTPRoutes that do intersect with listener hostnames", func(t *testing.T) {
				routes := []types.NamespacedName{
					nsName(ns, "specific-host-matches-listener-specific-host"),
					nsName(ns, "specific-host-matches-listener-wildcard-host"),
					nsName(ns, "wildcard-host-matches-listener-specific-host"),
					nsName(ns, "wildcard-host-matches-listener-wildcard-host"),
				}
				gatewayAndHTTPRoutesMustBeAccepted(t, w, gwNN, nil, routes...)
				for _, routeNN := range routes {
					httpRouteMustHaveResolvedRefsConditionsTrue(t, w, routeNN, gwNN)
				}
				// The requests per host and path: traffic.
			})

			t.Run("HTTPRoutes that do not intersect with listener hostnames", func(t *testing.T) {
				gatewayAndHTTPRoutesMustBeAccepted(t, w, gwNN, nil)
				routeNN := nsName(ns, "no-intersecting-hosts")
				httpRouteMustHaveParents(t, w, routeNN, []gwv1.RouteParentStatus{{
					ParentRef:      parentRefTo(gwNN),
					ControllerName: controllerName,
					Conditions:     []metav1.Condition{cond("Accepted", condFalse, "NoMatchingListenerHostname")},
				}}, true)
				// The requests that must get 404: traffic.
			})

			t.Run("HTTPRoutes have to be counted in AttachedRoutes only if they are Accepted", func(t *testing.T) {
				accepted := []metav1.Condition{cond("Accepted", condTrue, ""), cond("ResolvedRefs", condTrue, "")}
				gatewayStatusMustHaveListeners(t, w, gwNN, []gwv1.ListenerStatus{
					// specific-host-matches-listener-specific-host and wildcard-host-matches-listener-specific-host
					listener("listener-1", httpRouteKind, 2, accepted...),
					listener("listener-2", httpRouteKind, 1, accepted...),
					listener("listener-3", httpRouteKind, 1, accepted...), // wildcard-host-matches-listener-wildcard-host
				})
			})

			t.Run("HTTPRoutes intersects with an unspecified hostname listener", func(t *testing.T) {
				routeNN := nsName(ns, "httproute-hostname-intersection-all")
				gwNN := nsName(ns, "httproute-hostname-intersection-all")
				gatewayAndHTTPRoutesMustBeAccepted(t, w, gwNN, nil, routeNN)
				httpRouteMustHaveResolvedRefsConditionsTrue(t, w, routeNN, gwNN)
				// The requests per host: traffic.
			})
		},
	},
	{
		ShortName: "HTTPRouteListenerHostnameMatching",
		Source:    "tests/httproute-listener-hostname-matching.go",
		Manifests: []string{"tests/httproute-listener-hostname-matching.yaml"},
		Test: func(t *testing.T, w *world) {
			ns := infraNamespace
			namespacesMustBeReady(t, w, []string{ns})
			routeNN1, routeNN2, routeNN3 := nsName(ns, "backend-v1"), nsName(ns, "backend-v2"), nsName(ns, "backend-v3")
			gwNN := nsName(ns, "httproute-listener-hostname-matching")

			gatewayAndHTTPRoutesMustBeAccepted(t, w, gwNN, []string{"listener-1"}, routeNN1)
			httpRouteMustHaveResolvedRefsConditionsTrue(t, w, routeNN1, gwNN)
			gatewayAndHTTPRoutesMustBeAccepted(t, w, gwNN, []string{"listener-2"}, routeNN2)
			httpRouteMustHaveResolvedRefsConditionsTrue(t, w, routeNN2, gwNN)
			gatewayAndHTTPRoutesMustBeAccepted(t, w, gwNN, []string{"listener-3", "listener-4"}, routeNN3)
			httpRouteMustHaveResolvedRefsConditionsTrue(t, w, routeNN3, gwNN)
			// The requests per host: traffic.
		},
	},
	{
		ShortName: "HTTPRouteListenerPortMatching",
		Source:    "tests/httproute-listener-port-matching.go",
		Manifests: []string{"tests/httproute-listener-port-matching.yaml"},
		Test: func(t *testing.T, w *world) {
			ns := infraNamespace
			namespacesMustBeReady(t, w, []string{ns})
			routeNN1, routeNN2, routeNN3 := nsName(ns, "backend-v1"), nsName(ns, "backend-v2"), nsName(ns, "backend-v3")
			gwNN := nsName(ns, "httproute-listener-port-matching")

			gatewayAndHTTPRoutesMustBeAccepted(t, w, gwNN, []string{"listener-1"}, routeNN1)
			httpRouteMustHaveResolvedRefsConditionsTrue(t, w, routeNN1, gwNN)
			gatewayAndHTTPRoutesMustBeAccepted(t, w, gwNN, []string{"listener-2"}, routeNN2)
			httpRouteMustHaveResolvedRefsConditionsTrue(t, w, routeNN2, gwNN)
			gatewayAndHTTPRoutesMustBeAccepted(t, w, gwNN, []string{"listener-4"}, routeNN3)
			httpRouteMustHaveResolvedRefsConditionsTrue(t, w, routeNN3, gwNN)
			// The requests per host and port: traffic.
		},
	},

	// ---- Gateway listeners ----
	{
		ShortName: "GatewayInvalidRouteKind",
		Source:    "tests/gateway-invalid-route-kind.go",
		Manifests: []string{"tests/gateway-invalid-route-kind.yaml"},
		Test: func(t *testing.T, w *world) {
			invalidKinds := cond("ResolvedRefs", condFalse, "InvalidRouteKinds")
			t.Run("Gateway listener should have a false ResolvedRefs condition with reason InvalidRouteKinds and no supportedKinds", func(t *testing.T) {
				gatewayStatusMustHaveListeners(t, w, nsName(infraNamespace, "gateway-only-invalid-route-kind"),
					[]gwv1.ListenerStatus{listener("http", noKinds, 0, invalidKinds)})
			})
			t.Run("Gateway listener should have a false ResolvedRefs condition with reason InvalidRouteKinds and HTTPRoute must be put in the supportedKinds", func(t *testing.T) {
				gatewayStatusMustHaveListeners(t, w, nsName(infraNamespace, "gateway-supported-and-invalid-route-kind"),
					[]gwv1.ListenerStatus{listener("http", httpRouteKind, 0, invalidKinds)})
			})
		},
	},
	{
		ShortName: "GatewayListenerUnsupportedProtocol",
		Source:    "tests/gateway-invalid-listeners-unsupported-protocol.go",
		Manifests: []string{"tests/gateway-invalid-listeners-unsupported-protocol.yaml"},
		Test: func(t *testing.T, w *world) {
			unsupported := listener("invalid", noKinds, 0, cond("Accepted", condFalse, "UnsupportedProtocol"))
			t.Run("Gateway with no accepted listeners should not be accepted and the listener should have the Accepted condition set to False with reason UnsupportedProtocol", func(t *testing.T) {
				gwNN := nsName(infraNamespace, "gateway-only-unsupported-protocols")
				gatewayMustHaveLatestConditions(t, w, gwNN)
				gatewayMustHaveCondition(t, w, gwNN, cond("Accepted", condFalse, "ListenersNotValid"))
				gatewayStatusMustHaveListeners(t, w, gwNN, []gwv1.ListenerStatus{unsupported})
			})
			t.Run("Gateway with at least one accepted listeners should be accepted and the listeners should have the Accepted condition set accordingly", func(t *testing.T) {
				gwNN := nsName(infraNamespace, "gateway-supported-and-unsupported-protocols")
				gatewayMustHaveLatestConditions(t, w, gwNN)
				gatewayMustHaveCondition(t, w, gwNN, cond("Accepted", condTrue, "ListenersNotValid"))
				gatewayStatusMustHaveListeners(t, w, gwNN, []gwv1.ListenerStatus{
					listener("http", httpRouteKind, 0, cond("Accepted", condTrue, "Accepted")),
					unsupported,
				})
			})
		},
	},
	{
		ShortName: "GatewayWithAttachedRoutes",
		Source:    "tests/gateway-with-attached-routes.go",
		Manifests: []string{"tests/gateway-with-attached-routes.yaml"},
		Test: func(t *testing.T, w *world) {
			ready := []metav1.Condition{cond("Accepted", condTrue, ""), cond("ResolvedRefs", condTrue, "")}
			t.Run("Gateway listener should have one valid http routes attached", func(t *testing.T) {
				gatewayStatusMustHaveListeners(t, w, nsName(infraNamespace, "gateway-with-one-attached-route"),
					[]gwv1.ListenerStatus{listener("http", httpRouteKind, 1, ready...)})
			})
			t.Run("Gateway listener should have two valid http routes attached", func(t *testing.T) {
				gwNN := nsName(infraNamespace, "gateway-with-two-attached-routes")
				gatewayStatusMustHaveListeners(t, w, gwNN, []gwv1.ListenerStatus{listener("http", httpRouteKind, 2, ready...)})
				httpRouteMustHaveCondition(t, w, nsName(infraNamespace, "http-route-not-accepted"), gwNN,
					cond("Accepted", condFalse, "NoMatchingListenerHostname"))
			})
			t.Run("Gateway listener should have AttachedRoutes set even when Gateway has unresolved refs", func(t *testing.T) {
				gwNN := nsName(infraNamespace, "unresolved-gateway-with-one-attached-unresolved-route")
				gatewayStatusMustHaveListeners(t, w, gwNN, []gwv1.ListenerStatus{listener("tls", httpRouteKind, 1,
					cond("Programmed", condFalse, ""), cond("ResolvedRefs", condFalse, ""))})
				httpRouteMustHaveCondition(t, w, nsName(infraNamespace, "http-route-4"), gwNN, cond("ResolvedRefs", condFalse, ""))
			})
		},
	},
	{
		ShortName: "GatewayWithAttachedRoutesWithPort8080",
		Source:    "tests/gateway-with-attached-routes.go",
		Manifests: []string{"tests/gateway-with-attached-routes-with-port-8080.yaml"},
		Test: func(t *testing.T, w *world) {
			ready := []metav1.Condition{cond("Accepted", condTrue, ""), cond("ResolvedRefs", condTrue, "")}
			t.Run("Gateway listener should have attached route by specifying the sectionName", func(t *testing.T) {
				gatewayStatusMustHaveListeners(t, w, nsName(infraNamespace, "gateway-with-two-listeners-and-one-attached-route"),
					[]gwv1.ListenerStatus{
						listener("http-unattached", httpRouteKind, 0, ready...),
						listener("http", httpRouteKind, 1, ready...),
					})
			})
		},
	},

	// ---- Gateway TLS certificates ----
	{
		ShortName: "GatewayInvalidTLSConfiguration",
		Source:    "tests/gateway-invalid-tls-configuration.go",
		Manifests: []string{"tests/gateway-invalid-tls-configuration.yaml"},
		Test: func(t *testing.T, w *world) {
			listeners := []gwv1.ListenerStatus{listener("https", httpRouteKind, 0, cond("ResolvedRefs", condFalse, "InvalidCertificateRef"))}
			for _, tc := range []struct{ name, gateway string }{
				{"Nonexistent secret referenced as CertificateRef in a Gateway listener", "gateway-certificate-nonexistent-secret"},
				{"Unsupported group resource referenced as CertificateRef in a Gateway listener", "gateway-certificate-unsupported-group"},
				{"Unsupported kind resource referenced as CertificateRef in a Gateway listener", "gateway-certificate-unsupported-kind"},
				{"Malformed secret referenced as CertificateRef in a Gateway listener", "gateway-certificate-malformed-secret"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					gatewayStatusMustHaveListeners(t, w, nsName(infraNamespace, tc.gateway), listeners)
				})
			}
		},
	},
	{
		ShortName: "GatewaySecretMissingReferenceGrant",
		Source:    "tests/gateway-secret-missing-reference-grant.go",
		Manifests: []string{"tests/gateway-secret-missing-reference-grant.yaml"},
		Test: func(t *testing.T, w *world) {
			t.Run("Gateway listener should have a false ResolvedRefs condition with reason RefNotPermitted", func(t *testing.T) {
				gatewayStatusMustHaveListeners(t, w, nsName(infraNamespace, "gateway-secret-missing-reference-grant"),
					[]gwv1.ListenerStatus{listener("https", httpRouteKind, 0, cond("ResolvedRefs", condFalse, "RefNotPermitted"))})
			})
		},
	},
	{
		ShortName: "GatewaySecretInvalidReferenceGrant",
		Source:    "tests/gateway-secret-invalid-reference-grant.go",
		Manifests: []string{"tests/gateway-secret-invalid-reference-grant.yaml"},
		Test: func(t *testing.T, w *world) {
			t.Run("Gateway listener should have a false ResolvedRefs condition with reason RefNotPermitted", func(t *testing.T) {
				gatewayStatusMustHaveListeners(t, w, nsName(infraNamespace, "gateway-secret-invalid-reference-grant"),
					[]gwv1.ListenerStatus{listener("https", httpRouteKind, 0, cond("ResolvedRefs", condFalse, "RefNotPermitted"))})
			})
		},
	},
	{
		ShortName: "GatewaySecretReferenceGrantAllInNamespace",
		Source:    "tests/gateway-secret-reference-grant-all-in-namespace.go",
		Manifests: []string{"tests/gateway-secret-reference-grant-all-in-namespace.yaml"},
		Test: func(t *testing.T, w *world) {
			t.Run("Gateway listener should have a true ResolvedRefs condition and a true Programmed condition", func(t *testing.T) {
				gatewayStatusMustHaveListeners(t, w, nsName(infraNamespace, "gateway-secret-reference-grant-all-in-namespace"),
					[]gwv1.ListenerStatus{listener("https", httpRouteKind, 0,
						cond("Programmed", condTrue, "Programmed"), cond("ResolvedRefs", condTrue, ""))})
			})
		},
	},
	{
		ShortName: "GatewaySecretReferenceGrantSpecific",
		Source:    "tests/gateway-secret-reference-grant-specific.go",
		Manifests: []string{"tests/gateway-secret-reference-grant-specific.yaml"},
		Test: func(t *testing.T, w *world) {
			t.Run("Gateway listener should have a true ResolvedRefs condition and a true Programmed condition", func(t *testing.T) {
				gatewayStatusMustHaveListeners(t, w, nsName(infraNamespace, "gateway-secret-reference-grant-specific"),
					[]gwv1.ListenerStatus{listener("https", httpRouteKind, 0,
						cond("Programmed", condTrue, "Programmed"), cond("ResolvedRefs", condTrue, ""))})
			})
		},
	},
}
