// Package tykapi holds the Go types of the two tyk.tyk.io/v1alpha1 custom resources that the render reads,
// OperatorContext and TykOasApiDefinition, as far as Tyk Operator 1.6 defines them. The CRD files in
// third_party/tyk predate 1.6; the fields 1.6 adds (dataPlane, targetRefs) come from Tyk's CRD reference.
//
// The types carry no behaviour: deciding what a context or a definition means is the job of the stages that
// read them.
package tykapi

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Group and Version of both kinds.
const (
	Group   = "tyk.tyk.io"
	Version = "v1alpha1"

	KindOperatorContext     = "OperatorContext"
	KindTykOasApiDefinition = "TykOasApiDefinition"
)

// APIVersion is the apiVersion written on objects of these kinds.
const APIVersion = Group + "/" + Version

// OperatorContext names a Tyk environment (Dashboard or open-source Gateway) and, from 1.6, the data plane that
// serves the APIs of a Gateway.
type OperatorContext struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              OperatorContextSpec `json:"spec,omitempty"`
}

// OperatorContextSpec is the spec of an OperatorContext.
type OperatorContextSpec struct {
	Env       *Environment `json:"env,omitempty"`
	SecretRef *Target      `json:"secretRef,omitempty"`
	DataPlane *DataPlane   `json:"dataPlane,omitempty"`
}

// Environment is the connection to Tyk written inline in the context.
type Environment struct {
	Mode               string   `json:"mode,omitempty"`
	URL                string   `json:"url,omitempty"`
	Auth               string   `json:"auth,omitempty"`
	Org                string   `json:"org,omitempty"`
	InsecureSkipVerify bool     `json:"insecureSkipVerify,omitempty"`
	Ingress            *Ingress `json:"ingress,omitempty"`
	UserOwners         []string `json:"user_owners,omitempty"`
	UserGroupOwners    []string `json:"user_group_owners,omitempty"`
}

// Ingress holds the ports of the legacy ingress support.
type Ingress struct {
	HTTPPort  int `json:"httpPort,omitempty"`
	HTTPSPort int `json:"httpsPort,omitempty"`
}

// Target refers to an object by name and, optionally, namespace (the referrer's when empty).
type Target struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	Kind      string `json:"kind,omitempty"`
}

// DataPlane describes the Tyk Gateways that serve a Gateway's APIs.
type DataPlane struct {
	// ServiceRef names the Service, in the context's namespace, that fronts the data-plane gateways.
	ServiceRef *LocalRef `json:"serviceRef,omitempty"`
	// Tags are stamped into server.gatewayTags of every API, so only segmented gateways with a tag load them.
	Tags []string `json:"tags,omitempty"`
}

// LocalRef refers to an object in the referrer's namespace.
type LocalRef struct {
	Name string `json:"name"`
}

// TykOasApiDefinition points Tyk Operator at a Tyk OAS document kept in a ConfigMap; from 1.6 it can also be
// attached to an HTTPRoute or a Gateway through targetRefs.
type TykOasApiDefinition struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              TykOasApiDefinitionSpec `json:"spec,omitempty"`
}

// TykOasApiDefinitionSpec is the spec of a TykOasApiDefinition, as far as the render uses it.
type TykOasApiDefinitionSpec struct {
	TykOAS     TykOAS      `json:"tykOAS"`
	TargetRefs []TargetRef `json:"targetRefs,omitempty"`
	ContextRef *Target     `json:"contextRef,omitempty"`
}

// TykOAS locates the document.
type TykOAS struct {
	ConfigmapRef ConfigMapRef `json:"configmapRef"`
}

// ConfigMapRef names the ConfigMap key that holds a Tyk OAS document.
type ConfigMapRef struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	KeyName   string `json:"keyName"`
}

// TargetRef attaches a definition to an object in its own namespace (policy attachment).
type TargetRef struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	Name  string `json:"name"`
}
