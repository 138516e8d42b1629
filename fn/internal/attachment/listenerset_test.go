package attachment

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// A Gateway's ListenerSets (the gateway-api profile): allowed by spec.allowedListeners (None by default), their
// listeners conflicting with the Gateway's own and with older sets' (which keep the port), routes attached through
// a parentRef of kind ListenerSet only to its listeners and through one of kind Gateway only to the Gateway's own.
func TestAttachListenerSets(t *testing.T) {
	const team = "team"
	created := func(minute int) metav1.Time { return metav1.NewTime(time.Date(2026, 12, 1, 0, minute, 0, 0, time.UTC)) }
	set := func(namespace, name string, minute int, entries ...gwv1.Listener) *gwv1.ListenerSet {
		ls := &gwv1.ListenerSet{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Generation: 4, CreationTimestamp: created(minute)},
			Spec: gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{Namespace: ptr(gwv1.Namespace(gwNS)), Name: gwName}}}
		for _, e := range entries {
			ls.Spec.Listeners = append(ls.Spec.Listeners, gwv1.ListenerEntry{Name: e.Name, Hostname: e.Hostname, Port: e.Port, Protocol: e.Protocol})
		}
		return ls
	}
	setRef := func(namespace, name string) gwv1.ParentReference {
		return gwv1.ParentReference{Group: ptr(gwv1.Group(gwv1.GroupName)), Kind: ptr(gwv1.Kind("ListenerSet")),
			Namespace: ptr(gwv1.Namespace(namespace)), Name: gwv1.ObjectName(name)}
	}
	allowing := func(from gwv1.FromNamespaces) *gwv1.Gateway {
		gw := gateway(fromAll(listener("web", gwv1.HTTPProtocolType, 80, "www.example.com")))
		gw.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: &from}}
		return gw
	}
	// newer is created after older, and its name sorts first: creation time decides.
	older := set(team, "z-older", 1, listener("api", gwv1.HTTPProtocolType, 80, "api.example.com"))
	newer := set(team, "a-newer", 2, listener("api", gwv1.HTTPProtocolType, 80, "api.example.com"),
		listener("www", gwv1.HTTPProtocolType, 80, "www.example.com"), listener("tls", gwv1.HTTPSProtocolType, 80, "tls.example.com"),
		listener("tcp", gwv1.TCPProtocolType, 80, ""),
		listener("docs", gwv1.HTTPProtocolType, 80, "docs.example.com"))
	route := httpRoute(team, "api", []gwv1.ParentReference{setRef(team, "z-older"), edgeRef()})
	viaGateway := httpRoute(team, "www", []gwv1.ParentReference{edgeRef()}, "docs.example.com")
	objs := []any{gatewayClass(), allowing(gwv1.NamespacesFromAll), older, newer, route, viaGateway}

	res := attach(t, fakeEnv{listenerSets: true}, objs...)
	require.Len(t, res.Gateways, 1)
	g := res.Gateways[0]
	require.Len(t, g.Sets, 2)
	assert.Equal(t, "z-older", g.Sets[0].Set.Name, "the older set first, whatever the names")
	assert.Equal(t, int32(2), g.AttachedListenerSets())
	assert.Len(t, g.Listeners, 1, "the Gateway's own listeners")
	assert.Len(t, g.AllListeners(), 7)

	first, second := g.Sets[0], g.Sets[1]
	assertCondition(t, first.Conditions, cond{"Accepted", ctTrue, "Accepted", nil})
	assertCondition(t, second.Conditions, cond{"Accepted", ctTrue, "ListenersNotValid", []string{"api, www, tls, tcp", "docs"}})
	assertCondition(t, second.Conditions, cond{"Programmed", ctTrue, "Programmed", nil})
	want := map[string]cond{
		"api": {lcConflicted, ctTrue, "HostnameConflict", []string{"listener api of ListenerSet team/z-older"}},
		"www": {lcConflicted, ctTrue, "HostnameConflict", []string{"listener web of Gateway infra/edge"}},
		"tls": {lcConflicted, ctTrue, "ProtocolConflict", []string{"listener web of Gateway infra/edge", "HTTP"}},
		"tcp": {lcConflicted, ctTrue, "ProtocolConflict", []string{"listener web of Gateway infra/edge"}},
	}
	for _, l := range second.Listeners {
		if w, ok := want[string(l.Listener.Name)]; ok {
			assertCondition(t, l.Conditions, w)
			assertCondition(t, l.Conditions, cond{lcProgrammed, ctFalse, w.reason, nil})
			assert.False(t, l.Serving, l.Listener.Name)
		} else {
			assert.True(t, l.Serving, l.Listener.Name)
		}
	}

	r := routeOf(t, res, team, "api")
	require.Len(t, r.Parents, 2)
	assertConditionEqual(t, r.Parents[0].Accepted, cond{rcAccepted, ctTrue, "Accepted", []string{"ListenerSet team/z-older", "api"}})
	assert.Same(t, first, r.Parents[0].ListenerSet)
	assert.Equal(t, []*Listener{first.Listeners[0]}, r.Parents[0].Admitting)
	assert.Equal(t, []*Listener{g.Listeners[0]}, r.Parents[1].Admitting, "a parentRef to the Gateway: its own listeners only")
	assert.Equal(t, int32(1), first.Listeners[0].AttachedRoutes)
	assertConditionEqual(t, routeOf(t, res, team, "www").Parents[0].Accepted, cond{rcAccepted, ctFalse, "NoMatchingListenerHostname", nil})

	for _, c := range []struct {
		name string
		gw   *gwv1.Gateway
		ns   string
		want string
	}{
		{"by default none", gateway(httpListener("web")), team, "from: None"},
		{"Same: another namespace", allowing(gwv1.NamespacesFromSame), team, "its own namespace only"},
		{"Same: the Gateway's", allowing(gwv1.NamespacesFromSame), gwNS, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ls := set(c.ns, "extra", 1, listener("api", gwv1.HTTPProtocolType, 80, "api.example.com"))
			res := attach(t, fakeEnv{listenerSets: true}, gatewayClass(), c.gw, ls)
			s := res.ListenerSets[0]
			if c.want == "" {
				assert.True(t, s.Accepted)
				return
			}
			assertCondition(t, s.Conditions, cond{"Accepted", ctFalse, "NotAllowed", []string{c.want}})
			assertCondition(t, s.Conditions, cond{"Programmed", ctFalse, "NotAllowed", nil})
			assert.Empty(t, s.Listeners)
			assert.Zero(t, res.Gateways[0].AttachedListenerSets())
		})
	}
	t.Run("a profile that does not serve them", func(t *testing.T) {
		res := attach(t, fakeEnv{}, objs...)
		assert.False(t, res.ListenerSets[0].Served)
		assert.Empty(t, res.Gateways[0].Sets)
		require.Len(t, res.ListenerSetParents, 1)
		assert.Len(t, routeOf(t, res, team, "api").Parents, 1, "the parentRef to the Gateway only")
	})
}
