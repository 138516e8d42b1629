package upstream

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/gateway2tyk/gateway2tyk/e2e/realkube"
	"github.com/gateway2tyk/gateway2tyk/fn/emit"
)

// managedBy is the label of every object the render emits.
const managedBy = "app.kubernetes.io/managed-by"

// fieldManager is the field manager the loop applies the rendered ConfigMaps with, as Argo CD applies with its own.
const fieldManager = "gitops-stand-in"

// source is a kind the render reads. statusWritten marks the kinds gateway2tyk sync --write-status writes the
// status of: a change to their status alone (the loop's own write) is not a change to render.
type source struct {
	gvr           schema.GroupVersionResource
	kind          string
	statusWritten bool
}

// sources are the kinds the render reads (fn/read): Gateway API's, the cluster facts (Services, EndpointSlices,
// Namespaces, Secrets, ConfigMaps) and Tyk Operator's.
var sources = []source{
	{gvr: schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "gatewayclasses"}, kind: "GatewayClass", statusWritten: true},
	{gvr: schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "gateways"}, kind: "Gateway", statusWritten: true},
	{gvr: schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"}, kind: "HTTPRoute", statusWritten: true},
	{gvr: schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "listenersets"}, kind: "ListenerSet", statusWritten: true},
	{gvr: schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1beta1", Resource: "referencegrants"}, kind: "ReferenceGrant"},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "services"}, kind: "Service"},
	{gvr: schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}, kind: "EndpointSlice"},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, kind: "Namespace"},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, kind: "Secret"},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, kind: "ConfigMap"},
	{gvr: schema.GroupVersionResource{Group: "tyk.tyk.io", Version: "v1alpha1", Resource: "operatorcontexts"}, kind: "OperatorContext"},
	{gvr: schema.GroupVersionResource{Group: "tyk.tyk.io", Version: "v1alpha1", Resource: "tykoasapidefinitions"}, kind: "TykOasApiDefinition", statusWritten: true},
}

var (
	configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	services   = schema.GroupVersionResource{Version: "v1", Resource: "services"}
)

type appliedKind struct {
	kind     string
	gvr      schema.GroupVersionResource
	selector string
}

// applied are the kinds of the render's output the loop applies, each with its resource and the labels that
// select the ones it prunes: the APIs' ConfigMaps, and the Services it emits for Gateways (gatewayPorts).
var applied = []appliedKind{
	{"ConfigMap", configMaps, managedBy + "=gateway2tyk," + emit.LabelAPIID},
	{"Service", services, managedBy + "=gateway2tyk," + emit.LabelComponent + "=" + emit.ComponentGatewayService},
}

// GitOps stands in for Argo CD: after every change in the API server it renders what the render reads with the
// gateway2tyk binary, applies the rendered ConfigMaps (pruning the ones no longer rendered), and runs gateway2tyk
// sync against the real Tyk Gateway with the status writer on. Nothing else decides a status or an API.
type GitOps struct {
	// Binary is the gateway2tyk binary; RenderConfig the RenderConfig document given to render with -c.
	Binary       string
	RenderConfig []byte
	// SyncArgs are sync's arguments (target, kubeconfig, --write-status); SyncEnv is added to its environment.
	SyncArgs []string
	SyncEnv  []string
	// Poll is how often the API server is read; a change is rendered once a read finds nothing new (debounce).
	Poll time.Duration

	dyn dynamic.Interface
	dir string
	t   testing.TB

	mu     sync.Mutex
	rounds []Round
}

// Round is one pass of the loop: how long from the change seen to the sync's end, and how it ended.
type Round struct {
	Latency        time.Duration
	Render, Sync   time.Duration
	APIs           int
	RenderExit     int
	SyncExit       int
	SyncOutputTail string
}

// Start runs the loop until t ends.
func (g *GitOps) Start(t testing.TB, c *realkube.Cluster) {
	t.Helper()
	g.t, g.dyn, g.dir = t, c.Dynamic, t.TempDir()
	if err := os.WriteFile(filepath.Join(g.dir, "renderconfig.yaml"), g.RenderConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
}

func (g *GitOps) run(ctx context.Context) {
	var rendered, pending string
	var seen time.Time
	for ctx.Err() == nil {
		objs, fp, err := g.read(ctx)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				g.t.Logf("gitops: reading the API server: %v", err)
			}
		case fp == rendered:
			pending = ""
		case fp != pending:
			pending, seen = fp, time.Now() // a change: wait for one more read that finds nothing new
		default:
			r := g.round(ctx, objs)
			r.Latency = time.Since(seen)
			g.mu.Lock()
			g.rounds = append(g.rounds, r)
			g.mu.Unlock()
			rendered, pending = fp, ""
			continue
		}
		select {
		case <-ctx.Done():
		case <-time.After(g.Poll):
		}
	}
}

// read lists every object the render reads and a fingerprint of what a render depends on.
func (g *GitOps) read(ctx context.Context) ([]map[string]any, string, error) {
	var objs []map[string]any
	var keys []string
	for _, s := range sources {
		list, err := g.dyn.Resource(s.gvr).List(ctx, metav1.ListOptions{})
		if apierrors.IsNotFound(err) {
			continue // the kind is not served (Tyk's CRDs are installed, so only a mistake would get here)
		} else if err != nil {
			return nil, "", fmt.Errorf("listing %s: %v", s.gvr.Resource, err)
		}
		for i := range list.Items {
			u := &list.Items[i]
			if s.kind == "ConfigMap" && u.GetLabels()[managedBy] == "gateway2tyk" {
				continue // the render's own output: it skips it, and the loop wrote it
			}
			version := u.GetResourceVersion()
			if s.statusWritten {
				meta, _ := json.Marshal([]any{u.GetGeneration(), u.GetLabels(), u.GetAnnotations(), u.GetDeletionTimestamp()})
				version = string(meta)
			}
			keys = append(keys, s.kind+" "+u.GetNamespace()+"/"+u.GetName()+" "+string(u.GetUID())+" "+version)
			obj := u.DeepCopy().Object
			unstructured.RemoveNestedField(obj, "metadata", "managedFields")
			objs = append(objs, obj)
		}
	}
	sort.Strings(keys)
	sum := sha256.Sum256([]byte(strings.Join(keys, "\n")))
	return objs, hex.EncodeToString(sum[:]), nil
}

