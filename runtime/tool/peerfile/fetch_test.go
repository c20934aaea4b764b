package peerfile

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/peerplane"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// planeServer answers GET /resources/peer/<handle> from p the way the door
// does (door/peerfiles.go); tamper, when set, rewrites a 200's body. The
// door itself is exercised by runtime/tool/peerfile/e2e.
func planeServer(t *testing.T, p *Plane, tamper func([]byte) []byte) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		req := peerplane.Request{Handle: strings.TrimPrefix(r.URL.Path, "/resources/peer/")}
		if v := r.Header.Values(peerplane.HeaderAudience); len(v) > 0 {
			req.Audience, req.HasAudience = v[0], true
		}
		f, err := p.Redeem(r.Context(), req)
		if err != nil {
			var rf *peerplane.Refusal
			errors.As(err, &rf)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(rf.Status)
			fmt.Fprintf(w, `{"error":%q,"message":%q}`, rf.Code, rf.Message)
			return
		}
		b, _ := io.ReadAll(io.LimitReader(f.Body, f.Size))
		f.Done(int64(len(b)), nil)
		if tamper != nil {
			b = tamper(b)
		}
		w.Header().Set("Etag", `"sha256:`+f.SHA256+`"`)
		w.Header().Set(peerplane.HeaderGeneration, strconv.FormatUint(f.Generation, 10))
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func fetcher(t *testing.T, allowed ...string) (tool.Tool, string) {
	t.Helper()
	wd := testmur.TempDir(t)
	return Fetch(FetchConfig{Workdir: wd, Allow: allow(t, allowed...), Name: "Fetcher", URL: "http://127.0.0.1:4100"}), wd
}

// TestFetchPeerFile_PFILE4: the file lands at peer-in/<handle_id>-<name>,
// its bytes and hash the shared file's; the data names it, never its
// content; the fetch sends the capsule's own audience; one record.
func TestFetchPeerFile_PFILE4(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	h := fx.mint(t, "sub/report.md", time.Minute)
	srv, _ := planeServer(t, fx.plane, nil)
	ft, wd := fetcher(t, "127.0.0.1")
	res := call(t, ft, `{"peer":"`+srv.URL+`","handle":"`+h+`"}`)
	id := peerplane.ID(h)
	want := `{"bytes":11,"generation":7,"path":"peer-in/` + id + `-report.md","peer":"` + srv.URL + `","sha256":"` + fmt.Sprintf("%x", sha("the report\n")) + `"}`
	if res.Status != tool.Passed || res.Data != want || res.Summary != "fetch-peer-file: ok" {
		t.Fatalf("result = %+v\nwant data %s", res, want)
	}
	if b, err := os.ReadFile(filepath.Join(wd, "peer-in", id+"-report.md")); err != nil || string(b) != "the report\n" {
		t.Errorf("stored = %q, %v", b, err)
	}
	if r := fx.last(t); r.Outcome != "ok" || *r.AudienceAsserted != "fetcher@127.0.0.1:4100" {
		t.Errorf("the sharer's record = %+v", r)
	}
	rec := res.Records[0].Record.(trace.PeerFileFetch)
	if rec.Outcome != "ok" || rec.HandleID != id || *rec.StoredPath != "peer-in/"+id+"-report.md" || *rec.Bytes != 11 {
		t.Errorf("record = %+v", rec)
	}
	entries, _ := os.ReadDir(filepath.Join(wd, "peer-in"))
	if len(entries) != 1 {
		t.Errorf("peer-in holds %v, want the one file", entries)
	}
	if fi, _ := os.Stat(filepath.Join(wd, "peer-in")); fi.Mode().Perm() != 0o700 {
		t.Errorf("peer-in mode = %v", fi.Mode())
	}
	// The same handle again replaces the file: a handle names a file.
	fx.write(t, "out/sub/report.md", "version 2\n")
	if res := call(t, ft, `{"peer":"`+srv.URL+`","handle":"`+h+`"}`); res.Status != tool.Passed || !strings.Contains(res.Data, `"bytes":10`) {
		t.Errorf("second fetch = %+v", res)
	}
}

