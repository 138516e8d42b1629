package attachment

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"github.com/gateway2tyk/gateway2tyk/fn/apiserver"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/inventory"
)

const (
	ctTrue  = metav1.ConditionTrue
	ctFalse = metav1.ConditionFalse
)

// Gateway Accepted, per the Gateway Conditions table of the reference and GatewayConditionAccepted.
func TestAttachGatewayAccepted(t *testing.T) {
	tests := []struct {
		name           string
		env            fakeEnv
		listeners      []gwv1.Listener
		wantAccepted   cond
		wantProgrammed *cond
		wantUsable     bool
	}{
		{
			name:         "every listener valid: Accepted True Accepted",
			listeners:    []gwv1.Listener{httpListener("web")},
			wantAccepted: cond{condAccepted, ctTrue, string(gwv1.GatewayReasonAccepted), nil},
			wantUsable:   true,
		},
		{
			name:      "some listeners valid: Accepted True ListenersNotValid naming the invalid and the valid",
			listeners: []gwv1.Listener{httpListener("web"), listener("raw", gwv1.TCPProtocolType, 80, "")},
			wantAccepted: cond{condAccepted, ctTrue, string(gwv1.GatewayReasonListenersNotValid),
				[]string{"raw", "web"}},
			wantUsable: true,
		},
		{
			name: "conflicted listeners make the Gateway ListenersNotValid even when another is valid",
			listeners: []gwv1.Listener{
				listener("a", gwv1.HTTPProtocolType, 80, ""),
				listener("b", gwv1.HTTPProtocolType, 80, ""),
				listener("c", gwv1.HTTPProtocolType, 80, "c.example.com"),
			},
			wantAccepted: cond{condAccepted, ctTrue, string(gwv1.GatewayReasonListenersNotValid),
				[]string{"a, b", "c"}},
			wantUsable: true,
		},
		{
			name:         "no listener valid: Accepted False ListenersNotValid",
			listeners:    []gwv1.Listener{listener("raw", gwv1.TCPProtocolType, 80, "")},
			wantAccepted: cond{condAccepted, ctFalse, string(gwv1.GatewayReasonListenersNotValid), []string{"raw"}},
			wantProgrammed: &cond{condProgrammed, ctFalse, string(gwv1.GatewayReasonInvalid),
				[]string{"no listener is valid"}},
			wantUsable: true,
		},
		{
			name:         "Environment says the Gateway parameters are invalid: Accepted and Programmed False Invalid",
			env:          fakeEnv{infra: &Infrastructure{Invalid: "OperatorContext tyk/ctx does not exist"}},
			listeners:    []gwv1.Listener{httpListener("web")},
			wantAccepted: cond{condAccepted, ctFalse, string(gwv1.GatewayReasonInvalid), []string{"OperatorContext tyk/ctx"}},
			wantProgrammed: &cond{condProgrammed, ctFalse, string(gwv1.GatewayReasonInvalid),
				[]string{"OperatorContext tyk/ctx"}},
		},
		{
			name: "the Gateway's own parametersRef invalid where the environment says so: Accepted False InvalidParameters",
			env: fakeEnv{infra: &Infrastructure{Invalid: "spec.infrastructure.parametersRef must refer to an OperatorContext",
				InvalidParameters: true}},
			listeners:    []gwv1.Listener{httpListener("web")},
			wantAccepted: cond{condAccepted, ctFalse, string(gwv1.GatewayReasonInvalidParameters), []string{"parametersRef"}},
			wantProgrammed: &cond{condProgrammed, ctFalse, string(gwv1.GatewayReasonInvalid),
				[]string{"parametersRef"}},
		},
		{
			name:      "class not accepted: Accepted and Programmed False Invalid naming the class",
			env:       fakeEnv{classInvalid: "parametersRef must refer to an OperatorContext"},
			listeners: []gwv1.Listener{httpListener("web")},
			wantAccepted: cond{condAccepted, ctFalse, string(gwv1.GatewayReasonInvalid),
				[]string{"GatewayClass " + testClass, "parametersRef must refer to an OperatorContext"}},
			wantProgrammed: &cond{condProgrammed, ctFalse, string(gwv1.GatewayReasonInvalid),
				[]string{"GatewayClass " + testClass}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := attach(t, tc.env, gatewayClass(), gateway(tc.listeners...))
			g := edgeOf(t, res)
			assert.Equal(t, tc.wantUsable, g.Usable, "Usable")
			assertCondition(t, g.Conditions, tc.wantAccepted)
			if tc.wantProgrammed != nil {
				assertCondition(t, g.Conditions, *tc.wantProgrammed)
			}
			for _, c := range g.Conditions {
				assert.Equal(t, int64(2), c.ObservedGeneration, "observedGeneration of %s", c.Type)
			}
		})
	}
}