// round renders objs, applies the rendered ConfigMaps and runs sync.
func (g *GitOps) round(ctx context.Context, objs []map[string]any) Round {
	var r Round
	var in bytes.Buffer
	for _, o := range objs {
		b, err := yaml.Marshal(o)
		if err != nil {
			g.t.Logf("gitops: %v", err)
			return r
		}
		in.WriteString("---\n")
		in.Write(b)
	}
	inPath, outPath := filepath.Join(g.dir, "input.yaml"), filepath.Join(g.dir, "rendered.yaml")
	if err := os.WriteFile(inPath, in.Bytes(), 0o600); err != nil {
		g.t.Logf("gitops: %v", err)
		return r
	}
	begin := time.Now()
	out, stderr, code := g.exec(ctx, nil, "render", "-c", filepath.Join(g.dir, "renderconfig.yaml"), inPath)
	r.Render, r.RenderExit = time.Since(begin), code
	if code != 0 {
		// The output is written even when a result at failOn exists; what the API server holds is valid, so an
		// error here is the render's, and the loop goes on with what it wrote, as Argo CD would show it.
		g.t.Logf("gitops: render exited %d: %s", code, lastLines(stderr, 5))
	}
	if err := os.WriteFile(outPath, out, 0o600); err != nil {
		g.t.Logf("gitops: %v", err)
		return r
	}
	n, err := g.apply(ctx, out)
	r.APIs = n
	if err != nil {
		g.t.Logf("gitops: applying the rendered objects: %v", err)
	}
	begin = time.Now()
	syncOut, syncErr, code := g.exec(ctx, g.SyncEnv, append([]string{"sync", "--from", outPath}, g.SyncArgs...)...)
	r.Sync, r.SyncExit = time.Since(begin), code
	r.SyncOutputTail = lastLines(append(syncOut, syncErr...), 8)
	if code != 0 && ctx.Err() == nil {
		g.t.Logf("gitops: sync exited %d:\n%s", code, r.SyncOutputTail)
	}
	return r
}

// apply applies the rendered ConfigMaps and Services (applied) with server-side apply and deletes the ones the
// cluster has that the render no longer makes (Argo CD's prune). It returns how many ConfigMaps it applied.
func (g *GitOps) apply(ctx context.Context, rendered []byte) (n int, err error) {
	var refused []string
	docs, err := realkube.SplitYAML(rendered)
	if err != nil {
		return 0, err
	}
	want := map[string]map[types.NamespacedName]bool{}
	for _, a := range applied {
		want[a.kind] = map[types.NamespacedName]bool{}
	}
	for _, doc := range docs {
		var u unstructured.Unstructured
		if err := yaml.Unmarshal(doc, &u.Object); err != nil {
			return 0, err
		}
		i := slices.IndexFunc(applied, func(a appliedKind) bool { return a.kind == u.GetKind() })
		if p := emit.Ours(u.GetLabels()); i < 0 || u.GetAPIVersion() != "v1" || (p != emit.OursAPI && p != emit.OursGatewayService) {
			continue
		}
		unstructured.RemoveNestedField(u.Object, "status") // the load balancer's, not the loop's to apply
		data, err := json.Marshal(u.Object)
		if err != nil {
			return 0, err
		}
		force := true
		// One object the API server refuses does not stop the others, as Argo CD applies them.
		want[u.GetKind()][types.NamespacedName{Namespace: u.GetNamespace(), Name: u.GetName()}] = true
		if _, err := g.dyn.Resource(applied[i].gvr).Namespace(u.GetNamespace()).Patch(ctx, u.GetName(), types.ApplyPatchType, data,
			metav1.PatchOptions{FieldManager: fieldManager, Force: &force}); err != nil {
			refused = append(refused, fmt.Sprintf("%s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err))
		}
	}
	if len(refused) > 0 {
		defer func() { err = errors.Join(err, errors.New(strings.Join(refused, "; "))) }()
	}
	for _, a := range applied {
		live, err := g.dyn.Resource(a.gvr).List(ctx, metav1.ListOptions{LabelSelector: a.selector})
		if err != nil {
			return len(want["ConfigMap"]), err
		}
		for _, u := range live.Items {
			if !want[a.kind][types.NamespacedName{Namespace: u.GetNamespace(), Name: u.GetName()}] {
				err := g.dyn.Resource(a.gvr).Namespace(u.GetNamespace()).Delete(ctx, u.GetName(), metav1.DeleteOptions{})
				if err != nil && !apierrors.IsNotFound(err) {
					return len(want["ConfigMap"]), err
				}
			}
		}
	}
	return len(want["ConfigMap"]), nil
}

// exec runs the gateway2tyk binary and returns its stdout, stderr and exit code (-1 when it did not run).
func (g *GitOps) exec(ctx context.Context, env []string, args ...string) ([]byte, []byte, int) {
	cmd := exec.CommandContext(ctx, g.Binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			stderr.WriteString(err.Error())
		}
	}
	return stdout.Bytes(), stderr.Bytes(), code
}

// Rounds is a copy of the rounds so far.
func (g *GitOps) Rounds() []Round {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.rounds)
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
