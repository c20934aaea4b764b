package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/runtime/murhome"
)

const frmA = "frm_019a3000000070008000000000000aaa"

// cardServer is a door that answers only its public card.
func cardServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/agent-card.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"name":"hello-shell","version":"0.1.0"}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// silentURL is a loopback URL where nothing listens.
func silentURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	return url
}

// TestPsTableLayoutCLI12FCLI7 checks the exact columns, widths and grouping.
func TestPsTableLayoutCLI12FCLI7(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 3, 12, 0, 0, 0, time.UTC)
	row := func(ses, frm, status string, age time.Duration) *psRow {
		return &psRow{status: status, rec: &murhome.Running{SessionID: ses, Name: "crew-worker", Version: "0.1.0",
			URL: "http://127.0.0.1:4100" + ses[len(ses)-1:], FormationID: frm, StartedAt: now.Add(-age)}}
	}
	s := func(n string) string { return sesID("019a30000000", n) }
	rows := []*psRow{ // newest first, as murhome.ListRunning returns them
		row(s("1"), "", "running", 5*time.Second),
		row(s("2"), frmA, "running", time.Hour+2*time.Minute+3*time.Second),
		row(s("3"), "", "unreachable", 26*time.Hour+4*time.Second),
		row(s("4"), frmA, "unreachable", 49*time.Hour),
	}
	got := psTable(groupByFormation(rows), now)
	want := "" +
		"SESSION                               CAPSULE                   STATUS        UPTIME     FORMATION                             URL\n" +
		s("1") + "  crew-worker@0.1.0         running       00:00:05   -                                     http://127.0.0.1:41001\n" +
		s("2") + "  crew-worker@0.1.0         running       01:02:03   " + frmA + "  http://127.0.0.1:41002\n" +
		s("4") + "  crew-worker@0.1.0         unreachable   2d 01:00:00  " + frmA + "  http://127.0.0.1:41004\n" +
		s("3") + "  crew-worker@0.1.0         unreachable   1d 02:00:04  -                                     http://127.0.0.1:41003\n"
	if got != want {
		t.Errorf("psTable() =\n%s\nwant\n%s", got, want)
	}

	// Without any formation id there is no FORMATION column.
	got = psTable([]*psRow{rows[0]}, now)
	want = "SESSION                               CAPSULE                   STATUS        UPTIME     URL\n" +
		s("1") + "  crew-worker@0.1.0         running       00:00:05   http://127.0.0.1:41001\n"
	if got != want {
		t.Errorf("psTable(no formation) =\n%s\nwant\n%s", got, want)
	}
}

var uptimeCol = regexp.MustCompile(`^(.{36}  .{24}  .{12}  )(\d\d:\d\d:\d\d) (  .*)$`)