// GatewayClass Accepted, per the GatewayClass Conditions table of the reference; only our classes are reported.
func TestAttachClass(t *testing.T) {
	other := &gwv1.GatewayClass{
		ObjectMeta: metav1.ObjectMeta{Name: "other"},
		Spec:       gwv1.GatewayClassSpec{ControllerName: "example.com/other"},
	}
	tests := []struct {
		name string
		env  fakeEnv
		want cond
	}{
		{"class of our controller: Accepted True Accepted", fakeEnv{},
			cond{condAccepted, ctTrue, string(gwv1.GatewayClassReasonAccepted), nil}},
		{"parameters refused by the Environment: Accepted False InvalidParameters", fakeEnv{classInvalid: "no env"},
			cond{condAccepted, ctFalse, string(gwv1.GatewayClassReasonInvalidParameters), []string{"no env"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := attach(t, tc.env, gatewayClass(), other)
			require.Contains(t, res.Classes, testClass)
			assert.NotContains(t, res.Classes, "other", "another controller's class is not ours")
			assertCondition(t, res.Classes[testClass].Conditions, tc.want)
		})
	}
}

// Gateway Programmed and addresses, per the Gateway Address table and the Gateway Conditions of the reference.
func TestAttachGatewayProgrammed(t *testing.T) {
	lb := func(ingress ...corev1.LoadBalancerIngress) *corev1.Service {
		s := dataPlaneService()
		s.Spec.Type = corev1.ServiceTypeLoadBalancer
		s.Status.LoadBalancer.Ingress = ingress
		return s
	}
	externalName := dataPlaneService()
	externalName.Spec = corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "tyk.example.net"}
	headless := dataPlaneService()
	headless.Spec.ClusterIP = corev1.ClusterIPNone
	noClusterIP := dataPlaneService()
	noClusterIP.Spec.ClusterIP = ""
	hostname := func(v string) gwv1.GatewayStatusAddress { return address(gwv1.HostnameAddressType, v) }
	ip := func(v string) gwv1.GatewayStatusAddress { return address(gwv1.IPAddressType, v) }
	programmed := string(gwv1.GatewayReasonProgrammed)

	tests := []struct {
		name          string
		infra         Infrastructure
		want          cond
		wantAddresses []gwv1.GatewayStatusAddress
	}{
		{
			name:  "no data-plane Service: Programmed False UnsupportedAddress with the Environment's reason",
			infra: Infrastructure{NoService: "the Gateway has no infrastructure.parametersRef"},
			want: cond{condProgrammed, ctFalse, string(gwv1.GatewayReasonUnsupportedAddress),
				[]string{"infrastructure.parametersRef"}},
		},
		{
			name:  "LoadBalancer with no ingress yet: Programmed False AddressNotAssigned",
			infra: Infrastructure{Service: lb()},
			want: cond{condProgrammed, ctFalse, string(gwv1.GatewayReasonAddressNotAssigned),
				[]string{"tyk/gateway", "LoadBalancer", "status.loadBalancer.ingress"}},
		},
		{
			name:          "LoadBalancer ingress hostname: Programmed True, Hostname address",
			infra:         Infrastructure{Service: lb(corev1.LoadBalancerIngress{Hostname: "lb.example.com"})},
			want:          cond{condProgrammed, ctTrue, programmed, []string{"tyk/gateway"}},
			wantAddresses: []gwv1.GatewayStatusAddress{hostname("lb.example.com")},
		},
		{
			name:          "LoadBalancer ingress IP: Programmed True, IPAddress address",
			infra:         Infrastructure{Service: lb(corev1.LoadBalancerIngress{IP: "203.0.113.7"})},
			want:          cond{condProgrammed, ctTrue, programmed, nil},
			wantAddresses: []gwv1.GatewayStatusAddress{ip("203.0.113.7")},
		},
		{
			name: "LoadBalancer with several ingress entries: one address each, hostname preferred",
			infra: Infrastructure{Service: lb(
				corev1.LoadBalancerIngress{IP: "203.0.113.7"},
				corev1.LoadBalancerIngress{Hostname: "lb.example.com", IP: "203.0.113.8"},
			)},
			want:          cond{condProgrammed, ctTrue, programmed, nil},
			wantAddresses: []gwv1.GatewayStatusAddress{ip("203.0.113.7"), hostname("lb.example.com")},
		},
		{
			name:          "ExternalName Service: the external name, and no port check",
			infra:         Infrastructure{Service: externalName},
			want:          cond{condProgrammed, ctTrue, programmed, nil},
			wantAddresses: []gwv1.GatewayStatusAddress{hostname("tyk.example.net")},
		},
		{
			name:          "headless Service: its cluster DNS name",
			infra:         Infrastructure{Service: headless},
			want:          cond{condProgrammed, ctTrue, programmed, nil},
			wantAddresses: []gwv1.GatewayStatusAddress{hostname("gateway.tyk.svc.cluster.local")},
		},
		{
			name:          "ClusterIP Service: the cluster IP",
			infra:         Infrastructure{Service: dataPlaneService()},
			want:          cond{condProgrammed, ctTrue, programmed, []string{"tyk/gateway"}},
			wantAddresses: []gwv1.GatewayStatusAddress{ip("10.0.0.10")},
		},
		{
			name:  "Service without a cluster IP in the input: Programmed False AddressNotAssigned",
			infra: Infrastructure{Service: noClusterIP},
			want: cond{condProgrammed, ctFalse, string(gwv1.GatewayReasonAddressNotAssigned),
				[]string{"spec.clusterIP"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			infra := tc.infra
			// Port 80 is exposed by every Service above that has ports.
			res := attach(t, fakeEnv{infra: &infra}, gatewayClass(), gateway(httpListener("web")))
			g := edgeOf(t, res)
			assertCondition(t, g.Conditions, tc.want)
			assert.Equal(t, tc.wantAddresses, g.Addresses)
			// Addresses do not decide acceptance.
			assertCondition(t, g.Conditions, cond{condAccepted, ctTrue, string(gwv1.GatewayReasonAccepted), nil})
		})
	}
}

// Listener conditions other than certificates, per the listener table of the reference.
func TestAttachListenerConditions(t *testing.T) {
	httpRouteKind := kind(inventory.GatewayGroup, inventory.KindHTTPRoute)
	tcpRouteKind := kind(inventory.GatewayGroup, "TCPRoute")
	externalName := dataPlaneService()
	externalName.Spec = corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "tyk.example.net"}

	tests := []struct {
		name      string
		infra     *Infrastructure
		listeners []gwv1.Listener
		check     string // listener whose conditions are checked
		want      []cond
		wantKinds []gwv1.RouteGroupKind
		serving   bool
		valid     bool
	}{
		{
			name:      "valid HTTP listener: Accepted, no conflicts, refs resolved, programmed",
			listeners: []gwv1.Listener{httpListener("web")},
			check:     "web",
			want: []cond{
				{lcAccepted, ctTrue, string(gwv1.ListenerReasonAccepted), nil},
				{lcConflicted, ctFalse, string(gwv1.ListenerReasonNoConflicts), nil},
				{lcResolvedRefs, ctTrue, string(gwv1.ListenerReasonResolvedRefs), nil},
				{lcProgrammed, ctTrue, string(gwv1.ListenerReasonProgrammed), nil},
			},
			wantKinds: []gwv1.RouteGroupKind{httpRouteKind},
			serving:   true,
			valid:     true,
		},
		{
			name:      "port the data-plane Service does not expose: Accepted False PortUnavailable",
			listeners: []gwv1.Listener{fromAll(listener("alt", gwv1.HTTPProtocolType, 9090, ""))},
			check:     "alt",
			want: []cond{
				{lcAccepted, ctFalse, string(gwv1.ListenerReasonPortUnavailable), []string{"9090", "tyk/gateway", "80, 443"}},
				{lcProgrammed, ctFalse, string(gwv1.ListenerReasonInvalid), nil},
			},
			wantKinds: []gwv1.RouteGroupKind{httpRouteKind},
		},
		{
			name:      "a Service without ports (ExternalName) makes any port available",
			infra:     &Infrastructure{Service: externalName},
			listeners: []gwv1.Listener{fromAll(listener("alt", gwv1.HTTPProtocolType, 9090, ""))},
			check:     "alt",
			want:      []cond{{lcAccepted, ctTrue, string(gwv1.ListenerReasonAccepted), nil}},
			wantKinds: []gwv1.RouteGroupKind{httpRouteKind},
			serving:   true,
			valid:     true,
		},
		{
			name:      "no data-plane Service: no port check",
			infra:     &Infrastructure{NoService: "none"},
			listeners: []gwv1.Listener{fromAll(listener("alt", gwv1.HTTPProtocolType, 9090, ""))},
			check:     "alt",
			want:      []cond{{lcAccepted, ctTrue, string(gwv1.ListenerReasonAccepted), nil}},
			wantKinds: []gwv1.RouteGroupKind{httpRouteKind},
			serving:   true,
			valid:     true,
		},
		{
			name:      "protocol other than HTTP or HTTPS: Accepted False UnsupportedProtocol, no supported kinds",
			listeners: []gwv1.Listener{listener("raw", gwv1.TCPProtocolType, 80, "")},
			check:     "raw",
			want: []cond{
				{lcAccepted, ctFalse, string(gwv1.ListenerReasonUnsupportedProtocol), []string{"TCP"}},
				{lcProgrammed, ctFalse, string(gwv1.ListenerReasonInvalid), nil},
			},
			wantKinds: []gwv1.RouteGroupKind{},
		},
		{
			name:      "only unsupported route kinds: ResolvedRefs False InvalidRouteKinds, supportedKinds empty",
			listeners: []gwv1.Listener{withKinds(httpListener("web"), tcpRouteKind)},
			check:     "web",
			want: []cond{
				{lcAccepted, ctTrue, string(gwv1.ListenerReasonAccepted), nil},
				{lcResolvedRefs, ctFalse, string(gwv1.ListenerReasonInvalidRouteKinds), []string{"TCPRoute"}},
				{lcProgrammed, ctFalse, string(gwv1.ListenerReasonInvalid), nil},
			},
			wantKinds: []gwv1.RouteGroupKind{},
			serving:   true,
		},
		{
			name:      "valid and invalid route kinds: ResolvedRefs False InvalidRouteKinds, supportedKinds the valid",
			listeners: []gwv1.Listener{withKinds(httpListener("web"), httpRouteKind, tcpRouteKind)},
			check:     "web",
			want: []cond{
				{lcResolvedRefs, ctFalse, string(gwv1.ListenerReasonInvalidRouteKinds), []string{"TCPRoute"}},
			},
			wantKinds: []gwv1.RouteGroupKind{httpRouteKind},
			serving:   true,
		},
		{
			name:      "HTTPRoute kind named with a nil group takes the default group",
			listeners: []gwv1.Listener{withKinds(httpListener("web"), gwv1.RouteGroupKind{Kind: inventory.KindHTTPRoute})},
			check:     "web",
			want:      []cond{{lcResolvedRefs, ctTrue, string(gwv1.ListenerReasonResolvedRefs), nil}},
			wantKinds: []gwv1.RouteGroupKind{httpRouteKind},
			serving:   true,
			valid:     true,
		},
		{
			name:      "HTTPRoute kind of another group is invalid",
			listeners: []gwv1.Listener{withKinds(httpListener("web"), kind("example.com", inventory.KindHTTPRoute))},
			check:     "web",
			want: []cond{
				{lcResolvedRefs, ctFalse, string(gwv1.ListenerReasonInvalidRouteKinds), []string{"HTTPRoute.example.com"}},
			},
			wantKinds: []gwv1.RouteGroupKind{},
			serving:   true,
		},
		{
			name: "HTTP and HTTPS on one port: Conflicted True ProtocolConflict and not accepted",
			listeners: []gwv1.Listener{
				httpListener("web"),
				{Name: "secure", Protocol: gwv1.HTTPSProtocolType, Port: 80},
			},
			check: "web",
			want: []cond{
				{lcAccepted, ctFalse, string(gwv1.ListenerReasonProtocolConflict), []string{"web", "secure"}},
				{lcConflicted, ctTrue, string(gwv1.ListenerReasonProtocolConflict), []string{"web", "secure"}},
				{lcProgrammed, ctFalse, string(gwv1.ListenerReasonInvalid), nil},
			},
			wantKinds: []gwv1.RouteGroupKind{httpRouteKind},
		},
		{
			name:      "two listeners on one port without hostname: Conflicted True HostnameConflict",
			listeners: []gwv1.Listener{httpListener("one"), httpListener("two")},
			check:     "two",
			want: []cond{
				{lcAccepted, ctFalse, string(gwv1.ListenerReasonHostnameConflict), nil},
				{lcConflicted, ctTrue, string(gwv1.ListenerReasonHostnameConflict), []string{"one", "two"}},
			},
			wantKinds: []gwv1.RouteGroupKind{httpRouteKind},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := attach(t, fakeEnv{infra: tc.infra}, gatewayClass(), gateway(tc.listeners...))
			l := listenerOf(t, edgeOf(t, res), tc.check)
			for _, w := range tc.want {
				assertCondition(t, l.Conditions, w)
			}
			assert.Equal(t, tc.wantKinds, l.SupportedKinds, "supportedKinds")
			assert.NotNil(t, l.SupportedKinds, "supportedKinds is [] rather than absent")
			assert.Equal(t, tc.serving, l.Serving, "Serving")
			assert.Equal(t, tc.valid, l.Valid, "Valid")
		})
	}
}

