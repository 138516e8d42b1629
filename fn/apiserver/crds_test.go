package apiserver

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCRDsAreGatewayAPIModules holds crds/ to the CRDs of the gateway-api module go.mod names, byte for byte: the
// render judges by exactly the CRDs that version installs. After a gateway-api upgrade, copy them again:
//
//	d=$(go list -m -f '{{.Dir}}' sigs.k8s.io/gateway-api); for c in standard experimental; do for f in fn/apiserver/crds/$c/*; do cp $d/config/crd/$c/$(basename $f) $f; done; done
func TestCRDsAreGatewayAPIModules(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/gateway-api").Output()
	if err != nil {
		t.Fatalf("go list -m sigs.k8s.io/gateway-api: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	for _, channel := range []Channel{Standard, Experimental} {
		for kind, file := range crdFile {
			ours, err := crdFiles.ReadFile("crds/" + string(channel) + "/" + file)
			if err != nil {
				t.Fatalf("%s %s: %v", channel, kind, err)
			}
			theirs, err := os.ReadFile(filepath.Join(dir, "config", "crd", string(channel), file))
			if err != nil {
				t.Fatalf("%s %s: %v", channel, kind, err)
			}
			if !bytes.Equal(ours, theirs) {
				t.Errorf("crds/%s/%s differs from the gateway-api module's config/crd/%s/%s", channel, file, channel, file)
			}
		}
	}
}
