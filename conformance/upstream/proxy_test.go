package upstream

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
)

// TestProxyMapsServiceToProcess: through the SOCKS5 stand-in (as Tyk's transport uses it, a socks5:// proxy URL),
// a request for a Service's cluster DNS name or cluster IP and port reaches the process behind the Service's
// targetPort, with the Host header the client set kept (Tyk's preserveHostHeader); so does a pod IP on its
// container port, a headless Service's name on the container port, and a Service without selector through its
// EndpointSlices; a name that is no Service, or a port nothing listens on, gets no connection.
func TestProxyMapsServiceToProcess(t *testing.T) {
	backend := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "host="+r.Host+" path="+r.URL.RequestURI())
	})}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	l, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	go backend.Serve(l)
	t.Cleanup(func() { backend.Close() })

	slicePort, sliceName, ready := int32(3000), "http", true
	client := fake.NewClientset(&corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.7.7", Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Port: 8080, TargetPort: intstr.FromInt32(3000)}}},
	}, &corev1.Service{ // headless: its name resolves to the pods, dialled on the container port
		ObjectMeta: metav1.ObjectMeta{Name: "headless", Namespace: "shop"},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Port: 8080, TargetPort: intstr.FromInt32(3000)}}},
	}, &corev1.Service{ // no selector: its EndpointSlices list the pods
		ObjectMeta: metav1.ObjectMeta{Name: "manual", Namespace: "shop"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.7.8",
			Ports: []corev1.ServicePort{{Name: sliceName, Port: 8080, TargetPort: intstr.FromInt32(3000)}}},
	}, &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "manual-ip4", Namespace: "shop", Labels: map[string]string{discoveryv1.LabelServiceName: "manual"}},
		Ports:      []discoveryv1.EndpointPort{{Name: &sliceName, Port: &slicePort}},
		Endpoints:  []discoveryv1.Endpoint{{Addresses: []string{"10.244.0.1"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
	})
	b := &Backends{client: client, deps: map[string]*deployment{"shop/web": {namespace: "shop",
		labels: labels.Set{"app": "web"}, pods: []*pod{{name: "web-1", ip: "10.244.0.1", ports: map[int32]int{3000: port}}}}}}
	p := StartProxy(t, client, b)
	proxyURL, err := url.Parse(p.URL)
	if err != nil || proxyURL.Scheme != "socks5" {
		t.Fatalf("proxy URL %q, want socks5://", p.URL)
	}
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL), DisableKeepAlives: true}}

	for _, tc := range []struct{ url, host, want string }{
		{"http://web.shop.svc.cluster.local:8080/a?b=1", "", "host=web.shop.svc.cluster.local:8080 path=/a?b=1"},
		// A Host header of its own (preserveHostHeader) travels untouched; the address dialled is the URL's.
		{"http://web.shop.svc.cluster.local:8080/a", "example.com", "host=example.com path=/a"},
		{"http://10.96.7.7:8080/ip", "", "host=10.96.7.7:8080 path=/ip"},
		{"http://10.244.0.1:3000/pod", "", "host=10.244.0.1:3000 path=/pod"},
		{"http://headless.shop.svc.cluster.local:3000/h", "", "host=headless.shop.svc.cluster.local:3000 path=/h"},
		{"http://manual.shop.svc.cluster.local:8080/m", "", "host=manual.shop.svc.cluster.local:8080 path=/m"},
		{"http://10.96.7.8:8080/m", "", "host=10.96.7.8:8080 path=/m"},
	} {
		req, _ := http.NewRequest(http.MethodGet, tc.url, nil)
		req.Host = tc.host
		resp, err := c.Do(req)
		if err != nil {
			t.Errorf("%s: %v", tc.url, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := string(body); resp.StatusCode != 200 || got != tc.want {
			t.Errorf("%s (Host %q): got %d %q, want %q", tc.url, tc.host, resp.StatusCode, got, tc.want)
		}
	}
	for _, u := range []string{"http://unresolved.backend.invalid/", "http://web.shop.svc.cluster.local:9999/", "http://10.1.2.3/",
		"http://10.244.0.1:9999/", "http://headless.shop.svc.cluster.local:8081/"} {
		if _, err := c.Get(u); err == nil || !strings.Contains(err.Error(), "host unreachable") {
			t.Errorf("%s: got %v, want the SOCKS reply host unreachable", u, err)
		}
	}
}
