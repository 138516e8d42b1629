package e2e_test

import (
	"bytes"
	"strings"
	"testing"
)

// render -k and the views read kustomize's output with gateway2tyk run as its transformer as they read it without
// (the render reads past its own earlier output; without, largeapp_test holds it): render -k gives back the
// transformer's bytes, and explain -k sees examples/secured's base documents, which only kustomize makes.
func TestKustomizedOutputWithTheTransformer(t *testing.T) {
	root := repoRoot(t)
	bin := functionBinary(t, root)
	built := kustomizeBuild(t, "examples/secured")
	out, stderr, code := run(t, bin, root, built, nil, "render", "-k", "examples/secured", "-")
	if code != 0 {
		t.Fatalf("render -k: exit %d\n%s", code, stderr)
	}
	if !bytes.Equal(out, built) {
		t.Errorf("render -k of the transformer's output does not give it back")
	}
	answer, stderr, code := run(t, bin, root, built, nil, "explain", "-k", "examples/secured", "--request",
		"GET http://orders.shop.example.com/orders", "-")
	if code != 0 || !strings.Contains(string(answer), "status     401") {
		t.Errorf("explain -k: exit %d, want the orders route's 401\n%s%s", code, answer, stderr)
	}
}
