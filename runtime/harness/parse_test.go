package harness_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/harness"
)

// render is one event as a line of a golden file.
func render(e harness.Event) string {
	switch e := e.(type) {
	case harness.Completed:
		return fmt.Sprintf("Completed answer=%q usage=%s", e.Answer, usage(e.Usage))
	case harness.Failed:
		return fmt.Sprintf("Failed kind=%s message=%q usage=%s", e.Kind, e.Message, usage(e.Usage))
	case harness.QuotaReported:
		var ws []string
		for _, w := range e.Windows {
			used := "-"
			if w.Used != nil {
				used = fmt.Sprint(*w.Used)
			}
			mins := "-"
			if w.WindowMinutes != nil {
				mins = fmt.Sprint(*w.WindowMinutes)
			}
			ws = append(ws, fmt.Sprintf("%s used=%s resets=%t minutes=%s state=%s", w.Name, used, w.ResetsAt != "", mins, w.State))
		}
		return "QuotaReported " + strings.Join(ws, "; ")
	}
	return fmt.Sprintf("%T %+v", e, e)
}

func usage(u harness.Usage) string {
	f := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	return fmt.Sprintf("%s/%s/%s/%s", f(u.Input), f(u.Output), f(u.Cached), f(u.CacheWrite))
}

// TestParseCaptures is PTEST-2: each dialect's parser over the JSONL the
// real CLIs printed (captured by TestCapture): turns, tokens (codex's
// running totals), quota windows, failure kinds, session ids, and THR-4's
// lost session, which reports none.
func TestParseCaptures(t *testing.T) {
	for _, d := range []harness.Dialect{harness.Claude, harness.Codex} {
		dir := filepath.Join("testdata", d.Name+"-"+d.Tested)
		files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no captures in %s: %v", dir, err)
		}
		for _, f := range files {
			name := d.Name + "-" + strings.TrimSuffix(filepath.Base(f), ".jsonl")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				var lines []string
				for _, e := range parse(d, string(b)) {
					lines = append(lines, render(e))
				}
				golden.Check(t, "parse-"+name, strings.Join(lines, "\n")+"\n")
			})
		}
	}
}

// TestParseLines covers shapes a capture does not hold: non-JSON lines, a
// claude turn split over several lines, claude's other failure kinds and
// codex's failure messages (HEV-1, HEV-2, HEV-3, HEV-7).
func TestParseLines(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		d     harness.Dialect
		lines []string
		want  string
	}{
		{"claude one message over two lines is one turn", harness.Claude, []string{
			`not json`,
			`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"a"}]}}`,
			`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"mcp__mur__bash"}]}}`,
			`{"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"mcp__mur__call-member"}]}}`,
			`{"type":"user"}`,
		}, "harness.TurnOpened {ID:m1}|harness.ToolCalled {TurnID:m1 CallID:t1 Name:bash}|harness.TurnClosed {ID:m1}|harness.TurnOpened {ID:m2}|harness.ToolCalled {TurnID:m2 CallID:t2 Name:call-member}|harness.TurnClosed {ID:m2}"},
		{"claude 429 is quota", harness.Claude, []string{`{"type":"result","is_error":true,"api_error_status":429,"result":"rate limited"}`},
			`Failed kind=quota message="rate limited" usage=-/-/-/-`},
		{"claude 403 is auth", harness.Claude, []string{`{"type":"result","is_error":true,"api_error_status":403,"result":"forbidden"}`},
			`Failed kind=auth message="forbidden" usage=-/-/-/-`},
		{"claude max turns", harness.Claude, []string{`{"type":"result","is_error":true,"subtype":"error_max_turns","errors":["a","b"]}`},
			`Failed kind=max-turns message="a; b" usage=-/-/-/-`},
		{"claude api key", harness.Claude, []string{`{"type":"system","subtype":"init","session_id":"s","apiKeySource":"ANTHROPIC_API_KEY","mcp_servers":[{"name":"mur","status":"connected"}]}`},
			"harness.SessionReported {ID:s Auth:api-key}"},
		{"claude compact boundary", harness.Claude, []string{`{"type":"system","subtype":"compact_boundary","session_id":"s","uuid":"u","compact_metadata":{"trigger":"auto","pre_tokens":155331}}`},
			"harness.Compacted {Trigger:auto PreTokens:155331}"},
		{"claude one window", harness.Claude, []string{`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","rateLimitType":"seven_day_opus","utilization":1,"resetsAt":0}}`},
			"QuotaReported seven-day-opus used=1 resets=true minutes=10080 state=exhausted"},
		{"codex failure keeps the message", harness.Codex, []string{`{"type":"error","message":"Reconnecting... 1/5 (429 Too Many Requests)"}`, `{"type":"turn.failed","error":{"message":"exceeded retry limit, last status: 429 Too Many Requests"}}`},
			`Failed kind=quota message="exceeded retry limit, last status: 429 Too Many Requests" usage=-/-/-/-`},
		{"codex failure without a message takes the last error", harness.Codex, []string{`{"type":"error","message":"unexpected status 401 Unauthorized"}`, `{"type":"turn.failed"}`},
			`Failed kind=auth message="unexpected status 401 Unauthorized" usage=-/-/-/-`},
		{"codex notice", harness.Codex, []string{`{"type":"item.completed","item":{"id":"i","type":"error","message":"Model metadata for x not found"}}`},
			"harness.Notice {Text:Model metadata for x not found}"},
		{"codex other servers are not turns", harness.Codex, []string{`{"type":"item.started","item":{"id":"i","type":"mcp_tool_call","server":"other","tool":"x"}}`}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, e := range parse(c.d, strings.Join(c.lines, "\n")) {
				got = append(got, render(e))
			}
			if g := strings.Join(got, "|"); g != c.want {
				t.Errorf("events =\n%s\nwant\n%s", g, c.want)
			}
		})
	}
}

// TestCodexKind is HEV-7's mapping of a codex message.
func TestCodexKind(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]string{
		"unexpected status 401":               harness.FailAuth,
		"403 Forbidden":                       harness.FailAuth,
		"Unauthorized":                        harness.FailAuth,
		"You've hit your usage limit":         harness.FailQuota,
		"RATE LIMIT exceeded":                 harness.FailQuota,
		"stream disconnected before complete": harness.FailHarness,
	} {
		if got := harness.CodexKind(msg); got != want {
			t.Errorf("CodexKind(%q) = %q, want %q", msg, got, want)
		}
	}
}