// TestFetchRefusals: the peer checked against peer_fetch.allow before any
// connection; an unreachable peer; the peer's own code; a body that does
// not hash to the etag (nothing stored); peer-in/ a link (nothing written
// through it) — each a failed result naming its code, with one record.
func TestFetchRefusals(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	h := fx.mint(t, "sub/report.md", time.Minute)
	srv, hits := planeServer(t, fx.plane, nil)
	bad, _ := planeServer(t, fx.plane, func(b []byte) []byte { return append(b[:len(b)-1], '!') })
	host := strings.TrimPrefix(srv.URL, "http://")
	okTool, okWD := fetcher(t, "127.0.0.1")
	denied, _ := fetcher(t, "localhost:1")
	linked, linkedWD := fetcher(t, "127.0.0.1")
	outside := testmur.TempDir(t)
	if err := os.Symlink(outside, filepath.Join(linkedWD, "peer-in")); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range []struct {
		name  string
		tl    tool.Tool
		input string
	}{
		{"no peer", okTool, `{"handle":"` + h + `"}`},
		{"no handle", okTool, `{"peer":"` + host + `"}`},
		{"bad peer", okTool, `{"peer":"not a peer","handle":"` + h + `"}`},
		{"not allowed", denied, `{"peer":"` + host + `","handle":"` + h + `"}`},
		{"unreachable", okTool, `{"peer":"127.0.0.1:1","handle":"` + h + `"}`},
		{"the peer refuses", okTool, `{"peer":"` + host + `","handle":"` + forged(h) + `"}`},
		{"etag mismatch", okTool, `{"peer":"` + strings.TrimPrefix(bad.URL, "http://") + `","handle":"` + h + `"}`},
		{"peer-in is a link", linked, `{"peer":"` + host + `","handle":"` + h + `"}`},
	} {
		before := hits.Load()
		res := call(t, c.tl, c.input)
		fmt.Fprintf(&b, "# %s\nrefused=%v status=%s summary=%s\n%s\n", c.name, res.Refused, res.Status, res.Summary, res.Data)
		for _, r := range res.Records {
			fmt.Fprintf(&b, "%s\n", r.String())
		}
		if c.name == "not allowed" && hits.Load() != before {
			t.Error("a peer outside peer_fetch.allow was connected to")
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(okWD, "peer-in")); len(entries) != 0 {
		t.Errorf("peer-in holds %v after failed fetches", entries)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("a fetch wrote through the peer-in link: %v", entries)
	}
	got := strings.NewReplacer(host, "HOST", strings.TrimPrefix(bad.URL, "http://"), "BAD", h, "HANDLE",
		peerplane.ID(h), "ID", peerplane.ID(forged(h)), "FORGED").Replace(b.String())
	golden.Check(t, "fetch_refusals", got)
}

// TestSanitise: the stored name keeps the handle's basename, made safe.
func TestSanitise(t *testing.T) {
	t.Parallel()
	key := peerplane.NewKey()
	for p, want := range map[string]string{
		"report.md": "report.md", "a/b/c.tar.gz": "c.tar.gz", "..hidden": "hidden", "we ird name!.md": "we_ird_name_.md",
		"..": "file", strings.Repeat("x", 200): strings.Repeat("x", 96), "ünï.txt": "__n__.txt",
	} {
		tok, _ := peerplane.Mint(key, peerplane.Payload{Iss: "s", P: p, Exp: 1}, "a")
		if got := sanitise(tok); got != want {
			t.Errorf("sanitise(%q) = %q, want %q", p, got, want)
		}
	}
	if got := sanitise("not a handle"); got != "file" {
		t.Errorf("sanitise(junk) = %q", got)
	}
}

// TestFetchStreams: a body is written as it arrives, never held whole —
// the tool reads it through one fixed buffer.
func TestFetchStreams(t *testing.T) {
	t.Parallel()
	var w countingWriter
	src := io.LimitReader(zeros{}, 8<<20)
	n, _, err := receive(&w, src, 8<<20, 8<<20)
	if err != nil || n != 8<<20 {
		t.Fatalf("receive = %d, %v", n, err)
	}
	if w.max > copyBuffer {
		t.Errorf("a write of %d bytes: the body was buffered beyond %d", w.max, copyBuffer)
	}
	if _, _, err := receive(&w, strings.NewReader("short"), 10, 10); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a short body: %v", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

type countingWriter struct{ max int }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.max = max(c.max, len(p))
	return len(p), nil
}
