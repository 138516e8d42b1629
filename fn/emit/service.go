package emit

import (
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// GatewayService writes the Service the render emits for a Gateway (decided in fn/internal/operatorcontext):
// its metadata and spec as decided, and the address its copy in the cluster has (spec.clusterIP,
// status.loadBalancer), which the API server and the load balancer gave it: applying them changes nothing (the
// status is a subresource, a cluster IP is kept), and a render of this output reads the same address, so the
// Gateway's status does not change from one run to the next.
func GatewayService(svc *corev1.Service) (*yaml.RNode, error) {
	var ports []any
	for _, p := range svc.Spec.Ports {
		ports = append(ports, map[string]any{"name": p.Name, "protocol": string(p.Protocol), "port": int(p.Port),
			"targetPort": p.TargetPort.IntValue()})
	}
	spec := map[string]any{"ports": ports}
	if svc.Spec.Type != "" {
		spec["type"] = string(svc.Spec.Type)
	}
	if len(svc.Spec.Selector) > 0 {
		spec["selector"] = anyMap(svc.Spec.Selector)
	}
	if svc.Spec.ClusterIP != "" {
		spec["clusterIP"] = svc.Spec.ClusterIP
	}
	obj := map[string]any{
		"apiVersion": "v1",
		"kind":       "Service",
		"metadata": map[string]any{"name": svc.Name, "namespace": svc.Namespace,
			"labels": anyMap(svc.Labels), "annotations": anyMap(svc.Annotations)},
		"spec": spec,
	}
	var ingress []any
	for _, in := range svc.Status.LoadBalancer.Ingress {
		switch {
		case in.Hostname != "":
			ingress = append(ingress, map[string]any{"hostname": in.Hostname})
		case in.IP != "":
			ingress = append(ingress, map[string]any{"ip": in.IP})
		}
	}
	if len(ingress) > 0 {
		obj["status"] = map[string]any{"loadBalancer": map[string]any{"ingress": ingress}}
	}
	return yaml.FromMap(obj)
}

func anyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
