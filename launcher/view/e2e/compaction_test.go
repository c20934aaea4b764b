package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/murmur-go/mur/runtime/driver/openai/fake"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

// TestViewMarksCompaction runs a long task that compacts (the openai fake
// in a 16000-token window, the built-in compactor) with the real mur, opens
// mur view of the ended session in headless Chromium, and checks that the
// task's timeline marks each compaction at its turn, naming the hook and
// the sizes the record holds.
func TestViewMarksCompaction(t *testing.T) {
	t.Parallel()
	srv := fake.New(fake.Config{APIKey: "sk-test", Model: "gpt-test", ContextWindow: 16000})
	defer srv.Close()
	var mu sync.Mutex
	agent := 0
	srv.SetHandler(func(r fake.Request) fake.Reply {
		mu.Lock()
		defer mu.Unlock()
		if len(r.Decoded.Tools) == 0 {
			return fake.Text("the agent has listed numbers; keep going")
		}
		if agent++; agent > 12 {
			return fake.Text("counted to the end")
		}
		return fake.Calls(fake.ToolCall{Name: "bash", Arguments: fmt.Sprintf(`{"command":"seq %d %d"}`, agent, agent+1900)})
	})
	p := newProject(t)
	for name, body := range map[string]string{
		"murmur.yaml": "name: long\nversion: \"1.0.0\"\ncontext:\n  max_tokens: 16000\nartifacts:\n  - {name: murmur-hook-compact, version: 1.0.0, runtime: hook}\n" +
			"inference:\n  max_tokens: 1024\n  max_turns: 20\n  compaction: {threshold: 0.8}\n  driver:\n    kind: openai\n    model: gpt-test\n    endpoint: " + srv.URL +
			"\n    api_key: ${TEST_OPENAI_KEY}\ncapabilities:\n  shell:\n    allow: [bash]\n",
		".env": "TEST_OPENAI_KEY=sk-test\n",
	} {
		if err := os.WriteFile(filepath.Join(p.dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := p.mur(t, "run", "--json", "--task", "list numbers")
	var ready readiness
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &ready); err != nil {
		t.Fatalf("readiness line of %q: %v", out, err)
	}
	cs := tracetest.OfType[trace.Compaction](t, tracetest.Records(t, ready.RecordsDir))
	if len(cs) == 0 {
		t.Fatal("the task did not compact")
	}
	task := cs[0].TaskID

	view, vl := p.view(t, ready.SessionID)
	tab := browser(t, 2*time.Minute)
	if err := chromedp.Do(tab, chromedp.Navigate(vl.URL)); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	poll(t, tab, `!!document.querySelector('button.task[data-task="`+task+`"]')`, "the task's button")
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(`button.task[data-task="`+task+`"]`))); err != nil {
		t.Fatalf("click the task: %v", err)
	}
	poll(t, tab, `document.querySelectorAll('#timeline li[data-kind="compaction"]').length === `+fmt.Sprint(len(cs)), "the timeline to mark every compaction")
	marks := eval[[]string](t, tab, `[...document.querySelectorAll('#timeline li[data-kind="compaction"]')].map((li) => [".title", ".chip", ".detail"].map((c) => li.querySelector(c).textContent).join(" | "))`)
	for i, c := range cs {
		want := fmt.Sprintf("turn %d · compaction (murmur-hook-compact) | compacted | %d → %d tokens (%s count before)", c.Turn, c.TokensBefore, c.TokensAfter, c.TokensBeforeSource)
		if marks[i] != want {
			t.Errorf("compaction mark %d = %q, want %q", i, marks[i], want)
		}
	}
	eval[chromedp.Void](t, tab, `document.querySelector('#timeline li[data-kind="compaction"]').scrollIntoView({block: "center"})`)
	screenshot(t, tab, "view-compaction.png")
	if code := view.stop(t); code != 0 {
		t.Errorf("mur view exit = %d after SIGTERM, want 0\n%s", code, view.stderr.String())
	}
}
