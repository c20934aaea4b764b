package door

import (
	"io"
	"net"
	"time"
)

// A connection the door closes with bytes still unread — net/http refuses
// a malformed request before reading it all — would make the kernel answer
// with a TCP reset, which can discard the refusal the client has not read
// yet. The door instead ends such a connection in order: its write side
// first (the answer, then FIN), then it discards what the client still
// sends, up to drainLimit or drainTime as a refusal's body (ORD-3), then
// it closes.

// orderlyListener hands out connections that close in order.
type orderlyListener struct{ net.Listener }

func (l orderlyListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok && err == nil {
		return &orderlyConn{TCPConn: tc}, nil
	}
	return c, err
}

// orderlyConn is a TCP connection whose Close drains unread input first.
type orderlyConn struct{ *net.TCPConn }

func (c *orderlyConn) Close() error {
	if unread(c.TCPConn) {
		_ = c.CloseWrite()
		_ = c.SetReadDeadline(time.Now().Add(drainTime))
		_, _ = io.CopyN(io.Discard, c.TCPConn, drainLimit)
	}
	return c.TCPConn.Close()
}
