package upstream

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
)

// Backends runs the echo-basic processes that stand in for the Pods of the Deployments in the API server (see
// standins.go): it polls the Deployments and keeps one process per replica of each echo-basic Deployment, started
// when the Deployment appears or changes, stopped when it goes.
type Backends struct {
	bin    string
	dir    string
	client kubernetes.Interface
	// pods counts the Pods made, which numbers their pod IPs (podIP).
	pods atomic.Int32

	mu   sync.Mutex
	deps map[string]*deployment // by namespace/name
}

// deployment is the processes of one Deployment, as of one generation of it.
type deployment struct {
	namespace  string
	generation int64
	labels     labels.Set // the Pod template's labels, which Service selectors select
	pods       []*pod
}

// pod is one echo-basic process: its name, and the loopback port that stands in for each container port.
type pod struct {
	name, namespace string
	// ip is the pod IP its Pod object reports (podIP): what an EndpointSlice lists and a headless Service's
	// upstream dials, which Proxy joins to ports.
	ip    string
	ports map[int32]int
	cmd   *exec.Cmd
}

// standInNode is the node the stand-in Pods are bound to (spec.nodeName), as the scheduler would bind them: the
// suite copies it into the EndpointSlices it writes (HTTPRouteServiceTypes), whose nodeName must be a name.
const standInNode = "gateway2tyk-standin-node"

// podIP is the n-th Pod's IP, in 10.244.0.0/16 (a pod network's usual range): a Pod IP must not be a loopback
// address, or the API server refuses the EndpointSlices that list it (the suite's HTTPRouteServiceTypes writes
// them from the Pods), and each Pod needs its own, so that Proxy can tell them apart.
func podIP(n int32) string {
	return fmt.Sprintf("10.244.%d.%d", n/250, n%250+1)
}

// StartBackends polls the Deployments every interval until t ends.
func StartBackends(t testing.TB, bin string, client kubernetes.Interface, interval time.Duration) *Backends {
	t.Helper()
	b := &Backends{bin: bin, dir: t.TempDir(), client: client, deps: map[string]*deployment{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if err := b.reconcile(ctx); err != nil && ctx.Err() == nil {
				t.Logf("backends: %v", err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(interval):
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		b.mu.Lock()
		defer b.mu.Unlock()
		for key, d := range b.deps {
			d.stop(b.client)
			delete(b.deps, key)
		}
	})
	return b
}

func (b *Backends) reconcile(ctx context.Context) error {
	list, err := b.client.AppsV1().Deployments("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var errs []error
	for i := range list.Items {
		dep := &list.Items[i]
		c := echoContainer(dep)
		if c == nil {
			continue
		}
		key := dep.Namespace + "/" + dep.Name
		seen[key] = true
		b.mu.Lock()
		old := b.deps[key]
		b.mu.Unlock()
		if old != nil && old.generation == dep.Generation {
			continue
		}
		d, err := b.start(dep, c)
		if err != nil {
			errs = append(errs, fmt.Errorf("Deployment %s: %v", key, err))
			continue
		}
		b.mu.Lock()
		b.deps[key] = d
		b.mu.Unlock()
		if old != nil {
			old.stop(b.client)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for key, d := range b.deps {
		if !seen[key] {
			d.stop(b.client)
			delete(b.deps, key)
		}
	}
	return errors.Join(errs...)
}

// echoContainer is the Deployment's container that runs echo-basic, or nil.
func echoContainer(dep *appsv1.Deployment) *corev1.Container {
	for i, c := range dep.Spec.Template.Spec.Containers {
		if repo, _, _ := strings.Cut(c.Image, ":"); repo == echoImage {
			return &dep.Spec.Template.Spec.Containers[i]
		}
	}
	return nil
}

func (b *Backends) start(dep *appsv1.Deployment, c *corev1.Container) (*deployment, error) {
	replicas := int32(1)
	if dep.Spec.Replicas != nil {
		replicas = *dep.Spec.Replicas
	}
	d := &deployment{namespace: dep.Namespace, generation: dep.Generation, labels: dep.Spec.Template.Labels}
	for range replicas {
		p, err := b.run(dep, c)
		if err != nil {
			d.stop(b.client)
			return nil, err
		}
		d.pods = append(d.pods, p)
		if err := b.createPod(dep, p); err != nil {
			d.stop(b.client)
			return nil, err
		}
	}
	return d, nil
}

// createPod writes the Pod object of a process, Running and Ready, as the ReplicaSet controller and the kubelet
// would (standins.go): the suite waits for the Pods of its namespaces to be Ready. It makes the namespace's
// default ServiceAccount first when it is missing, as the service account controller would, since the API
// server's admission refuses a Pod whose ServiceAccount does not exist.
func (b *Backends) createPod(dep *appsv1.Deployment, p *pod) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sa := dep.Spec.Template.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	_, err := b.client.CoreV1().ServiceAccounts(dep.Namespace).Create(ctx,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	obj := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: dep.Namespace, Labels: dep.Spec.Template.Labels},
		Spec:       *dep.Spec.Template.Spec.DeepCopy(),
	}
	obj.Spec.NodeName = standInNode
	p.ip = podIP(b.pods.Add(1) - 1)
	created, err := b.client.CoreV1().Pods(dep.Namespace).Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating Pod %s/%s: %v", dep.Namespace, p.name, err)
	}
	now := metav1.Now()
	created.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: p.ip, PodIPs: []corev1.PodIP{{IP: p.ip}},
		HostIP: "127.0.0.1", StartTime: &now,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
		}}
	if _, err := b.client.CoreV1().Pods(dep.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("Pod %s/%s status: %v", dep.Namespace, p.name, err)
	}
	p.namespace = dep.Namespace
	return nil
}

