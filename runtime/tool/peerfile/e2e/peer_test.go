package e2e

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/runtime/peerplane"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

// sharerManifest exports out/ on an authenticated door that sleeps between
// tasks (so max_ttl must be declared, ≤ 15m: E-CAP-008) and keeps content.
const sharerManifest = `name: sharer
version: "0.1.0"
inference:
  driver: {kind: scripted, script: script.yaml}
  max_turns: 4
capabilities:
  network:
    allow: [localhost]
exports:
  peer_files: {root: out, max_ttl: 15m, max_bytes: 1Ki}
lifecycle: {task_acceptance: queue, after_task: sleep}
network:
  authentication: {scheme: bearer}
trace: {capture: content}
`

// sharerScript shares sub/report.md with the peer the task names: as a
// URL, for one second; as host:port, for max_ttl. The answer is the data.
const sharerScript = `script_version: 1
rules:
  - match: {regex: "^http://"}
    turns:
      - tool_calls: [{name: share-file, input: {path: sub/report.md, peer: "{{task}}", ttl: "1s"}}]
      - text: "{{tool_result}}"
  - match: {always: true}
    turns:
      - tool_calls: [{name: share-file, input: {path: sub/report.md, peer: "{{task}}"}}]
      - text: "{{tool_result}}"
`

// fetcherManifest may fetch from localhost only; no exports.
const fetcherManifest = `name: fetcher
version: "0.1.0"
inference:
  driver: {kind: scripted, script: script.yaml}
  max_turns: 4
capabilities:
  peer_fetch:
    allow: [localhost]
lifecycle: {task_acceptance: queue, after_task: sleep}
trace: {capture: content}
`

// fetcherScript redeems the handle its task is at the sharer.
func fetcherScript(sharer string) string {
	return `script_version: 1
fallback:
  turns:
    - tool_calls: [{name: fetch-peer-file, input: {peer: "` + sharer + `", handle: "{{task}}"}}]
    - text: "{{tool_result}}"
`
}

type mintData struct {
	Audience    string `json:"audience"`
	ExpiresAtMS int64  `json:"expires_at_ms"`
	Handle      string `json:"handle"`
	HandleID    string `json:"handle_id"`
}

type fetchData struct {
	Bytes      int64  `json:"bytes"`
	Generation uint64 `json:"generation"`
	Path       string `json:"path"`
	Peer       string `json:"peer"`
	SHA256     string `json:"sha256"`
}

func decode[T any](t *testing.T, text string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("answer %q: %v", text, err)
	}
	return v
}

