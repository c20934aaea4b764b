package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/store"
)

// TestConcurrentInstallsKeepEveryPin: two `mur install`s into one project at
// once, each of another artifact, both succeed and murmur.lock pins both, 50
// rounds out of 50; both also land in the one global store they share
// (capsule.md STORE-5, CLI-6: mur install upserts).
func TestConcurrentInstallsKeepEveryPin(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	e.write(t, map[string]string{"proj/murmur.yaml": projectManifest})
	names := []string{"tool-a", "tool-b"}
	for _, n := range names {
		e.tool(t, "src/"+n, n, "1.0.0", n)
	}
	lock := filepath.Join(e.root, "proj", store.LockFile)
	for round := range 50 {
		os.Remove(lock)
		var wg sync.WaitGroup
		results := make([]string, len(names))
		for i, n := range names {
			wg.Go(func() {
				// Each pair installs into the project and, with -g, into
				// the global store, whose directories the two share too.
				for _, args := range [][]string{{"install", "../src/" + n}, {"install", "-g", "../src/" + n}} {
					cmd := exec.Command(murBin, args...)
					cmd.Dir = filepath.Join(e.root, "proj")
					cmd.Env = append(os.Environ(), "MURMUR_HOME="+e.home)
					out, errOut, code := testmur.Exec(t, cmd)
					if code != 0 {
						results[i] += errOut
					} else {
						results[i] += out
					}
				}
			})
		}
		wg.Wait()
		l, err := store.ReadLock(filepath.Join(e.root, "proj"))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for i, n := range names {
			if _, ok := l.Find(n); !ok {
				t.Fatalf("round %d: murmur.lock lost the pin of %s: %+v\ninstall output: %q", round, n, l, results[i])
			}
		}
		if len(l.Artifacts) != 2 {
			t.Fatalf("round %d: murmur.lock = %+v, want two entries", round, l)
		}
		for i, n := range names {
			want := "installed " + n + "@1.0.0 (tool) sha256:"
			if got := results[i]; len(got) < len(want) || got[:len(want)] != want {
				t.Fatalf("round %d: installs of %s said %q", round, n, got)
			}
		}
	}
	ents, _ := os.ReadDir(filepath.Join(e.root, "proj"))
	for _, ent := range ents {
		if n := ent.Name(); n != "murmur.yaml" && n != store.LockFile && n != ".murmur" {
			t.Errorf("the project holds %s, left by an install", n)
		}
	}
}

// TestConcurrentInstallsOfOneArtifact: two `mur install -g` of the same
// name@version at once both succeed, 50 rounds out of 50, and the store holds
// it whole (the store directory's replace is serialised).
func TestConcurrentInstallsOfOneArtifact(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	e.tool(t, "src/tool-a", "tool-a", "1.0.0", "a")
	for round := range 50 {
		var wg sync.WaitGroup
		errs := make([]string, 2)
		for i := range errs {
			wg.Go(func() {
				cmd := exec.Command(murBin, "install", "-g", "tool-a")
				cmd.Dir = filepath.Join(e.root, "src")
				cmd.Env = append(os.Environ(), "MURMUR_HOME="+e.home)
				if _, errOut, code := testmur.Exec(t, cmd); code != 0 {
					errs[i] = errOut
				}
			})
		}
		wg.Wait()
		if errs[0] != "" || errs[1] != "" {
			t.Fatalf("round %d: an install failed: %q", round, errs)
		}
		if _, err := (store.Stores{Home: e.home}).Resolve("tool-a", "1.0.0"); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
	ents, _ := os.ReadDir(filepath.Join(e.home, "artifacts", "tool-a"))
	if len(ents) != 1 || ents[0].Name() != "1.0.0" {
		t.Errorf("the store's tool-a holds %v, want only 1.0.0", ents)
	}
}
