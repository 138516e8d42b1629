package tyksync_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/fn/apidiff"
	tyksync "github.com/gateway2tyk/gateway2tyk/sync"
	"github.com/gateway2tyk/gateway2tyk/sync/plan"
	"github.com/gateway2tyk/gateway2tyk/sync/target"
	"github.com/gateway2tyk/gateway2tyk/sync/target/targettest"
)

// TestRealTykSyncCheck holds sync --check to a real open-source Tyk Gateway: after a sync of examples/basic it is
// in sync; then, through the Gateway's own API, one API's upstream is edited, one API is deleted and one is
// added with gateway2tyk's ownership marker, and the check reports each (and the foreign API the Gateway also
// holds not at all); the check sends only GET requests and the Gateway does not reload; after a sync it is
// clean again.
func TestRealTykSyncCheck(t *testing.T) {
	rt := startReal(t)
	ctx := context.Background()
	set := for54(t, renderBasic(t, "", nil).stream)
	require.GreaterOrEqual(t, len(set.APIs), 2)
	r := rt.sync(t, "1 sync of examples/basic", set, 0)
	require.NoError(t, r.err)
	require.Zero(t, r.rep.Failed, r.out)

	check := func(name string) *apidiff.Drift {
		t.Helper()
		rt.obs.take()
		before := rt.g.Reloads()
		d, err := tyksync.Check(ctx, set, rt.client(t, target.Retry{}), plan.Scope{})
		require.NoError(t, err)
		calls := rt.obs.take()
		assert.NotEmpty(t, calls)
		assert.Empty(t, writes(calls), "%s: sync --check wrote to the Gateway", name)
		assert.Zero(t, count(calls, "GET /tyk/reload"), "%s: sync --check asked for a reload", name)
		assert.Equal(t, before, rt.g.Reloads(), "%s: the Gateway reloaded during the check", name)
		var text string
		if d != nil {
			var b bytes.Buffer
			require.NoError(t, d.WriteText(&b))
			text = b.String()
		}
		t.Logf("%s:\n%s", name, text)
		return d
	}
	d := check("2 check right after the sync")
	assert.False(t, d.Drifted())
	assert.Equal(t, len(set.APIs), d.InSync)

	// Behind sync's back, through the Gateway's API.
	edited, deleted := set.APIs[0], set.APIs[1]
	tg := rt.client(t, target.Retry{})
	served := rt.loaded(t)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(served[edited.ID], &doc))
	doc["x-tyk-api-gateway"].(map[string]any)["upstream"].(map[string]any)["url"] = "http://hotfix.shop.svc.cluster.local:8080"
	body, err := json.Marshal(doc)
	require.NoError(t, err)
	require.NoError(t, tg.Update(ctx, edited.ID, body))
	require.NoError(t, tg.Delete(ctx, deleted.ID))
	stray := targettest.API{Route: "shop/legacy", Gateway: "shop/edge", Hostname: "legacy.shop.example.com", Path: "/legacy",
		Upstream: "http://legacy.shop.svc.cluster.local:8080"}
	straySet := for54(t, targettest.Streams([]targettest.API{stray}))
	require.Len(t, straySet.APIs, 1)
	strayBody, err := plan.Stamp(straySet.APIs[0].Document, straySet.APIs[0].Marker)
	require.NoError(t, err)
	require.NoError(t, tg.Create(ctx, stray.ID(), strayBody))
	require.NoError(t, tg.Reload(ctx))
	require.Eventually(t, func() bool {
		got := rt.loaded(t)
		_, gone := got[deleted.ID]
		_, added := got[stray.ID()]
		return !gone && added && plan.Equal(body, got[edited.ID])
	}, 30*time.Second, 100*time.Millisecond, "the Gateway serves the edits")

	d = check("3 check after the edits")
	assert.True(t, d.Drifted())
	require.Len(t, d.Changed, 1)
	assert.Equal(t, edited.ID, d.Changed[0].ID)
	require.NotEmpty(t, d.Changed[0].Aspects)
	assert.Equal(t, apidiff.AspectUpstream, d.Changed[0].Aspects[0].Aspect)
	assert.Equal(t, []string{"http://hotfix.shop.svc.cluster.local:8080"}, d.Changed[0].Aspects[0].Added)
	require.Len(t, d.Missing, 1)
	assert.Equal(t, deleted.ID, d.Missing[0].ID)
	require.Len(t, d.NotRendered, 1)
	assert.Equal(t, apidiff.Ref{ID: stray.ID(), Route: stray.Route, Gateway: stray.Gateway, Hostname: stray.Hostname,
		Path: stray.Path, Owner: stray.OwnerOf()}, d.NotRendered[0])
	assert.Empty(t, d.Foreign, "the foreign petstore API is not the render's")
	assert.Equal(t, len(set.APIs)-2, d.InSync)

	r = rt.sync(t, "4 sync puts the render back", set, 0)
	require.NoError(t, r.err)
	require.Zero(t, r.rep.Failed, r.out)
	assert.Equal(t, 1, r.done(plan.Update))
	assert.Equal(t, 1, r.done(plan.Create))
	assert.Equal(t, 1, r.done(plan.Delete))
	d = check("5 check after the sync")
	assert.False(t, d.Drifted())
	assert.Equal(t, len(set.APIs), d.InSync)
	rt.requireServes(t, set, "petstore")
}
