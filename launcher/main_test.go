package launcher

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/launcher/roster"
)

// fakeMember is the fake `mur run` the in-process launch tests exec
// (testdata/fakemember).
var fakeMember string

func TestMain(m *testing.M) { os.Exit(testmur.Run(m, "./testdata/fakemember", &fakeMember)) }

// buffer is a goroutine-safe output sink that can report when it first
// holds a string.
type buffer struct {
	mu       sync.Mutex
	b        bytes.Buffer
	watchers []watcher
}

type watcher struct {
	s  string
	ch chan struct{}
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.b.Write(p)
	kept := b.watchers[:0]
	for _, w := range b.watchers {
		if strings.Contains(b.b.String(), w.s) {
			close(w.ch)
		} else {
			kept = append(kept, w)
		}
	}
	b.watchers = kept
	return n, err
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// when returns a channel closed once the buffer holds s.
func (b *buffer) when(s string) <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch := make(chan struct{})
	if strings.Contains(b.b.String(), s) {
		close(ch)
	} else {
		b.watchers = append(b.watchers, watcher{s, ch})
	}
	return ch
}

// testStore resolves every capsule: authenticated, serving peers, queue of
// one, unless facts says otherwise; pub-* capsules are public doors.
type testStore struct{ facts map[string]roster.Facts }

func (s testStore) Resolve(capsule, version string) (roster.Installed, error) {
	f, ok := s.facts[capsule]
	if !ok {
		f = roster.Facts{Acceptance: "queue", QueueDepth: 1, PeerTasks: true, Authenticated: !strings.HasPrefix(capsule, "pub-")}
	}
	return roster.Installed{TreeDir: "/nonexistent/" + capsule, SHA256: strings.Repeat("ab", 32), Facts: f}, nil
}

func (testStore) Pin(string) (roster.Pin, bool, error) { return roster.Pin{}, false, nil }

type harness struct {
	cfg            Config
	stdout, stderr *buffer
	sigs           chan os.Signal
	project        string
	readyTimeout   time.Duration // 0: ReadyTimeout
	grace          time.Duration // 0: TeardownGrace
}

// newHarness writes roster text into a fresh project and configures a
// launch of it with the fake member.
func newHarness(t *testing.T, rosterText string, facts map[string]roster.Facts) *harness {
	t.Helper()
	project := filepath.Join(t.TempDir(), "proj")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, roster.FileName), []byte(rosterText), 0o644); err != nil {
		t.Fatal(err)
	}
	h := &harness{stdout: &buffer{}, stderr: &buffer{}, sigs: make(chan os.Signal, 4), project: project}
	h.cfg = Config{RosterPath: filepath.Join(project, roster.FileName), Resolver: testStore{facts},
		Home: t.TempDir(), Self: fakeMember, Cwd: project, Environ: os.Environ(), JSON: true,
		Stdout: h.stdout, Stderr: h.stderr, Signals: h.sigs,
		ProcessStart: func(int) string { return "1" }}
	return h
}

func (h *harness) run(t *testing.T) int {
	t.Helper()
	l := newLaunch(h.cfg)
	if h.readyTimeout > 0 {
		l.readyTimeout = h.readyTimeout
	}
	if h.grace > 0 {
		l.grace = h.grace
	}
	return l.run(t.Context())
}

var pidRE = regexp.MustCompile(`pid (\d+)|"pid":(\d+)|\[grandchild\] (\d+)`)

// assertGone proves that every pid the launch printed is gone.
func assertGone(t *testing.T, outputs ...string) {
	t.Helper()
	n := 0
	for _, out := range outputs {
		for _, m := range pidRE.FindAllStringSubmatch(out, -1) {
			s := m[1] + m[2] + m[3]
			pid, _ := strconv.Atoi(s)
			if pid == os.Getpid() || pid <= 0 {
				continue
			}
			n++
			if !testmur.Gone(pid) {
				t.Errorf("pid %d is still running", pid)
			}
		}
	}
	if n == 0 {
		t.Errorf("no member pid found to check in %q", outputs)
	}
}

// normalize replaces what changes from run to run.
func normalize(s string) string {
	s = regexp.MustCompile(`frm_[0-9a-f]{32}`).ReplaceAllString(s, "frm_ID")
	s = regexp.MustCompile(`ses_[0-9a-f]{32}`).ReplaceAllString(s, "ses_ID")
	s = regexp.MustCompile(`pid \d+`).ReplaceAllString(s, "pid N")
	return regexp.MustCompile(`127\.0\.0\.1:\d+`).ReplaceAllString(s, "127.0.0.1:PORT")
}
