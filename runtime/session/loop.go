package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/agent"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/peerplane"
	"github.com/murmur-go/mur/runtime/telemetry"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// sha is the lowercase hex sha256 of s (TRACE-5).
func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// httpTransport is the agent loop's Transport over an HTTP driver: a step
// is one turn (LOOP-7), and a reopen's message is already the last of the
// conversation (reprompt), so Begin and Resume have nothing to do.
type httpTransport struct{ t *taskRun }

func (httpTransport) Resume(context.Context) (agent.Ending, bool) { return agent.Ending{}, true }

// Begin compacts a resumed conversation under --resume-mode compact, then
// makes the call a restored task was waiting on (resumeWaiting), if any, as
// its turn would have gone on: ok false when either ended the task.
func (h httpTransport) Begin(ctx context.Context) (agent.Ending, bool) {
	t := h.t
	if t.compactResumed {
		t.compactResumed = false
		if e, ok := t.compactFirst(ctx); !ok {
			return e, false
		}
	}
	if len(t.pending) == 0 {
		return agent.Ending{}, true
	}
	uses := t.pending
	t.pending = nil
	t.runTools(ctx, uses)
	e, ended := t.afterTools()
	return e, !ended
}

// Step runs one turn.
func (h httpTransport) Step(ctx context.Context) agent.Step {
	e, answered, ended := h.t.turn(ctx)
	return agent.Step{Answered: answered, Ended: ended, Ending: e}
}

// turn runs one turn under its span (OTEL-5): the inference call, then
// the tools it asked for. answered is true when the model answered with no
// tool call (e is then that attempt's ending); ended when the attempt ended.
func (t *taskRun) turn(ctx context.Context) (e agent.Ending, answered, ended bool) {
	maxTurns := t.s.m.Inference.MaxTurns
	ctx, span := telemetry.StartTurn(ctx, t.s.tracer, t.turns)
	defer span.End()
	turn := t.turns
	resp, e, ok := t.infer(ctx)
	if !ok {
		return e, false, true
	}
	t.msgs = append(t.msgs, driver.Message{ID: a2a.NewID(a2a.PrefixMessage), Role: driver.RoleAssistant, Blocks: resp.Blocks})
	if uses := resp.ToolUses(); len(uses) > 0 {
		if t.turns >= maxTurns { // LOOP-8: the last allowed call's tools are not run
			return agent.Ending{Status: StatusMaxTurns, Text: agent.ResultMaxTurns(maxTurns)}, false, true
		}
		if e, ended := t.compactCheck(ctx, turn); ended {
			return e, false, true
		}
		if text := resp.Text(); text != "" {
			t.s.reg.Frame(a2a.FrameText, a2a.TextFrame{ID: a2a.TaskID(t.id), Text: text})
		}
		t.runTools(ctx, uses)
		e, ended := t.afterTools()
		return e, false, ended
	}
	answer := resp.Text()
	e = agent.Ending{Status: StatusOK, Text: answer, Answer: answer}
	if resp.StopReason == driver.StopMaxTokens {
		e.Text, e.MaxTokens = agent.ResultMaxTokens(answer, t.s.m.Inference.MaxTokens), true
	}
	return e, true, false
}

// afterTools is how a turn goes on once its tools ran: ended when a cancel,
// a failed call (INP-7: no further inference call) or no_answer (EWA-4)
// ended the attempt.
func (t *taskRun) afterTools() (agent.Ending, bool) {
	if e, ok := t.canceled(); ok {
		return e, true
	}
	if f, ok := t.state.Failed(); ok {
		return agent.Ending{Status: StatusFailed, Text: agent.ResultFailed(f.Reason), Cause: f.Cause, Reason: f.Reason, StatusText: f.Status}, true
	}
	if reason, ok := t.state.NoAnswer(); ok {
		return agent.Ending{Status: StatusNoAnswer, Text: agent.ResultNoAnswer(reason), Reason: reason}, true
	}
	return agent.Ending{}, false
}

