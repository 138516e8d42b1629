package attachment

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
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
	classInvalid string
	infra        *Infrastructure
}

func (e fakeEnv) ClassParameters(*gwv1.GatewayClass) string { return e.classInvalid }

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

func gateway(listeners ...gwv1.Listener) *gwv1.Gateway {
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
	if l.AllowedRoutes == nil {
		l.AllowedRoutes = &gwv1.AllowedRoutes{}
	}
	l.AllowedRoutes.Namespaces = &gwv1.RouteNamespaces{From: ptr(from), Selector: sel}
	return l
}

func withKinds(l gwv1.Listener, kinds ...gwv1.RouteGroupKind) gwv1.Listener {
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
		switch v := o.(type) {
		case *gwv1.Gateway:
			inventory.DefaultGateway(v)
		case *gwv1.HTTPRoute:
			inventory.DefaultHTTPRoute(v)
		}
		require.True(t, inv.Add(o), "add %T", o)
	}
	inv.Seal()
	return Attach(inv, testController, env)
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
