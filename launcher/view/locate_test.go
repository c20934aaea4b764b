package view

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/diag"
)

// TestLocate: full ids of a recorded formation and session are found; every
// other argument is a coded error whose text is golden (E-VIEW-001,
// E-VIEW-002).
func TestLocate(t *testing.T) {
	t.Parallel()
	home := studioHome(t)
	for _, arg := range []string{studioFrm, studioCoder, studioPlanner} {
		got, err := Locate(home, arg)
		if err != nil || got.ID != arg {
			t.Errorf("Locate(%q) = %+v, %v", arg, got, err)
		}
	}
	var out strings.Builder
	for _, arg := range []string{"", "frm_01a2", "frm_01A233762C3E7031B22EC3927351E056", "ses_xyz", "tsk_01a233762cc770f38bc8157e8437ffc4", "@1",
		"frm_01a233762c3e7031b22ec39273510000", "ses_01a233762c5270889a92fa2de7990000"} {
		_, err := Locate(home, arg)
		d, ok := diag.As(err)
		if !ok {
			t.Errorf("Locate(%q) error = %v, want a diagnostic", arg, err)
			continue
		}
		out.WriteString("$ mur view " + arg + "\n" + strings.ReplaceAll(d.Render(), home, "$MURMUR_HOME"))
	}
	golden.Check(t, "locate-errors", out.String())
}

// TestTailKeepsPartialLines: complete lines are returned once, in order, at
// their offsets; a line still being written waits; a line that is no JSON
// object is skipped; a missing file is nothing yet.
func TestTailKeepsPartialLines(t *testing.T) {
	t.Parallel()
	path := filepath.Join(testmur.TempDir(t), "trace.jsonl")
	tl := tail{path: path}
	if recs, err := tl.next(); err != nil || len(recs) != 0 {
		t.Fatalf("next on a missing file = %v, %v", recs, err)
	}
	a := line("session_start", 1, `"capsule_name":"solo","capsule_version":"1"`)
	b := line("task_start", 2, `"task_id":"tsk_a"`)
	appendTo(t, path, a+"not json\n"+b[:10])
	recs, err := tl.next()
	if err != nil || len(recs) != 1 || recs[0].EventType != "session_start" || recs[0].off != 0 || recs[0].n != len(a)-1 {
		t.Fatalf("first read = %+v, %v", recs, err)
	}
	appendTo(t, path, b[10:])
	recs, err = tl.next()
	if err != nil || len(recs) != 1 || recs[0].taskID() != "tsk_a" || recs[0].off != int64(len(a)+len("not json\n")) || tl.bad != 1 {
		t.Fatalf("second read = %+v, %v (bad %d)", recs, err, tl.bad)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, err := readLine(f, recs[0].off, recs[0].n)
	if err != nil || string(back)+"\n" != b {
		t.Errorf("readLine = %q, %v; want %q", back, err, b)
	}
	if recs, _ := tl.next(); len(recs) != 0 {
		t.Errorf("a third read returned %d records again", len(recs))
	}
}