// HTTPS listener certificates, per the TLS Certificates section and the listener table of the reference.
func TestAttachListenerCertificates(t *testing.T) {
	good := newKeyPair(t, "a.example.com")
	other := newKeyPair(t, "b.example.com")
	const certNS = "certs"
	invalidCert := string(gwv1.ListenerReasonInvalidCertificateRef)
	refNotPermitted := string(gwv1.ListenerReasonRefNotPermitted)
	resolved := cond{lcResolvedRefs, ctTrue, string(gwv1.ListenerReasonResolvedRefs), nil}
	secretGrant := func(to gwv1.ReferenceGrantTo) *gwv1.ReferenceGrant {
		return referenceGrant(certNS, "allow-gateways", grantFrom(inventory.GatewayGroup, inventory.KindGateway, gwNS), to)
	}
	opaque := tlsSecret(gwNS, "tls", good.certPEM, good.keyPEM)
	opaque.Type = corev1.SecretTypeOpaque
	certOnly := tlsSecret(gwNS, "tls", good.certPEM, nil)
	delete(certOnly.Data, corev1.TLSPrivateKeyKey)
	localCertOnly := certOnly.DeepCopy()
	localCertOnly.Annotations = map[string]string{localConfigAnnotation: "true"}
	configMapRef := secretRef("", "tls")
	configMapRef.Group, configMapRef.Kind = ptr(gwv1.Group("")), ptr(gwv1.Kind("ConfigMap"))

	tests := []struct {
		name      string
		ref       *gwv1.SecretObjectReference // nil: no certificateRefs
		objs      []any
		want      cond
		wantCerts int
	}{
		{
			name:      "Secret of type kubernetes.io/tls with a matching certificate and key: resolved",
			ref:       ptr(secretRef("", "tls")),
			objs:      []any{tlsSecret(gwNS, "tls", good.certPEM, good.keyPEM)},
			want:      resolved,
			wantCerts: 1,
		},
		{
			name: "HTTPS listener without certificateRefs: InvalidCertificateRef",
			want: cond{lcResolvedRefs, ctFalse, invalidCert, []string{"tls.certificateRefs"}},
		},
		{
			name: "missing Secret: InvalidCertificateRef",
			ref:  ptr(secretRef("", "tls")),
			want: cond{lcResolvedRefs, ctFalse, invalidCert, []string{"Secret " + gwNS + "/tls", "does not exist"}},
		},
		{
			name: "Secret of the wrong type: InvalidCertificateRef",
			ref:  ptr(secretRef("", "tls")),
			objs: []any{opaque},
			want: cond{lcResolvedRefs, ctFalse, invalidCert, []string{"Secret " + gwNS + "/tls", "Opaque", "kubernetes.io/tls"}},
		},
		{
			name: "certificate and key that do not match: InvalidCertificateRef",
			ref:  ptr(secretRef("", "tls")),
			objs: []any{tlsSecret(gwNS, "tls", good.certPEM, other.keyPEM)},
			want: cond{lcResolvedRefs, ctFalse, invalidCert, []string{"Secret " + gwNS + "/tls", "matching key"}},
		},
		{
			name: "certificate that does not parse: InvalidCertificateRef",
			ref:  ptr(secretRef("", "tls")),
			objs: []any{tlsSecret(gwNS, "tls", []byte("not a certificate"), good.keyPEM)},
			want: cond{lcResolvedRefs, ctFalse, invalidCert, []string{"Secret " + gwNS + "/tls"}},
		},
		{
			name: "certificate without key in a deployed Secret: InvalidCertificateRef",
			ref:  ptr(secretRef("", "tls")),
			objs: []any{certOnly},
			want: cond{lcResolvedRefs, ctFalse, invalidCert, []string{"Secret " + gwNS + "/tls"}},
		},
		{
			name:      "certificate without key in a local-config stand-in: resolved",
			ref:       ptr(secretRef("", "tls")),
			objs:      []any{localCertOnly},
			want:      resolved,
			wantCerts: 1,
		},
		{
			name: "reference to a kind other than Secret: InvalidCertificateRef",
			ref:  &configMapRef,
			objs: []any{tlsSecret(gwNS, "tls", good.certPEM, good.keyPEM)},
			want: cond{lcResolvedRefs, ctFalse, invalidCert, []string{"ConfigMap " + gwNS + "/tls"}},
		},
		{
			name: "cross-namespace Secret without ReferenceGrant: RefNotPermitted",
			ref:  ptr(secretRef(certNS, "tls")),
			objs: []any{tlsSecret(certNS, "tls", good.certPEM, good.keyPEM)},
			want: cond{lcResolvedRefs, ctFalse, refNotPermitted,
				[]string{"Secret " + certNS + "/tls", "ReferenceGrant", "in " + certNS, "from " + gwNS}},
		},
		{
			name:      "cross-namespace Secret with a ReferenceGrant for all Secrets: resolved",
			ref:       ptr(secretRef(certNS, "tls")),
			objs:      []any{tlsSecret(certNS, "tls", good.certPEM, good.keyPEM), secretGrant(grantTo("", inventory.KindSecret, ""))},
			want:      resolved,
			wantCerts: 1,
		},
		{
			name:      "cross-namespace Secret with a ReferenceGrant naming it: resolved",
			ref:       ptr(secretRef(certNS, "tls")),
			objs:      []any{tlsSecret(certNS, "tls", good.certPEM, good.keyPEM), secretGrant(grantTo("", inventory.KindSecret, "tls"))},
			want:      resolved,
			wantCerts: 1,
		},
		{
			name: "cross-namespace Secret with a ReferenceGrant naming another Secret: RefNotPermitted",
			ref:  ptr(secretRef(certNS, "tls")),
			objs: []any{tlsSecret(certNS, "tls", good.certPEM, good.keyPEM), secretGrant(grantTo("", inventory.KindSecret, "other"))},
			want: cond{lcResolvedRefs, ctFalse, refNotPermitted, nil},
		},
		{
			name: "cross-namespace Secret with a ReferenceGrant for HTTPRoutes only: RefNotPermitted",
			ref:  ptr(secretRef(certNS, "tls")),
			objs: []any{tlsSecret(certNS, "tls", good.certPEM, good.keyPEM),
				referenceGrant(certNS, "routes", grantFrom(inventory.GatewayGroup, inventory.KindHTTPRoute, gwNS),
					grantTo("", inventory.KindSecret, ""))},
			want: cond{lcResolvedRefs, ctFalse, refNotPermitted, nil},
		},
		{
			name: "cross-namespace Secret with a ReferenceGrant in the wrong namespace: RefNotPermitted",
			ref:  ptr(secretRef(certNS, "tls")),
			objs: []any{tlsSecret(certNS, "tls", good.certPEM, good.keyPEM),
				referenceGrant(gwNS, "misplaced", grantFrom(inventory.GatewayGroup, inventory.KindGateway, gwNS),
					grantTo("", inventory.KindSecret, ""))},
			want: cond{lcResolvedRefs, ctFalse, refNotPermitted, nil},
		},
		{
			name: "cross-namespace missing Secret with a ReferenceGrant: InvalidCertificateRef",
			ref:  ptr(secretRef(certNS, "tls")),
			objs: []any{secretGrant(grantTo("", inventory.KindSecret, ""))},
			want: cond{lcResolvedRefs, ctFalse, invalidCert, []string{"does not exist"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var refs []gwv1.SecretObjectReference
			if tc.ref != nil {
				refs = append(refs, *tc.ref)
			}
			objs := append([]any{gatewayClass(), gateway(httpsListener("secure", refs...))}, tc.objs...)
			res := attach(t, fakeEnv{}, objs...)
			g := edgeOf(t, res)
			l := listenerOf(t, g, "secure")
			assertCondition(t, l.Conditions, tc.want)
			assert.Len(t, l.Certificates, tc.wantCerts, "usable certificates")
			assertCondition(t, l.Conditions, cond{lcAccepted, ctTrue, string(gwv1.ListenerReasonAccepted), nil})
			if tc.want.status == ctFalse {
				assertCondition(t, l.Conditions, cond{lcProgrammed, ctFalse, string(gwv1.ListenerReasonInvalid), nil})
				assertCondition(t, g.Conditions, cond{condAccepted, ctFalse, string(gwv1.GatewayReasonListenersNotValid), []string{"secure"}})
			} else {
				assertCondition(t, l.Conditions, cond{lcProgrammed, ctTrue, string(gwv1.ListenerReasonProgrammed), nil})
			}
		})
	}
}

// The route's Accepted condition per parent, per the HTTPRoute Conditions of the reference, ParentReference
// (sectionName, port), AllowedRoutes and HTTPRouteSpec.Hostnames.
func TestAttachRouteAccepted(t *testing.T) {
	const apps = "apps"
	sameNS := func(l gwv1.Listener) gwv1.Listener {
		return withAllowedNamespaces(l, gwv1.NamespacesFromSame, nil)
	}
	selector := func(l gwv1.Listener, labels map[string]string) gwv1.Listener {
		return withAllowedNamespaces(l, gwv1.NamespacesFromSelector, &metav1.LabelSelector{MatchLabels: labels})
	}
	web := httpListener("web")
	hostListener := func(name, host string) gwv1.Listener {
		return fromAll(listener(name, gwv1.HTTPProtocolType, 80, host))
	}
	accepted := string(gwv1.RouteReasonAccepted)
	noMatchingParent := string(gwv1.RouteReasonNoMatchingParent)
	notAllowed := string(gwv1.RouteReasonNotAllowedByListeners)
	noHostname := string(gwv1.RouteReasonNoMatchingListenerHostname)

	tests := []struct {
		name      string
		env       fakeEnv
		listeners []gwv1.Listener
		route     *gwv1.HTTPRoute
		objs      []any
		want      cond
		// wantAttached maps each listener the route attaches to (serving) to its effective hostnames.
		wantAttached map[string][]string
	}{
		{
			name:         "parentRef to the whole Gateway: Accepted through every listener",
			listeners:    []gwv1.Listener{web},
			route:        httpRoute(apps, "shop", []gwv1.ParentReference{edgeRef()}),
			want:         cond{rcAccepted, ctTrue, accepted, []string{gwNS + "/" + gwName, "web"}},
			wantAttached: map[string][]string{"web": {""}},
		},
		{
			name:         "parentRef namespace defaults to the route's",
			listeners:    []gwv1.Listener{web},
			route:        httpRoute(gwNS, "shop", []gwv1.ParentReference{{Name: gwName}}),
			want:         cond{rcAccepted, ctTrue, accepted, nil},
			wantAttached: map[string][]string{"web": {""}},
		},
		{
			name:         "sectionName that names a listener: Accepted through that listener only",
			listeners:    []gwv1.Listener{web, hostListener("api", "api.example.com")},
			route:        httpRoute(apps, "shop", []gwv1.ParentReference{sectionRef("api")}),
			want:         cond{rcAccepted, ctTrue, accepted, []string{"api"}},
			wantAttached: map[string][]string{"api": {"api.example.com"}},
		},
		{
			name:      "sectionName that does not exist: NoMatchingParent",
			listeners: []gwv1.Listener{web},
			route:     httpRoute(apps, "shop", []gwv1.ParentReference{sectionRef("nope")}),
			want:      cond{rcAccepted, ctFalse, noMatchingParent, []string{`sectionName "nope"`, gwNS + "/" + gwName}},
		},
		{
			name:      "port that no listener uses: NoMatchingParent",
			listeners: []gwv1.Listener{web},
			route:     httpRoute(apps, "shop", []gwv1.ParentReference{portRef(8080)}),
			want:      cond{rcAccepted, ctFalse, noMatchingParent, []string{"port 8080"}},
		},
		{
			name:         "port of a listener: Accepted",
			listeners:    []gwv1.Listener{web},
			route:        httpRoute(apps, "shop", []gwv1.ParentReference{portRef(80)}),
			want:         cond{rcAccepted, ctTrue, accepted, nil},
			wantAttached: map[string][]string{"web": {""}},
		},
		{
			name:      "sectionName and port must both match the listener",
			listeners: []gwv1.Listener{web},
			route: func() *gwv1.HTTPRoute {
				ref := sectionRef("web")
				ref.Port = ptr(gwv1.PortNumber(443))
				return httpRoute(apps, "shop", []gwv1.ParentReference{ref})
			}(),
			want: cond{rcAccepted, ctFalse, noMatchingParent, []string{`sectionName "web" and port 443`}},
		},
		{
			name:      "Gateway whose class is not accepted: NoMatchingParent",
			env:       fakeEnv{classInvalid: "bad parameters"},
			listeners: []gwv1.Listener{web},
			route:     httpRoute(apps, "shop", []gwv1.ParentReference{edgeRef()}),
			want:      cond{rcAccepted, ctFalse, noMatchingParent, []string{"cannot be used", "bad parameters"}},
		},
		{
			name:      "Gateway whose parameters are invalid: NoMatchingParent",
			env:       fakeEnv{infra: &Infrastructure{Invalid: "OperatorContext missing"}},
			listeners: []gwv1.Listener{web},
			route:     httpRoute(apps, "shop", []gwv1.ParentReference{edgeRef()}),
			want:      cond{rcAccepted, ctFalse, noMatchingParent, []string{"cannot be used", "OperatorContext missing"}},
		},
		{
			name:      "allowedRoutes Same, route in another namespace: NotAllowedByListeners",
			listeners: []gwv1.Listener{sameNS(listener("web", gwv1.HTTPProtocolType, 80, ""))},
			route:     httpRoute(apps, "shop", []gwv1.ParentReference{edgeRef()}),
			want:      cond{rcAccepted, ctFalse, notAllowed, []string{"namespace " + apps, "web"}},
		},
		{
			name:         "allowedRoutes defaulted to Same, route in the Gateway's namespace: Accepted",
			listeners:    []gwv1.Listener{listener("web", gwv1.HTTPProtocolType, 80, "")},
			route:        httpRoute(gwNS, "shop", []gwv1.ParentReference{edgeRef()}),
			want:         cond{rcAccepted, ctTrue, accepted, nil},
			wantAttached: map[string][]string{"web": {""}},
		},
		{
			name:      "allowedRoutes defaulted to Same, route in another namespace: NotAllowedByListeners",
			listeners: []gwv1.Listener{listener("web", gwv1.HTTPProtocolType, 80, "")},
			route:     httpRoute(apps, "shop", []gwv1.ParentReference{edgeRef()}),
			want:      cond{rcAccepted, ctFalse, notAllowed, nil},
		},
		{
			name:      "allowedRoutes Selector with labels the namespace does not have: NotAllowedByListeners",
			listeners: []gwv1.Listener{selector(listener("web", gwv1.HTTPProtocolType, 80, ""), map[string]string{"env": "prod"})},
			route:     httpRoute(apps, "shop", []gwv1.ParentReference{edgeRef()}),
			objs:      []any{namespace(apps, map[string]string{"env": "dev"})},
			want:      cond{rcAccepted, ctFalse, notAllowed, []string{"namespace " + apps}},
		},
		{
			name:         "allowedRoutes Selector matching the labels of the Namespace object: Accepted",
			listeners:    []gwv1.Listener{selector(listener("web", gwv1.HTTPProtocolType, 80, ""), map[string]string{"env": "prod"})},
			route:        httpRoute(apps, "shop", []gwv1.ParentReference{edgeRef()}),
			objs:         []any{namespace(apps, map[string]string{"env": "prod"})},
			want:         cond{rcAccepted, ctTrue, accepted, nil},
			wantAttached: map[string][]string{"web": {""}},
		},
		{
			name: "allowedRoutes Selector matching kubernetes.io/metadata.name with no Namespace object: Accepted",
			listeners: []gwv1.Listener{selector(listener("web", gwv1.HTTPProtocolType, 80, ""),
				map[string]string{corev1.LabelMetadataName: apps})},
			route:        httpRoute(apps, "shop", []gwv1.ParentReference{edgeRef()}),
			want:         cond{rcAccepted, ctTrue, accepted, nil},
			wantAttached: map[string][]string{"web": {""}},
		},
		{
			name: "allowedRoutes Selector on kubernetes.io/metadata.name of another namespace: NotAllowedByListeners",
			listeners: []gwv1.Listener{selector(listener("web", gwv1.HTTPProtocolType, 80, ""),
				map[string]string{corev1.LabelMetadataName: "elsewhere"})},
			route: httpRoute(apps, "shop", []gwv1.ParentReference{edgeRef()}),
			want:  cond{rcAccepted, ctFalse, notAllowed, nil},
		},
		{
			name:      "allowedRoutes Selector without a selector admits nothing: NotAllowedByListeners",
			listeners: []gwv1.Listener{withAllowedNamespaces(listener("web", gwv1.HTTPProtocolType, 80, ""), gwv1.NamespacesFromSelector, nil)},
			route:     httpRoute(gwNS, "shop", []gwv1.ParentReference{edgeRef()}),
			want:      cond{rcAccepted, ctFalse, notAllowed, nil},
		},
		{
			name:      "allowedRoutes kinds without HTTPRoute: NotAllowedByListeners",
			listeners: []gwv1.Listener{withKinds(web, kind(inventory.GatewayGroup, "GRPCRoute"))},
			route:     httpRoute(apps, "shop", []gwv1.ParentReference{edgeRef()}),
			want:      cond{rcAccepted, ctFalse, notAllowed, nil},
		},
		{
			name:      "route hostnames that match no listener hostname: NoMatchingListenerHostname",
			listeners: []gwv1.Listener{hostListener("a", "a.example.com"), hostListener("wild", "*.example.net")},
			route:     httpRoute(apps, "shop", []gwv1.ParentReference{edgeRef()}, "b.example.com", "example.net"),
			want: cond{rcAccepted, ctFalse, noHostname,
				[]string{"b.example.com", "example.net", "a: a.example.com", "wild: *.example.net"}},
		},
		{
			name: "route hostnames intersect per listener: only the matching listeners, with the narrower hostnames",
			listeners: []gwv1.Listener{
				hostListener("a", "a.example.com"),
				hostListener("wild", "*.example.com"),
				hostListener("net", "x.example.net"),
				fromAll(listener("any", gwv1.HTTPProtocolType, 80, "")),
			},
			route: httpRoute(apps, "shop", []gwv1.ParentReference{edgeRef()}, "*.example.com"),
			want:  cond{rcAccepted, ctTrue, accepted, []string{"a, wild, any"}},
			wantAttached: map[string][]string{
				"a":    {"a.example.com"},
				"wild": {"*.example.com"},
				"any":  {"*.example.com"},
			},
		},
		{
			name: "hostnames match only on a listener that is not accepted: NoMatchingParent",
			listeners: []gwv1.Listener{
				fromAll(listener("blocked", gwv1.HTTPProtocolType, 9090, "a.example.com")),
				hostListener("b", "b.example.com"),
			},
			route: httpRoute(apps, "shop", []gwv1.ParentReference{edgeRef()}, "a.example.com"),
			want:  cond{rcAccepted, ctFalse, noMatchingParent, []string{"blocked", "not accepted"}},
		},
		{
			name:      "the only listener that admits the route is conflicted: NoMatchingParent",
			listeners: []gwv1.Listener{web, httpListener("twin")},
			route:     httpRoute(apps, "shop", []gwv1.ParentReference{sectionRef("web")}),
			want:      cond{rcAccepted, ctFalse, noMatchingParent, []string{"web"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := append([]any{gatewayClass(), gateway(tc.listeners...), tc.route}, tc.objs...)
			res := attach(t, tc.env, objs...)
			r := routeOf(t, res, tc.route.Namespace, tc.route.Name)
			require.Len(t, r.Parents, 1)
			p := r.Parents[0]
			assert.Same(t, edgeOf(t, res), p.Gateway)
			assert.Equal(t, int64(3), p.Accepted.ObservedGeneration)
			assertConditionEqual(t, p.Accepted, tc.want)
			attached := map[string][]string{}
			for _, a := range p.Listeners {
				attached[string(a.Listener.Listener.Name)] = a.Hostnames
			}
			if tc.wantAttached == nil {
				tc.wantAttached = map[string][]string{}
			}
			assert.Equal(t, tc.wantAttached, attached, "attached listeners and effective hostnames")
		})
	}
}

// Only routes with a parentRef to one of our Gateways are reported, one Parent per such parentRef.
func TestAttachRouteParents(t *testing.T) {
	otherClass := &gwv1.GatewayClass{
		ObjectMeta: metav1.ObjectMeta{Name: "other"},
		Spec:       gwv1.GatewayClassSpec{ControllerName: "example.com/other"},
	}
	otherGateway := gateway(httpListener("web"))
	otherGateway.Name, otherGateway.Spec.GatewayClassName = "foreign", "other"
	serviceParent := edgeRef()
	serviceParent.Kind = ptr(gwv1.Kind("Service"))
	serviceParent.Group = ptr(gwv1.Group(""))

	tests := []struct {
		name        string
		parents     []gwv1.ParentReference
		wantIndexes []int // nil: the route is not ours
	}{
		{"parentRef to another controller's Gateway: not reported", []gwv1.ParentReference{parentRef(gwNS, "foreign")}, nil},
		{"parentRef to a Gateway that does not exist: not reported", []gwv1.ParentReference{parentRef(gwNS, "missing")}, nil},
		{"parentRef of another kind: not reported", []gwv1.ParentReference{serviceParent}, nil},
		{"parentRef to our Gateway among others: one parent, with its index",
			[]gwv1.ParentReference{parentRef(gwNS, "foreign"), edgeRef()}, []int{1}},
		{"two parentRefs to our Gateway: two parents",
			[]gwv1.ParentReference{sectionRef("web"), portRef(80)}, []int{0, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			route := httpRoute("apps", "shop", tc.parents)
			res := attach(t, fakeEnv{}, gatewayClass(), otherClass, gateway(httpListener("web")), otherGateway, route)
			assert.Len(t, res.Gateways, 1, "only our Gateway")
			if tc.wantIndexes == nil {
				assert.Empty(t, res.Routes)
				return
			}
			r := routeOf(t, res, "apps", "shop")
			var indexes []int
			for _, p := range r.Parents {
				indexes = append(indexes, p.Index)
				assertConditionEqual(t, p.Accepted, cond{rcAccepted, ctTrue, string(gwv1.RouteReasonAccepted), nil})
			}
			assert.Equal(t, tc.wantIndexes, indexes)
		})
	}
}

// ListenerStatus.attachedRoutes: routes with Accepted True, admitted by the listener's allowedRoutes, parentRef
// and hostname, counted even on a listener whose Accepted condition is False.
func TestAttachAttachedRoutes(t *testing.T) {
	blocked := fromAll(listener("blocked", gwv1.HTTPProtocolType, 9090, "")) // PortUnavailable
	web := httpListener("web")
	hostListener := func(name, host string) gwv1.Listener {
		return fromAll(listener(name, gwv1.HTTPProtocolType, 80, host))
	}
	sameNS := withAllowedNamespaces(listener("local", gwv1.HTTPProtocolType, 443, ""), gwv1.NamespacesFromSame, nil)

	tests := []struct {
		name      string
		listeners []gwv1.Listener
		routes    []*gwv1.HTTPRoute
		want      map[string]int32
	}{
		{
			name:      "counted on a listener that is not accepted when the route is Accepted through another",
			listeners: []gwv1.Listener{web, blocked},
			routes:    []*gwv1.HTTPRoute{httpRoute("apps", "shop", []gwv1.ParentReference{edgeRef()})},
			want:      map[string]int32{"web": 1, "blocked": 1},
		},
		{
			name:      "not counted when the route's parent is not Accepted",
			listeners: []gwv1.Listener{blocked},
			routes:    []*gwv1.HTTPRoute{httpRoute("apps", "shop", []gwv1.ParentReference{edgeRef()})},
			want:      map[string]int32{"blocked": 0},
		},
		{
			name:      "not counted on a listener whose allowedRoutes do not admit the route",
			listeners: []gwv1.Listener{web, sameNS},
			routes:    []*gwv1.HTTPRoute{httpRoute("apps", "shop", []gwv1.ParentReference{edgeRef()})},
			want:      map[string]int32{"web": 1, "local": 0},
		},
		{
			name:      "not counted on a listener whose hostname the route does not share",
			listeners: []gwv1.Listener{hostListener("a", "a.example.com"), hostListener("b", "b.example.com")},
			routes:    []*gwv1.HTTPRoute{httpRoute("apps", "shop", []gwv1.ParentReference{edgeRef()}, "a.example.com")},
			want:      map[string]int32{"a": 1, "b": 0},
		},
		{
			name:      "not counted on a listener the parentRef's sectionName does not select",
			listeners: []gwv1.Listener{hostListener("a", "a.example.com"), hostListener("b", "b.example.com")},
			routes:    []*gwv1.HTTPRoute{httpRoute("apps", "shop", []gwv1.ParentReference{sectionRef("b")})},
			want:      map[string]int32{"a": 0, "b": 1},
		},
		{
			name:      "not counted through a parentRef that is not Accepted, though another parentRef of the route is",
			listeners: []gwv1.Listener{web, blocked},
			routes:    []*gwv1.HTTPRoute{httpRoute("apps", "shop", []gwv1.ParentReference{sectionRef("web"), sectionRef("blocked")})},
			want:      map[string]int32{"web": 1, "blocked": 0},
		},
		{
			name:      "a route attached through two parentRefs counts once per listener",
			listeners: []gwv1.Listener{web},
			routes:    []*gwv1.HTTPRoute{httpRoute("apps", "shop", []gwv1.ParentReference{edgeRef(), sectionRef("web")})},
			want:      map[string]int32{"web": 1},
		},
		{
			name:      "every accepted route counts",
			listeners: []gwv1.Listener{web, blocked},
			routes: []*gwv1.HTTPRoute{
				httpRoute("apps", "one", []gwv1.ParentReference{edgeRef()}),
				httpRoute("apps", "two", []gwv1.ParentReference{edgeRef()}),
				httpRoute("apps", "three", []gwv1.ParentReference{sectionRef("blocked")}), // NoMatchingParent
			},
			want: map[string]int32{"web": 2, "blocked": 2},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := []any{gatewayClass(), gateway(tc.listeners...)}
			for _, r := range tc.routes {
				objs = append(objs, r)
			}
			g := edgeOf(t, attach(t, fakeEnv{}, objs...))
			got := map[string]int32{}
			for _, l := range g.Listeners {
				got[string(l.Listener.Name)] = l.AttachedRoutes
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// The route's ResolvedRefs condition, per the Backends table and the HTTPRoute Conditions of the reference.
func TestAttachBackendResolvedRefs(t *testing.T) {
	const apps, backends = "apps", "backends"
	routeGrant := func(to gwv1.ReferenceGrantTo) *gwv1.ReferenceGrant {
		return referenceGrant(backends, "allow-routes", grantFrom(inventory.GatewayGroup, inventory.KindHTTPRoute, apps), to)
	}
	otherKind := serviceBackend("", "bucket", 80)
	otherKind.Group, otherKind.Kind = ptr(gwv1.Group("example.com")), ptr(gwv1.Kind("Bucket"))
	serviceOfGroup := serviceBackend("", "orders", 8080)
	serviceOfGroup.Group = ptr(gwv1.Group("example.com"))

	tests := []struct {
		name  string
		rules [][]gwv1.HTTPBackendRef
		objs  []any
		want  cond
		// wantResolved lists, per rule, which backends resolve.
		wantResolved [][]bool
	}{
		{
			name:         "no backendRefs: ResolvedRefs True",
			want:         cond{rcResolvedRefs, ctTrue, string(gwv1.RouteReasonResolvedRefs), nil},
			wantResolved: [][]bool{{}},
		},
		{
			name:         "Service in the route's namespace with a port: ResolvedRefs True",
			rules:        [][]gwv1.HTTPBackendRef{{serviceBackend("", "orders", 8080)}},
			objs:         []any{service(apps, "orders")},
			want:         cond{rcResolvedRefs, ctTrue, string(gwv1.RouteReasonResolvedRefs), nil},
			wantResolved: [][]bool{{true}},
		},
		{
			name:         "Service that does not exist: BackendNotFound",
			rules:        [][]gwv1.HTTPBackendRef{{serviceBackend("", "missing", 8080)}},
			want:         cond{rcResolvedRefs, ctFalse, string(gwv1.RouteReasonBackendNotFound), []string{"spec.rules[0].backendRefs[0]", "Service apps/missing", "does not exist"}},
			wantResolved: [][]bool{{false}},
		},
		{
			name:         "backend of another kind: InvalidKind",
			rules:        [][]gwv1.HTTPBackendRef{{otherKind}},
			want:         cond{rcResolvedRefs, ctFalse, string(gwv1.RouteReasonInvalidKind), []string{"spec.rules[0].backendRefs[0]", "Bucket.example.com apps/bucket"}},
			wantResolved: [][]bool{{false}},
		},
		{
			name:         "Service kind of a group other than core: InvalidKind",
			rules:        [][]gwv1.HTTPBackendRef{{serviceOfGroup}},
			objs:         []any{service(apps, "orders")},
			want:         cond{rcResolvedRefs, ctFalse, string(gwv1.RouteReasonInvalidKind), []string{"Service.example.com"}},
			wantResolved: [][]bool{{false}},
		},
		{
			name:         "Service without a port: InvalidKind",
			rules:        [][]gwv1.HTTPBackendRef{{serviceBackend("", "orders", 0)}},
			objs:         []any{service(apps, "orders")},
			want:         cond{rcResolvedRefs, ctFalse, string(gwv1.RouteReasonInvalidKind), []string{"Service apps/orders", "port"}},
			wantResolved: [][]bool{{false}},
		},
		{
			name:  "Service in another namespace without ReferenceGrant: RefNotPermitted",
			rules: [][]gwv1.HTTPBackendRef{{serviceBackend(backends, "orders", 8080)}},
			objs:  []any{service(backends, "orders")},
			want: cond{rcResolvedRefs, ctFalse, string(gwv1.RouteReasonRefNotPermitted),
				[]string{"Service backends/orders", "ReferenceGrant in backends", "from apps"}},
			wantResolved: [][]bool{{false}},
		},
		{
			name:         "Service in another namespace with a ReferenceGrant: ResolvedRefs True",
			rules:        [][]gwv1.HTTPBackendRef{{serviceBackend(backends, "orders", 8080)}},
			objs:         []any{service(backends, "orders"), routeGrant(grantTo("", inventory.KindService, ""))},
			want:         cond{rcResolvedRefs, ctTrue, string(gwv1.RouteReasonResolvedRefs), nil},
			wantResolved: [][]bool{{true}},
		},
		{
			name:         "Service in another namespace with a ReferenceGrant naming it: ResolvedRefs True",
			rules:        [][]gwv1.HTTPBackendRef{{serviceBackend(backends, "orders", 8080)}},
			objs:         []any{service(backends, "orders"), routeGrant(grantTo("", inventory.KindService, "orders"))},
			want:         cond{rcResolvedRefs, ctTrue, string(gwv1.RouteReasonResolvedRefs), nil},
			wantResolved: [][]bool{{true}},
		},
		{
			name:         "ReferenceGrant naming another Service: RefNotPermitted",
			rules:        [][]gwv1.HTTPBackendRef{{serviceBackend(backends, "orders", 8080)}},
			objs:         []any{service(backends, "orders"), routeGrant(grantTo("", inventory.KindService, "billing"))},
			want:         cond{rcResolvedRefs, ctFalse, string(gwv1.RouteReasonRefNotPermitted), nil},
			wantResolved: [][]bool{{false}},
		},
		{
			name:  "ReferenceGrant from another namespace: RefNotPermitted",
			rules: [][]gwv1.HTTPBackendRef{{serviceBackend(backends, "orders", 8080)}},
			objs: []any{service(backends, "orders"), referenceGrant(backends, "allow",
				grantFrom(inventory.GatewayGroup, inventory.KindHTTPRoute, "elsewhere"), grantTo("", inventory.KindService, ""))},
			want:         cond{rcResolvedRefs, ctFalse, string(gwv1.RouteReasonRefNotPermitted), nil},
			wantResolved: [][]bool{{false}},
		},
		{
			name:  "ReferenceGrant for Gateways, not HTTPRoutes: RefNotPermitted",
			rules: [][]gwv1.HTTPBackendRef{{serviceBackend(backends, "orders", 8080)}},
			objs: []any{service(backends, "orders"), referenceGrant(backends, "allow",
				grantFrom(inventory.GatewayGroup, inventory.KindGateway, apps), grantTo("", inventory.KindService, ""))},
			want:         cond{rcResolvedRefs, ctFalse, string(gwv1.RouteReasonRefNotPermitted), nil},
			wantResolved: [][]bool{{false}},
		},
		{
			name:         "ReferenceGrant permits a Service that does not exist: BackendNotFound",
			rules:        [][]gwv1.HTTPBackendRef{{serviceBackend(backends, "orders", 8080)}},
			objs:         []any{routeGrant(grantTo("", inventory.KindService, ""))},
			want:         cond{rcResolvedRefs, ctFalse, string(gwv1.RouteReasonBackendNotFound), []string{"Service backends/orders"}},
			wantResolved: [][]bool{{false}},
		},
		{
			name:         "explicit namespace equal to the route's needs no ReferenceGrant",
			rules:        [][]gwv1.HTTPBackendRef{{serviceBackend(apps, "orders", 8080)}},
			objs:         []any{service(apps, "orders")},
			want:         cond{rcResolvedRefs, ctTrue, string(gwv1.RouteReasonResolvedRefs), nil},
			wantResolved: [][]bool{{true}},
		},
		{
			name: "several unresolved backends: the first one's reason, every one named by its field path",
			rules: [][]gwv1.HTTPBackendRef{
				{serviceBackend("", "orders", 8080)},
				{serviceBackend("", "missing", 8080), otherKind},
			},
			objs: []any{service(apps, "orders")},
			want: cond{rcResolvedRefs, ctFalse, string(gwv1.RouteReasonBackendNotFound),
				[]string{"spec.rules[1].backendRefs[0]", "spec.rules[1].backendRefs[1]", "Bucket.example.com"}},
			wantResolved: [][]bool{{true}, {false, false}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			route := httpRoute(apps, "shop", []gwv1.ParentReference{edgeRef()})
			for _, refs := range tc.rules {
				withBackends(route, refs...)
			}
			objs := append([]any{gatewayClass(), gateway(httpListener("web")), route}, tc.objs...)
			r := routeOf(t, attach(t, fakeEnv{}, objs...), apps, "shop")
			assertConditionEqual(t, r.ResolvedRefs, tc.want)
			assert.Equal(t, int64(3), r.ResolvedRefs.ObservedGeneration)
			var resolved [][]bool
			for _, rule := range r.Backends {
				got := []bool{}
				for _, b := range rule {
					got = append(got, b.Resolved())
					assert.Equal(t, b.Resolved(), b.Service != nil, "a resolved backend has its Service")
				}
				resolved = append(resolved, got)
			}
			assert.Equal(t, tc.wantResolved, resolved)
			// Unresolved backends do not keep the route from attaching.
			require.Len(t, r.Parents, 1)
			assertConditionEqual(t, r.Parents[0].Accepted, cond{rcAccepted, ctTrue, string(gwv1.RouteReasonAccepted), nil})
		})
	}
}

// TestAttachBackendH2C: a Service port of appProtocol kubernetes.io/h2c is an h2c backend where the environment
// serves them, as its rule's one target; beside another target (weight 0 is none) it is UnsupportedProtocol,
// since Tyk's load balancer speaks HTTP/1.1; where the environment does not serve them the appProtocol is not read.
func TestAttachBackendH2C(t *testing.T) {
	const apps = "apps"
	h2cService := func(name string) *corev1.Service {
		svc := service(apps, name)
		svc.Spec.Ports[0].AppProtocol = ptr("kubernetes.io/h2c")
		return svc
	}
	weighted := func(name string, w int32) gwv1.HTTPBackendRef {
		ref := serviceBackend("", name, 8080)
		ref.Weight = ptr(w)
		return ref
	}
	tests := []struct {
		name    string
		env     fakeEnv
		rule    []gwv1.HTTPBackendRef
		wantH2C []bool
		want    cond
	}{
		{"the rule's one target", fakeEnv{h2c: true}, []gwv1.HTTPBackendRef{serviceBackend("", "grpc", 8080)},
			[]bool{true}, cond{rcResolvedRefs, ctTrue, string(gwv1.RouteReasonResolvedRefs), nil}},
		{"beside a backend of weight 0", fakeEnv{h2c: true}, []gwv1.HTTPBackendRef{weighted("grpc", 1), weighted("web", 0)},
			[]bool{true, false}, cond{rcResolvedRefs, ctTrue, string(gwv1.RouteReasonResolvedRefs), nil}},
		{"balanced with another target: UnsupportedProtocol", fakeEnv{h2c: true},
			[]gwv1.HTTPBackendRef{weighted("grpc", 90), weighted("web", 10)}, []bool{false, false},
			cond{rcResolvedRefs, ctFalse, string(gwv1.RouteReasonUnsupportedProtocol),
				[]string{"spec.rules[0].backendRefs[0]", "Service apps/grpc", "kubernetes.io/h2c", "HTTP/1.1"}}},
		{"an environment that does not serve h2c reads no appProtocol", fakeEnv{},
			[]gwv1.HTTPBackendRef{weighted("grpc", 90), weighted("web", 10)}, []bool{false, false},
			cond{rcResolvedRefs, ctTrue, string(gwv1.RouteReasonResolvedRefs), nil}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			route := withBackends(httpRoute(apps, "shop", []gwv1.ParentReference{edgeRef()}), tc.rule...)
			objs := []any{gatewayClass(), gateway(httpListener("web")), route, h2cService("grpc"), service(apps, "web")}
			r := routeOf(t, attach(t, tc.env, objs...), apps, "shop")
			assertConditionEqual(t, r.ResolvedRefs, tc.want)
			var h2c []bool
			for _, b := range r.Backends[0] {
				h2c = append(h2c, b.H2C)
			}
			assert.Equal(t, tc.wantH2C, h2c)
		})
	}
}

// TestAttachBackendTLSPolicy: where the environment reads BackendTLSPolicies, a backend whose Service port one
// targets (the whole Service, or the port by name) is UnsupportedProtocol, naming the policy; a policy of another
// port, of another Service, or in an environment that reads none, leaves the backend resolved.
func TestAttachBackendTLSPolicy(t *testing.T) {
	const apps = "apps"
	policy := func(name, service string, section *string) *gwv1.BackendTLSPolicy {
		ref := gwv1.LocalPolicyTargetReferenceWithSectionName{
			LocalPolicyTargetReference: gwv1.LocalPolicyTargetReference{Group: "", Kind: "Service", Name: gwv1.ObjectName(service)}}
		if section != nil {
			ref.SectionName = ptr(gwv1.SectionName(*section))
		}
		return &gwv1.BackendTLSPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: apps, Name: name},
			Spec: gwv1.BackendTLSPolicySpec{TargetRefs: []gwv1.LocalPolicyTargetReferenceWithSectionName{ref},
				Validation: gwv1.BackendTLSPolicyValidation{Hostname: "secure.example.com"}}}
	}
	refused := cond{rcResolvedRefs, ctFalse, string(gwv1.RouteReasonUnsupportedProtocol),
		[]string{"spec.rules[0].backendRefs[0]", "Service apps/secure", "BackendTLSPolicy apps/secure-tls", "system roots"}}
	resolved := cond{rcResolvedRefs, ctTrue, string(gwv1.RouteReasonResolvedRefs), nil}
	tests := []struct {
		name   string
		env    fakeEnv
		policy *gwv1.BackendTLSPolicy
		want   cond
	}{
		{"the whole Service", fakeEnv{tlsPolicies: true}, policy("secure-tls", "secure", nil), refused},
		{"the port by name", fakeEnv{tlsPolicies: true}, policy("secure-tls", "secure", ptr("http")), refused},
		{"another port", fakeEnv{tlsPolicies: true}, policy("secure-tls", "secure", ptr("metrics")), resolved},
		{"another Service", fakeEnv{tlsPolicies: true}, policy("secure-tls", "web", nil), resolved},
		{"an environment that reads no policy", fakeEnv{}, policy("secure-tls", "secure", nil), resolved},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			route := withBackends(httpRoute(apps, "shop", []gwv1.ParentReference{edgeRef()}), serviceBackend("", "secure", 8080))
			secure := service(apps, "secure")
			secure.Spec.Ports[0].Name = "http"
			objs := []any{gatewayClass(), gateway(httpListener("web")), route, secure, service(apps, "web"), tc.policy}
			r := routeOf(t, attach(t, tc.env, objs...), apps, "shop")
			assertConditionEqual(t, r.ResolvedRefs, tc.want)
			assert.Equal(t, tc.want.status == ctTrue, r.Backends[0][0].Resolved())
		})
	}
}

// Fixtures.

// Shared fixtures of the Attach tests: typed objects, a fake Environment and condition assertions.

const (
	testController = "tyk.io/gateway-controller"
	testClass      = "tyk"
	gwNS           = "infra" // namespace of the Gateways under test
	gwName         = "edge"
)

// fakeEnv is the implementation side of the render: classInvalid makes ClassParameters refuse every class;
// infra, when set, is what Infrastructure says of every Gateway, and otherwise the Gateway is fronted by
// dataPlaneService().
type fakeEnv struct {
	classInvalid   string
	infra          *Infrastructure
	unreadyResolve bool
	h2c            bool
	frontend       bool
	tlsPolicies    bool
	listenerSets   bool
}

func (e fakeEnv) ClassParameters(*gwv1.GatewayClass) string { return e.classInvalid }

func (e fakeEnv) UnreadyBackendsResolve() bool { return e.unreadyResolve }

func (e fakeEnv) H2CBackends() bool { return e.h2c }

func (e fakeEnv) BackendTLSPolicies() bool { return e.tlsPolicies }

func (e fakeEnv) FrontendValidation() bool { return e.frontend }

func (e fakeEnv) ListenerSets() bool { return e.listenerSets }

func (e fakeEnv) Infrastructure(*gwv1.Gateway) Infrastructure {
	if e.infra != nil {
		return *e.infra
	}
	return Infrastructure{Service: dataPlaneService()}
}

// dataPlaneService is a ClusterIP Service exposing ports 80 and 443.
func dataPlaneService() *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "tyk", Name: "gateway"},
		Spec: corev1.ServiceSpec{
			Type:      corev1.ServiceTypeClusterIP,
			ClusterIP: "10.0.0.10",
			Ports:     []corev1.ServicePort{{Name: "http", Port: 80}, {Name: "https", Port: 443}},
		},
	}
}

