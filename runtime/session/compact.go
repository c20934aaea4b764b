package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/agent"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/hook"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// compactSystem is the built-in compactor's system prompt when the
// manifest gives none.
const compactSystem = "You condense the middle of an AI agent's working conversation so the agent can continue its task. " +
	"Write a summary that keeps every fact the agent still needs: what the task is, what it has done and found, " +
	"the files, commands, values and results it relied on, what failed, and what it was about to do next. " +
	"Be specific and brief. Answer with the summary only."

// compactKeepTurns is how many of the last turns (an assistant message and
// the tool results after it) the built-in compactor keeps whole.
const compactKeepTurns = 2

// The reasons a compaction_declined names.
const (
	declinedNoHook     = "no_hook_replacement"
	declinedUnresolved = "unresolved_tool_call"
)

// declinedLog is the logs/bootstrap.log line of each decline (murmur's).
var declinedLog = map[string]string{
	declinedNoHook:     "no hook returned replace-context",
	declinedUnresolved: "compacted result has an unresolved tool_call",
}

// compactCheck is the compaction check after a driver response, before the
// turn's tool calls run: when the conversation's size (the figures
// session-status shows) reaches inference.compaction.threshold of the input
// budget, the hook bound to on-compaction with replace-context — or the
// built-in murmur-hook-compact — replaces it. A replacement with a tool call
// or result left unmatched is declined and the turn goes on over budget;
// a compactor's error or fault ends the attempt failed, or as a spend stop
// when the spend ceiling refused its inference call.
func (t *taskRun) compactCheck(ctx context.Context, turn int) (agent.Ending, bool) {
	s := t.s
	if s.hx != nil { // the harness compacts its own conversation
		return agent.Ending{}, false
	}
	s.stats.mu.Lock()
	c := s.stats.lastContext
	s.stats.mu.Unlock()
	if c == nil || c.WindowTokens == 0 || c.BudgetTokens <= 0 {
		return agent.Ending{}, false
	}
	threshold := s.m.Inference.Compaction.Threshold
	if float64(c.UsedTokens) < threshold*float64(c.BudgetTokens) {
		return agent.Ending{}, false
	}
	return t.compactNow(ctx, turn, c, threshold)
}

// compactFirst compacts a resumed conversation before the task's first
// turn, whatever its size (mur run --resume-mode compact): the compaction
// check's replacement, measured by the estimate of the request it would
// send. ok false when the compactor's error ended the attempt.
func (t *taskRun) compactFirst(ctx context.Context) (agent.Ending, bool) {
	s := t.s
	block, d := s.choices.peek()
	req := &driver.Request{Model: block.Model, System: s.system, Messages: t.msgs, Tools: s.specs, MaxTokens: s.m.Inference.MaxTokens}
	used, err := driver.EstimateInput(d, req)
	if err != nil {
		return agent.Ending{}, true
	}
	c := &tool.ContextInfo{UsedTokens: used, BudgetTokens: used}
	if b := s.choices.options(block).InputBudget(s.m.Context.MaxTokens, int64(req.MaxTokens)); b.Has() {
		c.WindowTokens, c.BudgetTokens, c.BudgetBasis = b.Window, b.Tokens, b.Basis
	}
	e, ended := t.compactNow(ctx, 0, c, s.m.Inference.Compaction.Threshold)
	return e, !ended
}

