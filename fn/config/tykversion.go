package config

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/gateway2tyk/gateway2tyk/fn/tykroute"
)

// tykVersionKey is the field of the Tyk release in spec, and its key in the ConfigMap form's data.
//
// tykVersion is the oldest Tyk Gateway the rendered APIs must load on. An older Gateway refuses an API that sets a
// field its schema does not have, or loads it without the field (tykroute.NewerFields), so where a newer release
// can say something exactly and an older one only approximately, the render needs to know which it writes for:
// today that is a timeout (timeouts.request, timeouts.backendRequest) that is not whole seconds, which Tyk 5.14
// takes as a duration (enforceTimeout.duration) and an older Gateway only as whole seconds. Empty: the newest
// release the render knows, and sync's version check names what an older target would not take.
const tykVersionKey = "tykVersion"

// tooOld is why a release older than tykroute.MinVersion is refused: both profiles write fields that release's
// schema lacks (tykroute.NewerFields: upstream.preserveHostHeader on every API that proxies, server.port on a listener's own
// port), and a Tyk Gateway refuses an API that sets a field its schema does not have, so every API would fail.
// Rendering for it anyway would only move the failure to the sync.
func tooOld(v string) string {
	return fmt.Sprintf("Tyk %s is older than Tyk %s, the oldest release that loads the rendered APIs "+
		"(older ones refuse upstream.preserveHostHeader, which every API that proxies sets); "+
		"give %s or newer, or leave tykVersion out to render for the newest release", v, tykroute.MinVersion, tykroute.MinVersion)
}

// TykRelease is spec.tykVersion (Load has checked it reads as Tyk prints a release: "5.8", "v5.14.0"); the zero
// Version when it is not set.
func (s Spec) TykRelease() tykroute.Version {
	v, _ := tykroute.ParseVersion(s.TykVersion)
	return v
}

// release reads a release as written: a string ("v5.14.0") or a number (5.8, whose text is the release).
func (l *loader) release(n *yaml.Node, path string) (string, error) {
	if n == nil || isNull(n) {
		return "", nil
	}
	if n.Kind == yaml.ScalarNode && (n.ShortTag() == yaml.NodeTagFloat || n.ShortTag() == yaml.NodeTagInt) {
		return n.Value, nil
	}
	return l.str(n, path)
}
