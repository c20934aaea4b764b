package peerfile

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/peerplane"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// hostilePeer answers every redeem 200 with a well-formed etag and then
// body: the bytes never hash to it, so nothing a hostile peer sends could
// be kept anyway — what is tested is that the fetch stops.
func hostilePeer(t *testing.T, body func(w http.ResponseWriter, r *http.Request)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Etag", `"sha256:`+strings.Repeat("0", 64)+`"`)
		body(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// fetchFrom runs fetch-peer-file against srv with max_bytes max and the
// idle bound idle; it returns the result and the workdir.
func fetchFrom(t *testing.T, srv *httptest.Server, max int64, idle time.Duration) (tool.Result, string) {
	t.Helper()
	wd := testmur.TempDir(t)
	ft := Fetch(FetchConfig{Workdir: wd, Allow: allow(t, "127.0.0.1"), Name: "Fetcher", URL: "http://127.0.0.1:4100", MaxBytes: max, Idle: idle})
	return call(t, ft, `{"peer":"`+srv.URL+`","handle":"mh1.e30.AAAA"}`), wd
}

// inboxEmpty fails the test when peer-in/ holds any file.
func inboxEmpty(t *testing.T, wd string) {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(wd, InboxDir))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("peer-in/ holds %s: a refused fetch leaves nothing", e.Name())
	}
}

func fetchOutcome(t *testing.T, res tool.Result) string {
	t.Helper()
	if len(res.Records) != 1 {
		t.Fatalf("records = %+v, want one peer_file_fetch", res.Records)
	}
	rec, ok := res.Records[0].Record.(trace.PeerFileFetch)
	if !ok {
		t.Fatalf("record = %T", res.Records[0].Record)
	}
	return rec.Outcome
}

// TestFetchStopsAtMaxBytes_PFILE4: a peer that streams without end, or
// declares a Content-Length over capabilities.peer_fetch.max_bytes, is cut
// off at the bound — too_large, and nothing in peer-in/.
func TestFetchStopsAtMaxBytes_PFILE4(t *testing.T) {
	t.Parallel()
	const max = 1 << 20
	streamed := make(chan int64, 1) // what the endless peer got written before the fetch hung up
	endless := hostilePeer(t, func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(w, io.LimitReader(zeros{}, 1<<30))
		streamed <- n
	})
	res, wd := fetchFrom(t, endless, max, time.Minute)
	if res.Status != tool.Failed || fetchOutcome(t, res) != peerplane.CodeTooLarge || !strings.Contains(res.Summary+res.Data, "max_bytes") {
		t.Errorf("endless body: result = %+v", res)
	}
	inboxEmpty(t, wd)
	if n := <-streamed; n >= 1<<30 {
		t.Errorf("the peer wrote all %d bytes: the fetch read past max_bytes", n)
	}

	declared := hostilePeer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1073741824")
		w.WriteHeader(http.StatusOK)
		_, _ = io.Copy(w, io.LimitReader(zeros{}, 1<<30))
	})
	res, wd = fetchFrom(t, declared, max, time.Minute)
	if res.Status != tool.Failed || fetchOutcome(t, res) != peerplane.CodeTooLarge {
		t.Errorf("declared length over max: result = %+v", res)
	}
	inboxEmpty(t, wd)
}

// TestFetchStalledPeer_PFILE4: a peer that sends a Content-Length and a
// few bytes, then nothing, loses the fetch at the idle bound — io_error,
// nothing in peer-in/ — rather than holding the task as long as it lives.
func TestFetchStalledPeer_PFILE4(t *testing.T) {
	t.Parallel()
	srv := hostilePeer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "ten bytes!")
		http.NewResponseController(w).Flush()
		<-r.Context().Done() // stalls until the fetch hangs up
	})
	res, wd := fetchFrom(t, srv, 1<<20, 100*time.Millisecond)
	if res.Status != tool.Failed || fetchOutcome(t, res) != peerplane.CodeIOError || !strings.Contains(res.Summary+res.Data, "sent nothing for 100ms after 10 bytes") {
		t.Errorf("result = %+v", res)
	}
	inboxEmpty(t, wd)
}
