package kube

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Endpoint is one ready Gateway behind a data-plane Service.
type Endpoint struct {
	// URL is the Gateway's own URL: the base URL's scheme and path, the endpoint's address and port.
	URL string
	// From names the endpoint: its Pod (targetRef) or address, and its EndpointSlice.
	From string
}

// Replicas returns the ready endpoints of a Service for a base URL that names the Service's port (the
// OperatorContext's URL, say http://tyk-gateway.shop.svc:8080): the Service's port of that number gives the
// port's name, and each EndpointSlice of the Service (label kubernetes.io/service-name) gives the endpoints'
// port of that name. An endpoint counts when its ready condition is true or unset (the EndpointSlice API's
// meaning of unset); not-ready endpoints are returned apart, by name, for the report.
func (c *Cluster) Replicas(parent context.Context, namespace, service string, base *url.URL) (ready []Endpoint, notReady []string, err error) {
	ctx, cancel := c.ctx(parent)
	defer cancel()
	svc, err := c.Core.CoreV1().Services(namespace).Get(ctx, service, metav1.GetOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("reading the data plane's Service %s/%s: %w", namespace, service, err)
	}
	port := base.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[base.Scheme]
	}
	portName, found := "", false
	var ports []string
	for _, p := range svc.Spec.Ports {
		ports = append(ports, strconv.Itoa(int(p.Port)))
		if strconv.Itoa(int(p.Port)) == port {
			portName, found = p.Name, true
		}
	}
	if !found {
		return nil, nil, fmt.Errorf("the Tyk URL %s names port %s, which Service %s/%s does not have (its ports: %s): "+
			"the sync cannot tell which port of the Service's endpoints is the Gateway's API", base.Redacted(), port,
			namespace, service, strings.Join(ports, ", "))
	}
	slices, err := c.Core.DiscoveryV1().EndpointSlices(namespace).List(ctx,
		metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + service})
	if err != nil {
		return nil, nil, fmt.Errorf("listing the EndpointSlices of Service %s/%s: %w", namespace, service, err)
	}
	seen := map[string]bool{}
	for _, s := range slices.Items {
		var target *int32
		for _, p := range s.Ports {
			name := ""
			if p.Name != nil {
				name = *p.Name
			}
			if name == portName && p.Port != nil {
				target = p.Port
			}
		}
		if target == nil {
			continue
		}
		for _, e := range s.Endpoints {
			if len(e.Addresses) == 0 {
				continue
			}
			name := e.Addresses[0]
			if e.TargetRef != nil && e.TargetRef.Name != "" {
				name = strings.ToLower(e.TargetRef.Kind) + " " + e.TargetRef.Name
			}
			name += " (EndpointSlice " + s.Name + ")"
			if e.Conditions.Ready != nil && !*e.Conditions.Ready {
				notReady = append(notReady, name)
				continue
			}
			u := *base
			u.Host = net.JoinHostPort(e.Addresses[0], strconv.Itoa(int(*target)))
			if !seen[u.String()] {
				seen[u.String()] = true
				ready = append(ready, Endpoint{URL: u.String(), From: name})
			}
		}
	}
	sort.Slice(ready, func(i, j int) bool { return ready[i].URL < ready[j].URL })
	sort.Strings(notReady)
	return ready, notReady, nil
}
