package attachment

import (
	"testing"

	"github.com/stretchr/testify/assert"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func listener(name string, protocol gwv1.ProtocolType, port gwv1.PortNumber, hostname string) gwv1.Listener {
	l := gwv1.Listener{Name: gwv1.SectionName(name), Protocol: protocol, Port: port}
	if hostname != "" {
		l.Hostname = ptr(gwv1.Hostname(hostname))
	}
	return l
}

// The rules are the "Distinct Listeners" and "Handling indistinct Listeners" sections of GatewaySpec.Listeners:
// HTTP and HTTPS listeners must differ in port or hostname, listeners on one port must share a protocol, and no
// conflicting listener is picked as a winner.
func TestListenerConflicts(t *testing.T) {
	protocolConflict := string(gwv1.ListenerReasonProtocolConflict)
	hostnameConflict := string(gwv1.ListenerReasonHostnameConflict)
	tests := []struct {
		name      string
		listeners []gwv1.Listener
		// want maps listener index to the expected reason; indexes not in it must not be conflicted.
		want map[int]string
		// words that every conflict message must contain
		words []string
	}{
		{
			name: "HTTP and HTTPS on the same port: ProtocolConflict on both",
			listeners: []gwv1.Listener{
				listener("http", gwv1.HTTPProtocolType, 8080, ""),
				listener("https", gwv1.HTTPSProtocolType, 8080, ""),
			},
			want:  map[int]string{0: protocolConflict, 1: protocolConflict},
			words: []string{"http", "https", "8080", "HTTP, HTTPS"},
		},
		{
			name: "HTTP and HTTPS on the same port with different hostnames still conflict by protocol",
			listeners: []gwv1.Listener{
				listener("http", gwv1.HTTPProtocolType, 8080, "a.example.com"),
				listener("https", gwv1.HTTPSProtocolType, 8080, "b.example.com"),
			},
			want: map[int]string{0: protocolConflict, 1: protocolConflict},
		},
		{
			name: "two HTTP listeners on the same port without hostname: HostnameConflict on both",
			listeners: []gwv1.Listener{
				listener("one", gwv1.HTTPProtocolType, 80, ""),
				listener("two", gwv1.HTTPProtocolType, 80, ""),
			},
			want:  map[int]string{0: hostnameConflict, 1: hostnameConflict},
			words: []string{"one", "two", "80", "no hostname"},
		},
		{
			name: "two HTTPS listeners on the same port with the same hostname: HostnameConflict on both",
			listeners: []gwv1.Listener{
				listener("one", gwv1.HTTPSProtocolType, 443, "a.example.com"),
				listener("two", gwv1.HTTPSProtocolType, 443, "a.example.com"),
			},
			want:  map[int]string{0: hostnameConflict, 1: hostnameConflict},
			words: []string{"one", "two", "443", "a.example.com"},
		},
		{
			name: "same port and protocol, different hostnames: distinct",
			listeners: []gwv1.Listener{
				listener("a", gwv1.HTTPProtocolType, 80, "a.example.com"),
				listener("b", gwv1.HTTPProtocolType, 80, "b.example.com"),
			},
		},
		{
			name: "same port and protocol, one hostname and none: distinct",
			listeners: []gwv1.Listener{
				listener("a", gwv1.HTTPProtocolType, 80, "a.example.com"),
				listener("any", gwv1.HTTPProtocolType, 80, ""),
			},
		},
		{
			name: "same port and protocol, wildcard and exact hostnames: distinct",
			listeners: []gwv1.Listener{
				listener("wild", gwv1.HTTPProtocolType, 80, "*.example.com"),
				listener("exact", gwv1.HTTPProtocolType, 80, "a.example.com"),
			},
		},
		{
			name: "same hostname and protocol, different ports: distinct",
			listeners: []gwv1.Listener{
				listener("a", gwv1.HTTPProtocolType, 80, "a.example.com"),
				listener("b", gwv1.HTTPProtocolType, 8080, "a.example.com"),
			},
		},
		{
			name: "HTTP and HTTPS on different ports without hostname: distinct",
			listeners: []gwv1.Listener{
				listener("http", gwv1.HTTPProtocolType, 80, ""),
				listener("https", gwv1.HTTPSProtocolType, 443, ""),
			},
		},
		{
			name: "a TCP listener on the port of an HTTP listener takes no part, TCP being unsupported",
			listeners: []gwv1.Listener{
				listener("http", gwv1.HTTPProtocolType, 80, ""),
				listener("tcp", gwv1.TCPProtocolType, 80, ""),
			},
		},
		{
			name: "three listeners, two indistinct and one distinct: only the two are conflicted",
			listeners: []gwv1.Listener{
				listener("first", gwv1.HTTPProtocolType, 80, "a.example.com"),
				listener("distinct", gwv1.HTTPProtocolType, 80, "b.example.com"),
				listener("second", gwv1.HTTPProtocolType, 80, "a.example.com"),
			},
			want:  map[int]string{0: hostnameConflict, 2: hostnameConflict},
			words: []string{"first", "second", "a.example.com"},
		},
		{
			name: "three listeners, a protocol clash on one port and a distinct one on another port",
			listeners: []gwv1.Listener{
				listener("http", gwv1.HTTPProtocolType, 8443, ""),
				listener("https", gwv1.HTTPSProtocolType, 8443, ""),
				listener("other", gwv1.HTTPProtocolType, 80, ""),
			},
			want: map[int]string{0: protocolConflict, 1: protocolConflict},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := listenerConflicts(tc.listeners)
			reasons := map[int]string{}
			for i, c := range got {
				reasons[i] = c.reason
				for _, w := range tc.words {
					assert.Contains(t, c.message, w, "message of listener %d", i)
				}
			}
			if tc.want == nil {
				tc.want = map[int]string{}
			}
			assert.Equal(t, tc.want, reasons)
		})
	}
}
