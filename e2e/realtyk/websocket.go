package realtyk

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/websocket"
)

// WebSocket upgrades: the upstream echoes every frame of a WebSocket connection (as echo-basic's /ws does for the
// upstream conformance suite), and DialWebSocket opens one through the Gateway.

// isWebSocket reports whether r asks to become a WebSocket connection (RFC 6455: Upgrade: websocket).
func isWebSocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// echoWebSocket answers r with the WebSocket handshake and echoes each frame, text or binary, until the client
// closes. The origin is not checked: the client is the test.
var echoWebSocket = websocket.Server{
	Handshake: func(*websocket.Config, *http.Request) error { return nil },
	Handler:   func(ws *websocket.Conn) { _, _ = io.Copy(ws, ws) },
}

// DialWebSocket opens a WebSocket connection to the Gateway at path with host as its Host header: the handshake
// fails unless Tyk proxies the Upgrade to the upstream, which then echoes every frame.
func (g *Gateway) DialWebSocket(host, path string) (*websocket.Conn, error) {
	loc := &url.URL{Scheme: "ws", Host: host, Path: path}
	cfg, err := websocket.NewConfig(loc.String(), "http://"+host+"/")
	if err != nil {
		return nil, err
	}
	base, err := url.Parse(g.URL)
	if err != nil {
		return nil, err
	}
	conn, err := net.DialTimeout("tcp", base.Host, 10*time.Second)
	if err != nil {
		return nil, err
	}
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	ws, err := websocket.NewClient(cfg, conn)
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	return ws, nil
}
