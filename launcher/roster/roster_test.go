package roster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/diag"
)

// fakeStore is a Resolver over a map of "capsule@version" → result.
type fakeStore struct {
	installed map[string]Installed
	errs      map[string]error
	pins      map[string]Pin
	pinErr    error
	resolved  []string // capsule@version in the order Resolve was asked
	// advice answers Advise: capsule → installed versions and the command.
	advice map[string]advice
}

type advice struct {
	installed []string
	install   string
}

func (s *fakeStore) Advise(capsule, version string) ([]string, string) {
	a := s.advice[capsule]
	return a.installed, a.install
}

func (s *fakeStore) Resolve(capsule, version string) (Installed, error) {
	k := capsule + "@" + version
	s.resolved = append(s.resolved, k)
	if err, ok := s.errs[k]; ok {
		return Installed{}, err
	}
	if in, ok := s.installed[k]; ok {
		return in, nil
	}
	return Installed{}, ErrNotInstalled
}

func (s *fakeStore) Pin(capsule string) (Pin, bool, error) {
	if s.pinErr != nil {
		return Pin{}, false, s.pinErr
	}
	p, ok := s.pins[capsule]
	return p, ok, nil
}

var (
	authQueue  = Facts{Acceptance: "queue", QueueDepth: 1, PeerTasks: true, Authenticated: true}
	authSingle = Facts{Acceptance: "single", QueueDepth: 1, PeerTasks: true, Authenticated: true}
)

func hash(c byte) string { return strings.Repeat(string(c), 64) }

func store() *fakeStore {
	return &fakeStore{installed: map[string]Installed{
		"planner@0.3.0":  {TreeDir: "/s/planner", SHA256: hash('a'), Facts: Facts{Acceptance: "single", QueueDepth: 1, Authenticated: true}},
		"coder@1.2.0":    {TreeDir: "/s/coder", SHA256: hash('b'), Facts: authQueue},
		"reviewer@0.9.0": {TreeDir: "/s/reviewer", SHA256: hash('c'), Facts: authSingle},
	}}
}

const s1 = `roster_version: 1
members:
  - name: planner
    capsule: planner
    version: 0.3.0
    entry: true
  - name: coder
    capsule: coder
    version: 1.2.0
  - name: reviewer
    capsule: reviewer
    version: 0.9.0
reachability:
  - from: planner
    to: [coder, reviewer]
  - from: reviewer
    to: [coder]
`

func writeRoster(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, FileName)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAdmitS1(t *testing.T) {
	t.Parallel()
	path := writeRoster(t, s1)
	f, warns, err := Admit(path, store())
	if err != nil {
		t.Fatalf("Admit = %v", err)
	}
	if f.Roster.Path != path || f.Roster.Dir != filepath.Dir(path) {
		t.Errorf("path, dir = %q, %q", f.Roster.Path, f.Roster.Dir)
	}
	var got []string
	for _, e := range f.Edges {
		got = append(got, e.From+"→"+e.To)
	}
	if want := "planner→coder planner→reviewer reviewer→coder"; strings.Join(got, " ") != want {
		t.Errorf("edges = %v, want %s", got, want)
	}
	if c := f.Members[0].Callees; strings.Join(c, ",") != "coder,reviewer" {
		t.Errorf("planner callees = %v", c)
	}
	if f.Entry().Name != "planner" || len(f.Peers()) != 2 || f.Members[1].SHA256 != hash('b') {
		t.Errorf("entry/peers/hash wrong: %+v", f.Members)
	}
	// ADM-2: coder has two callers and holds queue_depth 1 + 1 = 2: no warning.
	if len(warns) != 0 {
		t.Errorf("warnings = %v", warns)
	}
}

