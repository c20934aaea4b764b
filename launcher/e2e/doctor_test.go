package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorRosterBesideManifest: a roster.yaml beside the project's
// murmur.yaml prints its Roster block before the checklist; a refused
// roster counts as one error with its Fix: line and exit 1 (DOC-1, DOC-3).
func TestDoctorRosterBesideManifest(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	scaffoldCrewGlobal(t, w)
	proj := filepath.Join(w.dir, "proj")
	os.MkdirAll(proj, 0o755)
	for _, f := range []string{"lead/murmur.yaml", "lead/script.yaml", "roster.yaml"} {
		b, _ := os.ReadFile(filepath.Join(w.dir, "crew", f))
		os.WriteFile(filepath.Join(proj, filepath.Base(f)), b, 0o644)
	}
	out, errOut, code := w.run(t, "proj", "doctor")
	block := "Roster\n  file: " + filepath.Join(proj, "roster.yaml") + "\n" +
		"  lead     crew-lead@0.1.0     entry   refuses peers   authenticated door\n" +
		"  worker   crew-worker@0.1.0           serves peers    authenticated door\n" +
		"  reachability: lead → worker\n\n"
	if code != 0 || !strings.HasPrefix(out, block) || !strings.HasSuffix(out, "All checks passed.\n") {
		t.Errorf("doctor = %d\n%s%s", code, out, errOut)
	}
	roster, _ := os.ReadFile(filepath.Join(proj, "roster.yaml"))
	os.WriteFile(filepath.Join(proj, "roster.yaml"), []byte(strings.Replace(string(roster), "version: \"0.1.0\"", "version: \"9.9.9\"", 1)), 0o644)
	out, errOut, code = w.run(t, "proj", "doctor")
	msg := "roster.yaml: member 'lead' (crew-lead@9.9.9) is installed in neither store; installed versions of crew-lead: 0.1.0 (global store)"
	hint := "install crew-lead@9.9.9 with mur install <the directory holding its murmur.yaml>, or set members[0].version to an installed one"
	if code != 1 || !strings.Contains(out, "  ✗  error[E-ROS-007]: "+msg+"\n\n") || !strings.Contains(out, " 1 error found.\n\nFix: "+hint+"\n") || errOut != "" {
		t.Errorf("doctor with a refused roster = %d\n%s%s", code, out, errOut)
	}
}
