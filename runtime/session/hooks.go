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
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/hook"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// hookEntry is one runtime: hook entry of the capsule, bound to its
// installed artifact.
type hookEntry struct {
	entry manifest.Artifact
	tree  string
	m     *manifest.Manifest // the hook artifact's own murmur.yaml
}

// bindHook checks a hook entry's installed artifact at staging: a hook
// (its own contract validated by manifest.LoadArtifact), or E-MAN-003.
func (l *Launch) bindHook(a manifest.Artifact, tree string, am *manifest.Manifest) error {
	if am.Kind() != "hook" || am.Hook == nil {
		return diag.ManInvalid(l.Manifest.Path, "artifacts", fmt.Sprintf("'%s' is declared runtime: hook, but the installed %s@%s is a %s", a.Ref, a.Name, a.Version, am.Kind()))
	}
	l.hooks = append(l.hooks, hookEntry{entry: a, tree: tree, m: am})
	return nil
}

// buildHooks makes the session's hook set (one process per hook, started
// at its first event; on-session-start follows session_start). Each hook runs
// under the session's containment with only its own grant: its directory
// (filesystem.scope, else an empty one of its own outside the workdir),
// read-only the system paths, PATH and its own artifact tree, no TCP
// connect.
func (s *Session) buildHooks() error {
	if len(s.l.hooks) == 0 {
		return nil
	}
	var specs []hook.Spec
	for _, e := range s.l.hooks {
		name := e.entry.Name
		g := e.entry.Hook
		if g == nil {
			g = &manifest.HookGrant{}
		}
		dir := filepath.Join(s.recordsDir, "hooks", name)
		var rw []string
		if g.Scope != "" {
			dir = filepath.Join(s.workdir, g.Scope)
			rw = append(rw, dir)
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return diag.IOError(dir, osText(err))
		}
		var sb *proc.Sandbox
		var err error
		if s.l.Containment != proc.Advisory { // a hook runs scoped under sealed
			p := &proc.Policy{ReadWrite: rw, RestrictConnect: true}
			p.ReadOnly = append(proc.PathDirs(s.env, s.cfg.Home), e.tree)
			sb, err = proc.NewSandbox(p, s.cgroup)
			if err != nil {
				return diag.CapContainment(s.m.Name, err.Error())
			}
		} else if sb, err = proc.NewSandbox(nil, s.cgroup); err != nil {
			return err
		}
		s.hookBoxes = append(s.hookBoxes, sb)
		h := e.m.Hook
		specs = append(specs, hook.Spec{
			Name: name, Command: filepath.Join(e.tree, e.m.Command), Dir: dir, Env: s.hookEnv(e),
			Log:     filepath.Join(s.logsDir, "hook-"+name+".log"),
			Binding: h.Binding, ExecutionMode: h.ExecutionMode, CommitPolicy: h.CommitPolicy, OnOverflow: e.entry.OnOverflow,
			TaskIORead: g.TaskIORead, ConversationRead: g.ConversationRead, DeadlineSecs: g.DeadlineSecs,
			Sandbox: sb,
		})
	}
	s.hooks = hook.NewSet(specs, s, func(r trace.Record) {
		if s.tr != nil {
			_, _ = s.tr.Write(r)
		}
	})
	return nil
}

// hookEnv is a hook's whole environment: PATH and the locale from the
// subprocess environment, its own name, the session id, and its entry's
// config as MURMUR_ARTIFACT_CONFIG. Nothing else: no credential, no door.
func (s *Session) hookEnv(e hookEntry) []string {
	var env []string
	for _, kv := range s.env {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PATH" || k == "LANG" || k == "TZ" || strings.HasPrefix(k, "LC_") {
			env = append(env, kv)
		}
	}
	env = append(env, "MURMUR_SESSION_ID="+s.id, "MURMUR_HOOK_NAME="+e.entry.Name)
	if e.entry.ConfigJSON != nil {
		env = append(env, "MURMUR_ARTIFACT_CONFIG="+string(e.entry.ConfigJSON))
	}
	return env
}

// closeHooks hands every hook on-session-end, drains the async queues (at
// most hook.DrainBudget) and ends the processes, before session_end.
func (s *Session) closeHooks() {
	if s.hooks.Len() == 0 {
		return
	}
	s.hooks.Observe(context.Background(), hook.OnSessionEnd, map[string]any{"session_id": s.id})
	s.hooks.Close()
	for _, sb := range s.hookBoxes {
		sb.Close()
	}
}

