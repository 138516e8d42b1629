package e2e_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gateway2tyk/gateway2tyk/e2e/explaincheck"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
)

// TestRealTykListenerSets holds the render of ListenerSets (attachment's listenerset.go) to a real Gateway: the
// story profile-gateway-api-listenersets (a Gateway keeping status.example.com, the shop team's ListenerSet adding
// shop.example.com and www.shop.example.com, a conflicting listener of it and a ListenerSet of a namespace the
// Gateway does not allow), with explain agreeing on every request: the routes attached to the ListenerSet are
// served on its hostnames only, the Gateway's routes on the Gateway's only, and nothing on the hostnames of the
// conflicting listener and of the ListenerSet that is not allowed.
func TestRealTykListenerSets(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	_, out := renderStoryFor(t, "profile-gateway-api-listenersets", g)
	cases := []struct {
		host, path string
		backend    string // the Service reached; "" for Tyk's own 404
	}{
		{"shop.example.com", "/", "web"},              // storefront, through the ListenerSet's listener shop
		{"shop.example.com", "/status/ok", "web"},     // status, through the ListenerSet
		{"www.shop.example.com", "/status/ok", "web"}, // status, through the ListenerSet's shop-www
		{"www.shop.example.com", "/", ""},             // storefront's sectionName is shop only
		{"status.example.com", "/status/ok", "web"},   // status, through the Gateway
		{"status.example.com", "/healthz", "health"},  // health, the Gateway's own
		{"shop.example.com", "/healthz", "web"},       // health is not attached to the ListenerSet: storefront's /
		{"blog.example.com", "/", ""},                 // the blog team's ListenerSet is not allowed
	}
	var extra []explaincheck.Request
	for _, c := range cases {
		extra = append(extra, explaincheck.Request{Method: "GET", Host: c.host, Path: c.path})
	}
	tally := explaincheck.Check(t, g, out, explaincheck.Options{Extra: extra})
	require.NotZero(t, tally.Compared)
	for _, c := range cases {
		got, err := g.Send(realtyk.Request{Method: "GET", Host: c.host, Path: c.path})
		require.NoError(t, err)
		// explain named each upstream (the Service) above; here, what reached one at all
		assert.Equal(t, c.backend != "", got.FromUpstream, "%s%s", c.host, c.path)
		if c.backend == "" {
			assert.Equal(t, http.StatusNotFound, got.Status, "%s%s", c.host, c.path)
		}
	}
	t.Logf("Tyk %s: %d requests, explain agreeing on each; a ListenerSet's routes served on its hostnames only", g.Version, tally.Compared)
}