// TestAdmitCodes pins every admission code with its exact message and hint
// (ADM-1, formations.md §15): shape faults at roster.yaml:<line>:<col>, an
// unknown key with its did-you-mean, hints that never repeat the message.
func TestAdmitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		roster string
		store  func(*fakeStore)
	}{
		{"ROS-2 unknown top-level key", strings.Replace(s1, "reachability:", "reachabilty:", 1), nil},
		{"ROS-2 unknown member key", strings.Replace(s1, "version: 1.2.0", "version: 1.2.0\n    sha: abc", 1), nil},
		{"ROS-2 misspelt member key", strings.Replace(s1, "version: 1.2.0", "versoin: 1.2.0", 1), nil},
		{"ROS-2 duplicate key", strings.Replace(s1, "version: 1.2.0", "version: 1.2.0\n    capsule: coder", 1), nil},
		{"ROS-2 members not a list", strings.Replace(s1, s1[strings.Index(s1, "members:"):strings.Index(s1, "reachability:")], "members: planner\n", 1), nil},
		{"ROS-2 YAML syntax", strings.Replace(s1, "to: [coder]", "to: [coder", 1), nil},
		{"ROS-2 unknown rule key", strings.Replace(s1, "  - from: reviewer", "  - from: reviewer\n    via: x", 1), nil},
		{"ROS-2 reserved version", strings.Replace(s1, "version: 1.2.0", "version: latest", 1), nil},
		{"ROS-2 bad name", strings.Replace(s1, "name: planner", "name: Planner", 1), nil},
		{"ROS-2 roster_version", strings.Replace(s1, "roster_version: 1", "roster_version: 2", 1), nil},
		{"ROS-2 to lists from", strings.Replace(s1, "to: [coder]", "to: [reviewer]", 1), nil},
		{"ROS-2 reachability string", strings.Replace(s1, s1[strings.Index(s1, "reachability:"):], "reachability: some\n", 1), nil},
		{"ROS-2 empty to", strings.Replace(s1, "to: [coder]", "to: []", 1), nil},
		{"ROS-2 missing capsule", strings.Replace(s1, "    capsule: coder\n", "", 1), nil},
		{"ADM-1 check 2", strings.Replace(s1, "name: reviewer", "name: coder", 1), nil},
		{"ADM-1 check 3 none", strings.Replace(s1, "    entry: true\n", "", 1), nil},
		{"ADM-1 check 3 many", strings.Replace(s1, "version: 1.2.0", "version: 1.2.0\n    entry: true", 1), nil},
		{"ADM-1 check 4", strings.Replace(s1, "to: [coder]", "to: [tester]", 1), nil},
		{"ADM-1 check 5", strings.Replace(s1, "to: [coder]", "to: [coder, planner]", 1), nil},
		{"ADM-1 check 6a not installed", s1, func(s *fakeStore) { delete(s.installed, "coder@1.2.0") }},
		{"ADM-1 check 6a not installed, others installed", s1, func(s *fakeStore) {
			delete(s.installed, "coder@1.2.0")
			s.advice = map[string]advice{"coder": {installed: []string{"1.1.0 (global store)", "1.3.0 (project store)"}}}
		}},
		{"ADM-1 check 6a every member not installed", s1, func(s *fakeStore) {
			delete(s.installed, "coder@1.2.0")
			delete(s.installed, "reviewer@0.9.0")
			s.errs = map[string]error{"planner@0.3.0": ErrNotInstalled}
			s.advice = map[string]advice{
				"planner":  {install: "mur install planner"},
				"coder":    {installed: []string{"1.1.0 (global store)"}},
				"reviewer": {install: "mur install -g 'my dir/reviewer'"},
			}
		}},
		{"ADM-1 check 6a two not installed, then a hash mismatch", s1, func(s *fakeStore) {
			delete(s.installed, "planner@0.3.0")
			delete(s.installed, "coder@1.2.0")
			s.errs = map[string]error{"reviewer@0.9.0": ErrHashMismatch}
			s.advice = map[string]advice{"planner": {install: "mur install planner"}, "coder": {install: "mur install coder"}}
		}},
		{"ADM-1 check 6a hash", s1, func(s *fakeStore) { s.errs = map[string]error{"coder@1.2.0": ErrHashMismatch} }},
		{"ADM-1 check 6a unreadable", s1, func(s *fakeStore) {
			s.errs = map[string]error{"coder@1.2.0": &UnreadableError{Why: "murmur.yaml:3:1: did not find expected key"}}
		}},
		{"ADM-1 check 6b", s1, func(s *fakeStore) { s.pins = map[string]Pin{"coder": {Version: "1.1.0", SHA256: hash('d')}} }},
		{"ADM-1 check 7", s1, func(s *fakeStore) {
			in := s.installed["reviewer@0.9.0"]
			in.Facts.PeerTasks = false
			s.installed["reviewer@0.9.0"] = in
		}},
		{"ADM-1 check 8", s1, func(s *fakeStore) {
			in := s.installed["coder@1.2.0"]
			in.Facts.Authenticated = false
			s.installed["coder@1.2.0"] = in
		}},
	}
	var b strings.Builder
	for _, tt := range tests {
		s := store()
		if tt.store != nil {
			tt.store(s)
		}
		f, _, err := Admit(writeRoster(t, tt.roster), s)
		d, ok := diag.As(err)
		if !ok || f != nil {
			t.Fatalf("%s: Admit = %v, %v; want a diagnostic", tt.name, f, err)
		}
		fmt.Fprintf(&b, "== %s\n%s", tt.name, d.Render())
	}
	golden.Check(t, "admit-codes", b.String())
}