// HostCall answers a hook's host call (docs/hooks.md): count-tokens,
// read-messages (capabilities.conversation.read), task-io
// (capabilities.task_io.read) and run-inference.
func (s *Session) HostCall(ctx context.Context, h *hook.Hook, call string, params json.RawMessage) (any, error) {
	t := s.runningTaskRun()
	if h.Spec.ExecutionMode == "async" && call != "count-tokens" {
		// An async hook's call runs beside the loop, which owns the task's
		// conversation and its driver calls.
		return nil, fmt.Errorf("'%s' is not available to an async hook", call)
	}
	switch call {
	case "count-tokens":
		var p struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, errors.New("count-tokens needs params {text}")
		}
		return map[string]int64{"tokens": driver.EstimateTokens(len(p.Text))}, nil
	case "read-messages":
		if !h.Spec.ConversationRead {
			return nil, hook.ErrNotGranted
		}
		if t == nil {
			return []any{}, nil
		}
		return t.messagesView(), nil
	case "task-io":
		if !h.Spec.TaskIORead {
			return nil, hook.ErrNotGranted
		}
		if t == nil {
			return nil, errors.New("no task is running")
		}
		return map[string]any{"task_id": t.id, "input": agent.PartsText(t.run.Message()), "result": t.lastAnswer()}, nil
	case "run-inference":
		if t == nil {
			return nil, errors.New("no task is running")
		}
		return t.hookInference(ctx, h.Spec.Name, params)
	}
	return nil, fmt.Errorf("unknown call '%s'", call)
}

// runningTaskRun is the task the loop is running, nil between tasks.
func (s *Session) runningTaskRun() *taskRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.curTask
}

// messageView is one message as read-messages returns it.
type messageView struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// messagesView is the task's conversation as text.
func (t *taskRun) messagesView() []messageView {
	t.mu.Lock()
	msgs := append([]driver.Message(nil), t.msgs...)
	t.mu.Unlock()
	out := []messageView{}
	for _, m := range msgs {
		var parts []string
		for _, b := range m.Blocks {
			switch {
			case b.Text != "":
				parts = append(parts, b.Text)
			case b.Type == driver.BlockToolUse:
				parts = append(parts, fmt.Sprintf("[tool call %s %s]", b.Name, string(b.Input)))
			}
		}
		out = append(out, messageView{Role: string(m.Role), Text: strings.Join(parts, "\n")})
	}
	return out
}

// lastAnswer is the latest assistant text of the task, "" before any.
func (t *taskRun) lastAnswer() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(t.msgs) - 1; i >= 0; i-- {
		if m := t.msgs[i]; m.Role == driver.RoleAssistant {
			var parts []string
			for _, b := range m.Blocks {
				if b.Text != "" {
					parts = append(parts, b.Text)
				}
			}
			if len(parts) > 0 {
				return strings.Join(parts, "\n")
			}
		}
	}
	return ""
}

// toolEvent is the on-tool-call payload (murmur's tool event): the turn,
// the tool, its exact input and its bytes; on observe, the outcome.
type toolEvent struct {
	Turn       int             `json:"turn"`
	TaskID     string          `json:"task_id"`
	ToolName   string          `json:"tool_name"`
	Input      json.RawMessage `json:"input"`
	InputBytes int             `json:"input_bytes"`
	Outcome    *toolOutcome    `json:"outcome,omitempty"`
}

// toolOutcome is what a call produced, as observers read it. Status is ok,
// error, or refused for a call that did not run: Reason is then the text
// the model read, and HookName the policy hook that denied it (absent when
// the manifest's own checks refused it).
type toolOutcome struct {
	Status      string `json:"status"`
	OutputBytes int    `json:"output_bytes"`
	DurationMS  int64  `json:"duration_ms"`
	Summary     string `json:"summary"`
	HookName    string `json:"hook_name,omitempty"`
	Reason      string `json:"reason,omitempty"`
}

// shellEvent is the on-shell payload (murmur's shell event): the resolved
// executable, the exact argv, the untruncated -c script, the command as
// written (display only); on observe, the outcome.
type shellEvent struct {
	Turn    int      `json:"turn"`
	TaskID  string   `json:"task_id"`
	Binary  string   `json:"binary"`
	Path    string   `json:"path"`
	Argv    []string `json:"argv"`
	Script  *string  `json:"script"`
	Command string   `json:"command"`
	// Recipe is the body make <target>, just <recipe> or npm run <script>
	// names in the workdir; absent when none was resolved.
	Recipe  *string       `json:"recipe,omitempty"`
	Outcome *shellOutcome `json:"outcome,omitempty"`
}

