package testmur

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// hello is testdata/hello, built by TestMain.
var hello string

// TestMain builds testdata/hello with Run, or (in a child started by
// TestCleanup with TESTMUR_MODE=home) only sets MURMUR_HOME with WithHome.
func TestMain(m *testing.M) {
	if os.Getenv("TESTMUR_MODE") == "home" {
		os.Exit(WithHome(m))
	}
	os.Exit(Run(m, "./testdata/hello", &hello))
}

// TestRunBuilds: the binary exists under a temporary directory and runs.
func TestRunBuilds(t *testing.T) {
	t.Parallel()
	if filepath.Base(hello) != "hello" || !strings.HasPrefix(filepath.Base(filepath.Dir(hello)), "mur-test-") {
		t.Errorf("binary at %q, want <tmp>/mur-test-*/hello", hello)
	}
	out, err := Combined(exec.Command(hello))
	if err != nil || string(out) != "hello\n" {
		t.Errorf("%s = %q, %v; want \"hello\\n\"", hello, out, err)
	}
}

// TestReport writes what this process's TestMain set up to $TESTMUR_REPORT;
// it runs only in TestCleanup's children.
func TestReport(t *testing.T) {
	report := os.Getenv("TESTMUR_REPORT")
	if report == "" {
		t.Skip("runs only in TestCleanup's children")
	}
	what := hello
	if os.Getenv("TESTMUR_MODE") == "home" {
		what = os.Getenv("MURMUR_HOME")
	}
	if err := os.WriteFile(report, []byte(what), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCleanup runs this test binary again in both modes and proves that
// the directory each mode made existed during the tests and is gone after.
func TestCleanup(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"build", "home"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			report := filepath.Join(t.TempDir(), "report")
			cmd := exec.Command(os.Args[0], "-test.run=^TestReport$")
			cmd.Env = append(os.Environ(), "TESTMUR_MODE="+mode, "TESTMUR_REPORT="+report)
			if out, err := Combined(cmd); err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			b, err := os.ReadFile(report)
			if err != nil || len(b) == 0 {
				t.Fatalf("child's report = %q, %v", b, err)
			}
			dir := string(b)
			if mode == "build" {
				dir = filepath.Dir(dir)
			}
			if !strings.Contains(filepath.Base(dir), "mur-") {
				t.Errorf("child's directory %q is not a temporary one of testmur's", dir)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("%s still exists after the child's tests: %v", dir, err)
			}
		})
	}
}

// TestNeedLandlock: a kernel short of the ABI skips, unless LandlockEnv
// requires that ABI, which fails instead; a kernel with it runs the test.
func TestNeedLandlock(t *testing.T) {
	abi := func(n int) func() (int, error) { return func() (int, error) { return n, nil } }
	for _, c := range []struct {
		env     string
		have    int
		need    int
		outcome string
	}{
		{"", 7, 4, "ran"},
		{"", 3, 4, "skipped"},
		{"3", 3, 4, "skipped"},
		{"4", 3, 4, "failed"},
		{"7", 0, 1, "failed"},
		{"four", 3, 4, "failed"},
		{"4", 7, 4, "ran"},
	} {
		t.Setenv(LandlockEnv, c.env)
		got := outcome(func(tb testing.TB) { NeedLandlock(tb, c.need, abi(c.have)) })
		if got != c.outcome {
			t.Errorf("%s=%q, ABI %d, need %d: %s, want %s", LandlockEnv, c.env, c.have, c.need, got, c.outcome)
		}
	}
}

// outcome runs f on a fake testing.TB and says whether it ran to its end,
// skipped or failed.
func outcome(f func(testing.TB)) string {
	tb := &recorder{}
	done := make(chan struct{})
	go func() { defer close(done); f(tb); tb.ran = true }()
	<-done
	switch {
	case tb.failed:
		return "failed"
	case tb.skipped:
		return "skipped"
	case tb.ran:
		return "ran"
	}
	return "stopped"
}

// recorder is a testing.TB that records a Fatal or Skip and ends the
// goroutine as the real ones do.
type recorder struct {
	testing.TB
	failed, skipped, ran bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatalf(string, ...any) { r.failed = true; runtime.Goexit() }
func (r *recorder) Skipf(string, ...any)  { r.skipped = true; runtime.Goexit() }

// TestHasEvent: a whole record of the type is found; another type, a line
// cut short and a missing trace are not.
func TestHasEvent(t *testing.T) {
	dir := t.TempDir()
	if HasEvent(dir, "session_start") {
		t.Error("HasEvent without a trace = true")
	}
	trace := `{"event_type":"session_start","event_id":"a"}` + "\n" + `{"event_type":"harness_ex`
	if err := os.WriteFile(filepath.Join(dir, "trace.jsonl"), []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	for typ, want := range map[string]bool{"session_start": true, "harness_exit": false, "harness_ex": false} {
		if got := HasEvent(dir, typ); got != want {
			t.Errorf("HasEvent(%s) = %v, want %v", typ, got, want)
		}
	}
}