// TestAdmitOrder checks ADM-1's order: checks 1–5 read no store, and check 6
// takes each member through 6a and 6b before the next.
func TestAdmitOrder(t *testing.T) {
	t.Parallel()
	s := store()
	bad := strings.Replace(s1, "to: [coder]", "to: [tester]", 1)
	if _, _, err := Admit(writeRoster(t, bad), s); !diag.Is(err, diag.EROS004) {
		t.Fatalf("Admit = %v, want E-ROS-004", err)
	}
	if len(s.resolved) != 0 {
		t.Errorf("checks 1–5 resolved %v", s.resolved)
	}
	// planner is pinned wrong and coder is missing: 6b of planner comes first.
	s = store()
	delete(s.installed, "coder@1.2.0")
	s.pins = map[string]Pin{"planner": {Version: "0.3.0", SHA256: hash('e')}}
	if _, _, err := Admit(writeRoster(t, s1), s); !diag.Is(err, diag.EREG005) {
		t.Fatalf("Admit = %v, want E-REG-005", err)
	}
	if strings.Join(s.resolved, ",") != "planner@0.3.0" {
		t.Errorf("resolved = %v, want planner only", s.resolved)
	}
	// A pin that agrees admits.
	s = store()
	s.pins = map[string]Pin{"coder": {Version: "1.2.0", SHA256: hash('b')}}
	if _, _, err := Admit(writeRoster(t, s1), s); err != nil {
		t.Errorf("Admit with an agreeing pin = %v", err)
	}
}

func TestReachabilityAll(t *testing.T) {
	t.Parallel()
	ros := strings.Replace(s1, s1[strings.Index(s1, "reachability:"):], "reachability: all\n", 1)
	s := store()
	// planner (entry) does not serve peers: it gets no edges in or out.
	f, _, err := Admit(writeRoster(t, ros), s)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range f.Edges {
		got = append(got, e.From+"→"+e.To)
	}
	if want := "coder→reviewer reviewer→coder"; strings.Join(got, " ") != want {
		t.Errorf("all = %v, want %s", got, want)
	}
	// The entry serving peers calls everyone and is called by no one (ROS-4).
	in := s.installed["planner@0.3.0"]
	in.Facts.PeerTasks = true
	s.installed["planner@0.3.0"] = in
	f, _, err = Admit(writeRoster(t, ros), s)
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, e := range f.Edges {
		got = append(got, e.From+"→"+e.To)
	}
	if want := "planner→coder planner→reviewer coder→reviewer reviewer→coder"; strings.Join(got, " ") != want {
		t.Errorf("all = %v, want %s", got, want)
	}
	// all pairing nobody has no edges, so no authentication is needed (ROS-6).
	for k, in := range s.installed {
		in.Facts = Facts{Acceptance: "single", QueueDepth: 1}
		s.installed[k] = in
	}
	if f, _, err = Admit(writeRoster(t, ros), s); err != nil || len(f.Edges) != 0 {
		t.Errorf("Admit = %v, %v edges", err, len(f.Edges))
	}
}

// TestCapacityWarning pins W-ROS-001's text (ADM-2).
func TestCapacityWarning(t *testing.T) {
	t.Parallel()
	s := store()
	in := s.installed["coder@1.2.0"]
	in.Facts = authSingle
	s.installed["coder@1.2.0"] = in
	f, warns, err := Admit(writeRoster(t, s1), s)
	if err != nil || f == nil {
		t.Fatal(err)
	}
	if len(warns) != 1 {
		t.Fatalf("warnings = %v", warns)
	}
	want := "warning[W-ROS-001]: roster.yaml lets 2 members call 'coder' (planner, reviewer), but it holds 1 task(s) at once — task_acceptance: single — so a call that arrives while it is full is rejected; lifecycle.queue_depth: 1 would hold them all\n"
	if got := warns[0].Render(); got != want {
		t.Errorf("W-ROS-001 =\n%q\nwant\n%q", got, want)
	}
	if warns[0].Hint != "set lifecycle.task_acceptance: queue and lifecycle.queue_depth: 1 in the murmur.yaml of member 'coder'" {
		t.Errorf("hint = %q", warns[0].Hint)
	}
}

