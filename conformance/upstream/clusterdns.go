package upstream

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
)

// ClusterDNS stands in for cluster DNS and kube-proxy for the connections Tyk dials itself, past its HTTP_PROXY: an
// h2c:// upstream (Tyk's h2c transport dials with net.Dial). The Tyk Gateway runs with Hosts bound over /etc/hosts
// (realtyk.StartWithHosts), where each Service with a cluster IP has its cluster DNS name on a loopback address of
// its own, 127.53.x.y, and a connection to that address on one of the Service's ports is joined by Proxy as one
// to the name through the proxy would be (its targetPort, its backends in turn). Services are read from the API
// server as they come; the file is rewritten in place (the bind mount holds its inode), and Go's resolver reads
// it again within 5 s, glibc's at each lookup.
type ClusterDNS struct {
	// Hosts is the hosts file; Bindable says why a Gateway cannot be given it here (realtyk.BindHosts), nil when
	// it can.
	Hosts    string
	Bindable error

	client kubernetes.Interface
	proxy  *Proxy

	mu        sync.Mutex
	addrs     map[string]string // cluster DNS name -> its address
	listening map[string]bool   // address:port tried
	listeners []net.Listener
}

// hostsHead is what the file holds besides the Services: the loopback names.
const hostsHead = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"

// StartClusterDNS writes the hosts file, checks it can be bound over /etc/hosts here, and keeps it and the
// listeners up to date with the API server's Services until t ends.
func StartClusterDNS(t testing.TB, client kubernetes.Interface, proxy *Proxy) *ClusterDNS {
	t.Helper()
	d := &ClusterDNS{Hosts: filepath.Join(t.TempDir(), "hosts"), client: client, proxy: proxy,
		addrs: map[string]string{}, listening: map[string]bool{}}
	if err := os.WriteFile(d.Hosts, []byte(hostsHead), 0o644); err != nil {
		t.Fatal(err)
	}
	d.Bindable = realtyk.BindHosts(d.Hosts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() {
		cancel()
		<-done
		d.mu.Lock()
		defer d.mu.Unlock()
		for _, l := range d.listeners {
			_ = l.Close()
		}
	})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			d.refresh(ctx, t)
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	return d
}

// refresh gives each new Service with a cluster IP its address, listens there on its ports, and rewrites the
// file when an address was added.
func (d *ClusterDNS) refresh(ctx context.Context, t testing.TB) {
	list, err := d.client.CoreV1().Services("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	added := false
	for _, svc := range list.Items {
		if svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == corev1.ClusterIPNone {
			continue // a headless Service's name resolves to its pods, which the render names by pod IP
		}
		name := svc.Name + "." + svc.Namespace + ".svc.cluster.local"
		addr, ok := d.addrs[name]
		if !ok {
			n := len(d.addrs)
			addr = fmt.Sprintf("127.53.%d.%d", n/250, n%250+1)
			d.addrs[name], added = addr, true
		}
		for _, sp := range svc.Spec.Ports {
			key := net.JoinHostPort(addr, strconv.Itoa(int(sp.Port)))
			if d.listening[key] {
				continue
			}
			d.listening[key] = true
			l, err := net.Listen("tcp", key)
			if err != nil {
				t.Logf("cluster DNS stand-in: %s for %s: %v", key, name, err)
				continue
			}
			d.listeners = append(d.listeners, l)
			port := int(sp.Port)
			go forward(l, func() (net.Conn, error) {
				if upstream := d.proxy.dial(ctx, name, port); upstream != nil {
					return upstream, nil
				}
				return nil, fmt.Errorf("no backend of %s:%d", name, port)
			})
		}
	}
	if added {
		_ = os.WriteFile(d.Hosts, []byte(d.file()), 0o644) // in place: the bind mount holds the inode
	}
}

// file is the hosts file's text: the loopback names, then each Service's name and its short form
// (<service>.<namespace>.svc) on its address.
func (d *ClusterDNS) file() string {
	var lines []string
	for name, addr := range d.addrs {
		lines = append(lines, addr+"\t"+name+" "+strings.TrimSuffix(name, ".cluster.local"))
	}
	sort.Strings(lines)
	return hostsHead + strings.Join(lines, "\n") + "\n"
}
