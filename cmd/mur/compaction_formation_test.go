package main

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/murmur-go/mur/runtime/driver/openai/fake"
)

// TestFormationMemberCompactsWithCallOut: the entry member of the crew
// formation, on the openai fake with the built-in compactor, hands the
// task to worker with call-member and, with that call out, runs turns
// whose tool outputs overflow its window: it compacts, the call's answer is
// still delivered in the next round, and the formation's answer carries it;
// mur trace show of the formation lists the lead's compactions.
func TestFormationMemberCompactsWithCallOut(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{Model: "gpt-test", ContextWindow: 16000})
	defer srv.Close()
	var mu sync.Mutex
	agent := 0
	srv.SetHandler(func(r fake.Request) fake.Reply {
		mu.Lock()
		defer mu.Unlock()
		if len(r.Decoded.Tools) == 0 {
			return fake.Text("the lead handed the task to worker and has listed numbers since")
		}
		agent++
		switch {
		case agent == 1:
			return fake.Calls(fake.ToolCall{Name: "call-member", Arguments: `{"member":"worker","task":"count the numbers"}`})
		case agent <= 9:
			return fake.Calls(fake.ToolCall{Name: "bash", Arguments: fmt.Sprintf(`{"command":"seq %d %d"}`, agent, agent+1900)})
		case agent == 10:
			return fake.Text("worker has the task; waiting for its answer.")
		}
		if m := regexp.MustCompile(`worker did: [a-z ]+`).Find(r.Body); m != nil {
			return fake.Text("the formation's answer: " + string(m))
		}
		return fake.Text("no answer from worker reached the lead")
	})
	e := crewEnv(t, func(read func(string) string, write func(string, string)) {
		lead := read("lead/murmur.yaml")
		lead = strings.Replace(lead, "inference:", "context:\n  max_tokens: 16000\nartifacts:\n  - {name: murmur-hook-compact, version: 1.0.0, runtime: hook}\n"+
			"inference:\n  max_tokens: 1024\n  max_turns: 40\n  compaction: {threshold: 0.8}", 1)
		lead = regexp.MustCompile(`(?m)^    kind: scripted.*\n    script: script.yaml.*\n`).ReplaceAllString(lead,
			"    kind: openai\n    model: gpt-test\n    endpoint: "+srv.URL+"\n    keyless: true\n")
		lead = strings.Replace(lead, "capabilities:", "capabilities:\n  shell:\n    allow: [bash]", 1)
		write("lead/murmur.yaml", lead)
	})
	out, errOut, code := e.mur(t, "crew", "run", "--roster", ".", "--task", "count")
	frm := regexp.MustCompile(`(?m)^formation: (frm_[0-9a-f]{32})$`).FindStringSubmatch(errOut)
	if code != 0 || frm == nil || !strings.Contains(out, "the formation's answer: worker did: count the numbers") {
		t.Fatalf("run = %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if f := srv.Failures(); len(f) > 0 {
		t.Errorf("bad requests: %v", f)
	}
	show, errOut, code := e.mur(t, "", "trace", "show", frm[1])
	if code != 0 {
		t.Fatalf("trace show %s = %d: %s", frm[1], code, errOut)
	}
	// The lead's lines: the call taken, then a compaction, then its answer
	// delivered.
	taken := regexp.MustCompile(`lead    → worker  call mcl_[0-9a-f]+: taken`).FindStringIndex(show)
	compacted := regexp.MustCompile(`lead    turn \d+: compaction  murmur-hook-compact  [\d,]+ → [\d,]+ tokens\n`).FindStringIndex(show)
	answered := regexp.MustCompile(`lead    ← worker  call mcl_[0-9a-f]+: completed`).FindStringIndex(show)
	if taken == nil || compacted == nil || answered == nil || taken[0] > compacted[0] || compacted[0] > answered[0] ||
		!regexp.MustCompile(`lead    turn \d+: hook:murmur-hook-compact call end_turn\n`).MatchString(show) {
		t.Errorf("trace show %s: want the lead's call taken, a compaction, then the answer, and the summary call as the hook's:\n%s", frm[1], show)
	}
}
