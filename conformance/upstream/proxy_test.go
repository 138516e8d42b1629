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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
)

// TestProxyMapsServiceToProcess: a request for a Service's cluster DNS name and port reaches the process behind
// the Service's targetPort, with the Host header kept; a name that is no Service gets its connection closed.
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

	client := fake.NewClientset(&corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Port: 8080, TargetPort: intstr.FromInt32(3000)}}},
	})
	b := &Backends{client: client, deps: map[string]*deployment{"shop/web": {namespace: "shop",
		labels: labels.Set{"app": "web"}, pods: []*pod{{name: "web-1", ports: map[int32]int{3000: port}}}}}}
	p := StartProxy(t, client, b)
	proxyURL, _ := url.Parse("http://" + p.Addr)
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL)}}

	req, _ := http.NewRequest(http.MethodGet, "http://web.shop.svc.cluster.local:8080/a?b=1", nil)
	// With a Host header of its own (Tyk's preserveHostHeader) Go's transport writes that host into the request
	// line it sends a proxy, so the proxy cannot tell the Service: the harness's known defect (README).
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if got := string(body); resp.StatusCode != 200 || got != "host=web.shop.svc.cluster.local:8080 path=/a?b=1" {
		t.Errorf("got %d %q", resp.StatusCode, got)
	}
	if _, err := c.Get("http://unresolved.backend.invalid/"); err == nil || !strings.Contains(err.Error(), "EOF") {
		t.Errorf("a name that is no Service: got %v, want the connection closed", err)
	}
}
