package launcher

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/runtime/murhome"
)

// idAt is a formation id minted at t.
func idAt(t time.Time) string {
	var b [10]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("frm_%012x7%s", t.UnixMilli(), hex.EncodeToString(b[:])[:19])
}

type oldFormation struct {
	id     string
	marker any // nil: no marker; a string: raw file text
}

func (h *harness) plant(t *testing.T, fs ...oldFormation) {
	t.Helper()
	root := murhome.FormationsDir(h.cfg.Home)
	for _, f := range fs {
		dir := filepath.Join(root, f.id)
		if err := os.MkdirAll(filepath.Join(dir, "worker"), 0o700); err != nil {
			t.Fatal(err)
		}
		switch m := f.marker.(type) {
		case string:
			os.WriteFile(filepath.Join(dir, murhome.MarkerFile), []byte(m), 0o600)
		case murhome.Marker:
			b, _ := json.Marshal(m)
			os.WriteFile(filepath.Join(dir, murhome.MarkerFile), b, 0o600)
		}
		group := filepath.Join(murhome.Group(h.cfg.Home, dir), "worker", "ses_x")
		if err := os.MkdirAll(group, 0o700); err != nil {
			t.Fatal(err)
		}
	}
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// TestRetention covers RET-1..4: the entry's trace.retain bounds the
// project's formation directories, newest first, with every never-removed case.
func TestRetention(t *testing.T) {
	t.Parallel()
	lead := roster.Facts{Acceptance: "queue", QueueDepth: 1, PeerTasks: true, Authenticated: true,
		RetainMaxSessions: 3, RetainMaxAge: 150 * time.Minute} // newer, current and a are the three newest
	h := newHarness(t, crew, map[string]roster.Facts{"lead": lead})
	project, _ := filepath.EvalSymlinks(h.project)
	now := time.Now()
	dead := murhome.Marker{ProjectDir: project, LauncherPID: 1 << 30, LauncherStart: "1"}
	live := murhome.Marker{ProjectDir: project, LauncherPID: 424242, LauncherStart: "9"}
	a := oldFormation{idAt(now.Add(-30 * time.Minute)), dead}
	b := oldFormation{idAt(now.Add(-40 * time.Minute)), dead} // a running record names it
	c := oldFormation{idAt(now.Add(-60 * time.Minute)), live} // its launcher runs
	d := oldFormation{idAt(now.Add(-2 * time.Hour)), dead}
	e := oldFormation{idAt(now.Add(-3 * time.Hour)), dead}
	other := oldFormation{idAt(now.Add(-5 * time.Hour)), murhome.Marker{ProjectDir: "/elsewhere", LauncherPID: 1 << 30}}
	none := oldFormation{idAt(now.Add(-6 * time.Hour)), nil}
	bad := oldFormation{idAt(now.Add(-7 * time.Hour)), "{not json"}
	newer := oldFormation{idAt(now.Add(time.Hour)), dead} // minted after this launch
	h.plant(t, a, b, c, d, e, other, none, bad, newer)
	h.cfg.RunningFormations = func() (map[string]bool, error) { return map[string]bool{b.id: true}, nil }
	h.cfg.Alive = func(pid int, start string) bool { return pid == 424242 && start == "9" }
	task := "exit:0"
	h.cfg.Task = &task
	if code := h.run(t); code != 0 {
		t.Fatalf("exit code = %d\n%s", code, h.stderr.String())
	}
	want := "[mur run] retention: removed formation " + d.id + " (max_sessions)\n" +
		"[mur run] retention: removed formation " + e.id + " (max_age)\n"
	if got := h.stderr.String(); !strings.HasSuffix(got, want) {
		t.Errorf("stderr =\n%s\nwant the end\n%s", got, want)
	}
	if strings.Contains(h.stdout.String(), "retention") {
		t.Error("retention wrote to stdout")
	}
	root := murhome.FormationsDir(h.cfg.Home)
	for _, f := range []oldFormation{d, e} {
		if exists(filepath.Join(root, f.id)) || exists(murhome.Group(h.cfg.Home, filepath.Join(root, f.id))) {
			t.Errorf("%s or its records group was kept", f.id)
		}
	}
	for _, f := range []oldFormation{a, b, c, other, none, bad, newer} {
		if !exists(filepath.Join(root, f.id)) || !exists(murhome.Group(h.cfg.Home, filepath.Join(root, f.id))) {
			t.Errorf("%s was removed (%v)", f.id, f.marker)
		}
	}
}

// TestRetentionUnreadableRecords: when running records cannot be read, every
// formation counts as running (RET-3).
func TestRetentionUnreadableRecords(t *testing.T) {
	t.Parallel()
	lead := roster.Facts{Acceptance: "queue", QueueDepth: 1, PeerTasks: true, Authenticated: true, RetainMaxSessions: 1}
	h := newHarness(t, crew, map[string]roster.Facts{"lead": lead})
	project, _ := filepath.EvalSymlinks(h.project)
	old := oldFormation{idAt(time.Now().Add(-time.Hour)), murhome.Marker{ProjectDir: project, LauncherPID: 1 << 30}}
	h.plant(t, old)
	h.cfg.RunningFormations = func() (map[string]bool, error) { return nil, errors.New("unreadable") }
	h.cfg.Alive = func(int, string) bool { return false }
	task := "exit:0"
	h.cfg.Task = &task
	if code := h.run(t); code != 0 {
		t.Fatalf("exit code = %d", code)
	}
	if !exists(filepath.Join(murhome.FormationsDir(h.cfg.Home), old.id)) || strings.Contains(h.stderr.String(), "retention") {
		t.Errorf("a formation was removed with unreadable records:\n%s", h.stderr.String())
	}
}