// TestLocate covers ROS-1's --roster forms.
func TestLocate(t *testing.T) {
	t.Parallel()
	p := writeRoster(t, s1)
	dir := filepath.Dir(p)
	for _, arg := range []string{"", ".", dir, p, "roster.yaml"} {
		got, err := Locate(dir, arg)
		if err != nil || got != p {
			t.Errorf("Locate(%q) = %q, %v; want %q", arg, got, err, p)
		}
	}
	other := filepath.Join(dir, "other.yaml")
	if err := os.WriteFile(other, []byte(s1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Locate(dir, "other.yaml")
	want := "error[E-ROS-001]: roster.yaml: 'other.yaml' is not a roster.yaml: --roster takes the project directory or the roster.yaml in it\n  hint: rename other.yaml to roster.yaml and give --roster its directory\n"
	if d, ok := diag.As(err); !ok || d.Render() != want {
		t.Errorf("Locate(other.yaml) = %v, want %q", err, want)
	}
	_, err = Locate(dir, "crwe") // a misspelt project directory: missing, not the wrong file
	want = "error[E-ROS-001]: roster.yaml: " + filepath.Join(dir, "crwe") + ": no such file or directory\n  hint: give --roster the project directory holding roster.yaml, or scaffold one with mur new --roster <name>\n"
	if d, ok := diag.As(err); !ok || d.Render() != want {
		t.Errorf("Locate(crwe) = %v, want %q", err, want)
	}
	empty := t.TempDir()
	_, err = Locate(empty, "")
	want = "error[E-ROS-001]: roster.yaml: " + filepath.Join(empty, FileName) + ": no such file or directory\n  hint: give --roster the project directory holding roster.yaml, or scaffold one with mur new --roster <name>\n"
	if d, ok := diag.As(err); !ok || d.Render() != want {
		t.Errorf("Locate(empty dir) = %v, want %q", err, want)
	}
}

// TestLoadShape covers ROS-3 (a key with no value is absent) and ROS-2's
// unquoted-number versions.
func TestLoadShape(t *testing.T) {
	t.Parallel()
	text := "roster_version: 1\nmembers:\n  - name: a\n    capsule: a\n    version: 1.10\n    entry: true\n  - name: b\n    capsule: b\n    version: 2\n    entry:\nreachability:\n"
	r, err := Load(writeRoster(t, text))
	if err != nil {
		t.Fatal(err)
	}
	if r.Members[0].Version != "1.10" || r.Members[1].Version != "2" || r.Members[1].Entry || r.All || len(r.Rules) != 0 {
		t.Errorf("Load = %+v", r)
	}
	var b strings.Builder
	for _, text := range []string{
		"",
		"roster_version: 1\nmembers: []\n",
		"roster_version: 1\nmembers:\n  - name: a\n    capsule: a\n    version: ' '\n",
		"roster_version: 1\nmembers:\n  - name: a\n    capsule: A\n    version: '1'\n",
		"roster_version: 1\nmembers:\n  - name: a\n    capsule: a\n    version: '1'\n    entry: yes\n",
		"roster_version: 1\nmembers:\n  - name: a\n    capsule: a\n",
		"roster_version: 1\nroster_version: 1\n",
		"roster_version: [1\n",
		"roster_version: 1\n---\nroster_version: 1\n",
		"- roster_version\n",
		"roster_version: '1'\n",
		"roster_version: 1\nmembers:\n  - name: a\n    capsule: a\n    version: '1'\nreachability:\n  - from: a\n",
	} {
		_, err := Load(writeRoster(t, text))
		d, ok := diag.As(err)
		if !ok || d.Code != diag.EROS001 {
			t.Fatalf("Load(%q) = %v, want E-ROS-001", text, err)
		}
		fmt.Fprintf(&b, "== %q\n%s", text, d.Render())
	}
	golden.Check(t, "load-shape", b.String())
}

// TestLoadCancel is the roster's cancel option: off when
// absent or empty, off and cascade as written, anything else E-ROS-001 at
// its line and column.
func TestLoadCancel(t *testing.T) {
	t.Parallel()
	base := "roster_version: 1\nmembers:\n  - name: a\n    capsule: a\n    version: '1'\n    entry: true\n"
	for text, want := range map[string]string{base: CancelOff, base + "cancel:\n": CancelOff,
		base + "cancel: off\n": CancelOff, base + "cancel: cascade\n": CancelCascade} {
		r, err := Load(writeRoster(t, text))
		if err != nil || r.Cancel != want {
			t.Errorf("Load(%q) = %+v, %v; want cancel %s", text, r, err, want)
		}
	}
	var b strings.Builder
	for _, text := range []string{base + "cancel: always\n", base + "cancel: [cascade]\n", base + "cancel: true\n", base + "cancels: cascade\n"} {
		_, err := Load(writeRoster(t, text))
		d, ok := diag.As(err)
		if !ok || d.Code != diag.EROS001 {
			t.Fatalf("Load(%q) = %v, want E-ROS-001", text, err)
		}
		fmt.Fprintf(&b, "== %q\n%s", text, d.Render())
	}
	golden.Check(t, "load-cancel", b.String())
}