// recipe is hook.Recipe for argv in the workdir, nil when none.
func (s *Session) recipe(argv []string) *string {
	if body, ok := hook.Recipe(s.workdir, argv); ok {
		return &body
	}
	return nil
}

// shellOutcome is a shell command's outcome, as observers read it. A
// command a policy hook denied did not run: Status refused, its HookName
// and Reason, and no exit code.
type shellOutcome struct {
	ExitCode    *int   `json:"exit_code"`
	OutputBytes int    `json:"output_bytes"`
	DurationMS  int64  `json:"duration_ms"`
	Status      string `json:"status,omitempty"`
	HookName    string `json:"hook_name,omitempty"`
	Reason      string `json:"reason,omitempty"`
}

// gatedShell is a command a shell tool brought to the on-shell decision
// point, and the denial that stopped it (nil: it ran).
type gatedShell struct {
	cmd    tool.ShellCommand
	denial *hook.Denial
}

// decideTool is the on-tool-call decision point for a call that is not a
// shell command; nil lets it run. A denial writes call_denied.
func (t *taskRun) decideTool(ctx context.Context, turn int, name string, input json.RawMessage) *hook.Denial {
	s := t.s
	if !s.hooks.Gates(hook.OnToolCall) {
		return nil
	}
	d := s.hooks.Decide(ctx, hook.OnToolCall, toolEvent{Turn: turn, TaskID: t.id, ToolName: name, Input: input, InputBytes: len(input)})
	if d != nil {
		_, _ = s.tr.Write(trace.CallDenied{Turn: turn, TaskID: t.id, Event: hook.OnToolCall, HookName: d.Hook, Target: name, Reason: d.Reason})
	}
	return d
}

// gate is the on-shell decision point a shell tool calls right before it
// starts its command (tool.CallContext.Gate); a denial writes call_denied
// and is the call's refusal.
func (t *taskRun) gate(turn int, shells *[]gatedShell) func(ctx context.Context, cmd tool.ShellCommand) *tool.Result {
	s := t.s
	return func(ctx context.Context, cmd tool.ShellCommand) *tool.Result {
		if !s.hooks.Gates(hook.OnShell) {
			*shells = append(*shells, gatedShell{cmd: cmd})
			return nil
		}
		d := s.hooks.Decide(ctx, hook.OnShell, shellEvent{Turn: turn, TaskID: t.id, Binary: cmd.Binary, Path: cmd.Path,
			Argv: cmd.Argv, Script: cmd.Script, Command: cmd.Command, Recipe: s.recipe(cmd.Argv)})
		*shells = append(*shells, gatedShell{cmd: cmd, denial: d})
		if d == nil {
			return nil
		}
		_, _ = s.tr.Write(trace.CallDenied{Turn: turn, TaskID: t.id, Event: hook.OnShell, HookName: d.Hook, Target: cmd.Path, Reason: d.Reason})
		r := tool.Refusal(cmd.Binary, d.Refusal())
		r.Denied = true
		return &r
	}
}

// observeCall hands every call — one that ran and one refused before it
// ran — to the on-tool-call (or, for each command a shell tool brought to
// its decision point, on-shell) observers, so an audit hook sees every
// attempt. denial is the on-tool-call policy hook's refusal, if any.
func (t *taskRun) observeCall(ctx context.Context, turn int, name string, input json.RawMessage, shells []gatedShell, denial *hook.Denial, res tool.Result, content string, dur int64) {
	s := t.s
	if s.hooks.Len() == 0 {
		return
	}
	if len(shells) > 0 {
		for _, g := range shells {
			c := g.cmd
			out := &shellOutcome{ExitCode: res.ExitCode, OutputBytes: len(content), DurationMS: dur}
			if g.denial != nil {
				out = &shellOutcome{OutputBytes: len(content), DurationMS: dur, Status: outcomeRefused, HookName: g.denial.Hook, Reason: g.denial.Reason}
			}
			s.hooks.Observe(ctx, hook.OnShell, shellEvent{Turn: turn, TaskID: t.id, Binary: c.Binary, Path: c.Path, Argv: c.Argv,
				Script: c.Script, Command: c.Command, Recipe: s.recipe(c.Argv), Outcome: out})
		}
		return
	}
	out := &toolOutcome{Status: toolStatus(res), OutputBytes: len(content), DurationMS: dur, Summary: res.Summary}
	switch {
	case denial != nil:
		out.Status, out.HookName, out.Reason = outcomeRefused, denial.Hook, denial.Reason
	case res.Refused:
		out.Status, out.Reason = outcomeRefused, content
	}
	s.hooks.Observe(ctx, hook.OnToolCall, toolEvent{Turn: turn, TaskID: t.id, ToolName: name, Input: input, InputBytes: len(input), Outcome: out})
}

