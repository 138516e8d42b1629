package e2e_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/websocket"

	"github.com/gateway2tyk/gateway2tyk/e2e/explaincheck"
	"github.com/gateway2tyk/gateway2tyk/e2e/realtyk"
)

// TestRealTykWebSocket holds the story profile-gateway-api-websocket to a real Gateway, run with
// examples/tyk-gateway/tyk.conf (http_server_options.enable_websockets: true): a WebSocket connection to the
// chat route's /ws is proxied to its upstream, which echoes a text and a binary frame back through Tyk; a
// handshake on a host no listener serves fails (Tyk's 404), and every generated request agrees with explain.
// The render writes nothing for it: the GatewayClass claims HTTPRouteBackendProtocolWebSocket on that tyk.conf.
func TestRealTykWebSocket(t *testing.T) {
	g := realtyk.Start(t, realtyk.Find(t))
	_, out := renderStoryFor(t, "profile-gateway-api-websocket", g)
	tally := explaincheck.Check(t, g, out, explaincheck.Options{Extra: []explaincheck.Request{
		{Method: http.MethodGet, Host: "chat.example.com", Path: "/ws/room"},
		{Method: http.MethodGet, Host: "other.example.com", Path: "/ws"},
	}})
	require.NotZero(t, tally.Compared)

	ws, err := g.DialWebSocket("chat.example.com", "/ws/room")
	require.NoError(t, err, "the WebSocket handshake through Tyk %s", g.Version)
	defer ws.Close()
	require.NoError(t, websocket.Message.Send(ws, "hello"))
	var text string
	require.NoError(t, websocket.Message.Receive(ws, &text))
	assert.Equal(t, "hello", text, "the text frame's echo")
	binary := []byte{0, 1, 2, 254, 255}
	require.NoError(t, websocket.Message.Send(ws, binary))
	var echoed []byte
	require.NoError(t, websocket.Message.Receive(ws, &echoed))
	assert.Equal(t, binary, echoed, "the binary frame's echo")

	_, err = g.DialWebSocket("other.example.com", "/ws")
	require.Error(t, err, "Tyk %s upgraded a connection for a host no listener serves", g.Version)
	t.Logf("Tyk Gateway %s: WebSocket frames echoed through the chat route; %d generated requests agree with explain",
		g.Version, tally.Agreed)
}
