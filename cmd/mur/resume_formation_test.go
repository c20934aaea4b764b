package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/driver/openai/fake"
)

// TestFormationResume: the crew formation (lead on the openai fake calls
// worker) answers a task; mur run --roster --resume <frm_id> with a new task
// relaunches both members, each continuing its own session: the lead's
// first request holds its old conversation, then the new task, and mur
// trace show of the new formation names each member's old session as
// resumed_from. A formation id that names nothing, and a roster whose
// members differ, are E-RUN-055 and launch nothing.
func TestFormationResume(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{Model: "gpt-test"})
	defer srv.Close()
	var mu sync.Mutex
	phase, calls := 1, 0
	var second []string // phase 2's request bodies
	srv.SetHandler(func(r fake.Request) fake.Reply {
		mu.Lock()
		defer mu.Unlock()
		if phase == 2 {
			second = append(second, string(r.Body))
			return fake.Text("second answer")
		}
		if m := regexp.MustCompile(`worker did: [a-z ]+`).Find(r.Body); m != nil {
			return fake.Text("the formation's answer: " + string(m))
		}
		calls++
		if calls == 1 {
			return fake.Calls(fake.ToolCall{Name: "call-member", Arguments: `{"member":"worker","task":"count the numbers"}`})
		}
		return fake.Text("waiting for worker")
	})
	e := crewEnv(t, func(read func(string) string, write func(string, string)) {
		lead := regexp.MustCompile(`(?m)^    kind: scripted.*\n    script: script.yaml.*\n`).ReplaceAllString(read("lead/murmur.yaml"),
			"    kind: openai\n    model: gpt-test\n    endpoint: "+srv.URL+"\n    keyless: true\n")
		write("lead/murmur.yaml", lead)
	})
	frmOf := regexp.MustCompile(`(?m)^formation: (frm_[0-9a-f]{32})$`)
	out, errOut, code := e.mur(t, "crew", "run", "--roster", ".", "--task", "count")
	old := frmOf.FindStringSubmatch(errOut)
	if code != 0 || old == nil || !strings.Contains(out, "the formation's answer: worker did: count the numbers") {
		t.Fatalf("run = %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	sessions := func(frm string) map[string]formationMemberJSON {
		t.Helper()
		show, errOut, code := e.mur(t, "", "trace", "show", frm, "--json")
		var doc formationTraceJSON
		if code != 0 || json.Unmarshal([]byte(show), &doc) != nil {
			t.Fatalf("trace show %s = %d: %s%s", frm, code, show, errOut)
		}
		m := map[string]formationMemberJSON{}
		for _, s := range doc.Members {
			m[s.Member] = s
		}
		return m
	}
	before := sessions(old[1])

	// Refused, nothing launched: no such formation; a roster with another member.
	_, errOut, code = e.mur(t, "crew", "run", "--roster", ".", "--resume", "frm_00000000000000000000000000000000", "--task", "again")
	if code == 0 || !strings.Contains(errOut, "error[E-RUN-055]: cannot resume formation frm_00000000000000000000000000000000: no member session of it is found") {
		t.Errorf("resume of an unknown formation = %d: %s", code, errOut)
	}
	data, err := os.ReadFile(filepath.Join(e.root, "crew", "roster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	roster := string(data)
	e.write(t, map[string]string{"crew/roster.yaml": strings.Replace(roster, "name: worker", "name: helper", -1)})
	_, errOut, code = e.mur(t, "crew", "run", "--roster", ".", "--resume", old[1], "--task", "again")
	if code == 0 || !strings.Contains(errOut, "error[E-RUN-055]: cannot resume formation "+old[1]+": its members were lead, worker, the roster's are helper, lead") {
		t.Errorf("resume with other members = %d: %s", code, errOut)
	}
	e.write(t, map[string]string{"crew/roster.yaml": roster})
	mu.Lock()
	phase = 2
	mu.Unlock()

	out, errOut, code = e.mur(t, "crew", "run", "--roster", ".", "--resume", old[1], "--task", "again")
	resumed := frmOf.FindStringSubmatch(errOut)
	if code != 0 || resumed == nil || !strings.Contains(out, "second answer") {
		t.Fatalf("resume = %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	mu.Lock()
	first := ""
	if len(second) > 0 {
		first = second[0]
	}
	mu.Unlock()
	task := strings.Index(first, `"count"`)
	answer := strings.Index(first, "the formation's answer: worker did: count the numbers")
	again := strings.Index(first, `"again"`)
	if task < 0 || answer < task || again < answer {
		t.Errorf("the lead's first resumed request does not hold its old task, its old answer, then the new task:\n%s", first)
	}
	after := sessions(resumed[1])
	for _, name := range []string{"lead", "worker"} {
		if got, want := after[name].Summary.ResumedFrom, before[name].Summary.SessionID; want == "" || got != want {
			t.Errorf("%s: resumed_from %q, want its old session %q", name, got, want)
		}
	}
}

// TestFormationResumeAfterKill: the launcher of the crew formation is
// killed with SIGKILL while the lead's inference, holding worker's answer,
// is out; the members end by their lifelines. mur run --roster --resume
// <frm_id> with a new task then ends status ok, and the lead's first
// request is its conversation up to the kill (the task, worker's answer),
// then the new task.
func TestFormationResumeAfterKill(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{Model: "gpt-test"})
	defer srv.Close()
	// The fake answers one request at a time: the held request is let go
	// once the formation has ended, before the resume's.
	reached, release := make(chan struct{}), make(chan struct{})
	var let sync.Once
	letGo := func() { let.Do(func() { close(release) }) }
	defer letGo()
	var mu sync.Mutex
	phase, calls := 1, 0
	var second []string
	srv.SetHandler(func(r fake.Request) fake.Reply {
		mu.Lock()
		if phase == 2 {
			second = append(second, string(r.Body))
			mu.Unlock()
			return fake.Text("second answer")
		}
		if regexp.MustCompile(`worker did: [a-z ]+`).Match(r.Body) {
			mu.Unlock()
			select {
			case <-reached:
			default:
				close(reached)
			}
			<-release
			return fake.Text("never seen")
		}
		defer mu.Unlock()
		calls++
		if calls == 1 {
			return fake.Calls(fake.ToolCall{Name: "call-member", Arguments: `{"member":"worker","task":"count the numbers"}`})
		}
		return fake.Text("waiting for worker")
	})
	e := crewEnv(t, func(read func(string) string, write func(string, string)) {
		lead := regexp.MustCompile(`(?m)^    kind: scripted.*\n    script: script.yaml.*\n`).ReplaceAllString(read("lead/murmur.yaml"),
			"    kind: openai\n    model: gpt-test\n    endpoint: "+srv.URL+"\n    keyless: true\n")
		write("lead/murmur.yaml", lead)
	})
	cmd := exec.Command(murBin, "run", "--roster", ".", "--task", "count")
	cmd.Dir = filepath.Join(e.root, "crew")
	cmd.Env = append(os.Environ(), "MURMUR_HOME="+e.home)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Minute
	if err := testmur.Start(cmd); err != nil {
		t.Fatal(err)
	}
	select {
	case <-reached:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the lead never asked with worker's answer:\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait() // returns once the entry, ended by its lifeline, closed the launcher's stderr
	frm := regexp.MustCompile(`(?m)^formation: (frm_[0-9a-f]{32})$`).FindStringSubmatch(stderr.String())
	if frm == nil {
		t.Fatalf("no formation line:\n%s", stderr.String())
	}
	ended := false
	for range 600 { // until no member of it runs
		show, _, code := e.mur(t, "", "trace", "show", frm[1], "--json")
		var doc formationTraceJSON
		if code == 0 && json.Unmarshal([]byte(show), &doc) == nil && !doc.Running {
			ended = true
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !ended {
		t.Fatalf("formation %s still running after its launcher's kill", frm[1])
	}
	mu.Lock()
	phase = 2
	mu.Unlock()
	letGo()
	out, errOut, code := e.mur(t, "crew", "run", "--roster", ".", "--resume", frm[1], "--task", "again")
	if code != 0 || !strings.HasSuffix(out, "second answer\nstatus:  ok\n") {
		t.Fatalf("resume = %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(second) == 0 {
		t.Fatal("the resumed lead made no request")
	}
	task := strings.Index(second[0], `"count"`)
	answer := strings.Index(second[0], "worker did: count the numbers")
	again := strings.Index(second[0], `"again"`)
	if task < 0 || answer < task || again < answer {
		t.Errorf("the lead's first resumed request does not hold its old task, worker's answer, then the new task:\n%s", second[0])
	}
}
