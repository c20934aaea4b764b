package door

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/peerplane"
)

// fakePlane is a PeerFiles with func fields: redeem decides each answer;
// every Done lands in done.
type fakePlane struct {
	redeem func(peerplane.Request) (*peerplane.File, error)
	mu     sync.Mutex
	reqs   []peerplane.Request
	done   chan doneCall
}

type doneCall struct {
	n   int64
	err error
}

func (p *fakePlane) Redeem(_ context.Context, req peerplane.Request) (*peerplane.File, error) {
	p.mu.Lock()
	p.reqs = append(p.reqs, req)
	p.mu.Unlock()
	return p.redeem(req)
}

func (p *fakePlane) last(t *testing.T) peerplane.Request {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.reqs) == 0 {
		t.Fatal("the plane was never asked")
	}
	return p.reqs[len(p.reqs)-1]
}

// servingPlane serves content for any handle.
func servingPlane(t *testing.T, content string) *fakePlane {
	t.Helper()
	p := &fakePlane{done: make(chan doneCall, 16)} // more redeems than any test makes
	path := filepath.Join(t.TempDir(), "report.md")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	p.redeem = func(req peerplane.Request) (*peerplane.File, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		return &peerplane.File{Body: f, Size: int64(len(content)), SHA256: "ab12", HandleID: peerplane.ID(req.Handle),
			Generation: 3, ModTime: time.UnixMilli(1787577327015),
			Done: func(n int64, err error) { f.Close(); p.done <- doneCall{n, err} }}, nil
	}
	return p
}