func gatewayClass() *gwv1.GatewayClass {
	return &gwv1.GatewayClass{
		ObjectMeta: metav1.ObjectMeta{Name: testClass, Generation: 1},
		Spec:       gwv1.GatewayClassSpec{ControllerName: testController},
	}
}

// gateway is the Gateway infra/edge of our class. The listeners are deep-copied, so that a listener value
// shared by several cases is never changed by the defaults applied to one of them.
func gateway(listeners ...gwv1.Listener) *gwv1.Gateway {
	copied := make([]gwv1.Listener, len(listeners))
	for i := range listeners {
		listeners[i].DeepCopyInto(&copied[i])
	}
	listeners = copied
	return &gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: gwNS, Name: gwName, Generation: 2},
		Spec:       gwv1.GatewaySpec{GatewayClassName: testClass, Listeners: listeners},
	}
}

// httpListener is an HTTP listener on port 80 that admits routes from all namespaces.
func httpListener(name string) gwv1.Listener {
	return fromAll(listener(name, gwv1.HTTPProtocolType, 80, ""))
}

func fromAll(l gwv1.Listener) gwv1.Listener {
	return withAllowedNamespaces(l, gwv1.NamespacesFromAll, nil)
}

func withAllowedNamespaces(l gwv1.Listener, from gwv1.FromNamespaces, sel *metav1.LabelSelector) gwv1.Listener {
	l = *l.DeepCopy()
	if l.AllowedRoutes == nil {
		l.AllowedRoutes = &gwv1.AllowedRoutes{}
	}
	l.AllowedRoutes.Namespaces = &gwv1.RouteNamespaces{From: ptr(from), Selector: sel}
	return l
}