// infer makes one turn's driver call (LOOP-7): spend admission (LOOP-18),
// the call, the inference record. ok is false when the attempt ended.
func (t *taskRun) infer(ctx context.Context) (resp *driver.Response, e agent.Ending, ok bool) {
	s := t.s
	block, d, changeID := s.choices.take()
	turn := t.turns
	if changeID != "" {
		_, _ = s.tr.Write(trace.ControlApplied{Turn: turn, TaskID: t.id, Name: "inference.driver", Value: block.Name, ChangeID: changeID})
	}
	t.refreshTools(turn)
	req := &driver.Request{Model: block.Model, System: s.system, Messages: t.msgs, Tools: s.specs, MaxTokens: s.m.Inference.MaxTokens,
		OnRetry: t.onRetry(turn), TaskMessageID: t.messageID(), TaskFrom: t.from}
	if e, refused := t.admit(d, req, turn); refused {
		return nil, e, false
	}
	t.recordMessages(t.recorded == 0) // the record holds what the model is shown, fsynced at the task's start
	t.setPhase("inference")
	ictx, span := telemetry.StartInference(ctx, s.tracer, d.Kind(), block.Model)
	start := time.Now()
	s.waiting(t, start)
	resp, err := d.Complete(ictx, req)
	t.observeInference(span, ctx, d.Kind(), start, resp, err)
	t.mu.Lock()
	t.turns++
	t.mu.Unlock()
	if e, canceled := t.canceled(); canceled {
		return nil, e, false // LOOP-16: phase inference
	}
	t.setPhase("turn")
	if err != nil {
		return nil, t.driverFailed(err), false
	}
	t.recordInference(turn, block.Name, req, resp, s.choices.options(block), time.Since(start), "")
	t.hookInferenceEvent(ctx, turn, resp)
	return resp, agent.Ending{}, true
}

// admit is LOOP-18's spend admission: refused when used + the estimated
// input + max_tokens passes inference.max_session_tokens, and every call
// after a refusal is refused alike.
func (t *taskRun) admit(d driver.Driver, req *driver.Request, turn int) (agent.Ending, bool) {
	s := t.s
	ceiling := s.m.Inference.MaxSessionTokens
	if ceiling <= 0 {
		return agent.Ending{}, false
	}
	est, err := driver.EstimateInput(d, req)
	if err != nil {
		est = 0
	}
	requested := est + int64(req.MaxTokens)
	s.stats.mu.Lock()
	used := s.stats.spent
	refuse := s.stats.refused || used+requested > ceiling
	if refuse {
		s.stats.refused = true
	}
	s.stats.mu.Unlock()
	if !refuse {
		return agent.Ending{}, false
	}
	_, _ = s.tr.Write(trace.SpendCeilingReached{Turn: turn, TaskID: t.id, Limit: "session", Ceiling: ceiling, Used: used, Requested: requested})
	return agent.Ending{Status: StatusSpendCeiling, Text: agent.ResultSpend(ceiling, used, requested)}, true
}

// driverFailed is LOOP-19: the attempt fails with the error's cause and
// reason; a credential rejection writes inference_credential and prints
// E-RUN-027 (DRV-4).
func (t *taskRun) driverFailed(err error) agent.Ending {
	s := t.s
	var ce *driver.CredentialError
	if errors.As(err, &ce) {
		_, _ = s.tr.Write(trace.InferenceCredential{Source: "environment", Credential: ce.Credential, Change: "rejected", Status: ce.Status})
		fmt.Fprint(s.cfg.Stderr, ce.Diagnostic().Render())
	}
	reason := driver.Reason(err)
	return agent.Ending{Status: StatusFailed, Text: agent.ResultFailed(reason), Cause: driver.Cause(err), Reason: reason}
}

