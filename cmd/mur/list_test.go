package main

import (
	"strings"
	"testing"
)

// TestListCLI7 is `mur list [-g | --all]`'s table through the real binary.
func TestListCLI7(t *testing.T) {
	t.Parallel()
	e := newArtEnv(t)
	e.write(t, map[string]string{"proj/murmur.yaml": projectManifest})

	out, errOut, code := e.mur(t, "proj", "list")
	expect(t, "list, empty", out, errOut, code, "no artifacts installed in the project store ("+e.root+"/proj/.murmur/artifacts)\n", "", 0)
	out, errOut, code = e.mur(t, "proj", "list", "--all")
	expect(t, "list --all, empty", out, errOut, code, "no artifacts installed in the project store ("+e.root+"/proj/.murmur/artifacts) or the global store ("+e.home+"/artifacts)\n", "", 0)
	out, errOut, code = e.mur(t, "", "list")
	expect(t, "list outside a project, empty", out, errOut, code, "no artifacts installed in the global store ("+e.home+"/artifacts)\n", "", 0)

	e.tool(t, "src/a", "a", "1.10.0", "a110")
	e.tool(t, "src/a9", "a", "1.9.0", "a19")
	e.tool(t, "src/long", "a-much-longer-name", "2.0.0", "long")
	e.write(t, map[string]string{"src/skill/murmur.yaml": "name: review\nversion: 0.3.0\nruntime: skill\n", "src/skill/skill.md": "Review it.\n"})
	for _, args := range [][]string{
		{"install", "../src/a"}, {"install", "../src/skill"},
		{"install", "../src/long", "-g"}, {"install", "../src/a", "-g"}, {"install", "../src/a9", "-g"},
	} {
		if _, errOut, code := e.mur(t, "proj", args...); code != 0 {
			t.Fatalf("mur %v: %s", args, errOut)
		}
	}
	out, errOut, code = e.mur(t, "proj", "list")
	if errOut != "" || code != 0 {
		t.Fatalf("list: %q %d", errOut, code)
	}
	e.golden(t, "list-project", out)
	out, _, _ = e.mur(t, "proj", "list", "-g")
	e.golden(t, "list-global", out)
	out, _, _ = e.mur(t, "", "list")
	e.golden(t, "list-global", out) // outside any project: the global store
	out, _, _ = e.mur(t, "proj", "list", "--all")
	e.golden(t, "list-all", out)

	out, errOut, code = e.mur(t, "proj", "list", "-g", "--all")
	expect(t, "list -g --all", out, errOut, code, "", "error: -g and --all cannot be used together\nrun 'mur list --help' for usage\n", 2)
	out, errOut, code = e.mur(t, "proj", "list", "x")
	expect(t, "list x", out, errOut, code, "", "error: unexpected argument 'x'\nrun 'mur list --help' for usage\n", 2)
	if out, _, code := e.mur(t, "proj", "list", "-h"); code != 0 || !strings.HasPrefix(out, "Usage: mur list [-g | --all] [--json]\n\nLi") {
		t.Errorf("list -h: %q %d", out, code)
	}
}
