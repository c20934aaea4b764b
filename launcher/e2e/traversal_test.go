package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionIsNeverAPath: a roster version or --capsule-version that is a
// path ("../../../../evil") is refused where it is read, and a store entry
// that a symlink leads out of its store is refused at lookup, so no capsule
// tree outside the stores ever runs (formations.md BIND-1,
// capsule.md STORE-3).
func TestVersionIsNeverAPath(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	scaffoldCrewGlobal(t, w)
	store := filepath.Join(w.home, "artifacts")
	// A capsule tree outside both stores, its meta.json intact: what a
	// path-like version would reach.
	evil := filepath.Join(w.dir, "evil")
	if err := os.CopyFS(evil, os.DirFS(filepath.Join(store, "crew-lead", "0.1.0"))); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(filepath.Join(store, "crew-lead"), evil)
	if err != nil || !strings.HasPrefix(rel, "../") {
		t.Fatalf("rel = %q, %v", rel, err)
	}
	if err := os.Symlink(evil, filepath.Join(store, "crew-lead", "9.9.9")); err != nil {
		t.Fatal(err)
	}
	roster, err := os.ReadFile(filepath.Join(w.dir, "crew", "roster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	withVersion := func(v string) string {
		return strings.Replace(string(roster), `version: "0.1.0"`, `version: "`+v+`"`, 1)
	}
	const versionHint = `write the capsule's exact version in quotes, such as "0.1.0"; mur list --all shows the installed versions`
	outside := "it resolves to " + evil + ", outside the global store " + store
	cases := []struct {
		name, roster string
		args         []string
		code         int
		stderr       string
	}{
		{"roster version is a path", withVersion(rel), []string{"run", "--roster", "--task", "hi"}, 1,
			"error[E-ROS-001]: roster.yaml:7:14: members[0].version (member 'lead'): '" + rel + "' is not a version: it holds '/'; pin the version the member runs\n" +
				"  hint: " + versionHint + "\n"},
		{"roster version is ..", withVersion(".."), []string{"run", "--roster", "--task", "hi"}, 1,
			"error[E-ROS-001]: roster.yaml:7:14: members[0].version (member 'lead'): '..' is not a version: it is not a SemVer version (MAJOR[.MINOR[.PATCH[-PRERELEASE][+BUILD]]]); pin the version the member runs\n" +
				"  hint: " + versionHint + "\n"},
		{"roster version is a link out of the store", withVersion("9.9.9"), []string{"run", "--roster", "--task", "hi"}, 1,
			"error[E-ROS-007]: roster.yaml: member 'lead' (crew-lead@9.9.9) has no readable murmur.yaml: " + filepath.Join(store, "crew-lead", "9.9.9") + ": " + outside + "\n" +
				"  hint: install crew-lead@9.9.9, or set the version mur list shows\n"},
		{"doctor refuses the path too", withVersion(rel), []string{"doctor"}, 1,
			""},
		{"--capsule-version is a path", "", []string{"run", "--capsule", "crew-lead", "--capsule-version", rel, "--task", "hi"}, 2,
			"error: --capsule-version '" + rel + "' is not a version: it holds '/'\nrun 'mur run --help' for usage\n"},
		{"--capsule is a path", "", []string{"run", "--capsule", "../crew-lead", "--capsule-version", "0.1.0", "--task", "hi"}, 1,
			"error[E-BLD-001]: invalid artifact name '../crew-lead': it holds '.'; only a-z, 0-9 and - are allowed\n" +
				"  hint: use [a-z0-9-], 1–100 characters, no leading or trailing -\n"},
		{"--capsule-version is a link out of the store", "", []string{"run", "--capsule", "crew-lead", "--capsule-version", "9.9.9", "--task", "hi"}, 1,
			"error[E-IO-001]: " + filepath.Join(store, "crew-lead", "9.9.9") + ": " + outside + "\n  hint: check the path\n"},
		{"mur install <name>@.. in a project", string(roster), []string{"install", "crew-lead@.."}, 2,
			"error: 'crew-lead@..' is not <name>@<version>: the version it is not a SemVer version (MAJOR[.MINOR[.PATCH[-PRERELEASE][+BUILD]]])\nrun 'mur install --help' for usage\n"},
	}
	for _, c := range cases {
		dir := "."
		if c.roster != "" {
			writeRoster(t, w, "crew", c.roster)
			dir = "crew"
		}
		out, errOut, code := w.run(t, dir, c.args...)
		if code != c.code || c.stderr != "" && errOut != c.stderr {
			t.Errorf("%s: mur %s = %d\nstdout: %s\nstderr: %q\nwant %d %q", c.name, strings.Join(c.args, " "), code, out, errOut, c.code, c.stderr)
		}
		if c.args[0] == "doctor" && !strings.Contains(out+errOut, "is not a version: it holds '/'") {
			t.Errorf("%s: mur doctor does not name the version:\n%s%s", c.name, out, errOut)
		}
	}
	// Nothing ran: no session ever made a records directory.
	if _, err := os.Stat(filepath.Join(w.home, "records")); !os.IsNotExist(err) {
		t.Errorf("records directory: %v; want none (no session started)", err)
	}
}
