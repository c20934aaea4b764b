package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/driver/scripted"
	"github.com/murmur-go/mur/runtime/manifest"
)

// TestNewCLI8 is `mur new <name>`: exact files and stdout, and a capsule
// that loads.
func TestNewCLI8(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	out, errOut, code := e.mur(t, "", "new", "hello-shell")
	expect(t, "new hello-shell", out, errOut, code,
		"Scaffolded capsule 'hello-shell' in ./hello-shell\n"+
			"  hello-shell/murmur.yaml   capsule hello-shell@0.1.0, scripted driver\n"+
			"  hello-shell/script.yaml    the scripted driver's turns\n"+
			"\n"+
			"Next:\n"+
			"  mur run --capsule hello-shell --task \"list the files\"\n", "", 0)
	dir := filepath.Join(e.root, "hello-shell")
	for _, f := range []string{"murmur.yaml", "script.yaml"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		e.golden(t, "new-"+f, string(data))
	}
	if data, err := os.ReadFile(filepath.Join(dir, ".gitignore")); err != nil || string(data) != manifest.GitIgnore {
		t.Errorf(".gitignore = %q, %v; want what mur writes beside a capsule ignored", data, err)
	}
	m, warnings, err := manifest.Load(filepath.Join(dir, "murmur.yaml"), nil)
	if err != nil || len(warnings) != 0 || m.Name != "hello-shell" || m.Version != "0.1.0" || m.Inference.MaxTurns != 4 {
		t.Fatalf("manifest.Load(new capsule) = %+v, %v, %v", m, warnings, err)
	}
	if _, err := scripted.Load(m.ScriptPath(m.Inference.Driver)); err != nil {
		t.Errorf("scripted.Load(new script) = %v", err)
	}
	entries, _ := os.ReadDir(e.root)
	for _, en := range entries {
		if strings.HasPrefix(en.Name(), ".") {
			t.Errorf("mur new left %s behind", en.Name())
		}
	}

	out, errOut, code = e.mur(t, "", "new", "hello-shell")
	expect(t, "new over an existing path", out, errOut, code, "",
		"error[E-NEW-003]: ./hello-shell already exists\n  hint: choose another name or move it away\n", 1)
	out, errOut, code = e.mur(t, "", "new", "Hello")
	expect(t, "new with a bad name", out, errOut, code, "",
		"error[E-NEW-002]: 'Hello' is not an artifact name: it holds 'H'; only a-z, 0-9 and - are allowed\n  hint: use [a-z0-9-], 1–100 characters, no leading or trailing -\n", 1)
	if _, err := os.Stat(filepath.Join(e.root, "Hello")); !os.IsNotExist(err) {
		t.Error("a refused mur new wrote ./Hello")
	}
	out, errOut, code = e.mur(t, "", "new", "x", "a capsule that lists files")
	expect(t, "new with a description", out, errOut, code, "",
		"error: unexpected argument 'a capsule that lists files'\nrun 'mur new --help' for usage\n", 2)
	out, errOut, code = e.mur(t, "", "new")
	expect(t, "new without a name", out, errOut, code, "", "error: missing <name>\nrun 'mur new --help' for usage\n", 2)
	if out, _, code := e.mur(t, "", "new", "--help"); code != 0 || !strings.HasPrefix(out, "Usage: mur new <name> [--driver scripted|openai|anthropic|ollama]\n") {
		t.Errorf("new --help: %q %d", out, code)
	}
}
