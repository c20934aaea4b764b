package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const projectManifest = "name: app\nversion: 1.0.0\ninference: {driver: {kind: scripted, script: script.yaml}}\n"

// TestInstallCLI6 runs `mur install <dir> [-g]` through the real binary.
func TestInstallCLI6(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	e.write(t, map[string]string{"proj/murmur.yaml": projectManifest})
	sum := e.tool(t, "src/edit", "tool-edit", "1.0.0", "one")

	out, errOut, code := e.mur(t, "proj", "install", "../src/edit")
	expect(t, "install into the project", out, errOut, code,
		"installed tool-edit@1.0.0 (tool) sha256:"+sum+" into the project store\n", "", 0)
	if _, err := os.Stat(filepath.Join(e.root, "proj", ".murmur", "artifacts", "tool-edit", "1.0.0", "meta.json")); err != nil {
		t.Errorf("project store entry: %v", err)
	}
	lock, err := os.ReadFile(filepath.Join(e.root, "proj", "murmur.lock"))
	if err != nil {
		t.Fatal(err)
	}
	e.golden(t, "install-murmur.lock", string(lock))

	out, errOut, code = e.mur(t, "proj", "install", "../src/edit", "-g")
	expect(t, "install -g", out, errOut, code,
		"installed tool-edit@1.0.0 (tool) sha256:"+sum+" into the global store\n", "", 0)
	out, errOut, code = e.mur(t, "src", "install", "edit")
	expect(t, "install outside any project", out, errOut, code,
		"installed tool-edit@1.0.0 (tool) sha256:"+sum+" into the global store\n", "", 0)
	if _, err := os.Stat(filepath.Join(e.home, "artifacts", "tool-edit", "1.0.0", "tree", "run")); err != nil {
		t.Errorf("global store entry: %v", err)
	}

	// The lock pins 1.0.0 at sum: other bytes under that version refuse E-REG-005.
	changed := e.tool(t, "src/edit", "tool-edit", "1.0.0", "two")
	out, errOut, code = e.mur(t, "proj", "install", "../src/edit")
	expect(t, "install against the pin", out, errOut, code, "",
		"error[E-REG-005]: murmur.lock pins tool-edit at 1.0.0@sha256:"+sum+", but this install is 1.0.0@sha256:"+changed+"\n  hint: run mur install --force ../src/edit to replace the pin with this install, or give it another version\n", 1)

	// The hint's command: the changed bytes replace the pin at the same
	// version, old and new digests printed; then the lock agrees.
	hinted, _, _ := strings.Cut(strings.TrimPrefix(hintLine(t, errOut), "run "), " to replace")
	out, errOut, code = e.runHinted(t, "proj", hinted)
	expect(t, "install --force", out, errOut, code,
		"installed tool-edit@1.0.0 (tool) sha256:"+changed+" into the project store\n"+
			"re-pinned tool-edit in murmur.lock: 1.0.0@sha256:"+sum+" → 1.0.0@sha256:"+changed+"\n", "", 0)
	out, errOut, code = e.mur(t, "proj", "install", "../src/edit")
	expect(t, "install after --force", out, errOut, code,
		"installed tool-edit@1.0.0 (tool) sha256:"+changed+" into the project store\n", "", 0)
}

