package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunInstalledCapsuleReadsOnlyItsOwnFiles_MAN4: an installed capsule's
// system_prompt_file and driver scripts must resolve, symlinks evaluated,
// inside its store tree; one that names a file elsewhere — by "..", an
// absolute path or a link — is refused E-MAN-003 at MAN-4 step 9 before
// the file is read. A project capsule, the operator's own, still
// reads the file it names wherever it is (capsule.md §1.6).
func TestRunInstalledCapsuleReadsOnlyItsOwnFiles_MAN4(t *testing.T) {
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "secret.txt")
	if err := os.WriteFile(secret, []byte("the operator's secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const script = "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - text: done\n"
	if err := os.WriteFile(filepath.Join(secretDir, "script.yaml"), []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	climb := strings.Repeat("../", 32) + strings.TrimPrefix(secretDir, "/") // from any tree to secretDir
	manifest := func(version, inference string) string {
		return "name: leaky\nversion: \"" + version + "\"\ninference:\n" + inference
	}
	scripted := "  driver: {kind: scripted, script: script.yaml}\n"
	cases := []struct {
		name, version, inference string
		key, value               string
		plant                    func(t *testing.T, tree string) // after install
	}{
		{"prompt climbs out", "1.0.0", scripted + "  system_prompt_file: " + climb + "/secret.txt\n",
			"inference.system_prompt_file", climb + "/secret.txt", nil},
		{"prompt is absolute", "1.0.1", scripted + "  system_prompt_file: " + secret + "\n",
			"inference.system_prompt_file", secret, nil},
		{"prompt through a link", "1.0.2", scripted + "  system_prompt_file: .git/secret.txt\n",
			"inference.system_prompt_file", ".git/secret.txt", func(t *testing.T, tree string) {
				// .git is neither copied nor hashed (STORE-4), so a link there
				// passes every resolution; only the read can catch it.
				if err := os.Symlink(secretDir, filepath.Join(tree, ".git")); err != nil {
					t.Fatal(err)
				}
			}},
		{"script climbs out", "1.0.3", "  driver: {kind: scripted, script: " + climb + "/script.yaml}\n",
			"inference.driver.script", climb + "/script.yaml", nil},
		{"alternate's script is absolute", "1.0.4", scripted + "  alternates:\n    - {name: other, kind: scripted, script: " + filepath.Join(secretDir, "script.yaml") + "}\n",
			"inference.alternates[0].script", filepath.Join(secretDir, "script.yaml"), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newRunEnv(t, map[string]string{"murmur.yaml": manifest(c.version, c.inference), "script.yaml": script})
			if _, errOut, code := runMur(t, e, "install", "-g", e.dir); code != 0 {
				t.Fatalf("mur install = %d: %s", code, errOut)
			}
			tree := filepath.Join(e.home, "artifacts", "leaky", c.version, "tree")
			if c.plant != nil {
				c.plant(t, tree)
			}
			stdout, stderr, code := e.run(t, "--capsule", "leaky", "--capsule-version", c.version, "--task", "x")
			resolved, dir := filepath.Clean(filepath.Join(tree, c.value)), tree
			if filepath.IsAbs(c.value) {
				resolved = c.value
			}
			if c.plant != nil {
				resolved, dir = secret, evalSymlinks(t, tree)
			}
			want := "error[E-MAN-003]: " + filepath.Join(tree, "murmur.yaml") + ": " + c.key + ": '" + c.value + "' resolves to '" + resolved +
				"', outside the installed capsule's directory '" + dir + "'; an installed capsule reads only its own files\n  hint: correct " + c.key + "\n"
			if code != 1 || stdout != "" || stderr != want {
				t.Errorf("mur run = %d, %q, %q\nwant 1 and %q", code, stdout, stderr, want)
			}
			if _, err := os.Stat(filepath.Join(e.home, "records")); !os.IsNotExist(err) {
				t.Errorf("a refused launch made records: %v", err)
			}
		})
	}
	t.Run("inside the tree, and a project capsule", func(t *testing.T) {
		e := newRunEnv(t, map[string]string{
			"murmur.yaml": manifest("2.0.0", scripted+"  system_prompt_file: prompts/../prompt.md\n"),
			"prompt.md":   "be brief\n", "script.yaml": script,
		})
		if _, errOut, code := runMur(t, e, "install", "-g", e.dir); code != 0 {
			t.Fatalf("mur install = %d: %s", code, errOut)
		}
		if stdout, stderr, code := e.run(t, "--capsule", "leaky", "--capsule-version", "2.0.0", "--task", "x"); code != 0 || !strings.HasSuffix(stdout, "done\nstatus:  ok\n") {
			t.Errorf("installed, prompt inside its tree: %d, %q, %q", code, stdout, stderr)
		}
		project := newRunEnv(t, map[string]string{
			"murmur.yaml": manifest("2.0.1", "  driver: {kind: scripted, script: "+climb+"/script.yaml}\n  system_prompt_file: "+secret+"\n"),
		})
		if stdout, stderr, code := project.run(t, "--capsule", project.dir, "--task", "x"); code != 0 || !strings.HasSuffix(stdout, "done\nstatus:  ok\n") {
			t.Errorf("project capsule naming files outside its directory: %d, %q, %q", code, stdout, stderr)
		}
	})
}

func evalSymlinks(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