// podName names a Pod of dep as the Deployment and ReplicaSet controllers do: the Deployment's name, a hash of its
// Pod template (the ReplicaSet's pod-template-hash) and a random suffix of its own. The suite reads a backend's name
// back from the Pod names echo-basic reports by cutting the last two parts (utils/weight's extractBackendName).
func podName(dep *appsv1.Deployment) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(dep.Spec.Template.String()))
	suffix := make([]byte, 3)
	_, _ = rand.Read(suffix)
	return fmt.Sprintf("%s-%08x-%s", dep.Name, h.Sum32(), hex.EncodeToString(suffix)[:5])
}

// run starts one process of the container as a Pod of the Deployment would run it, and waits until it listens.
func (b *Backends) run(dep *appsv1.Deployment, c *corev1.Container) (*pod, error) {
	p := &pod{name: podName(dep), ports: map[int32]int{}}
	env := []string{"PATH=" + os.Getenv("PATH")}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.name":
			env = append(env, e.Name+"="+p.name)
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace":
			env = append(env, e.Name+"="+dep.Namespace)
		case e.ValueFrom == nil && !underMount(c, e.Value):
			env = append(env, e.Name+"="+e.Value)
		}
	}
	for containerPort, name := range echoContainerPorts {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		p.ports[containerPort] = port
		env = append(env, name+"="+strconv.Itoa(port))
	}
	log, err := os.Create(filepath.Join(b.dir, p.name+".log"))
	if err != nil {
		return nil, err
	}
	p.cmd = exec.Command(b.bin)
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = log, log
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // dies with the test binary
	if err := p.cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("starting %s: %v", b.bin, err)
	}
	go func() { _ = p.cmd.Wait(); log.Close() }()
	// Ready once it listens for HTTP, as a readiness probe would see it; a TCP or UDP echo server (TCP_ECHO_SERVER)
	// never does, and is taken as it is after a while.
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(p.ports[3000]))
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			break
		}
	}
	return p, nil
}

// underMount says whether a value is a path under one of the container's volume mounts (none is mounted).
func underMount(c *corev1.Container, value string) bool {
	for _, m := range c.VolumeMounts {
		if value == m.MountPath || strings.HasPrefix(value, strings.TrimSuffix(m.MountPath, "/")+"/") {
			return true
		}
	}
	return false
}

// stop kills the processes and deletes their Pods (a Pod bound to no node is deleted at once).
func (d *deployment) stop(client kubernetes.Interface) {
	for _, p := range d.pods {
		_ = p.cmd.Process.Kill()
		if p.namespace != "" {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			// At once, as the kubelet of its node would confirm it: a Pod bound to a node otherwise waits for that.
			_ = client.CoreV1().Pods(p.namespace).Delete(ctx, p.name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
			cancel()
		}
	}
}

// PodEndpoint is the loopback address that stands in for containerPort of the Pod with IP ip, "" when there is none.
func (b *Backends) PodEndpoint(ip string, containerPort int32) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, d := range b.deps {
		for _, p := range d.pods {
			if port, ok := p.ports[containerPort]; ok && p.ip == ip {
				return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
			}
		}
	}
	return ""
}

// Endpoints are the loopback addresses that stand in for containerPort of the Pods that selector selects in
// namespace.
func (b *Backends) Endpoints(namespace string, selector labels.Selector, containerPort int32) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, d := range b.deps {
		if d.namespace != namespace || selector.Empty() || !selector.Matches(d.labels) {
			continue
		}
		for _, p := range d.pods {
			if port, ok := p.ports[containerPort]; ok {
				out = append(out, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			}
		}
	}
	sort.Strings(out)
	return out
}

// freePort is a loopback TCP port nothing listens on at the time of the call.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
