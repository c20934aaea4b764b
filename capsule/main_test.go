package capsule_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-go/mur/internal/capsuletest"
	"github.com/murmur-go/mur/internal/testmur"
)

// mur is the real binary delegated children run, built once by TestMain.
var mur string

func TestMain(m *testing.M) { os.Exit(testmur.Run(m, testmur.Mur, &mur)) }

// peerExtra makes a capsule a peer that takes tasks from other members and
// sleeps between them.
const peerExtra = "lifecycle:\n  task_acceptance: queue\n  after_task: sleep\nexports:\n  peer_tasks:\n    accept: true\n"

// spec is one test capsule: caps is its capabilities block's body (indented
// two spaces), extra more top-level blocks, script its scripted driver's.
type spec struct {
	name, caps, extra, script string
}

// put writes the capsule under root/<name>/ and returns that directory.
func put(t testing.TB, root string, s spec) string {
	t.Helper()
	caps := ""
	if s.caps != "" {
		caps = "capabilities:\n" + s.caps
	}
	manifest := fmt.Sprintf("name: %s\nversion: \"0.1.0\"\ninference:\n  driver:\n    kind: scripted\n    script: script.yaml\n  max_turns: 8\n%s%strace:\n  capture: content\n",
		s.name, caps, s.extra)
	dir := filepath.Join(root, s.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"murmur.yaml": manifest, "script.yaml": s.script} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// world is one test's directories: the capsules under dir, MURMUR_HOME.
type world struct{ dir, home string }

func newWorld(t testing.TB) *world {
	t.Helper()
	w := &world{}
	w.dir, w.home = testmur.Dirs(t, "w")
	return w
}

// start serves the capsule s in this process, with env over the world's.
func (w *world) start(t testing.TB, s spec, task *string, env map[string]string) *capsuletest.Capsule {
	t.Helper()
	return capsuletest.Start(t, capsuletest.Config{Dir: put(t, w.dir, s), Home: w.home, Task: task, Env: env, Mur: mur})
}

func ptr(s string) *string { return &s }