// compactNow replaces the conversation, measured at c, with the
// compactor's (the compaction record, the record's compaction entry), or
// declines; ended when the compactor's error ended the attempt.
func (t *taskRun) compactNow(ctx context.Context, turn int, c *tool.ContextInfo, threshold float64) (agent.Ending, bool) {
	s := t.s
	name, msgs, summary, err := t.compactor(ctx, turn, c.UsedTokens, c.BudgetTokens, threshold)
	if err != nil {
		t.mu.Lock()
		stop := t.spendStop
		t.mu.Unlock()
		if stop != nil { // the compactor's call was refused by the spend ceiling
			return *stop, true
		}
		reason := "compaction hook failed: " + err.Error()
		return agent.Ending{Status: StatusFailed, Text: agent.ResultFailed(reason), Cause: "internal", Reason: reason}, true
	}
	decline := func(reason string) (agent.Ending, bool) {
		s.bootstrap(declinedLog[reason] + "\n")
		_, _ = s.tr.Write(trace.CompactionDeclined{Turn: turn, TaskID: t.id, Tokens: c.UsedTokens, Reason: reason})
		return agent.Ending{}, false
	}
	if msgs == nil {
		return decline(declinedNoHook)
	}
	if !pairedLike(msgs, t.msgs) {
		return decline(declinedUnresolved)
	}
	block, d := s.choices.peek()
	after, err := driver.EstimateInput(d, &driver.Request{Model: block.Model, System: s.system, Messages: msgs, Tools: s.specs, MaxTokens: s.m.Inference.MaxTokens})
	if err != nil {
		return decline(declinedUnresolved)
	}
	t.from = indexOf(msgs, t.msgs, t.from)
	t.recordCompaction(msgs)
	t.msgs = msgs
	source := "estimate"
	if c.Actual {
		source = "actual"
	}
	_, _ = s.tr.Write(trace.Compaction{Turn: turn, TaskID: t.id, HookName: name, TokensBefore: c.UsedTokens, TokensBeforeSource: source, TokensAfter: after})
	s.stats.mu.Lock()
	nc := *c
	nc.UsedTokens, nc.Actual = after, false
	s.stats.lastContext = &nc
	s.stats.mu.Unlock()
	if s.m.Inference.Compaction.DumpSummaries && summary != "" {
		s.dumpSummary(turn, c.UsedTokens, after, summary)
	}
	return agent.Ending{}, false
}

// compactor asks the hooks bound to on-compaction in manifest order, then
// the built-in compactor when declared. msgs nil: none replaced.
func (t *taskRun) compactor(ctx context.Context, turn int, tokens, budget int64, threshold float64) (name string, msgs []driver.Message, summary string, err error) {
	s := t.s
	if s.hooks.Gates(hook.OnCompaction) {
		ev := map[string]any{"turn": turn, "task_id": t.id, "tokens": tokens, "budget_tokens": budget, "threshold": threshold, "messages": t.msgs}
		n, a, ok, err := s.hooks.Replace(ctx, ev)
		if err != nil {
			return n, nil, "", err
		}
		if ok {
			var got []driver.Message
			if json.Unmarshal(a.Value, &got) != nil || len(got) == 0 {
				return n, nil, "", fmt.Errorf("%s: the hook answered replace-context without messages", n)
			}
			for i := range got {
				if got[i].ID == "" {
					got[i].ID = a2a.NewID(a2a.PrefixMessage)
				}
			}
			return n, got, "", nil
		}
	}
	if !s.m.CompactHook() {
		return "", nil, "", nil
	}
	msgs, summary, err = t.builtinCompact(ctx, turn, budget)
	return manifest.HookCompact, msgs, summary, err
}

// builtinCompact is murmur-hook-compact: the task (the messages before the
// first reply) and the last compactKeepTurns turns kept whole, the turns
// between summarised by one inference call on the primary choice (SWD-2),
// with inference.compaction.model when set, under
// inference.compaction.system_prompt.
// msgs nil: nothing lies between to summarise.
func (t *taskRun) builtinCompact(ctx context.Context, turn int, budget int64) ([]driver.Message, string, error) {
	s := t.s
	head := 0
	for head < len(t.msgs) && t.msgs[head].Role != driver.RoleAssistant {
		head++
	}
	tail, seen := len(t.msgs), 0
	for i := len(t.msgs) - 1; i >= head && seen < compactKeepTurns; i-- {
		if t.msgs[i].Role == driver.RoleAssistant {
			tail, seen = i, seen+1
		}
	}
	if head == 0 || tail <= head {
		return nil, "", nil
	}
	cc := s.m.Inference.Compaction
	system := s.l.CompactionPrompt
	if system == "" {
		system = compactSystem
	}
	prompt := renderForSummary(t.msgs[head:tail], 3*budget)
	block, d := s.choices.primary()
	model := block.Model
	if cc.Model != "" {
		model = cc.Model
	}
	req := &driver.Request{Model: model, System: system, MaxTokens: s.m.Inference.MaxTokens,
		Messages: []driver.Message{{ID: a2a.NewID(a2a.PrefixMessage), Role: driver.RoleUser, Blocks: []driver.Block{driver.TextBlock(prompt)}}}}
	if e, refused := t.admit(d, req, turn); refused {
		t.mu.Lock()
		t.spendStop = &e
		t.mu.Unlock()
		return nil, "", errors.New(e.Text)
	}
	start := time.Now()
	resp, err := d.Complete(ctx, req)
	if err != nil {
		return nil, "", errors.New(driver.Reason(err))
	}
	t.recordInference(turn, block.Name, req, resp, s.choices.options(block), time.Since(start), "hook:"+manifest.HookCompact)
	summary := strings.TrimSpace(resp.Text())
	if summary == "" {
		return nil, "", errors.New("the summary call answered no text")
	}
	out := make([]driver.Message, 0, head+len(t.msgs)-tail)
	out = append(out, t.msgs[:head-1]...)
	last := t.msgs[head-1]
	blocks := append(append([]driver.Block(nil), last.Blocks...), driver.TextBlock(compactNote(tail-head, summary)))
	out = append(out, driver.Message{ID: last.ID, Role: last.Role, Blocks: blocks})
	out = append(out, t.msgs[tail:]...)
	return out, summary, nil
}

