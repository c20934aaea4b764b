package door

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
)

// dial opens a raw connection to the door.
func (td *testDoor) dial(t *testing.T) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(td.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByDoor reads c until the door closes it and returns what it read;
// it fails the test if the door keeps it open a minute (it never cut it).
func closedByDoor(t *testing.T, c net.Conn) string {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(time.Minute)) // a guard, far past every deadline under test
	b, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the door kept the connection open (read %q)", b)
	}
	return string(b)
}

const getTaskBody = `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"tsk_00000000000000000000000000000000"}}`

// TestSlowBodyIsCut: a client that stops sending its body is cut once the
// body deadline passes, whatever the framing and whichever route it asked
// for — the RPC route that reads the body, or the card, /metrics and an
// unknown path that leave it to net/http to discard (a
// Content-Length body once held its connection forever). The test door's
// deadline is short; behaviour, not time, is asserted.
func TestSlowBodyIsCut(t *testing.T) {
	td := startDoor(t, opts{bodyWait: 100 * time.Millisecond})
	for _, c := range []struct{ name, head, sent, want string }{
		{"POST / with Content-Length", "POST / HTTP/1.1\r\nContent-Length: 1000\r\n", `{"jsonrpc":`, ""},
		{"POST / chunked", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n", "5\r\n{\"jso\r\n", ""},
		{"card with a body", "GET " + a2a.WellKnownCardPath + " HTTP/1.1\r\nContent-Length: 100000\r\n", "xx", "HTTP/1.1 200 OK\r\n"},
		{"metrics with a body", "GET /metrics HTTP/1.1\r\nContent-Length: 100000\r\n", "xx", "HTTP/1.1 200 OK\r\n"},
		{"unknown path with a body", "POST /nope HTTP/1.1\r\nContent-Length: 100000\r\n", "xx", "HTTP/1.1 404 Not Found\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			conn := td.dial(t)
			if _, err := io.WriteString(conn, c.head+"Host: door\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\n\r\n"+c.sent); err != nil {
				t.Fatal(err)
			}
			got := closedByDoor(t, conn)
			if !strings.HasPrefix(got, c.want) || c.want == "" && got != "" {
				t.Errorf("the door answered %.80q before closing, want %q", got, c.want)
			}
		})
	}
	// The door still answers a whole request.
	if rep := td.post("", getTaskBody); rep.status != 200 {
		t.Errorf("GetTask after the cuts = %d", rep.status)
	}
}

// readAnswer reads one HTTP answer from c.
func readAnswer(t *testing.T, c net.Conn) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("read answer: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestConnectionCap: past MaxConnections every request is answered 503 with
// Retry-After, JSON body, and the connection closed; once a connection goes
// the door takes a new one.
func TestConnectionCap(t *testing.T) {
	td := startDoor(t, opts{maxConns: 2})
	held := []net.Conn{td.dial(t), td.dial(t)}
	over := td.dial(t)
	if _, err := io.WriteString(over, "GET "+a2a.WellKnownCardPath+" HTTP/1.1\r\nHost: door\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, body := readAnswer(t, over)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" || !resp.Close ||
		body != `{"error":"overloaded","message":"this door is serving its limit of 2 connections; retry later"}` {
		t.Errorf("past the cap = %d Retry-After %q close %v %s", resp.StatusCode, resp.Header.Get("Retry-After"), resp.Close, body)
	}
	closedByDoor(t, over)
	held[0].Close()
	// The door counts the closed connection out when it notices the close;
	// there is no event for that, so a new connection is tried again.
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(10 * time.Second); ; <-tick.C {
		c := td.dial(t)
		io.WriteString(c, "GET "+a2a.WellKnownCardPath+" HTTP/1.1\r\nHost: door\r\n\r\n")
		if resp, _ := readAnswer(t, c); resp.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the door never took a connection again")
		}
	}
}

// TestBodyBudget: a large body is held against the door's budget from its
// headers until its call returns; one that does not fit is answered 503 with
// Retry-After before a byte of it is read, while small bodies go on being
// served; an oversized body is still 413 and an unauthenticated one 401
// (ORD-1: token, then size, then budget).
func TestBodyBudget(t *testing.T) {
	td := startDoor(t, opts{auth: true, maxBody: 200 << 10, bodyBytes: 300 << 10})
	op := td.tokens["operator"]
	head := func(n int) string {
		return "POST / HTTP/1.1\r\nHost: door\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\n" +
			"Authorization: Bearer " + op + "\r\nContent-Length: " + strconv.Itoa(n) + "\r\n\r\n"
	}
	pad := func(n int) string { // a GetTask body of exactly n bytes
		return getTaskBody[:len(getTaskBody)-2] + `,"pad":"` + strings.Repeat("x", n-len(getTaskBody)-9) + `"}}`
	}
	// First: 200 KiB declared, a part sent — it holds 200 KiB of the 300.
	first := td.dial(t)
	big := pad(200 << 10)
	io.WriteString(first, head(len(big))+big[:1000])
	// The door takes the share as it reads the headers; wait till it has.
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(10 * time.Second); td.door.bodies.used.Load() < int64(len(big)); <-tick.C {
		if time.Now().After(deadline) {
			t.Fatal("the door never took the first body's share")
		}
	}
	// Second: another 200 KiB does not fit while the first is read.
	second := td.dial(t)
	io.WriteString(second, head(len(big)))
	resp, body := readAnswer(t, second)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" || !resp.Close ||
		body != `{"error":"overloaded","message":"this door is holding its limit of 307200 bytes of request bodies; retry later"}` {
		t.Errorf("a body past the budget = %d Retry-After %q close %v %s", resp.StatusCode, resp.Header.Get("Retry-After"), resp.Close, body)
	}
	if rep := td.post(op, getTaskBody); rep.status != 200 {
		t.Errorf("a small body while the budget is spent = %d", rep.status)
	}
	if rep := td.post(op, pad(300<<10)); rep.status != 413 {
		t.Errorf("an oversized body = %d, want 413 before the budget", rep.status)
	}
	if rep := td.post("", pad(150<<10)); rep.status != 401 {
		t.Errorf("an unauthenticated body = %d, want 401 before the budget", rep.status)
	}
	// The first finishes and is answered.
	io.WriteString(first, big[1000:])
	if resp, _ := readAnswer(t, first); resp.StatusCode != 200 {
		t.Errorf("the held body's answer = %d", resp.StatusCode)
	}
	// Its bytes return as its call returns, which may be a moment after the
	// answer reached the client.
	for deadline := time.Now().Add(10 * time.Second); td.door.bodies.used.Load() != 0; <-tick.C {
		if time.Now().After(deadline) {
			t.Fatalf("the budget still holds %d bytes", td.door.bodies.used.Load())
		}
	}
	if rep := td.post(op, big); rep.status != 200 {
		t.Errorf("a large body once the first is answered = %d %s", rep.status, rep.body)
	}
}
