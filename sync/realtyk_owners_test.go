package tyksync_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/gateway2tyk/gateway2tyk/sync/target"
)

// TestRealTykSyncTwoApplications is twoApplications on a real open-source Tyk Gateway (bin/tyk, the 5.4 line):
// two applications sync in turn, in both orders and concurrently, and neither loses an API; each one's removed
// route deletes exactly its APIs; a route both render is a conflict that leaves the other's API as it was.
func TestRealTykSyncTwoApplications(t *testing.T) {
	var table []string
	var version string
	var mu sync.Mutex
	defer func() {
		t.Logf("runs against the real Tyk Gateway %s (a fresh one per story):\n| run | created | updated | unchanged | "+
			"deleted | failed |\n|---|---|---|---|---|---|\n%s", version, strings.Join(table, "\n"))
	}()
	twoApplications(t, func(t *testing.T) shared {
		rt := startReal(t)
		version = rt.g.Version
		return shared{
			target:  func(t *testing.T) target.Target { return rt.client(t, fastRetry) },
			served:  rt.loaded,
			foreign: []string{"petstore"},
			table:   &table,
			mu:      &mu,
		}
	})
}
