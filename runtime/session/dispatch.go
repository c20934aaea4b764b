package session

import (
	"context"
	"encoding/json"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/hook"
	"github.com/murmur-go/mur/runtime/telemetry"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// runTools runs a turn's tool calls one at a time, in order (LOOP-7), and
// appends their results as one tool message. A cancel stops before the next
// call.
func (t *taskRun) runTools(ctx context.Context, uses []driver.Block) {
	turn := t.turns - 1
	var results []driver.Block
	for _, u := range uses {
		if _, ok := t.canceled(); ok {
			return
		}
		content, isErr := t.dispatch(ctx, turn, u)
		results = append(results, driver.ToolResultBlock(u.ID, content, isErr))
		if _, failed := t.state.Failed(); failed {
			break // the call ended the attempt (input.md INP-7): no later call runs
		}
	}
	t.msgs = append(t.msgs, driver.Message{ID: a2a.NewID(a2a.PrefixMessage), Role: driver.RoleTool, Blocks: results})
}

// dispatch answers one tool call (STAGE-8, LOOP-9, TOOL-*), writes its
// tool_call and the tool's own records, and streams its artifact frame
// (SSE-8). It returns what the model gets.
//
// dispatchWith is the one place every tool call of a session is decided
// and run: the agent loop's (runTools) and a transport: process harness's
// bridged tools/call (bridged.go) both pass it, so runtime-provided tools,
// native tools, skills and shell binaries all meet the same checks in the
// same order — the manifest's own (the inventory, the input, the required
// fields, and inside a shell tool capabilities.shell.allow), then the
// policy hooks' decision point (on-tool-call here, on-shell inside the
// shell tool through CallContext.Gate, right before the command starts),
// then the call, then the observers.
func (t *taskRun) dispatch(ctx context.Context, turn int, u driver.Block) (content string, isErr bool) {
	return t.dispatchWith(ctx, turn, u, "")
}

// dispatchWith is dispatch, refusing the call with refused when it is not
// "" (process.md BRG-7: unfenced, nothing runs, only tool_call recorded).
func (t *taskRun) dispatchWith(ctx context.Context, turn int, u driver.Block, refused string) (content string, isErr bool) {
	s := t.s
	start := s.now()
	input := u.Input
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	var res tool.Result
	var extra []string
	var shells []gatedShell // the commands a shell tool was about to run
	var denial *hook.Denial // the on-tool-call policy hook's refusal
	shellTool := false
	switch tl, refusal := s.tools.Lookup(u.Name); {
	case refused != "":
		res = tool.Refusal(u.Name, refused)
	case u.InputError != "":
		res = tool.Refusal(u.Name, driver.InvalidToolArguments(u))
	case refusal != "":
		res = tool.Refusal(u.Name, refusal)
	default:
		if missing := s.tools.MissingRequired(tl, input); len(missing) > 0 {
			_, _ = s.tr.Write(trace.ToolInputRefused{Turn: turn, TaskID: t.id, ToolName: u.Name, Missing: missing})
			res = tool.Refusal(u.Name, tool.LacksRequired(u.Name, missing))
			break
		}
		shellTool = tl.Spec().Kind == tool.KindShell
		if !shellTool {
			if denial = t.decideTool(ctx, turn, u.Name, input); denial != nil {
				res = tool.Refusal(u.Name, denial.Refusal())
				res.Denied = true
				break
			}
		}
		cc := &tool.CallContext{TaskID: t.id, Turn: turn, CallID: u.ID, Task: t.state, SetPhase: t.setPhase, Gate: t.gate(turn, &shells), GateTool: t.gateTool(turn)}
		tctx, span := telemetry.StartTool(ctx, s.tracer, u.Name, u.ID)
		res = tl.Call(tctx, cc, input)
		telemetry.EndTool(span, toolStatus(res), res.Summary)
		// NOTICE-3: only a tool that ran carries the notice; a call the tool
		// itself refused (e.g. an unstartable binary) leaves it for the next.
		if !res.Refused {
			if line, ok := t.notice(); ok {
				extra = append(extra, line)
			}
		}
	}
	content, truncated := res.Content(u.Name, extra...)
	status := toolStatus(res)
	dur := s.now().Sub(start).Milliseconds()
	rec := trace.ToolCall{Turn: turn, TaskID: t.id, ToolName: u.Name, ToolCallID: orNull(u.ID), Input: input,
		InputBytes: len(u.Input), OutputBytes: len(content), DurationMS: dur, Status: status, Summary: res.Summary}
	if s.m.Trace.Capture == "content" { // output is written under content only (TRACE-5)
		rec.Output = &content
	}
	if !res.Denied { // a denied call ran nothing: its record is call_denied (TOOL-7)
		_, _ = s.tr.Write(rec)
		if len(extra) > 0 {
			t.noticeRecord(turn, u.Name)
		}
		t.writeRecs(res.Records)
		t.count(res)
	}
	if !shellTool {
		shells = nil // a plan's shell steps are observed as the plan's call
	}
	t.observeCall(ctx, turn, u.Name, input, shells, denial, res, content, dur)
	art := a2a.ToolArtifact{ToolName: u.Name, Content: content, ToolCallID: orNull(u.ID), IsError: res.IsError(),
		DurationMS: dur, ExitCode: res.ExitCode, Truncated: truncated}
	if !res.Refused {
		src := res.Source
		if src == "" {
			src = tool.SourceTool + u.Name
		}
		art.FenceSource = &src
	}
	s.reg.Frame(a2a.FrameArtifact, a2a.ArtifactFrame{ID: a2a.TaskID(t.id), Artifact: art})
	return content, res.IsError()
}

// count adds a call to the task's and session's tool and shell counters and
// keeps the work ids it moved to the background (task_canceled).
func (t *taskRun) count(res tool.Result) {
	t.mu.Lock()
	t.toolCalls++
	t.shellCalls += res.Shells
	t.detached = append(t.detached, res.Detached...)
	t.mu.Unlock()
	t.s.stats.mu.Lock()
	t.s.stats.toolCalls++
	t.s.stats.shellCalls += res.Shells
	t.s.stats.mu.Unlock()
}

// notice returns NOTICE-1's line for the first tool result handed over once
// no more than the margin is left (NOTICE-3: once per session, only by a
// tool that ran).
func (t *taskRun) notice() (string, bool) {
	s := t.s
	if s.noticeAfter == nil {
		return "", false
	}
	now := s.now()
	if now.Before(*s.noticeAfter) {
		return "", false
	}
	line, ok := "", false
	s.noticeOnce.Do(func() {
		line, ok = tool.DeadlineNotice(*s.deadline, now), true
		s.noticeAt = now
	})
	return line, ok
}

// noticeRecord writes deadline_notice (REC-3) after the call's tool_call.
func (t *taskRun) noticeRecord(turn int, toolName string) {
	s := t.s
	_, _ = s.tr.Write(trace.DeadlineNotice{Turn: turn, TaskID: t.id, ToolName: toolName, DeadlineAt: tool.FormatDeadline(*s.deadline),
		LeftSecs: tool.LeftSecs(*s.deadline, s.noticeAt), MarginSecs: s.noticeSecs})
}

// toolStatus is tool_call.status: ok, or error for a result that is one.
func toolStatus(res tool.Result) string {
	if res.IsError() {
		return "error"
	}
	return "ok"
}
