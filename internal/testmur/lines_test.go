package testmur

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLines: the lines a command prints are decoded through the wire types
// in order, its stderr is kept, and Wait gives its exit code.
func TestLines(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sh", "-c", `echo '{"entry":"lead","formation_id":"frm_1","peers":[{"name":"w","pid":7,"session_id":"ses_w","url":"http://w","workdir":"/w"}]}'; `+
		`echo '{"name":"lead","pid":8,"records_dir":"/r","session_id":"ses_l","url":"http://l","version":"1.0.0","workdir":"/l"}'; echo bye >&2; exit 3`)
	l := StartLines(t, cmd)
	if f := l.Formation(t); f.Entry != "lead" || f.FormationID != "frm_1" || len(f.Peers) != 1 || f.Peers[0].PID != 7 || f.Peers[0].Workdir != "/w" {
		t.Errorf("Formation = %+v", f)
	}
	if r := l.Ready(t); r.Name != "lead" || r.PID != 8 || r.RecordsDir != "/r" || r.SessionID != "ses_l" || r.URL != "http://l" {
		t.Errorf("Ready = %+v", r)
	}
	if code := l.Wait(); code != 3 {
		t.Errorf("Wait = %d, want 3", code)
	}
	if got := l.Stderr.String(); !strings.Contains(got, "bye") {
		t.Errorf("Stderr = %q", got)
	}
}
