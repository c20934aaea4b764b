package peerfile

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/peerplane"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// cardServer serves a card named name whose interface is its own URL (or
// url when set); cards counts the fetches.
func cardServer(t *testing.T, name, url string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var cards atomic.Int32
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cards.Add(1)
		if r.URL.Path != "/.well-known/agent-card.json" {
			http.NotFound(w, r)
			return
		}
		u := url
		if u == "" {
			u = srv.URL
		}
		fmt.Fprintf(w, `{"name":%q,"version":"1.0.0","supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`, name, u)
	}))
	t.Cleanup(srv.Close)
	return srv, &cards
}

func allow(t *testing.T, entries ...string) manifest.AllowList {
	t.Helper()
	var a manifest.AllowList
	for _, e := range entries {
		x, err := manifest.ParseAllowEntry(e)
		if err != nil {
			t.Fatal(err)
		}
		a = append(a, x)
	}
	return a
}

func sharePlane(t *testing.T, network manifest.AllowList) *fixture {
	t.Helper()
	fx := &fixture{wd: testmur.TempDir(t), now: t0}
	fx.write(t, "out/sub/report.md", "the report\n")
	p, err := NewPlane(Config{SessionID: "ses_test", Workdir: fx.wd, Root: "out", MaxTTL: 10 * time.Minute, MaxBytes: 64,
		Network: network, Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	fx.plane = p
	return fx
}

func call(t *testing.T, tl tool.Tool, input string) tool.Result {
	t.Helper()
	return tl.Call(context.Background(), &tool.CallContext{TaskID: "tsk_1", Turn: 2}, json.RawMessage(input))
}

// TestShareFile_PFILE2: the data object exactly, the audience from the
// peer's card, the ttl clamped to max_ttl, and a handle that redeems for
// that audience only; one peer_handle_mint.
func TestShareFile_PFILE2(t *testing.T) {
	t.Parallel()
	srv, _ := cardServer(t, "Fetcher", "")
	fx := sharePlane(t, allow(t, "127.0.0.1"))
	host := strings.TrimPrefix(srv.URL, "http://")
	res := call(t, fx.plane.ShareFile(), `{"path":"sub/report.md","peer":"`+host+`","ttl":"2h"}`)
	if res.Status != tool.Passed || res.Summary != "share-file: ok" {
		t.Fatalf("result = %+v", res)
	}
	var d shared
	if err := json.Unmarshal([]byte(res.Data), &d); err != nil {
		t.Fatal(err)
	}
	aud := "fetcher@" + host
	exp := t0.Add(10 * time.Minute).UnixMilli() // 2h clamped to max_ttl
	if want := `{"audience":"` + aud + `","expires_at_ms":` + fmt.Sprint(exp) + `,"handle":"` + d.Handle + `","handle_id":"` + peerplane.ID(d.Handle) + `"}`; res.Data != want {
		t.Errorf("data = %s, want %s", res.Data, want)
	}
	h, err := peerplane.Parse(d.Handle)
	if err != nil || h.Payload.P != "sub/report.md" || h.Payload.Iss != "ses_test" || h.Payload.Exp != exp {
		t.Errorf("payload = %+v, %v", h, err)
	}
	if !fx.plane.verify(h, aud) || fx.plane.verify(h, "fetcher@127.0.0.1:1") {
		t.Error("the handle is not bound to the card's audience")
	}
	if len(res.Records) != 1 {
		t.Fatalf("records = %v", res.Records)
	}
	m := res.Records[0].Record.(trace.PeerHandleMint)
	if m.Outcome != "ok" || *m.HandleID != d.HandleID || m.Audience != aud || *m.ExpiresAtMS != exp || m.Path != "sub/report.md" || m.Turn != 2 {
		t.Errorf("record = %+v", m)
	}
	if strings.Contains(res.Records[0].String(), d.Handle) {
		t.Errorf("the record holds the token: %s", res.Records[0].String())
	}
	res = call(t, fx.plane.ShareFile(), `{"path":"sub/report.md","peer":"`+srv.URL+`/","ttl":30}`)
	if res.Status != tool.Passed || !strings.Contains(res.Data, fmt.Sprintf(`"expires_at_ms":%d`, t0.Add(30*time.Second).UnixMilli())) {
		t.Errorf("a URL peer and a 30 s ttl: %+v", res)
	}
}

// TestShareFileRefusals: the input checks (TOOL-11, no record), then the
// path (never normalised) before the peer, and a peer outside
// capabilities.network.allow or without a card: peer_unreachable; each a
// failed result naming its code, with one record.
func TestShareFileRefusals(t *testing.T) {
	t.Parallel()
	srv, cards := cardServer(t, "fetcher", "")
	nameless, _ := cardServer(t, "", "")
	elsewhere, _ := cardServer(t, "fetcher", "ftp://x")
	host := strings.TrimPrefix(srv.URL, "http://")
	fx := sharePlane(t, allow(t, "127.0.0.1"))
	deny := sharePlane(t, nil)
	var b strings.Builder
	for _, c := range []struct {
		name  string
		plane *Plane
		input string
	}{
		{"no path", fx.plane, `{"peer":"` + host + `"}`},
		{"no peer", fx.plane, `{"path":"sub/report.md"}`},
		{"bare host", fx.plane, `{"path":"sub/report.md","peer":"127.0.0.1"}`},
		{"peer with a path", fx.plane, `{"path":"sub/report.md","peer":"http://` + host + `/x"}`},
		{"bad ttl", fx.plane, `{"path":"sub/report.md","peer":"` + host + `","ttl":"soon"}`},
		{"zero ttl", fx.plane, `{"path":"sub/report.md","peer":"` + host + `","ttl":0}`},
		{"dot-dot", fx.plane, `{"path":"../murmur.yaml","peer":"` + host + `"}`},
		{"dot-dot inside", fx.plane, `{"path":"sub/../sub/report.md","peer":"` + host + `"}`},
		{"absolute", fx.plane, `{"path":"/etc/passwd","peer":"` + host + `"}`},
		{"percent-encoded", fx.plane, `{"path":"%2e%2e/murmur.yaml","peer":"` + host + `"}`},
		{"trailing slash", fx.plane, `{"path":"sub/","peer":"` + host + `"}`},
		{"missing", fx.plane, `{"path":"sub/none.md","peer":"` + host + `"}`},
		{"a directory", fx.plane, `{"path":"sub","peer":"` + host + `"}`},
		{"not allowed", deny.plane, `{"path":"sub/report.md","peer":"` + host + `"}`},
		{"nameless card", fx.plane, `{"path":"sub/report.md","peer":"` + strings.TrimPrefix(nameless.URL, "http://") + `"}`},
		{"card with no http interface", fx.plane, `{"path":"sub/report.md","peer":"` + strings.TrimPrefix(elsewhere.URL, "http://") + `"}`},
		{"no door there", fx.plane, `{"path":"sub/report.md","peer":"127.0.0.1:1"}`},
	} {
		res := call(t, c.plane.ShareFile(), c.input)
		fmt.Fprintf(&b, "# %s\nrefused=%v status=%s summary=%s\n%s\n", c.name, res.Refused, res.Status, res.Summary, res.Data)
		for _, r := range res.Records {
			fmt.Fprintf(&b, "%s\n", r.String())
		}
	}
	if n := cards.Load(); n != 0 {
		t.Errorf("the card was fetched %d times for calls refused before the peer", n)
	}
	got := strings.ReplaceAll(b.String(), host, "HOST")
	got = strings.ReplaceAll(got, strings.TrimPrefix(nameless.URL, "http://"), "NAMELESS")
	got = strings.ReplaceAll(got, strings.TrimPrefix(elsewhere.URL, "http://"), "ELSEWHERE")
	golden.Check(t, "share_refusals", got)
}
