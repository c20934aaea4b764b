package launcher

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/store"
)

func writeCapsule(t *testing.T, dir, manifest string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "murmur.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStoreResolver: admission reads the project store then the global one,
// tells E-ROS-007's three cases apart and reads murmur.lock (BIND-1, BIND-3).
func TestStoreResolver(t *testing.T) {
	t.Parallel()
	home, project, src := t.TempDir(), t.TempDir(), t.TempDir()
	s := store.Stores{ProjectDir: project, Home: home}
	writeCapsule(t, filepath.Join(src, "w"), "name: w\nversion: \"1.0\"\nlifecycle:\n  task_acceptance: queue\n  after_task: sleep\n  queue_depth: 3\nexports:\n  peer_tasks:\n    accept: true\nnetwork:\n  authentication:\n    scheme: bearer\ntrace:\n  retain:\n    max_sessions: 4\n    max_age: 2h\n")
	r, err := s.Install(filepath.Join(src, "w"), store.ArtifactID{Name: "w", Version: "1.0", Runtime: "capsule"}, store.ScopeGlobal)
	if err != nil {
		t.Fatal(err)
	}
	res := NewStoreResolver(project, home)
	in, err := res.Resolve("w", "1.0")
	if err != nil {
		t.Fatal(err)
	}
	want := roster.Facts{Acceptance: "queue", QueueDepth: 3, PeerTasks: true, Authenticated: true, RetainMaxSessions: 4, RetainMaxAge: 2 * time.Hour}
	if in.Facts != want || in.SHA256 != r.SHA256 || in.TreeDir != r.TreeDir {
		t.Errorf("Resolve = %+v, want facts %+v", in, want)
	}
	if _, err := res.Resolve("w", "2.0"); !errors.Is(err, roster.ErrNotInstalled) {
		t.Errorf("Resolve(missing) = %v", err)
	}
	if _, ok, err := res.Pin("w"); ok || err != nil {
		t.Errorf("Pin without a lock = %v, %v", ok, err)
	}
	if err := os.WriteFile(filepath.Join(r.TreeDir, "extra"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, err := res.Resolve("w", "1.0"); err != nil || again != in {
		t.Errorf("Resolve again in one admission = %+v, %v; want the first answer (hashed once)", again, err)
	}
	if _, err := NewStoreResolver(project, home).Resolve("w", "1.0"); !errors.Is(err, roster.ErrHashMismatch) {
		t.Errorf("Resolve(tampered) = %v", err)
	}
	writeCapsule(t, filepath.Join(src, "bad"), "name: bad\nversion: \"1\"\nlifecycle: [\n")
	if _, err := s.Install(filepath.Join(src, "bad"), store.ArtifactID{Name: "bad", Version: "1", Runtime: "capsule"}, store.ScopeProject); err != nil {
		t.Fatal(err)
	}
	var ue *roster.UnreadableError
	if _, err := NewStoreResolver(project, home).Resolve("bad", "1"); !errors.As(err, &ue) {
		t.Errorf("Resolve(bad manifest) = %v", err)
	}
	pin, ok, err := NewStoreResolver(project, home).Pin("bad")
	if !ok || err != nil || pin.Version != "1" || len(pin.SHA256) != 64 {
		t.Errorf("Pin(bad) = %+v, %v, %v", pin, ok, err)
	}
	if err := os.WriteFile(filepath.Join(project, "murmur.lock"), []byte("lock_version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := NewStoreResolver(project, home).Pin("bad"); !diag.Is(err, diag.ERUN003) {
		t.Errorf("Pin with lock_version 1 = %v, want E-RUN-003", err)
	}
}