// compactNote is the text the model reads in place of the messages compacted.
func compactNote(n int, summary string) string {
	return fmt.Sprintf("[Compacted: %d earlier messages of this task were replaced by this summary]\n%s", n, summary)
}

// renderForSummary writes msgs as text for the summary call, at most max
// bytes: the latest part kept when longer.
func renderForSummary(msgs []driver.Message, max int64) string {
	var b strings.Builder
	for _, m := range msgs {
		for _, bl := range m.Blocks {
			switch bl.Type {
			case driver.BlockText:
				fmt.Fprintf(&b, "%s: %s\n", m.Role, bl.Text)
			case driver.BlockToolUse:
				fmt.Fprintf(&b, "%s called %s %s\n", m.Role, bl.Name, bl.Input)
			case driver.BlockToolResult:
				fmt.Fprintf(&b, "tool result: %s\n", bl.Content)
			}
		}
	}
	text := b.String()
	if max > 0 && int64(len(text)) > max {
		text = "…" + text[int64(len(text))-max:]
	}
	return "Summarise this part of the conversation:\n\n" + text
}

// pairedLike reports whether every tool result in msgs follows its call
// and every call has its result, except the calls the original leaves
// open (the turn's own, whose tools run next).
func pairedLike(msgs, original []driver.Message) bool {
	open := func(ms []driver.Message) (map[string]bool, bool) {
		calls := map[string]bool{}
		for _, m := range ms {
			for _, b := range m.Blocks {
				switch b.Type {
				case driver.BlockToolUse:
					calls[b.ID] = true
				case driver.BlockToolResult:
					if !calls[b.ToolUseID] {
						return nil, false
					}
					delete(calls, b.ToolUseID)
				}
			}
		}
		return calls, true
	}
	got, ok := open(msgs)
	if !ok {
		return false
	}
	want, _ := open(original)
	if len(got) != len(want) {
		return false
	}
	for id := range got {
		if !want[id] {
			return false
		}
	}
	return true
}

// dumpSummary appends one line to out/compaction-summaries.jsonl.
func (s *Session) dumpSummary(turn int, before, after int64, summary string) {
	line, _ := json.Marshal(struct {
		Turn         int    `json:"turn"`
		TokensBefore int64  `json:"tokens_before"`
		TokensAfter  int64  `json:"tokens_after"`
		Summary      string `json:"summary"`
	}{turn, before, after, summary})
	path := filepath.Join(s.recordsDir, "out", "compaction-summaries.jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		s.bootstrap(fmt.Sprintf("out/compaction-summaries.jsonl could not be written: %v\n", err))
		return
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		s.bootstrap(fmt.Sprintf("out/compaction-summaries.jsonl could not be written: %v\n", err))
	}
}

// indexOf is where the message at old[from] stands in msgs (matched by id),
// 0 when the replacement dropped it.
func indexOf(msgs, old []driver.Message, from int) int {
	if from <= 0 || from >= len(old) {
		return 0
	}
	for i, m := range msgs {
		if m.ID == old[from].ID {
			return i
		}
	}
	return 0
}
