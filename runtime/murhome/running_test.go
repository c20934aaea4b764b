package murhome

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/runtime/diag"
)

const (
	ses1 = "ses_019a0000000070008000000000000001"
	ses2 = "ses_019a0000000070008000000000000002"
	ses3 = "ses_019a0000000070008000000000000003"
	frm1 = "frm_019a0000000070008000000000000009"
)

func sample(ses string, started time.Time) *Running {
	return &Running{
		SessionID:    ses,
		URL:          "http://127.0.0.1:40001",
		PID:          4242,
		ProcessStart: "123456",
		Name:         "hello-shell",
		Version:      "0.1.0",
		Workdir:      "/home/me/proj",
		RecordsDir:   "/home/me/.murmur/records/home/me/proj/" + ses,
		StartedAt:    started,
	}
}

// TestWriteExactKeys checks SES-6's keys, their order, FCLI-5's formation
// keys and the ordered tokens object (CLI-11: operator first, then manifest order).
func TestWriteExactKeysSES6FCLI5(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	r := sample(ses1, time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC))
	r.Tokens = Tokens{{"operator", "op-tok"}, {"zeta", "z-tok"}, {"alpha", "a-tok"}}
	r.FormationID = frm1
	r.FormationLifeline = true
	r.FormationLauncher = &Launcher{PID: 77, ProcessStart: "999"}
	if err := WriteRunning(home, r); err != nil {
		t.Fatalf("Write() error = %v", err)
	}
	got, err := os.ReadFile(RunningPath(home, ses1))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"session_id":"` + ses1 + `","url":"http://127.0.0.1:40001","pid":4242,"process_start":"123456",` +
		`"name":"hello-shell","version":"0.1.0","workdir":"/home/me/proj","records_dir":"/home/me/.murmur/records/home/me/proj/` + ses1 + `",` +
		`"started_at":"2026-05-01T10:00:00Z","tokens":{"operator":"op-tok","zeta":"z-tok","alpha":"a-tok"},` +
		`"formation_id":"` + frm1 + `","formation_lifeline":true,"formation_launcher":{"pid":77,"process_start":"999"}}` + "\n"
	if string(got) != want {
		t.Errorf("record = %s\nwant     %s", got, want)
	}
}

func TestWritePublicDoorHasNoTokensKeySES6(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := WriteRunning(home, sample(ses1, time.Now())); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(RunningPath(home, ses1))
	for _, k := range []string{`"tokens"`, `"formation_id"`, `"formation_lifeline"`, `"formation_launcher"`, `"spawned_by"`} {
		if strings.Contains(string(got), k) {
			t.Errorf("public, non-member record holds %s: %s", k, got)
		}
	}
}

func TestWriteModesSES6(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := WriteRunning(home, sample(ses1, time.Now())); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{RunningDir(home): 0o700, RunningPath(home, ses1): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("mode of %s = %o, want %o", path, got, want)
		}
	}
	ents, _ := os.ReadDir(RunningDir(home))
	if len(ents) != 1 {
		t.Errorf("running dir holds %d entries, want 1 (no temporary file left)", len(ents))
	}
}

func TestRoundTripSES6(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	r := sample(ses1, time.Date(2026, 5, 1, 10, 0, 0, 123000000, time.UTC))
	r.Tokens = Tokens{{"operator", "o"}, {"ci", "c"}}
	r.SpawnedBy = ses2
	if err := WriteRunning(home, r); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRunning(home, ses1)
	if err != nil {
		t.Fatalf("Read() error = %v", err)
	}
	a, _ := json.Marshal(r)
	b, _ := json.Marshal(got)
	if string(a) != string(b) {
		t.Errorf("Read() = %s, want %s", b, a)
	}
	if got.Tokens.Operator() != "o" {
		t.Errorf("Operator() = %q, want o", got.Tokens.Operator())
	}
	if err := RemoveRunning(home, ses1); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRunning(home, ses1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read() after Remove error = %v, want fs.ErrNotExist", err)
	}
	if err := RemoveRunning(home, ses1); err != nil {
		t.Errorf("second Remove() error = %v, want nil", err)
	}
}

func TestWriteFailureIsWSEC023(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	blocker := filepath.Join(home, "running")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil { // a file where the directory goes
		t.Fatal(err)
	}
	err := WriteRunning(home, sample(ses1, time.Now()))
	d, ok := diag.As(err)
	if !ok || d.Code != diag.WSEC023 {
		t.Fatalf("Write() error = %v, want W-SEC-023", err)
	}
	want := "warning[W-SEC-023]: this session's running record could not be written (" + blocker +
		": not a directory), so mur ps, mur token and mur stop cannot find it\n"
	if got := d.Render(); got != want {
		t.Errorf("Render() = %q, want %q", got, want)
	}
}

func TestListOrderAndMalformedFCLI5(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	base := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	for i, s := range []string{ses1, ses2, ses3} {
		if err := WriteRunning(home, sample(s, base.Add(time.Duration(i%2)*time.Hour))); err != nil {
			t.Fatal(err)
		}
	}
	// A stranger and a temporary file are ignored.
	os.WriteFile(filepath.Join(RunningDir(home), "notes.txt"), []byte("x"), 0o600)
	os.WriteFile(filepath.Join(RunningDir(home), "."+ses1+".json.tmp-1"), []byte("{"), 0o600)
	recs, err := ListRunning(home)
	if err != nil {
		t.Fatalf("List() error = %v", err)
	}
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.SessionID)
	}
	if got, want := strings.Join(ids, ","), ses2+","+ses3+","+ses1; got != want {
		t.Errorf("List() order = %s, want %s", got, want)
	}

	bad := RunningPath(home, ses3)
	os.WriteFile(bad, []byte(`{"session_id":"`+ses3+`","pid":1,"formation_id":"frm_nope","started_at":"2026-05-01T10:00:00Z"}`), 0o600)
	_, err = ListRunning(home)
	d, ok := diag.As(err)
	if !ok || d.Code != diag.ERUN028 {
		t.Fatalf("List() with a malformed formation_id error = %v, want E-RUN-028", err)
	}
	if want := "the running-capsule records could not be read: " + bad + `: formation_id "frm_nope" is not a formation id`; d.Msg != want {
		t.Errorf("message = %q, want %q", d.Msg, want)
	}
}

func TestListMissingDirIsEmpty(t *testing.T) {
	t.Parallel()
	recs, err := ListRunning(t.TempDir())
	if err != nil || len(recs) != 0 {
		t.Errorf("List() = %v, %v; want empty, nil", recs, err)
	}
}

func TestListUnreadableDirIsERUN028(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := os.WriteFile(RunningDir(home), []byte("not a dir"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := ListRunning(home)
	d, ok := diag.As(err)
	if !ok || d.Code != diag.ERUN028 {
		t.Fatalf("List() error = %v, want E-RUN-028", err)
	}
	want := "error[E-RUN-028]: the running-capsule records could not be read: " + RunningDir(home) + ": not a directory\n" +
		"  hint: check that $MURMUR_HOME/running is a directory this user owns\n"
	if got := d.Render(); got != want {
		t.Errorf("Render() = %q, want %q", got, want)
	}
}

// FuzzDecode: a record file's bytes give a checked record or an error, never a panic.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"session_id":"` + ses1 + `","pid":1,"started_at":"2026-05-01T10:00:00Z","tokens":{"operator":"o","ci":"c"}}`))
	f.Add([]byte(`{"session_id":"` + ses1 + `","pid":1,"tokens":{"operator":1}}`))
	f.Add([]byte(`{"tokens":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decode(filepath.Join("running", ses1+".json"), data)
		if err == nil && (r.SessionID != ses1 || r.PID <= 0) {
			t.Fatalf("decode() accepted %+v", r)
		}
		if err == nil {
			if _, err := json.Marshal(r); err != nil {
				t.Fatalf("a decoded record does not encode: %v", err)
			}
		}
	})
}