// recordInference writes the inference record (capsule.md §6, TRACE-5) and
// counts its tokens (DRV-8, LOOP-18, STATUS-1).
// origin is "" for an agent turn, "hook:<name>" for a hook's run-inference.
func (t *taskRun) recordInference(turn int, choice string, req *driver.Request, resp *driver.Response, opts driver.Options, took time.Duration, origin string) {
	s := t.s
	in, out := resp.EstimatedInputTokens(), resp.EstimatedOutputTokens()
	u := resp.Usage
	rec := trace.Inference{Turn: turn, TaskID: t.id, Choice: choice, InputTokens: in, OutputTokens: out,
		Decision: "end_turn", StopReason: resp.StopReason, DurationMS: took.Milliseconds(),
		InputTokensActual: u.Input, OutputTokensActual: u.Output, CachedTokens: u.Cached, CacheWriteTokens: u.CacheWrite,
		Origin: origin, Capture: t.capture(req, resp)}
	if uses := resp.ToolUses(); len(uses) > 0 {
		rec.Decision, rec.ToolName = "tool_call", &uses[0].Name
	} else if resp.StopReason == driver.StopMaxTokens {
		rec.Decision = "text"
	}
	_, _ = s.tr.Write(rec)

	t.mu.Lock()
	t.inTokens += in
	t.outTokens += out
	t.inferred++
	t.mu.Unlock()
	s.stats.mu.Lock()
	defer s.stats.mu.Unlock()
	s.stats.turns++
	spentIn, spentOut := in, out
	if u.Input != nil {
		spentIn = *u.Input
	}
	if u.Output != nil {
		spentOut = *u.Output
	}
	s.stats.spent += spentIn + spentOut
	addPtr(&s.stats.input, u.Input)
	addPtr(&s.stats.output, u.Output)
	addPtr(&s.stats.cached, u.Cached)
	addPtr(&s.stats.cacheWrite, u.CacheWrite)
	if u.Input == nil && u.Output == nil && u.Cached == nil && u.CacheWrite == nil {
		s.stats.unreported++
	}
	if origin != "" {
		return // a hook's call is not the conversation: the check measures agent turns
	}
	c := &tool.ContextInfo{UsedTokens: spentIn + spentOut, Actual: u.Input != nil && u.Output != nil}
	if b := opts.InputBudget(s.m.Context.MaxTokens, int64(req.MaxTokens)); b.Has() {
		c.WindowTokens, c.BudgetTokens, c.BudgetBasis = b.Window, b.Tokens, b.Basis
	}
	s.stats.lastContext = c
}

// capture is TRACE-5's meta fields, nil under none; under content the
// bodies also go to blobs/<sha256>, write-once.
func (t *taskRun) capture(req *driver.Request, resp *driver.Response) *trace.Capture {
	s := t.s
	capture := s.m.Trace.Capture
	if capture == "none" {
		return nil
	}
	ids := make([]string, len(req.Messages))
	shas := make([]string, len(req.Messages))
	var bodies [][]byte
	// Bodies are hashed and stored as the records keep them: a peer-file
	// handle in a message or response only as its id (PFILE-6).
	for i, m := range req.Messages {
		ids[i] = m.ID
		b, _ := json.Marshal(m)
		b = peerplane.RedactBytes(b)
		shas[i] = sha(string(b))
		bodies = append(bodies, b)
	}
	toolsJSON, _ := json.Marshal(req.Tools)
	raw := peerplane.RedactBytes(resp.RawBody)
	c := &trace.Capture{MessageIDs: ids, SystemSHA: sha(req.System), ToolsSHA: sha(string(toolsJSON)),
		ResponseSHA: sha(string(raw)), MessageSHAs: shas}
	if capture == "content" {
		bodies = append(bodies, []byte(req.System), toolsJSON, raw)
		for _, b := range bodies {
			t.s.blob(b)
		}
	}
	return c
}

// blob writes b to blobs/<sha256> once (TRACE-5 content).
func (s *Session) blob(b []byte) {
	dir := filepath.Join(s.recordsDir, "blobs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(filepath.Join(dir, sha(string(b))), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return // already written, or unwritable: never rewritten
	}
	defer f.Close()
	_, _ = f.Write(b)
}

// writeRecs writes tool or waiter records through the task's state, the one
// path tool records take (tool.TaskState.Write), parented through the task.
func (t *taskRun) writeRecs(recs []tool.Rec) {
	for _, r := range recs {
		t.state.Write(r.Parent, r)
	}
}
