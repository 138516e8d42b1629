package upstream

// What stands in for the parts of Kubernetes that the test does not run, and why. The API server, etcd, the Tyk
// Gateway, the suite and its echo-basic backend are the real programs; everything below is not, and nothing else in
// this package stands in for anything.
//
//   - kube-controller-manager and kubelet (Deployments, ReplicaSets, Pods): there is no container runtime. For each
//     replica of each Deployment whose container runs the suite's echo-basic image, Backends runs one bin/echo-basic
//     process, with the container's literal env, POD_NAME and NAMESPACE as its downward-API env would give them (a
//     Pod name is the Deployment's name, a hash of its Pod template and a random suffix, as the Deployment and
//     ReplicaSet controllers name Pods: the suite's weight tests read the backend back from it), and
//     its own loopback ports in HTTP_PORT, H2C_PORT and HTTPS_PORT (the container ports echo-basic listens on by
//     default, 3000, 3001 and 8443, name them: echoContainerPorts). An env value under one of the container's
//     volumeMounts (the TLS backends' certificate files from Secret volumes) is left out: no volume is mounted, so
//     those backends serve plain HTTP only; the HTTP profile's tests do not reach them over TLS. Containers of other
//     images (coredns) are not run. Each process gets its Pod object (the template's labels and spec, in the
//     Deployment's namespace, bound to a node named standInNode), written Running and Ready with a pod IP of its own
//     in 10.244.0.0/16 (podIP; the API server refuses a loopback address in the EndpointSlices the suite writes from
//     the Pods) as the kubelet would report it: the
//     suite's setup waits for the Pods of its namespaces to be Ready (utils/kubernetes.NamespacesMustBeReady), and
//     for a Pod to exist at all. The namespace's default ServiceAccount is made when missing, as the service
//     account controller would, since admission refuses a Pod whose ServiceAccount does not exist. The Pod is
//     deleted when its process is stopped (the Deployment changed or went).
//   - kube-proxy and cluster DNS: Tyk reaches every upstream through its HTTP_PROXY, Proxy, a SOCKS5 proxy
//     (socks5://, RFC 1928 no-auth CONNECT, socks5.go), which reads the Service of the address Tyk dials (a cluster
//     DNS name <service>.<namespace>.svc.cluster.local, or a cluster IP, and a port) from the API server, maps the
//     port to its targetPort and the selector to the echo-basic processes of the Deployments whose Pod template
//     labels it selects (a Service without selector: the ready endpoints of its EndpointSlices, pod IPs), and joins
//     the connection to one of them in turn (round robin, as kube-proxy's iptables mode spreads connections); a
//     headless Service's name and a pod IP are dialed on the container port, as DNS resolves them to the pods. A SOCKS proxy is told the address apart from the request, so the request and its
//     Host header (upstream.preserveHostHeader) reach the backend as Tyk wrote them; an HTTP forward proxy is not
//     (Go writes the preserved Host into its request line). A name that is not a Service, or a Service with no
//     process behind it, is answered "host unreachable" and closed, as a failed DNS lookup or a rejected
//     connection would end the dial.
//   - cluster DNS and kube-proxy again, for the connections Tyk dials itself, past its HTTP_PROXY (an h2c://
//     upstream: its h2c transport dials with net.Dial): ClusterDNS gives each Service with a cluster IP a
//     loopback address of its own (127.53.x.y) under its cluster DNS name in a hosts file, which the Tyk Gateway
//     reads as /etc/hosts (it runs in a mount namespace of its own with the file bound there: unshare,
//     realtyk.StartWithHosts; the machine's /etc/hosts is not touched), listens there on the Service's ports and
//     joins each connection as Proxy would join one to the name (clusterdns.go). Where the namespace cannot be
//     made the Gateway runs without it, says so in the log, and h2c:// upstreams are not reached.
//   - a LoadBalancer controller: the data-plane Service (type LoadBalancer, ports 80, 443, 8080 and 8090) gets
//     status.loadBalancer.ingress loadBalancerIP written by the test, which is the address the render gives the
//     Gateways. Port 80 leads to the loopback port Tyk listens on (plain HTTP), port 443 to the second loopback
//     port its ports_whitelist lets it open for TLS (the Service's targetPort, which the gateway-api profile
//     gives the HTTPS listeners' APIs as server.port), ports 8080 and 8090 to two more it may open for plain
//     HTTP (the targetPorts the gateway-api profile gives the APIs of a data plane's HTTP listeners once they are on
//     more than one port): the suite's RoundTripper dials them for the addresses it is given (dialTo), as the
//     load balancer would forward them.
//   - a LoadBalancer controller for the Services the gateway-api profile emits for Gateways (the RenderConfig's
//     gatewayPorts, a range of free loopback ports below the ephemeral ones that the Tyk Gateway's
//     ports_whitelist allows): LoadBalancers gives each an address of its own, 127.0.0.<n> from 2 on, in its
//     status, and the suite's RoundTripper and WebSocket dialer dial such an address's port at the Service's
//     targetPort on loopback, as the load balancer forwards to the Pods (gatewayservices.go). The stand-in also
//     listens on each address and port (the ports below 1024 need root) and forwards alike, for the client that
//     dials the address itself: the suite's h2c prior-knowledge transport ignores the RoundTripper's dialer.
//   - Argo CD: GitOps, the loop that renders what the API server holds with the gateway2tyk binary, applies the
//     rendered ConfigMaps and Services and runs gateway2tyk sync (see gitops.go).

const (
	// loadBalancerIP is the address the stand-in LoadBalancer controller gives the data-plane Service.
	loadBalancerIP = "127.0.0.1"
	// echoImage is the repository of the suite's backend image in its manifests.
	echoImage = "registry.k8s.io/gateway-api/echo-basic"
)

// echoContainerPorts are the container ports echo-basic listens on by default, and the env variable that moves each.
var echoContainerPorts = map[int32]string{3000: "HTTP_PORT", 3001: "H2C_PORT", 8443: "HTTPS_PORT"}