// TestInstallRefusalsCLI6 is every code `mur install <dir>` refuses with.
func TestInstallRefusalsCLI6(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	e.write(t, map[string]string{
		"bad-name/murmur.yaml":      "name: Edit\nversion: 1.0.0\n",
		"reserved/murmur.yaml":      "name: edit\nversion: stable\n",
		"no-version/murmur.yaml":    "name: edit\n",
		"bad-yaml/murmur.yaml":      "name: [edit\n",
		"wasm/murmur.yaml":          "name: edit\nversion: 1.0.0\nruntime: tool\nimplementation: wasm\n",
		"link/murmur.yaml":          "name: edit\nversion: 1.0.0\n",
		"unknown-key/murmur.yaml":   "name: edit\nversion: 1.0.0\nrutnime: tool\n",
		"empty-dir/.keep":           "",
		"skill-no-body/murmur.yaml": "name: s\nversion: 1.0.0\nruntime: skill\n",
		"no-script/murmur.yaml":     "name: edit\nversion: 1.0.0\ninference: {driver: {kind: scripted, script: script.yaml}}\n",
	})
	if err := os.Symlink("murmur.yaml", filepath.Join(e.root, "link", "alias.yaml")); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ dir, stdout, stderr string }{
		{"bad-name", "", "error[E-BLD-001]: invalid artifact name 'Edit': it holds 'E'; only a-z, 0-9 and - are allowed\n  hint: use [a-z0-9-], 1–100 characters, no leading or trailing -\n"},
		{"reserved", "", "error[E-REG-004]: version 'stable' is reserved: latest, stable and edge are not exact versions\n  hint: give an exact version\n"},
		{"no-version", "", "error[E-MAN-001]: no-version/murmur.yaml: missing required key 'version'\n  hint: add version to no-version/murmur.yaml\n"},
		{"bad-yaml", "", "error[E-MAN-002]: bad-yaml/murmur.yaml:1:7: this '[' is never closed (did not find expected ',' or ']')\n  hint: fix the YAML at line 1\n"},
		{"wasm", "", "error[E-MAN-003]: wasm/murmur.yaml:4:17: implementation: 'wasm' artifacts are not supported by this build; a tool is a native executable\n  hint: correct implementation\n"},
		{"link", "", "error[E-BLD-002]: link/alias.yaml is a symlink; an artifact holds regular files and directories only\n  hint: replace the link with the file it points to\n"},
		{"empty-dir", "", "error[E-IO-001]: empty-dir/murmur.yaml: no such file or directory\n  hint: check the path\n"},
		{"missing-dir", "", "error[E-IO-001]: missing-dir: no such file or directory\n  hint: check the path\n"},
		{"skill-no-body", "", "error[E-IO-001]: skill-no-body/skill.md: no such file or directory\n  hint: check the path\n"},
		{"no-script", "", "error[E-RUN-009]: " + e.root + "/no-script/script.yaml could not be read: no such file or directory\n  hint: check the path\n"},
	}
	for _, c := range cases {
		out, errOut, code := e.mur(t, "", "install", c.dir)
		expect(t, "install "+c.dir, out, errOut, code, c.stdout, c.stderr, 1)
	}
	if _, err := os.Stat(filepath.Join(e.home, "artifacts")); !os.IsNotExist(err) {
		t.Errorf("a refused install created the global store: %v", err)
	}
	out, errOut, code := e.mur(t, "", "install", "unknown-key", "-g")
	if code != 0 || errOut != "warning[W-SEC-019]: unknown-key/murmur.yaml:3:1: unrecognized key 'rutnime' at the top level — did you mean 'runtime'?; it was parsed and ignored\n" {
		t.Errorf("install with an unknown key: %q %q %d", out, errOut, code)
	}
}

// TestInstallFromGlobalCLI6 is `mur install` and `mur install <name>@<version>`.
func TestInstallFromGlobalCLI6(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	sum := e.tool(t, "src/edit", "tool-edit", "1.0.0", "one")
	if _, errOut, code := e.mur(t, "src", "install", "edit", "-g"); code != 0 {
		t.Fatalf("install -g: %s", errOut)
	}
	e.write(t, map[string]string{"proj/murmur.yaml": projectManifest +
		"artifacts:\n  - {name: murmur/tool-edit, version: 1.0.0}\n  - {name: fmt, version: 2.0.0}\n  - {name: lint, version: 0.1.0}\n"})

	out, errOut, code := e.mur(t, "proj", "install")
	expect(t, "install with two missing", out, errOut, code, "",
		"error[E-REG-001]: not in the global store: fmt@2.0.0, lint@0.1.0\n  hint: install it with mur install -g <dir>\n", 1)
	if _, err := os.Stat(filepath.Join(e.root, "proj", ".murmur")); !os.IsNotExist(err) {
		t.Error("a refused mur install copied something")
	}

	out, errOut, code = e.mur(t, "proj", "install", "tool-edit@1.0.0")
	expect(t, "install name@version", out, errOut, code,
		"installed tool-edit@1.0.0 (tool) sha256:"+sum+" into the project store\n", "", 0)
	out, errOut, code = e.mur(t, "proj", "install", "fmt@2.0.0")
	expect(t, "install a missing name@version", out, errOut, code, "",
		"error[E-REG-001]: not in the global store: fmt@2.0.0\n  hint: install it with mur install -g <dir>\n", 1)
	out, errOut, code = e.mur(t, "proj", "install", "fmt@latest")
	expect(t, "install name@latest", out, errOut, code, "",
		"error[E-REG-004]: version 'latest' is reserved: latest, stable and edge are not exact versions\n  hint: give an exact version\n", 1)
	out, errOut, code = e.mur(t, "", "install")
	expect(t, "install outside a project", out, errOut, code, "",
		"error[E-IO-001]: "+filepath.Join(e.root, "murmur.yaml")+": no such file or directory\n  hint: check the path\n", 1)
}

