package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestDoorClosesRefusedConnectionInOrder: a request net/http refuses before
// the door's handler sees it — a malformed request line over 4 KB, with
// more bytes behind it — gets its whole 400 answer and then an orderly
// end of stream, never a TCP reset that can discard the answer (DOOR-5).
func TestDoorClosesRefusedConnectionInOrder(t *testing.T) {
	t.Parallel()
	addr := doorEnv(t).startDoor(t)
	for i := range 3 {
		conn := dialDoor(t, addr)
		req := "GET /" + strings.Repeat("a", 5000) + " HTTP/1.1 junk\r\nHost: door\r\n" + strings.Repeat("X-Pad: "+strings.Repeat("b", 1000)+"\r\n", 60) + "\r\n"
		if _, err := io.WriteString(conn, req); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(time.Minute)) // a guard only
		got, err := io.ReadAll(conn)
		if err != nil {
			t.Fatalf("connection %d: read after %q: %v, want the whole answer and EOF", i, got, err)
		}
		if !strings.HasPrefix(string(got), "HTTP/1.1 400 Bad Request\r\n") || !strings.HasSuffix(string(got), "400 Bad Request") {
			t.Fatalf("connection %d: answer = %q", i, got)
		}
	}
}