func hostPort(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

func sum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// TestShareAndFetch_PFILE: a sharer mints a handle for a peer whose card it
// reads; the fetcher redeems it through its tool; the stored file's bytes
// and sha256 are the shared file's; then every redeem refusal, in PFILE-5's
// order and precedence, at the real door with no token; a handle of a
// session that has ended; the records on both sides; and no token text
// anywhere under $MURMUR_HOME or on either process's stderr.
func TestShareAndFetch_PFILE(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	content := make([]byte, 1000)
	_, _ = rand.Read(content)
	w.write(t, "sharer/murmur.yaml", sharerManifest)
	w.write(t, "sharer/script.yaml", sharerScript)
	report := w.write(t, "sharer/out/sub/report.md", string(content))
	w.write(t, "outside/sub/report.md", "outside the workdir\n")
	sharer := w.start(t, "sharer")
	w.operatorToken(t, sharer)
	w.write(t, "fetcher/murmur.yaml", fetcherManifest)
	w.write(t, "fetcher/script.yaml", fetcherScript(sharer.ready.URL))
	fetcher := w.start(t, "fetcher")
	audience := "fetcher@" + hostPort(t, fetcher.ready.URL)

	// The share and the fetch (PFILE-2, PFILE-4).
	m := decode[mintData](t, sharer.send(t, hostPort(t, fetcher.ready.URL)))
	if m.Audience != audience || m.HandleID != peerplane.ID(m.Handle) || !strings.HasPrefix(m.Handle, "mh1.") {
		t.Fatalf("share-file data = %+v, want audience %s", m, audience)
	}
	if left := time.Until(time.UnixMilli(m.ExpiresAtMS)); left > 15*time.Minute || left < 14*time.Minute {
		t.Errorf("expires in %v, want max_ttl 15m", left)
	}
	f := decode[fetchData](t, fetcher.send(t, m.Handle))
	if f.Path != "peer-in/"+m.HandleID+"-report.md" || f.Bytes != int64(len(content)) || f.SHA256 != sum(content) || f.Peer != sharer.ready.URL {
		t.Errorf("fetch-peer-file data = %+v, want peer-in/%s-report.md, %d bytes, sha256 %s", f, m.HandleID, len(content), sum(content))
	}
	got, err := os.ReadFile(filepath.Join(fetcher.ready.Workdir, f.Path))
	if err != nil || string(got) != string(content) || sum(got) != sum(content) {
		t.Fatalf("the fetched file: %v (sha256 %s, want %s)", err, sum(got), sum(content))
	}
	t.Logf("shared  %s sha256 %s\nfetched %s sha256 %s", report, sum(content), filepath.Join(fetcher.ready.Workdir, f.Path), sum(got))

	short := decode[mintData](t, sharer.send(t, "http://"+hostPort(t, fetcher.ready.URL)))
	tokens := []string{m.Handle, short.Handle}
	forged, expiredForged := forge(m.Handle), forge(short.Handle)
	<-time.After(time.Until(time.UnixMilli(short.ExpiresAtMS))) // a handle's expiry is wall-clock time, by design

	sub := filepath.Join(sharer.ready.Workdir, "out", "sub")
	swap := func(setup func()) func() {
		return func() {
			_ = os.RemoveAll(filepath.Join(sharer.ready.Workdir, "out"))
			w.write(t, "sharer/out/sub/report.md", string(content))
			if setup != nil {
				setup()
			}
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name, handle, audience string
		setup                  func()
		status                 int
		code                   string
	}{
		{"malformed", "mh1.not.a-handle", audience, nil, 400, "malformed_handle"},
		{"malformed before audience", "mh1.x", "", nil, 400, "malformed_handle"},
		{"missing audience", m.Handle, "", nil, 400, "missing_audience"},
		{"missing audience before MAC", forged, "", nil, 400, "missing_audience"},
		{"forged MAC", forged, audience, nil, 403, "handle_not_valid"},
		{"another audience", m.Handle, "reviewer@" + hostPort(t, fetcher.ready.URL), nil, 403, "handle_not_valid"},
		{"MAC before expiry", expiredForged, audience, nil, 403, "handle_not_valid"},
		{"expired", short.Handle, audience, nil, 410, "handle_expired"},
		{"outside the root", m.Handle, audience, swap(func() {
			must(os.RemoveAll(filepath.Join(sharer.ready.Workdir, "out")))
			must(os.Symlink(filepath.Join(w.root, "outside"), filepath.Join(sharer.ready.Workdir, "out")))
		}), 403, "outside_root"},
		{"symlink, final component", m.Handle, audience, swap(func() {
			w.write(t, "sharer/out/other.md", "other\n")
			must(os.Remove(filepath.Join(sub, "report.md")))
			must(os.Symlink("../other.md", filepath.Join(sub, "report.md")))
		}), 403, "symlink_refused"},
		{"symlink, intermediate component", m.Handle, audience, swap(func() {
			w.write(t, "sharer/out/real/report.md", string(content))
			must(os.RemoveAll(sub))
			must(os.Symlink("real", sub))
		}), 403, "symlink_refused"},
		{"a directory", m.Handle, audience, swap(func() {
			must(os.Remove(filepath.Join(sub, "report.md")))
			must(os.Mkdir(filepath.Join(sub, "report.md"), 0o755))
		}), 403, "not_a_regular_file"},
		{"too large", m.Handle, audience, swap(func() {
			w.write(t, "sharer/out/sub/report.md", strings.Repeat("x", 1025))
		}), 413, "too_large"},
		{"gone", m.Handle, audience, swap(func() { must(os.Remove(filepath.Join(sub, "report.md"))) }), 404, "not_found"},
	}
	var forgedBody string
	for _, s := range steps {
		if s.setup != nil {
			s.setup()
		}
		a := sharer.redeem(t, s.handle, s.audience)
		var body struct{ Error, Message string }
		_ = json.Unmarshal([]byte(a.body), &body)
		if a.status != s.status || body.Error != s.code || a.header.Get("Www-Authenticate") != "" {
			t.Errorf("%s: %d %s, want %d %s", s.name, a.status, a.body, s.status, s.code)
		}
		if body.Error == "handle_not_valid" {
			if forgedBody == "" {
				forgedBody = a.body
			} else if a.body != forgedBody {
				t.Errorf("%s: handle_not_valid body %q differs from %q", s.name, a.body, forgedBody)
			}
		}
	}
	swap(nil)()
	if a := sharer.redeem(t, m.Handle, strings.ToUpper(" "+audience+" ")); a.status != 200 || a.body != string(content) ||
		a.header.Get("Etag") != `"sha256:`+sum(content)+`"` || a.header.Get("X-Murmur-Handle-Id") != m.HandleID {
		t.Errorf("a restored file, audience in another case: %d %v", a.status, a.header)
	}

	// A handle of a session that has ended: a new session of the same
	// capsule over the same workdir holds a new key (PFILE-3).
	sharer.stop(t)
	again := w.start(t, "sharer")
	if a := again.redeem(t, m.Handle, audience); a.status != 403 || a.body != forgedBody {
		t.Errorf("the ended session's handle: %d %s, want 403 %s", a.status, a.body, forgedBody)
	}
	again.stop(t)
	fetcher.stop(t)

	// Records (PFILE-6).
	lines := tracetest.Records(t, sharer.ready.RecordsDir)
	mints := tracetest.OfType[trace.PeerHandleMint](t, lines)
	if len(mints) != 2 || mints[0].Outcome != "ok" || *mints[0].HandleID != m.HandleID || mints[0].Path != "sub/report.md" ||
		mints[0].Audience != audience || *mints[0].ExpiresAtMS != m.ExpiresAtMS || mints[0].Reason != nil {
		t.Errorf("peer_handle_mint = %+v", mints)
	}
	var outcomes []string
	for i, r := range tracetest.OfType[trace.PeerHandleRedeem](t, lines) {
		outcomes = append(outcomes, r.Outcome)
		verified := r.Outcome != "malformed_handle" && r.Outcome != "missing_audience" && r.Outcome != "handle_not_valid"
		if verified != (r.Path != nil) || (r.Outcome == "ok") != (r.Bytes != nil && r.SHA256 != nil) {
			t.Errorf("redeem %d (%s): path %v, bytes %v, sha256 %v", i, r.Outcome, r.Path, r.Bytes, r.SHA256)
		}
		if r.Outcome == "ok" && (*r.SHA256 != sum(content) || *r.Bytes != int64(len(content)) || r.HandleID != m.HandleID) {
			t.Errorf("redeem %d = %+v", i, r)
		}
	}
	want := "ok malformed_handle malformed_handle missing_audience missing_audience handle_not_valid handle_not_valid handle_not_valid handle_expired " +
		"outside_root symlink_refused symlink_refused not_a_regular_file too_large not_found ok"
	if got := strings.Join(outcomes, " "); got != want {
		t.Errorf("peer_handle_redeem outcomes =\n%s\nwant\n%s", got, want)
	}
	fetches := tracetest.OfType[trace.PeerFileFetch](t, tracetest.Records(t, fetcher.ready.RecordsDir))
	if len(fetches) != 1 || fetches[0].Outcome != "ok" || fetches[0].HandleID != m.HandleID || *fetches[0].StoredPath != f.Path ||
		*fetches[0].SHA256 != sum(content) || fetches[0].Peer != sharer.ready.URL {
		t.Errorf("peer_file_fetch = %+v", fetches)
	}
	calls := tracetest.OfType[trace.ToolCall](t, tracetest.Records(t, fetcher.ready.RecordsDir))
	if len(calls) != 1 || !strings.Contains(string(calls[0].Input), peerplane.Placeholder(m.HandleID)) {
		t.Errorf("fetch-peer-file's tool_call input = %s, want the handle as %s", calls[0].Input, peerplane.Placeholder(m.HandleID))
	}

	// No token text anywhere under $MURMUR_HOME, nor on stderr (PFILE-6).
	noTokens(t, w, tokens)
}

// noTokens fails for any file under $MURMUR_HOME, or any process's stderr,
// that holds one of the tokens.
func noTokens(t *testing.T, w *world, tokens []string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(w.home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for _, tok := range tokens {
			if strings.Contains(string(b), tok) {
				t.Errorf("%s holds a token", path)
			}
		}
		return nil
	})
	if err != nil || files < 4 {
		t.Fatalf("walk $MURMUR_HOME: %v (%d files)", err, files)
	}
	for i, p := range w.procs {
		for _, tok := range tokens {
			if strings.Contains(p.stderr.String(), tok) {
				t.Errorf("process %d's stderr holds a token:\n%s", i, p.stderr.String())
			}
		}
	}
}

// forge changes the first character of tok's MAC segment: a well-formed
// token whose MAC no key gave (the first character's six bits are all
// MAC, so the segment still decodes).
func forge(tok string) string {
	i := strings.LastIndexByte(tok, '.') + 1
	c := byte('A')
	if tok[i] == 'A' {
		c = 'B'
	}
	return tok[:i] + string(c) + tok[i+1:]
}
