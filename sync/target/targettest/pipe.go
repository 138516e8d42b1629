package targettest

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"
)

// PipeClient returns an HTTP client that reaches the fake over in-memory connections (net.Pipe), served by an
// http.Server started in the caller's goroutine, for tests that run in a testing/synctest bubble: there time
// advances only when every goroutine of the bubble waits on the bubble's own channels and timers, which a
// goroutine reading the loopback network never does. Call it inside synctest.Test, with the fake made outside
// the bubble; the server and the connections close when t's test ends.
func (f *Fake) PipeClient(t testing.TB) *http.Client {
	l := &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
	srv := &http.Server{Handler: http.HandlerFunc(f.serve)}
	go func() { _ = srv.Serve(l) }()
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		client, server := net.Pipe()
		select {
		case l.conns <- server:
			return client, nil
		case <-l.done:
			return nil, net.ErrClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		_ = srv.Close()
	})
	return &http.Client{Transport: tr}
}

// pipeListener hands the server the server ends of the client's pipes.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