// outcomeRefused is an observed call's status when it did not run.
const outcomeRefused = "refused"

// hookInference is a hook's run-inference host call: one driver call with
// the hook's prompt, under the task's max_turns (it is one of the task's
// inference calls) and the session's spend ceiling (LOOP-18), recorded as
// an inference record with origin hook:<name>.
func (t *taskRun) hookInference(ctx context.Context, name string, params json.RawMessage) (any, error) {
	s := t.s
	if s.hx != nil {
		return nil, errors.New("run-inference is not available under inference.transport: process")
	}
	var p struct {
		Prompt    string `json:"prompt"`
		System    string `json:"system"`
		MaxTokens int    `json:"max_tokens"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.Prompt == "" {
		return nil, errors.New("run-inference needs params {prompt}")
	}
	t.mu.Lock()
	turn := t.turns
	t.mu.Unlock()
	if turn >= s.m.Inference.MaxTurns {
		return nil, fmt.Errorf("no turn left: inference.max_turns (%d) is spent", s.m.Inference.MaxTurns)
	}
	block, d := s.choices.primary()
	maxTokens := s.m.Inference.MaxTokens
	if p.MaxTokens > 0 && p.MaxTokens < maxTokens {
		maxTokens = p.MaxTokens
	}
	req := &driver.Request{Model: block.Model, System: p.System, MaxTokens: maxTokens,
		Messages: []driver.Message{{ID: a2a.NewID(a2a.PrefixMessage), Role: driver.RoleUser, Blocks: []driver.Block{driver.TextBlock(p.Prompt)}}}}
	if e, refused := t.admit(d, req, turn); refused {
		t.mu.Lock()
		t.spendStop = &e
		t.mu.Unlock()
		return nil, errors.New(e.Text)
	}
	start := time.Now()
	resp, err := d.Complete(ctx, req)
	t.mu.Lock()
	t.turns++
	t.mu.Unlock()
	if err != nil {
		return nil, errors.New(driver.Reason(err))
	}
	t.recordInference(turn, block.Name, req, resp, s.choices.options(block), time.Since(start), "hook:"+name)
	return map[string]any{"text": resp.Text(), "input_tokens": resp.EstimatedInputTokens(), "output_tokens": resp.EstimatedOutputTokens()}, nil
}

// taskEndEvent is the on-task-end payload: how the attempt ended and its
// answer's size (the text itself is task-io's, granted).
type taskEndEvent struct {
	TaskID      string `json:"task_id"`
	Status      string `json:"status"`
	AnswerBytes int    `json:"answer_bytes"`
	Turns       int    `json:"turns"`
	Reopens     int    `json:"reopens"`
}

// reopenMessage is the user message a hook's reopen-task continues the
// task with (murmur's heading, then the hook's feedback).
func reopenMessage(n int, hookName, feedback string) string {
	return fmt.Sprintf("Reopen %d — from hook %s\n\n%s", n, hookName, feedback)
}

// hookReopen is the on-task-end decision of an attempt that answered: the
// first reopen-task answer, in manifest order, continues the task's
// conversation with its feedback (task_reopened) within
// lifecycle.max_task_reopens and the task's shared inference.max_turns;
// either spent, the task ends reopen_budget_exhausted.
func (t *taskRun) hookReopen(ctx context.Context, e agent.Ending) (agent.Ending, bool) {
	s := t.s
	if !s.hooks.Gates(hook.OnTaskEnd) {
		return e, false
	}
	t.mu.Lock()
	ev := taskEndEvent{TaskID: t.id, Status: e.Status, AnswerBytes: len(e.Answer), Turns: t.turns, Reopens: t.hookReopens}
	t.mu.Unlock()
	name, a, ok := s.hooks.Commit(ctx, hook.OnTaskEnd, ev)
	if !ok {
		return e, false
	}
	if ce, canceled := t.canceled(); canceled {
		return ce, false
	}
	if t.hookReopens >= s.m.Lifecycle.MaxTaskReopens {
		return agent.Ending{Status: StatusReopenBudget, Text: agent.ResultReopenBudget}, false
	}
	if t.turns >= s.m.Inference.MaxTurns {
		return agent.Ending{Status: StatusReopenBudget, Text: agent.ResultTurnBudget}, false
	}
	t.mu.Lock()
	t.hookReopens++
	n := t.hookReopens
	t.mu.Unlock()
	t.reprompt(promptHookReopen, reopenMessage(n, name, a.Reason))
	_, _ = s.tr.Write(trace.TaskReopened{TaskID: t.id, HookName: name, Reason: a.Reason, ReopenNumber: n,
		TurnsRemaining: s.m.Inference.MaxTurns - t.turns})
	return agent.Ending{}, true
}

// observeTaskEnd hands the task's final ending to the on-task-end
// observers, before task_end.
func (t *taskRun) observeTaskEnd(ctx context.Context, e agent.Ending) {
	s := t.s
	if s.hooks.Len() == 0 {
		return
	}
	t.mu.Lock()
	ev := taskEndEvent{TaskID: t.id, Status: e.Status, AnswerBytes: len(e.Answer), Turns: t.turns, Reopens: t.hookReopens}
	t.mu.Unlock()
	s.hooks.Observe(context.WithoutCancel(ctx), hook.OnTaskEnd, ev) // a canceled task is observed too
}

// SeedBudget is the most bytes an on-task-start hook's seed-context may
// place at the head of a task's messages.
const SeedBudget = 32 << 10

// taskStartHooks is on-task-start: the first seed-context answer, in
// manifest order, becomes one user message at the head of the task's first
// messages when it fits SeedBudget (context_seed, accepted or with its
// rejection reason); then the observers.
func (t *taskRun) taskStartHooks(ctx context.Context) {
	s := t.s
	if s.hooks.Len() == 0 {
		return
	}
	ev := map[string]any{"task_id": t.id, "context_id": string(t.run.ContextID()), "source": t.run.Provenance().Source}
	if name, a, ok := s.hooks.Commit(ctx, hook.OnTaskStart, ev); ok {
		var msgs []string
		rec := trace.ContextSeed{TaskID: t.id, HookName: name}
		switch err := json.Unmarshal(a.Value, &msgs); {
		case err != nil:
			rec.Reason = "unreadable"
		case len(msgs) == 0:
			rec.Reason = "empty"
		}
		text := strings.Join(msgs, "\n\n")
		rec.Messages, rec.Bytes = len(msgs), len(text)
		if rec.Reason == "" && len(text) > SeedBudget {
			rec.Reason = "over_budget"
		}
		if rec.Reason == "" {
			rec.Accepted = true
			seed := driver.Message{ID: a2a.NewID(a2a.PrefixMessage), Role: driver.RoleUser, Blocks: []driver.Block{driver.TextBlock(text)}}
			// Before the task's own messages: after a resumed conversation,
			// which stays as the model saw it.
			t.msgs = append(t.msgs[:t.from:t.from], append([]driver.Message{seed}, t.msgs[t.from:]...)...)
		}
		_, _ = s.tr.Write(rec)
	}
	s.hooks.Observe(ctx, hook.OnTaskStart, ev)
}

// hookInferenceEvent hands an agent turn's inference to the on-inference
// observers.
func (t *taskRun) hookInferenceEvent(ctx context.Context, turn int, resp *driver.Response) {
	s := t.s
	if s.hooks.Len() == 0 {
		return
	}
	s.hooks.Observe(ctx, hook.OnInference, map[string]any{"turn": turn, "task_id": t.id, "stop_reason": resp.StopReason,
		"input_tokens": resp.EstimatedInputTokens(), "output_tokens": resp.EstimatedOutputTokens(), "tool_calls": len(resp.ToolUses())})
}

// harnessInferenceEvent hands a transport: process turn to the on-inference
// observers: what the harness decided, not a driver's stop reason and
// counts, which a harness reports for its whole run only.
func (t *taskRun) harnessInferenceEvent(turn int, decision string, toolName *string, harnessTurnID string) {
	s := t.s
	if s.hooks.Len() == 0 {
		return
	}
	s.hooks.Observe(context.Background(), hook.OnInference, map[string]any{"turn": turn, "task_id": t.id, "decision": decision,
		"tool_name": toolName, "harness_turn_id": harnessTurnID})
}

// gateTool is the on-tool-call decision point a tool's own calls pass (a
// plan's tool steps): the loop's decideTool, as a refusal result.
func (t *taskRun) gateTool(turn int) func(ctx context.Context, name string, input json.RawMessage) *tool.Result {
	return func(ctx context.Context, name string, input json.RawMessage) *tool.Result {
		d := t.decideTool(ctx, turn, name, input)
		if d == nil {
			return nil
		}
		r := tool.Refusal(name, d.Refusal())
		r.Denied = true
		return &r
	}
}