// TestInstallUsageCLI6 is the usage-error contract (README.md "Output contract").
func TestInstallUsageCLI6(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	for _, c := range []struct {
		args []string
		what string
	}{
		{[]string{"install", "a", "b"}, "unexpected argument 'b'"},
		{[]string{"install", "-g"}, "-g needs a <dir> to install"},
		{[]string{"install", "--force"}, "--force needs a <dir> to install"},
		{[]string{"install", "x@1.0.0", "--force"}, "--force needs a <dir> to install"},
		{[]string{"install", "--frob"}, "unknown flag --frob"},
		{[]string{"install", "x@1.0.0", "-g"}, "-g takes a <dir>, not <name>@<version>"},
	} {
		out, errOut, code := e.mur(t, "", c.args...)
		expect(t, "mur "+c.args[1], out, errOut, code, "", "error: "+c.what+"\nrun 'mur install --help' for usage\n", 2)
	}
	out, errOut, code := e.mur(t, "", "install", "--help")
	if code != 0 || errOut != "" || !strings.HasPrefix(out, "Usage: mur install <dir> [-g] [--force] [--json]\n") {
		t.Errorf("install --help: %q %q %d", out, errOut, code)
	}
}

// TestInstallSkipsBuiltIn_INP1: murmur-tool-request-input is built in —
// `mur install` installs and locks the other artifacts only, a store copy of
// that name is never consulted, `mur list` never shows it, and `mur doctor`
// passes it as built in.
func TestInstallSkipsBuiltIn_INP1(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	sum := e.tool(t, "src/edit", "tool-edit", "1.0.0", "one")
	if _, errOut, code := e.mur(t, "src", "install", "edit", "-g"); code != 0 {
		t.Fatalf("install -g: %s", errOut)
	}
	e.write(t, map[string]string{"proj/murmur.yaml": projectManifest +
		"artifacts:\n  - {name: murmur/murmur-tool-request-input, version: 9.9.9, config: {any: thing}}\n  - {name: tool-edit, version: 1.0.0}\n", "proj/script.yaml": "script_version: 1\nrules: []\n"})
	out, errOut, code := e.mur(t, "proj", "install")
	expect(t, "install beside the built-in", out, errOut, code,
		"installed tool-edit@1.0.0 (tool) sha256:"+sum+" into the project store\n", "", 0)
	lock, err := os.ReadFile(filepath.Join(e.root, "proj", "murmur.lock"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(lock), "request-input") {
		t.Errorf("murmur.lock pins the built-in:\n%s", lock)
	}
	out, _, _ = e.mur(t, "proj", "list")
	if strings.Contains(out, "request-input") {
		t.Errorf("mur list shows the built-in:\n%s", out)
	}
	out, errOut, code = e.mur(t, "proj", "doctor")
	if code != 0 || !strings.Contains(out, "✓ artifact murmur/murmur-tool-request-input@9.9.9 (built in)\n") {
		t.Errorf("mur doctor = %d\n%s%s", code, out, errOut)
	}
}

// TestInstallGlobalKeepsStoredBytes: the global store never swaps the bytes
// of a stored name@version silently. Other bytes are refused (E-REG-006)
// naming both digests and where the stored ones came from; --force replaces
// them, printing old and new digests and the murmur.lock pin it broke.
func TestInstallGlobalKeepsStoredBytes(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	e.write(t, map[string]string{"proj/murmur.yaml": projectManifest})
	one := e.tool(t, "a/edit", "tool-edit", "1.0.0", "one")
	two := e.tool(t, "b/edit", "tool-edit", "1.0.0", "two")
	srcA, srcB := filepath.Join(e.root, "a", "edit"), filepath.Join(e.root, "b", "edit")

	out, errOut, code := e.mur(t, "a", "install", "-g", "edit")
	expect(t, "first install -g", out, errOut, code,
		"installed tool-edit@1.0.0 (tool) sha256:"+one+" into the global store\n", "", 0)
	out, errOut, code = e.mur(t, "a", "install", "-g", "edit")
	expect(t, "the same bytes again", out, errOut, code,
		"installed tool-edit@1.0.0 (tool) sha256:"+one+" into the global store\n", "", 0)

	out, errOut, code = e.mur(t, "b", "install", "-g", "edit")
	expect(t, "other bytes under the stored version", out, errOut, code, "",
		"error[E-REG-006]: the global store already holds tool-edit@1.0.0 with other bytes: sha256:"+one+" (installed from "+srcA+"); this install is sha256:"+two+"\n"+
			"  hint: give this artifact another name or version, or run mur install -g --force edit to replace the stored one\n", 1)
	meta, err := os.ReadFile(filepath.Join(e.home, "artifacts", "tool-edit", "1.0.0", "meta.json"))
	if err != nil || !strings.Contains(string(meta), one) {
		t.Fatalf("the refused install changed the stored entry: %s %v", meta, err)
	}

	// A project pins the stored bytes and holds no copy of its own: the
	// forced replacement breaks that pin and says so.
	out, errOut, code = e.mur(t, "proj", "install", "tool-edit@1.0.0")
	expect(t, "pin from the global store", out, errOut, code,
		"installed tool-edit@1.0.0 (tool) sha256:"+one+" into the project store\n", "", 0)
	if err := os.RemoveAll(filepath.Join(e.root, "proj", ".murmur")); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = e.mur(t, "proj", "install", "-g", "--force", "../b/edit")
	expect(t, "install -g --force", out, errOut, code,
		"installed tool-edit@1.0.0 (tool) sha256:"+two+" into the global store\n"+
			"replaced tool-edit@1.0.0 in the global store: sha256:"+one+" (installed from "+srcA+") → sha256:"+two+"\n"+
			"broke the pin of tool-edit@1.0.0 in "+filepath.Join(e.root, "proj", "murmur.lock")+": it pins sha256:"+one+", which no store holds now; run mur install --force <dir> in that project to pin the new bytes\n", "", 0)

	out, errOut, code = e.mur(t, "a", "install", "-g", "--force", "--json", "edit")
	expect(t, "install -g --force --json", out, errOut, code,
		`{"installed":[{"name":"tool-edit","version":"1.0.0","runtime":"tool","sha256":"`+one+`","scope":"global",`+
			`"replaced":{"sha256":"`+two+`","source_path":"`+srcB+`","broken_pins":[]}}]}`+"\n", "", 0)
}

// TestDoctorListsHooks: mur install takes a hook artifact like a native
// tool, and mur doctor lists each hook entry with its binding, execution
// mode and commit_policy.
func TestDoctorListsHooks(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	e.write(t, map[string]string{
		"src/guard/murmur.yaml": "name: guard\nversion: 1.0.0\nruntime: hook\nimplementation: native\ncommand: hook.sh\nbinding: on-shell\ncommit_policy: deny\n",
		"src/guard/hook.sh":     "#!/bin/sh\n",
		"proj/murmur.yaml":      projectManifest + "artifacts:\n  - {name: guard, version: 1.0.0, runtime: hook}\n",
		"proj/script.yaml":      "script_version: 1\nrules: []\n",
	})
	if _, errOut, code := e.mur(t, "src", "install", "guard", "-g"); code != 0 {
		t.Fatalf("install -g: %s", errOut)
	}
	if _, errOut, code := e.mur(t, "proj", "install"); code != 0 {
		t.Fatalf("install: %s", errOut)
	}
	out, errOut, code := e.mur(t, "proj", "doctor")
	if code != 0 || !strings.Contains(out, "✓ artifact guard@1.0.0 (project store; hook: on-shell, blocking, commit_policy deny)\n") {
		t.Errorf("mur doctor = %d\n%s%s", code, out, errOut)
	}
}
