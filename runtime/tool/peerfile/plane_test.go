package peerfile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/peerplane"
	"github.com/murmur-go/mur/runtime/trace"
)

const testAudience = "fetcher@127.0.0.1:4100"

var t0 = time.UnixMilli(1787577327015)

// fixture is a plane over a temporary workdir with out/ as its root, a
// clock the test moves, and the records it writes.
type fixture struct {
	wd    string
	plane *Plane
	mu    sync.Mutex
	now   time.Time
	recs  []trace.PeerHandleRedeem
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	fx := &fixture{wd: testmur.TempDir(t), now: t0}
	fx.write(t, "out/sub/report.md", "the report\n")
	p, err := NewPlane(Config{SessionID: "ses_test", Workdir: fx.wd, Root: "out", MaxTTL: time.Hour, MaxBytes: 64,
		Now: func() time.Time { fx.mu.Lock(); defer fx.mu.Unlock(); return fx.now },
		Record: func(r trace.Record) {
			fx.mu.Lock()
			defer fx.mu.Unlock()
			fx.recs = append(fx.recs, r.(trace.PeerHandleRedeem))
		},
		Generation: func() uint64 { return 7 }})
	if err != nil {
		t.Fatal(err)
	}
	fx.plane = p
	return fx
}

func (fx *fixture) write(t testing.TB, rel, text string) {
	t.Helper()
	path := filepath.Join(fx.wd, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (fx *fixture) mint(t testing.TB, rel string, ttl time.Duration) string {
	t.Helper()
	tok, ok := fx.plane.mint(peerplane.Payload{Iss: "ses_test", P: rel, Exp: t0.Add(ttl).UnixMilli()}, testAudience)
	if !ok {
		t.Fatal("mint failed")
	}
	return tok
}

func (fx *fixture) last(t testing.TB) trace.PeerHandleRedeem {
	t.Helper()
	fx.mu.Lock()
	defer fx.mu.Unlock()
	if len(fx.recs) == 0 {
		t.Fatal("no peer_handle_redeem written")
	}
	return fx.recs[len(fx.recs)-1]
}

func code(err error) string {
	var r *peerplane.Refusal
	if errors.As(err, &r) {
		return r.Code
	}
	if err == nil {
		return "ok"
	}
	return "not a refusal: " + err.Error()
}

// serve redeems and reads the file whole, as the door would.
func serve(t testing.TB, p *Plane, handle, audience string) (string, error) {
	t.Helper()
	f, err := p.Redeem(context.Background(), peerplane.Request{Handle: handle, Audience: audience, HasAudience: audience != ""})
	if err != nil {
		return "", err
	}
	b, err := io.ReadAll(io.LimitReader(f.Body, f.Size))
	f.Done(int64(len(b)), err)
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != f.SHA256 {
		t.Errorf("etag %s does not describe the body", f.SHA256)
	}
	return string(b), err
}

// TestRedeemChecks_PFILE5: each check's refusal, the path checks after the
// handle checks, and what each record says.
func TestRedeemChecks_PFILE5(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	good := fx.mint(t, "sub/report.md", time.Minute)
	body, err := serve(t, fx.plane, good, " FETCHER@127.0.0.1:4100 ")
	if err != nil || body != "the report\n" {
		t.Fatalf("redeem = %q, %v", body, err)
	}
	if r := fx.last(t); r.Outcome != "ok" || *r.Path != "sub/report.md" || *r.Bytes != 11 || r.Generation != 7 ||
		*r.AudienceAsserted != " FETCHER@127.0.0.1:4100 " || r.HandleID != peerplane.ID(good) || r.Reason != nil {
		t.Errorf("ok record = %+v", r)
	}
	other, _ := peerplane.Mint(peerplane.NewKey(), peerplane.Payload{Iss: "ses_test", P: "sub/report.md", Exp: t0.Add(time.Minute).UnixMilli()}, testAudience)
	for _, c := range []struct {
		name, handle, audience, want string
		path                         bool // the record names the path (the MAC verified)
	}{
		{"malformed", "mh1.x.y", testAudience, peerplane.CodeMalformedHandle, false},
		{"no audience", good, "", peerplane.CodeMissingAudience, false},
		{"blank audience", good, "   ", peerplane.CodeMissingAudience, false},
		{"another key", other, testAudience, peerplane.CodeHandleNotValid, false},
		{"another audience", good, "reviewer@127.0.0.1:4100", peerplane.CodeHandleNotValid, false},
	} {
		_, err := serve(t, fx.plane, c.handle, c.audience)
		if code(err) != c.want {
			t.Errorf("%s: %s, want %s", c.name, code(err), c.want)
		}
		if r := fx.last(t); r.Outcome != c.want || (r.Path != nil) != c.path || r.Bytes != nil || r.SHA256 != nil || r.Reason == nil {
			t.Errorf("%s: record %+v", c.name, r)
		}
	}
	if r := fx.last(t); r.AudienceAsserted == nil || *r.AudienceAsserted != "reviewer@127.0.0.1:4100" {
		t.Errorf("audience_asserted = %v", r.AudienceAsserted)
	}
	if _, err := serve(t, fx.plane, good, ""); code(err) != peerplane.CodeMissingAudience || fx.last(t).AudienceAsserted != nil {
		t.Errorf("no header: %s, audience_asserted %v", code(err), fx.last(t).AudienceAsserted)
	}
}

// TestRedeemPaths_PFILE5: the path checks, each on a handle minted for a
// regular file whose path was changed afterwards.
func TestRedeemPaths_PFILE5(t *testing.T) {
	t.Parallel()
	outside := testmur.TempDir(t)
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, fx *fixture)
		want  string
	}{
		{"gone", func(t *testing.T, fx *fixture) { rm(t, fx, "out/sub/report.md") }, peerplane.CodeNotFound},
		{"no root", func(t *testing.T, fx *fixture) { rm(t, fx, "out") }, peerplane.CodeNotFound},
		{"root swapped for a link out", func(t *testing.T, fx *fixture) {
			rm(t, fx, "out")
			link(t, outside, filepath.Join(fx.wd, "out"))
		}, peerplane.CodeOutsideRoot},
		{"root swapped for a link in", func(t *testing.T, fx *fixture) {
			if err := os.Rename(filepath.Join(fx.wd, "out"), filepath.Join(fx.wd, "real")); err != nil {
				t.Fatal(err)
			}
			link(t, "real", filepath.Join(fx.wd, "out"))
		}, peerplane.CodeOutsideRoot},
		{"final link", func(t *testing.T, fx *fixture) {
			fx.write(t, "out/other.md", "x")
			rm(t, fx, "out/sub/report.md")
			link(t, "../other.md", filepath.Join(fx.wd, "out/sub/report.md"))
		}, peerplane.CodeSymlinkRefused},
		{"intermediate link", func(t *testing.T, fx *fixture) {
			fx.write(t, "out/real/report.md", "x")
			rm(t, fx, "out/sub")
			link(t, "real", filepath.Join(fx.wd, "out/sub"))
		}, peerplane.CodeSymlinkRefused},
		{"intermediate file", func(t *testing.T, fx *fixture) {
			rm(t, fx, "out/sub")
			fx.write(t, "out/sub", "a file")
		}, peerplane.CodeNotFound},
		{"directory", func(t *testing.T, fx *fixture) {
			rm(t, fx, "out/sub/report.md")
			if err := os.Mkdir(filepath.Join(fx.wd, "out/sub/report.md"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, peerplane.CodeNotARegularFile},
		{"fifo", func(t *testing.T, fx *fixture) {
			rm(t, fx, "out/sub/report.md")
			if err := syscall.Mkfifo(filepath.Join(fx.wd, "out/sub/report.md"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, peerplane.CodeNotARegularFile},
		{"too large", func(t *testing.T, fx *fixture) { fx.write(t, "out/sub/report.md", string(make([]byte, 65))) }, peerplane.CodeTooLarge},
		{"unreadable", func(t *testing.T, fx *fixture) {
			// The kernel refuses the open as it does a mode-0 file to a
			// non-root reader; root reads every file, so the refusal is
			// injected at the plane's openat.
			real := fx.plane.openat
			fx.plane.openat = func(dir int, name string, flags int, mode uint32) (int, error) {
				if name == "report.md" {
					return -1, syscall.EACCES
				}
				return real(dir, name, flags, mode)
			}
		}, peerplane.CodeIOError},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fx := newFixture(t)
			h := fx.mint(t, "sub/report.md", time.Minute)
			c.setup(t, fx)
			if _, err := serve(t, fx.plane, h, testAudience); code(err) != c.want {
				t.Errorf("%s, want %s", code(err), c.want)
			}
			if r := fx.last(t); r.Outcome != c.want || r.Path == nil || *r.Path != "sub/report.md" || r.Reason == nil {
				t.Errorf("record %+v", r)
			}
		})
	}
}

func rm(t *testing.T, fx *fixture, rel string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(fx.wd, rel)); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, at string) {
	t.Helper()
	if err := os.Symlink(target, at); err != nil {
		t.Fatal(err)
	}
}

// TestRedeemOrder: a handle failing several checks gets the first one's
// refusal — expiry only once the MAC verified, the path only once the
// handle has not expired.
func TestRedeemOrder(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	expired := fx.mint(t, "sub/report.md", time.Second)
	escaped, _ := fx.plane.mint(peerplane.Payload{Iss: "ses_test", P: "../secret", Exp: t0.Add(time.Hour).UnixMilli()}, testAudience)
	fx.mu.Lock()
	fx.now = t0.Add(time.Second) // exp itself is expired
	fx.mu.Unlock()
	rm(t, fx, "out/sub/report.md")
	for _, c := range []struct{ name, handle, audience, want string }{
		{"malformed, no audience", "mh1", "", peerplane.CodeMalformedHandle},
		{"forged, no audience", forged(expired), "", peerplane.CodeMissingAudience},
		{"forged, expired", forged(expired), testAudience, peerplane.CodeHandleNotValid},
		{"expired, gone", expired, testAudience, peerplane.CodeHandleExpired},
		{"an escaping path the key signed", escaped, testAudience, peerplane.CodeOutsideRoot},
	} {
		if _, err := serve(t, fx.plane, c.handle, c.audience); code(err) != c.want {
			t.Errorf("%s: %s, want %s", c.name, code(err), c.want)
		}
	}
}

func forged(tok string) string {
	b := []byte(tok)
	i := len(tok) - 43 // the MAC segment's first character: six bits of MAC
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

// TestCloseVoidsHandles_PFILE3: once the session ends no handle it minted
// verifies — the same refusal as any MAC failure — and Close waits for an
// answer being sent, whose record lands first.
func TestCloseVoidsHandles_PFILE3(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	h := fx.mint(t, "sub/report.md", time.Minute)
	f, err := fx.plane.Redeem(context.Background(), peerplane.Request{Handle: h, Audience: testAudience, HasAudience: true})
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() { fx.plane.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned while an answer was being sent")
	default:
	}
	f.Done(f.Size, nil)
	<-closed
	if r := fx.last(t); r.Outcome != "ok" {
		t.Errorf("the answer in flight was recorded %s", r.Outcome)
	}
	if _, err := serve(t, fx.plane, h, testAudience); code(err) != peerplane.CodeHandleNotValid {
		t.Errorf("after Close: %s, want handle_not_valid", code(err))
	}
	if _, ok := fx.plane.mint(peerplane.Payload{Iss: "ses_test", P: "x", Exp: 1}, testAudience); ok {
		t.Error("a closed plane minted")
	}
	fx.plane.Close()
}

// TestDigestCache: a file whose inode, size and times match an entry kept
// for it is not read again; any change in them is.
func TestDigestCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	var d digests
	old := time.Now().Add(-time.Hour)
	id := fileID{dev: 1, ino: 2, size: 3, mtime: old, ctime: old}
	open := func() *opened {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return &opened{f: f, id: id}
	}
	same := func() (fileID, error) { return id, nil }
	s1, ok, err := d.sum(open(), same)
	if err != nil || !ok || s1 != hex.EncodeToString(sha("one")) {
		t.Fatalf("sum = %s, %v, %v", s1, ok, err)
	}
	if err := os.WriteFile(path, []byte("two"), 0o600); err != nil { // a change the fake id hides
		t.Fatal(err)
	}
	if s2, _, _ := d.sum(open(), same); s2 != s1 {
		t.Errorf("an unchanged id was hashed again: %s", s2)
	}
	id.ctime = time.Now()
	if s3, _, _ := d.sum(open(), func() (fileID, error) { return id, nil }); s3 != hex.EncodeToString(sha("two")) {
		t.Errorf("a changed id kept the old digest: %s", s3)
	}
	fresh := id // ctime now: racy, not kept
	if _, ok, _ := d.sum(open(), func() (fileID, error) { fresh.size = 9; return fresh, nil }); ok {
		t.Error("a file that changed while it was hashed was not reported")
	}
}

func sha(s string) []byte { b := sha256.Sum256([]byte(s)); return b[:] }

// FuzzRedeem: no token or audience makes Redeem panic or serve anything but
// the one handle minted, for its own audience; every failure is a plane
// refusal and writes one record.
func FuzzRedeem(f *testing.F) {
	fx := newFixture(f)
	good := fx.mint(f, "sub/report.md", time.Minute)
	f.Add(good, testAudience)
	f.Add(good, "")
	f.Add(forged(good), testAudience)
	f.Add("mh1.e30.AAAA", testAudience)
	f.Add(good[:len(good)-2], testAudience)
	f.Fuzz(func(t *testing.T, handle, audience string) {
		fx.mu.Lock()
		before := len(fx.recs)
		fx.mu.Unlock()
		body, err := serve(t, fx.plane, handle, audience)
		fx.mu.Lock()
		n := len(fx.recs) - before
		fx.mu.Unlock()
		if n != 1 {
			t.Fatalf("%d records for one redeem", n)
		}
		if err == nil {
			if handle != good || body != "the report\n" {
				t.Fatalf("served %q for %q / %q", body, handle, audience)
			}
			return
		}
		var r *peerplane.Refusal
		if !errors.As(err, &r) {
			t.Fatalf("error %v is not a refusal", err)
		}
	})
}
