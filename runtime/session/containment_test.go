package session

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/proc"
)

// Containment scoped, asked of a kernel without Landlock,
// refuses the launch with E-CAP-003 (MAN-4 step 5, nothing made); absent,
// the session takes what the kernel offers; advisory opts out. Not
// parallel: it stands in for the kernel's probe.
func TestContainmentDecision_ECAP003(t *testing.T) {
	saved := landlockABI
	t.Cleanup(func() { landlockABI = saved })
	noLandlock := func() (int, error) { return 0, errors.New("landlock_create_ruleset: function not implemented") }
	withLandlock := func() (int, error) { return 7, nil }
	for _, c := range []struct {
		name, decl string
		probe      func() (int, error)
		want       string // the class taken; "" = refused
	}{
		{"scoped without Landlock", "scoped", noLandlock, ""},
		{"scoped with Landlock", "scoped", withLandlock, proc.Scoped},
		{"absent without Landlock", "", noLandlock, proc.Advisory},
		{"absent with Landlock", "", withLandlock, proc.Scoped},
		{"advisory with Landlock", "advisory", withLandlock, proc.Advisory},
	} {
		t.Run(c.name, func(t *testing.T) {
			landlockABI = c.probe
			caps := ""
			if c.decl != "" {
				caps = "capabilities:\n  containment: " + c.decl + "\n"
			}
			dir := writeCapsule(t, "name: t-capsule\nversion: \"0.1.0\"\ninference:\n  driver: {kind: scripted, script: script.yaml}\n"+caps, "script_version: 1\nrules: []\n")
			l, err := Prepare(Options{ManifestPath: filepath.Join(dir, "murmur.yaml"), Getenv: testEnv(nil), Cwd: dir, Version: "0.1.0"})
			if c.want == "" {
				want := diag.CapContainment(filepath.Join(dir, "murmur.yaml"), "landlock_create_ruleset: function not implemented").Error()
				if d, ok := diag.As(err); !ok || d.Code != diag.ECAP003 || err.Error() != want {
					t.Fatalf("Prepare = %v, want %q", err, want)
				}
				if _, err := os.Stat(filepath.Join(dir, ".murmur")); !os.IsNotExist(err) {
					t.Errorf("a refused launch made %s/.murmur (MAN-4)", dir)
				}
				return
			}
			if err != nil || l.Containment != c.want {
				t.Fatalf("Prepare = %v, containment %q; want %q", err, l.Containment, c.want)
			}
		})
	}
}