func withKinds(l gwv1.Listener, kinds ...gwv1.RouteGroupKind) gwv1.Listener {
	l = *l.DeepCopy()
	if l.AllowedRoutes == nil {
		l.AllowedRoutes = &gwv1.AllowedRoutes{}
	}
	l.AllowedRoutes.Kinds = kinds
	return l
}

func kind(group, kind string) gwv1.RouteGroupKind {
	return gwv1.RouteGroupKind{Group: ptr(gwv1.Group(group)), Kind: gwv1.Kind(kind)}
}

// httpsListener is an HTTPS listener on port 443, from all namespaces, with the given certificateRefs.
func httpsListener(name string, refs ...gwv1.SecretObjectReference) gwv1.Listener {
	l := fromAll(listener(name, gwv1.HTTPSProtocolType, 443, ""))
	l.TLS = &gwv1.ListenerTLSConfig{CertificateRefs: refs}
	return l
}

func secretRef(namespace, name string) gwv1.SecretObjectReference {
	ref := gwv1.SecretObjectReference{Name: gwv1.ObjectName(name)}
	if namespace != "" {
		ref.Namespace = ptr(gwv1.Namespace(namespace))
	}
	return ref
}

func parentRef(namespace, name string) gwv1.ParentReference {
	return gwv1.ParentReference{Namespace: ptr(gwv1.Namespace(namespace)), Name: gwv1.ObjectName(name)}
}

