package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/store"
)

// TestInstalledToolArtifact_STORE8_LOOP10 installs a native tool in the
// global store, declares it, and calls it through the loop.
func TestInstalledToolArtifact_STORE8_LOOP10(t *testing.T) {
	home := t.TempDir()
	src := t.TempDir()
	toolManifest := "name: echo-tool\nversion: 1.0.0\nruntime: tool\nimplementation: native\ncommand: run.sh\ndescription: Echoes its input.\ninput_schema: '{\"type\":\"object\",\"required\":[\"word\"]}'\n"
	os.WriteFile(filepath.Join(src, "murmur.yaml"), []byte(toolManifest), 0o644)
	os.WriteFile(filepath.Join(src, "run.sh"), []byte("#!/bin/sh\necho \"in $(pwd): $(cat)\"\n"), 0o755)
	if _, err := (store.Stores{Home: home}).Install(src, store.ArtifactID{Name: "echo-tool", Version: "1.0.0", Runtime: "tool"}, store.ScopeGlobal); err != nil {
		t.Fatal(err)
	}
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, "artifacts:\n  - {name: local/echo-tool, version: 1.0.0}\n"), "script_version: 1\nrules: []\n")
	l := prepareIn(t, dir, ptr("echo"), func(o *Options) { o.Getenv = testEnv(map[string]string{"MURMUR_HOME": home}) })
	fd := &fakeDriver{reply: func(_ context.Context, n int, _ *driver.Request) (*driver.Response, error) {
		if n == 0 {
			return toolReply("c1", "echo-tool", `{"word":"hi"}`), nil
		}
		return textReply("done"), nil
	}}
	l.Drivers["primary"] = fd
	s := startIn(t, l, nil, nil)
	if res := s.Run(); res.ExitStatus != StatusOK {
		t.Fatalf("Run = %+v", res)
	}
	want := fmt.Sprintf("<untrusted-content source=tool:echo-tool>\nin %s: {\"word\":\"hi\"}\n\n</untrusted-content>", s.Workdir())
	if got := toolResults(fd.requests()[1]); len(got) != 1 || got[0] != want {
		t.Errorf("tool result = %q, want %q", got, want)
	}
	staged, err := os.ReadFile(filepath.Join(s.RuntimeDir(), "tools", "echo-tool", "murmur.yaml"))
	if err != nil || string(staged) != toolManifest {
		t.Errorf("staged manifest = %q, %v; want the artifact's own", staged, err)
	}
	if spec := fd.requests()[0].Tools[0]; spec.Name != "echo-tool" || spec.Description != "Echoes its input." {
		t.Errorf("first tool sent = %+v", spec)
	}
	lock, err := os.ReadFile(filepath.Join(dir, "murmur.lock"))
	if err != nil || !strings.Contains(string(lock), "name: echo-tool") {
		t.Errorf("murmur.lock = %q, %v (STORE-5: created when absent)", lock, err)
	}
}

// TestLockWrittenOnlyOnStart_STORE5_MAN4: mur run creates murmur.lock when
// absent, but Prepare writes nothing, so a launch refused at a later MAN-4
// step (E-RUN-009 here) leaves no lock behind; Start writes it.
func TestLockWrittenOnlyOnStart_STORE5_MAN4(t *testing.T) {
	home := t.TempDir()
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "murmur.yaml"), []byte("name: s\nversion: 1.0.0\nruntime: skill\n"), 0o644)
	os.WriteFile(filepath.Join(src, "skill.md"), []byte("Be terse.\n"), 0o644)
	if _, err := (store.Stores{Home: home}).Install(src, store.ArtifactID{Name: "s", Version: "1.0.0", Runtime: "skill"}, store.ScopeGlobal); err != nil {
		t.Fatal(err)
	}
	env := func(o *Options) { o.Getenv = testEnv(map[string]string{"MURMUR_HOME": home}) }
	lockPath := func(dir string) string { return filepath.Join(dir, "murmur.lock") }

	refused := writeCapsule(t, fmt.Sprintf(scriptedManifest, "  system_prompt_file: missing.txt\nartifacts:\n  - {name: s, version: 1.0.0, runtime: skill}\n"), "script_version: 1\nrules: []\n")
	opts := Options{ManifestPath: filepath.Join(refused, "murmur.yaml"), Task: ptr("x"), Cwd: refused, Version: "0.1.0"}
	env(&opts)
	if _, err := Prepare(opts); err == nil || !strings.HasPrefix(err.Error(), filepath.Join(refused, "missing.txt")+" could not be read") {
		t.Fatalf("Prepare() error = %v, want E-RUN-009", err)
	}
	if _, err := os.Stat(lockPath(refused)); !os.IsNotExist(err) {
		t.Errorf("a refused launch left murmur.lock behind (stat error %v)", err)
	}

	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, "artifacts:\n  - {name: s, version: 1.0.0, runtime: skill}\n"), "script_version: 1\nrules: []\n")
	l := prepareIn(t, dir, ptr("x"), env)
	if _, err := os.Stat(lockPath(dir)); !os.IsNotExist(err) {
		t.Errorf("Prepare wrote murmur.lock (stat error %v); it writes nothing", err)
	}
	s := startIn(t, l, nil, nil)
	s.Stop(BySignal)
	s.Run()
	if b, err := os.ReadFile(lockPath(dir)); err != nil || !strings.Contains(string(b), "name: s\n") {
		t.Errorf("murmur.lock after Start = %q, %v; want it created (STORE-5)", b, err)
	}
}