// TestPeerRoute_PFILE5: with exports.peer_files declared, GET
// /resources/peer/<handle> is answered at once — no token, even on an
// authenticated door, whatever the consent headers (ORD-1 step 1) — with
// the file, its etag and handle id and never a path; the plane gets the
// handle and the audience as sent.
func TestPeerRoute_PFILE5(t *testing.T) {
	p := servingPlane(t, "the report\n")
	td := startDoor(t, opts{auth: true, peer: p})
	rep := td.do(http.MethodGet, "/resources/peer/mh1.abc.def", "", "", "x-murmur-audience: Fetcher@127.0.0.1:9", "x-murmur-task-origin: peer")
	if rep.status != 200 || rep.body != "the report\n" {
		t.Fatalf("GET = %d %q", rep.status, rep.body)
	}
	for k, want := range map[string]string{
		"Content-Type": "application/octet-stream", "Content-Length": "11", "Etag": `"sha256:ab12"`,
		"X-Murmur-Handle-Id": peerplane.ID("mh1.abc.def"), "X-Murmur-Generation": "3", "X-Murmur-Mtime-Ms": "1787577327015",
		"Cache-Control": "no-store", "Www-Authenticate": "",
	} {
		if got := rep.header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	for k := range rep.header {
		if strings.Contains(strings.ToLower(k), "root") {
			t.Errorf("the answer carries %s", k)
		}
	}
	if got := p.last(t); got != (peerplane.Request{Handle: "mh1.abc.def", Audience: "Fetcher@127.0.0.1:9", HasAudience: true}) {
		t.Errorf("Redeem got %+v", got)
	}
	if d := <-p.done; d.n != 11 || d.err != nil {
		t.Errorf("Done(%d, %v), want Done(11, nil)", d.n, d.err)
	}
	td.do(http.MethodGet, "/resources/peer/x", "", "")
	if got := p.last(t); got.HasAudience || got.Audience != "" {
		t.Errorf("no header: Redeem got %+v", got)
	}
	<-p.done
	metrics := td.do(http.MethodGet, "/metrics", "", "").body
	if !strings.Contains(metrics, `mur_door_requests_total{method="peer-file",outcome="ok"} 2`) {
		t.Errorf("metrics lack the two redeems:\n%s", metrics)
	}
}

// TestPeerRefusals_PFILE5: the plane's refusals with their status and
// body, 405 with allow: GET for any other method (after the token on an
// authenticated door), not_found without a handle, 500 io_error for a
// failure that is not a refusal, DOOR-5's 413 for a body over the limit.
func TestPeerRefusals_PFILE5(t *testing.T) {
	p := &fakePlane{redeem: func(req peerplane.Request) (*peerplane.File, error) {
		switch req.Handle {
		case "expired":
			return nil, peerplane.HandleExpired(time.UnixMilli(1755950300000))
		case "forged":
			return nil, peerplane.HandleNotValid()
		}
		return nil, errors.New("disk on fire")
	}}
	logs := &testmur.Buffer{}
	td := startDoor(t, opts{auth: true, peer: p, maxBody: 1024, logs: logs})
	op := td.tokens[OperatorCredential]
	var b strings.Builder
	for _, c := range []struct {
		method, path, token, body string
		status                    int
	}{
		{http.MethodGet, "/resources/peer/forged", "", "", 403},
		{http.MethodGet, "/resources/peer/expired", "", "", 410},
		{http.MethodGet, "/resources/peer/other", "", "", 500},
		{http.MethodGet, "/resources/peer/", "", "", 404},
		{http.MethodGet, "/resources/peer", "", "", 404},
		{http.MethodPut, "/resources/peer/x", op, "", 405},
		{http.MethodHead, "/resources/peer/x", op, "", 405},
		{http.MethodDelete, "/resources/peer/x", op, "", 405},
		{http.MethodPost, "/resources/peer/x", "", "{}", 401},
	} {
		rep := td.do(c.method, c.path, c.token, c.body)
		if rep.status != c.status {
			t.Errorf("%s %s = %d %s, want %d", c.method, c.path, rep.status, rep.body, c.status)
		}
		fmt.Fprintf(&b, "%s %s → %d allow=%q\n%s\n", c.method, c.path, rep.status, rep.header.Get("Allow"), rep.body)
	}
	golden.Check(t, "peer_refusals", b.String())
	if !strings.Contains(logs.String(), "disk on fire") {
		t.Error("the failure that is not a refusal is not logged")
	}
	big := td.do(http.MethodGet, "/resources/peer/x", "", strings.Repeat("x", 2000))
	wantRefusal(t, big, 413, "", "")
}

// TestNoPeerPlane_PFILE1: without exports.peer_files the route answers
// no_peer_plane to every method — behind the token on an authenticated
// door, since ORD-1 step 1 serves the route only when it is declared.
func TestNoPeerPlane_PFILE1(t *testing.T) {
	pub := startDoor(t, opts{})
	for _, m := range []string{http.MethodGet, http.MethodPut} {
		wantRefusal(t, pub.do(m, "/resources/peer/mh1.a.b", "", ""), 404, "", "no_peer_plane")
	}
	auth := startDoor(t, opts{auth: true})
	wantRefusal(t, auth.do(http.MethodGet, "/resources/peer/mh1.a.b", "", ""), 401, `Bearer realm="coder"`, "auth_unauthenticated")
	wantRefusal(t, auth.do(http.MethodGet, "/resources/peer/mh1.a.b", auth.tokens[OperatorCredential], ""), 404, "", "no_peer_plane")
	card := pub.do(http.MethodGet, a2aCardPath, "", "").body
	if !strings.Contains(card, `"planes":[]`) {
		t.Errorf("card without the plane: %s", card)
	}
	declared := startDoor(t, opts{peer: servingPlane(t, "x")})
	if card := declared.do(http.MethodGet, a2aCardPath, "", "").body; !strings.Contains(card, `"planes":["peer_files"]`) {
		t.Errorf("card with the plane: %s", card)
	}
}

// TestPeerBodyEndsEarly: a reader that leaves mid-body is reported to Done
// with the bytes sent and an error, so the redeem's record says so.
func TestPeerBodyEndsEarly(t *testing.T) {
	content := strings.Repeat("z", 8<<20)
	p := servingPlane(t, content)
	td := startDoor(t, opts{peer: p})
	c, err := net.Dial("tcp", strings.TrimPrefix(td.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET /resources/peer/h HTTP/1.1\r\nHost: x\r\nx-murmur-audience: a@b:1\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(io.Discard, resp.Body, 1024); err != nil {
		t.Fatal(err)
	}
	c.Close()
	d := <-p.done
	if d.err == nil || d.n >= int64(len(content)) {
		t.Errorf("Done(%d, %v), want fewer than %d bytes and an error", d.n, d.err, len(content))
	}
}

// TestPeerRouteUnderConnectionCap: the route runs under the door's bounds
// — a request on a connection past the cap is 503 before the plane is
// asked (docs/door.md), token or no token.
func TestPeerRouteUnderConnectionCap(t *testing.T) {
	p := servingPlane(t, "x")
	td := startDoor(t, opts{maxConns: 1, peer: p})
	held := td.dial(t)
	defer held.Close()
	over := td.dial(t)
	if _, err := io.WriteString(over, "GET /resources/peer/h HTTP/1.1\r\nHost: door\r\nx-murmur-audience: a@b:1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, body := readAnswer(t, over)
	if resp.StatusCode != 503 || !strings.Contains(body, `"overloaded"`) {
		t.Errorf("past the cap = %d %s", resp.StatusCode, body)
	}
	p.mu.Lock()
	asked := len(p.reqs)
	p.mu.Unlock()
	if asked != 0 {
		t.Errorf("the plane was asked %d times past the cap", asked)
	}
}