func edgeRef() gwv1.ParentReference { return parentRef(gwNS, gwName) }

func sectionRef(section string) gwv1.ParentReference {
	ref := edgeRef()
	ref.SectionName = ptr(gwv1.SectionName(section))
	return ref
}

func portRef(port gwv1.PortNumber) gwv1.ParentReference {
	ref := edgeRef()
	ref.Port = ptr(port)
	return ref
}

func httpRoute(namespace, name string, parents []gwv1.ParentReference, hostnames ...string) *gwv1.HTTPRoute {
	hr := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Generation: 3}}
	hr.Spec.ParentRefs = parents
	for _, h := range hostnames {
		hr.Spec.Hostnames = append(hr.Spec.Hostnames, gwv1.Hostname(h))
	}
	return hr
}

func withBackends(hr *gwv1.HTTPRoute, refs ...gwv1.HTTPBackendRef) *gwv1.HTTPRoute {
	hr.Spec.Rules = append(hr.Spec.Rules, gwv1.HTTPRouteRule{BackendRefs: refs})
	return hr
}

func serviceBackend(namespace, name string, port int32) gwv1.HTTPBackendRef {
	ref := gwv1.HTTPBackendRef{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{
		Name: gwv1.ObjectName(name),
	}}}
	if namespace != "" {
		ref.Namespace = ptr(gwv1.Namespace(namespace))
	}
	if port != 0 {
		ref.Port = ptr(gwv1.PortNumber(port))
	}
	return ref
}

