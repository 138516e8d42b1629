package operatorcontext

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gateway2tyk/gateway2tyk/fn/emit"
)

// servicePlan is the Services the gateway-api profile emits for Gateways (config's gatewayPorts): one for every
// Gateway of ours that has a data plane and no Service of its own, in the namespace of the Tyk Pods' Service
// (whose selector and type it copies), labelled as gatewayService finds it, that sends each listener port to a
// port of the Pods from the pool: Tyk serves the Gateway there alone, so every Gateway has an address of its own
// (the load balancer's, read back from the copy in the cluster on the next render), as Gateway API asks and the
// suite's HTTPRouteMultipleGateways holds. Ports are kept across renders: a Gateway keeps the ports its Service
// in the cluster has (when they are still in the pool and not another's), and new ones are the lowest free, the
// Gateways taken by namespace and name, so the same input always gives the same Services.
type servicePlan struct {
	byGateway map[types.NamespacedName]*corev1.Service
	// short says why a Gateway got none: the pool has too few ports.
	short map[types.NamespacedName]string
}

// WithGatewayServices plans the Services of the Gateways of the class controllerName names, on pool (the ports
// of the Tyk Pods, ascending). The gateway-api profile only.
func (e Environment) WithGatewayServices(pool []int, controllerName string) Environment {
	if !e.gatewayAPI || len(pool) == 0 {
		return e
	}
	plan := &servicePlan{byGateway: map[types.NamespacedName]*corev1.Service{}, short: map[types.NamespacedName]string{}}
	type want struct {
		gw      *gwv1.Gateway
		dp      *corev1.Service
		earlier *corev1.Service
		ports   []int32
		target  map[int32]int32
	}
	var wants []*want
	for _, key := range slices.SortedFunc(maps.Keys(e.inv.Gateways), func(a, b types.NamespacedName) int {
		return strings.Compare(a.String(), b.String())
	}) {
		gw := e.inv.Gateways[key]
		gc := e.inv.GatewayClasses[string(gw.Spec.GatewayClassName)]
		if gc == nil || string(gc.Spec.ControllerName) != controllerName {
			continue
		}
		dp, _ := e.dataPlaneService(gw)
		if dp == nil {
			continue
		}
		own := e.gatewayService(gw, dp)
		if own != nil && emit.Ours(own.Labels) == emit.NotOurs {
			continue // the user's own
		}
		w := &want{gw: gw, dp: dp, earlier: own, ports: listenerPorts(gw), target: map[int32]int32{}}
		if len(w.ports) == 0 {
			continue // no listener Tyk serves: a Service without ports is no Service (the API server refuses it)
		}
		wants = append(wants, w)
	}
	taken := map[int32]bool{}
	inPool := map[int32]bool{}
	for _, p := range pool {
		inPool[int32(p)] = true
	}
	// Keep what each Gateway's Service in the cluster has, first come first kept.
	for _, w := range wants {
		if w.earlier == nil {
			continue
		}
		for _, sp := range w.earlier.Spec.Ports {
			tp := sp.TargetPort.IntVal
			if slices.Contains(w.ports, sp.Port) && sp.TargetPort.Type == intstr.Int && inPool[tp] && !taken[tp] {
				w.target[sp.Port], taken[tp] = tp, true
			}
		}
	}
	for _, w := range wants {
		key := types.NamespacedName{Namespace: w.gw.Namespace, Name: w.gw.Name}
		var got []int32 // this Gateway's new ports, given back when it cannot have them all
		for _, p := range w.ports {
			if _, ok := w.target[p]; ok {
				continue
			}
			i := slices.IndexFunc(pool, func(port int) bool { return !taken[int32(port)] })
			if i < 0 {
				plan.short[key] = fmt.Sprintf("the RenderConfig's gatewayPorts has no port left for listener port %d "+
					"(every one is another Gateway's): give it more ports of the Tyk Pods", p)
				break
			}
			w.target[p], taken[int32(pool[i])] = int32(pool[i]), true
			got = append(got, int32(pool[i]))
		}
		if plan.short[key] != "" {
			for _, tp := range got {
				delete(taken, tp)
			}
			continue
		}
		plan.byGateway[key] = gatewayServiceFor(w.gw, w.dp, w.earlier, w.ports, w.target)
	}
	e.services = plan
	return e
}

// GatewayServices are the Services the render emits for Gateways, by namespace and name.
func (e Environment) GatewayServices() []*corev1.Service {
	if e.services == nil {
		return nil
	}
	out := slices.Collect(maps.Values(e.services.byGateway))
	slices.SortFunc(out, func(a, b *corev1.Service) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	return out
}

// listenerPorts are the ports of a Gateway's HTTP and HTTPS listeners, ascending, each once.
func listenerPorts(gw *gwv1.Gateway) []int32 {
	var out []int32
	for _, l := range gw.Spec.Listeners {
		if l.Protocol == gwv1.HTTPProtocolType || l.Protocol == gwv1.HTTPSProtocolType {
			out = append(out, int32(l.Port))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// gatewayServiceFor is the Service of a Gateway: in dp's namespace, with its type and selector, each listener
// port sent to its target, labelled and annotated with the Gateway's infrastructure labels and annotations (as
// Gateway API asks of what an implementation runs for a Gateway) and with what finds it (gatewayService) and marks
// it ours; the address of its copy in the cluster (earlier), which the load balancer or the API server gave it.
func gatewayServiceFor(gw *gwv1.Gateway, dp, earlier *corev1.Service, ports []int32, target map[int32]int32) *corev1.Service {
	labels, annotations := map[string]string{}, map[string]string{}
	if infra := gw.Spec.Infrastructure; infra != nil {
		for k, v := range infra.Labels {
			labels[string(k)] = string(v)
		}
		for k, v := range infra.Annotations {
			annotations[string(k)] = string(v)
		}
	}
	labels[emit.LabelManagedBy] = emit.ManagedBy
	labels[emit.LabelComponent] = emit.ComponentGatewayService
	labels[gwv1.GatewayNameLabelKey] = gw.Name
	labels[LabelGatewayNamespace] = gw.Namespace
	annotations[emit.AnnotationGateway] = gw.Namespace + "/" + gw.Name
	svc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: serviceName(gw), Namespace: dp.Namespace, Labels: labels, Annotations: annotations},
		Spec:       corev1.ServiceSpec{Type: dp.Spec.Type, Selector: maps.Clone(dp.Spec.Selector)},
	}
	for _, p := range ports {
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: "port-" + strconv.Itoa(int(p)),
			Protocol: corev1.ProtocolTCP, Port: p, TargetPort: intstr.FromInt32(target[p])})
	}
	if earlier != nil {
		svc.Spec.ClusterIP, svc.Spec.ExternalName = earlier.Spec.ClusterIP, earlier.Spec.ExternalName
		svc.Status = *earlier.Status.DeepCopy()
	}
	return svc
}

// serviceName is the name of a Gateway's Service: gw-<namespace>-<name> (a DNS label: dots become dashes), cut to
// 63 characters with a hash of the whole where it is longer.
func serviceName(gw *gwv1.Gateway) string {
	name := strings.ReplaceAll("gw-"+gw.Namespace+"-"+gw.Name, ".", "-")
	if len(name) <= 63 {
		return name
	}
	sum := sha256.Sum256([]byte(gw.Namespace + "/" + gw.Name))
	return strings.TrimRight(name[:52], "-") + "-" + hex.EncodeToString(sum[:])[:10]
}