// TestPsRealProcessesCLI12 lists real processes: a live one whose door
// answers, one whose door is silent, one of unknown start time, and prunes a
// gone pid and a reused one, through the real binary.
func TestPsRealProcessesCLI12(t *testing.T) {
	t.Parallel()
	e := newOpsEnv(t)
	now := time.Now()
	door := cardServer(t)
	silent := silentURL(t)
	a, b, c, d := startProc(t, "exec sleep 300"), startProc(t, "exec sleep 300"), startProc(t, "exec sleep 300"), startProc(t, "exec sleep 300")
	gonePID, goneStart := goneProc(t)
	s := func(n string) string { return sesID("019a30000000", n) }

	e.writeRecord(t, &murhome.Running{SessionID: s("a1"), PID: a.pid(), ProcessStart: a.start, URL: silent, StartedAt: now.Add(-1 * time.Minute)})
	e.writeRecord(t, &murhome.Running{SessionID: s("b2"), PID: b.pid(), ProcessStart: b.start, URL: door, FormationID: frmA, StartedAt: now.Add(-2 * time.Minute)})
	e.writeRecord(t, &murhome.Running{SessionID: s("c3"), PID: gonePID, ProcessStart: goneStart, URL: door, FormationID: frmA, StartedAt: now.Add(-3 * time.Minute)})
	e.writeRecord(t, &murhome.Running{SessionID: s("d4"), PID: c.pid(), ProcessStart: "", URL: door, StartedAt: now.Add(-4 * time.Minute)})
	e.writeRecord(t, &murhome.Running{SessionID: s("e5"), PID: d.pid(), ProcessStart: d.start + "7", URL: door, StartedAt: now.Add(-5 * time.Minute)})
	e.writeRecord(t, &murhome.Running{SessionID: s("f6"), PID: a.pid(), ProcessStart: a.start, URL: door, FormationID: frmA, StartedAt: now.Add(-6 * time.Minute)})

	out, errOut, code := e.run(t, "ps")
	if code != 0 {
		t.Fatalf("mur ps = %d, stderr %q", code, errOut)
	}
	wantErr := "pruned: " + s("c3") + " — no process holds pid " + itoa(gonePID) + " (formation " + frmA + ")\n" +
		"pruned: " + s("e5") + " — pid " + itoa(d.pid()) + " is held by a process that started at another time\n"
	if errOut != wantErr {
		t.Errorf("mur ps stderr = %q, want %q", errOut, wantErr)
	}
	var masked []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n")[1:] {
		m := uptimeCol.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("row %q has no HH:MM:SS uptime column", l)
		}
		masked = append(masked, m[1]+"UPTIME"+m[3])
	}
	pad := func(s string, n int) string { return s + strings.Repeat(" ", n-len(s)) }
	rowOf := func(ses, status, frm, url string) string {
		return ses + "  " + pad("hello-shell@0.1.0", 24) + "  " + pad(status, 12) + "  UPTIME  " + pad(frm, 36) + "  " + url
	}
	want := []string{
		rowOf(s("a1"), "unreachable", "-", silent),
		rowOf(s("b2"), "running", frmA, door),
		rowOf(s("f6"), "running", frmA, door),
		rowOf(s("d4"), "unreachable", "-", door),
	}
	if strings.Join(masked, "\n") != strings.Join(want, "\n") {
		t.Errorf("mur ps rows =\n%s\nwant\n%s", strings.Join(masked, "\n"), strings.Join(want, "\n"))
	}
	for ses, kept := range map[string]bool{s("a1"): true, s("b2"): true, s("c3"): false, s("d4"): true, s("e5"): false, s("f6"): true} {
		if e.recordExists(ses) != kept {
			t.Errorf("record %s exists = %v, want %v", ses, !kept, kept)
		}
	}
	if murhome.Check(d.pid(), d.start) != murhome.Alive {
		t.Error("mur ps disturbed the process holding a reused pid")
	}

	// Pruned records are gone for good: a second look prints no pruned lines.
	if _, errOut, _ := e.run(t, "ps"); errOut != "" {
		t.Errorf("second mur ps stderr = %q, want nothing", errOut)
	}
}

func TestPsNoneAndUsageCLI12(t *testing.T) {
	t.Parallel()
	e := newOpsEnv(t)
	out, errOut, code := e.run(t, "ps")
	if code != 0 || out != "no running capsules\n" || errOut != "" {
		t.Errorf("mur ps (none) = %d, %q, %q; want 0, %q", code, out, errOut, "no running capsules\n")
	}
	gonePID, goneStart := goneProc(t)
	ses := sesID("019a30000000", "1")
	e.writeRecord(t, &murhome.Running{SessionID: ses, PID: gonePID, ProcessStart: goneStart, URL: "http://127.0.0.1:1"})
	out, errOut, code = e.run(t, "ps")
	if code != 0 || out != "no running capsules\n" || errOut != "pruned: "+ses+" — no process holds pid "+itoa(gonePID)+"\n" {
		t.Errorf("mur ps (only stale) = %d, %q, %q", code, out, errOut)
	}
	_, errOut, code = e.run(t, "ps", "extra")
	if want := "error: unexpected argument 'extra'\nrun 'mur ps --help' for usage\n"; code != 2 || errOut != want {
		t.Errorf("mur ps extra = %d, %q; want 2, %q", code, errOut, want)
	}
	if out, _, code := e.run(t, "ps", "-h"); code != 0 || !strings.HasPrefix(out, "Usage: mur ps [--json]\n") {
		t.Errorf("mur ps -h = %d, %q", code, out)
	}
}

func TestUptimeCLI12(t *testing.T) {
	t.Parallel()
	cases := map[time.Duration]string{
		0: "00:00:00", 59 * time.Second: "00:00:59", 3723 * time.Second: "01:02:03",
		24*time.Hour - time.Second: "23:59:59", 24 * time.Hour: "1d 00:00:00", 100*24*time.Hour + 5*time.Second: "100d 00:00:05",
		-time.Hour: "00:00:00",
	}
	for d, want := range cases {
		if got := uptime(d); got != want {
			t.Errorf("uptime(%v) = %q, want %q", d, got, want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
