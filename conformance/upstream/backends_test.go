package upstream

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPodNameLikeReplicaSet: a Pod's name is <deployment>-<template hash>-<suffix>, so the suite's weight tests,
// which cut the last two parts off the Pod name echo-basic reports, find the Deployment (infra-backend-v1) again;
// two Pods of one Deployment share the hash and differ in the suffix.
func TestPodNameLikeReplicaSet(t *testing.T) {
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "infra-backend-v1"}}
	dep.Spec.Template.Labels = map[string]string{"app": "infra-backend-v1"}
	a, b := podName(dep), podName(dep)
	for _, name := range []string{a, b} {
		parts := strings.Split(name, "-")
		if len(parts) < 3 || strings.Join(parts[:len(parts)-2], "-") != "infra-backend-v1" {
			t.Errorf("%q: without its last two parts it is not the Deployment's name", name)
		}
	}
	if a == b || a[:strings.LastIndex(a, "-")] != b[:strings.LastIndex(b, "-")] {
		t.Errorf("%q and %q: want one template hash and two suffixes", a, b)
	}
}