func service(namespace, name string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       corev1.ServiceSpec{ClusterIP: "10.0.1.1", Ports: []corev1.ServicePort{{Port: 8080}}},
	}
}

func namespace(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func referenceGrant(namespace, name string, from gwv1.ReferenceGrantFrom, to gwv1.ReferenceGrantTo) *gwv1.ReferenceGrant {
	return &gwv1.ReferenceGrant{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       gwv1.ReferenceGrantSpec{From: []gwv1.ReferenceGrantFrom{from}, To: []gwv1.ReferenceGrantTo{to}},
	}
}

func grantFrom(group, kind, namespace string) gwv1.ReferenceGrantFrom {
	return gwv1.ReferenceGrantFrom{Group: gwv1.Group(group), Kind: gwv1.Kind(kind), Namespace: gwv1.Namespace(namespace)}
}

func grantTo(group, kind, name string) gwv1.ReferenceGrantTo {
	to := gwv1.ReferenceGrantTo{Group: gwv1.Group(group), Kind: gwv1.Kind(kind)}
	if name != "" {
		to.Name = ptr(gwv1.ObjectName(name))
	}
	return to
}

// attach runs Attach on the objects as the render would see them: added to an inventory, with the CRD
// defaults applied, sealed.
func attach(t *testing.T, env Environment, objs ...any) *Result {
	t.Helper()
	inv := inventory.New()
	for _, o := range objs {
		switch o.(type) {
		case *gwv1.Gateway, *gwv1.HTTPRoute, *gwv1.ListenerSet:
			require.NoError(t, apiserver.Default(apiserver.Standard, o))
		}
		require.True(t, inv.Add(o), "add %T", o)
	}
	inv.Seal()
	res := Attach(inv, testController, env)
	CountAttachedRoutes(res, func(p *Parent) bool { return p.Accepted.Status == metav1.ConditionTrue })
	return res
}

func edgeOf(t *testing.T, res *Result) *Gateway {
	t.Helper()
	g := res.GatewaysByName[types.NamespacedName{Namespace: gwNS, Name: gwName}]
	require.NotNil(t, g, "Gateway %s/%s in the result", gwNS, gwName)
	return g
}

func listenerOf(t *testing.T, g *Gateway, name string) *Listener {
	t.Helper()
	for _, l := range g.Listeners {
		if string(l.Listener.Name) == name {
			return l
		}
	}
	require.Failf(t, "no listener", "listener %q", name)
	return nil
}

func routeOf(t *testing.T, res *Result, namespace, name string) *Route {
	t.Helper()
	for _, r := range res.Routes {
		if r.Route.Namespace == namespace && r.Route.Name == name {
			return r
		}
	}
	require.Failf(t, "no route", "HTTPRoute %s/%s in the result", namespace, name)
	return nil
}

// cond is an expected condition: type, status, reason, and words its message must contain.
type cond struct {
	typ    string
	status metav1.ConditionStatus
	reason string
	words  []string
}

func assertCondition(t *testing.T, conds []metav1.Condition, want cond) {
	t.Helper()
	got := findCondition(conds, want.typ)
	if !assert.NotNil(t, got, "condition %s", want.typ) {
		return
	}
	assert.Equal(t, want.status, got.Status, "status of %s (message %q)", want.typ, got.Message)
	assert.Equal(t, want.reason, got.Reason, "reason of %s (message %q)", want.typ, got.Message)
	for _, w := range want.words {
		assert.Contains(t, got.Message, w, "message of %s", want.typ)
	}
}

func assertConditionEqual(t *testing.T, got metav1.Condition, want cond) {
	t.Helper()
	assertCondition(t, []metav1.Condition{got}, want)
}

func findCondition(conds []metav1.Condition, typ string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}

// keyPair is a self-signed ECDSA certificate and its key, both PEM.
type keyPair struct {
	key     *ecdsa.PrivateKey
	certPEM []byte
	keyPEM  []byte
}

func newKeyPair(t *testing.T, host string) keyPair {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: host},
		DNSNames:     []string{host},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	return keyPair{
		key:     key,
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}
}

func tlsSecret(namespace, name string, cert, key []byte) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: cert, corev1.TLSPrivateKeyKey: key},
	}
}
