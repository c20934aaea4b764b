package session

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/murmur-go/mur/runtime/agent"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/harness"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/trace"
)

// Prompt kinds of harness_start (PROC-5, HREC-1).
const (
	promptTask         = "task"
	promptContinuation = "continuation"
	promptKeepWorking  = "keep_working"
	promptDoneCheck    = "done_check"
	promptHookReopen   = "hook_reopen"
	promptRestart      = "restart"
)

// prompt is what a run is spawned with (PROC-5).
type prompt struct {
	kind string
	text string
}

// Run outcomes: how a run ended, for the task (PROC-11..18, THR-4).
const (
	runCompleted  = "completed"
	runFailed     = "failed"      // HEV-7, HEV-8, or no terminal line
	runCanceled   = "canceled"    // the task's cancel interrupted it
	runInactive   = "inactivity"  // PROC-17
	runMaxTurns   = "max_turns"   // PROC-14
	runLost       = "lost"        // a resume that reported no session (THR-4)
	runToolFailed = "tool_failed" // a bridged call failed the attempt (INP-7)
)

// runResult is one run's end.
type runResult struct {
	out     string
	answer  string // completed: the run's final text
	session string // the harness session id the run reported, "" for none
	kind    string // failed: HEV-7's kind
	msg     string // failed and lost: the harness's message
}

// hrun is the run in progress, shared with the bridge's goroutine
// (bridged.go): the turns PROC-14 and end-without-answer shut.
type hrun struct {
	t    *taskRun
	n    int
	stop chan string // a bridged call's reason to interrupt the run; one slot
	// halted is closed once mur has interrupted the harness, or stopped
	// reading its run: a canceled bridged call is answered only after
	// that, so the harness cannot act on the answer first (PROC-16).
	halted   chan struct{}
	haltOnce sync.Once

	mu    sync.Mutex
	maxed int // the turn PROC-14 stopped, -1 when none
	ewa   int // the turn end-without-answer was accepted in, -1 when none
	tools map[int]bool
}

// halt closes halted, once.
func (r *hrun) halt() { r.haltOnce.Do(func() { close(r.halted) }) }

// runState is what the run's event stream has said so far; only the run's
// own loop touches it.
type runState struct {
	session  string
	turns    map[string]int // harness turn id → the task's 0-based turn
	decided  map[int]bool   // turns whose inference record is written
	closed   int            // turns closed this run
	terminal string         // runCompleted or runFailed once a terminal line came
	answer   string
	kind     string
	msg      string
	usage    harness.Usage
	stop     string // set by an event: the run must be interrupted (PROC-14, HEV-8)
	threaded bool   // the thread entry was written this run (THR-2)
}

// harnessRun spawns one run of the task's harness with p on stdin, as a
// resume of session resume ("" for a new session), reads its events until
// its whole process group is gone, and writes harness_start,
// harness_session, the turns' inference records, harness_failed and
// harness_exit (HREC-1..3).
func (t *taskRun) harnessRun(ctx context.Context, p prompt, resume string) runResult {
	s, h := t.s, t.s.hx
	t.mu.Lock()
	t.runs++
	n := t.runs
	t.mu.Unlock()
	mode, resumed := "new", (*string)(nil)
	if resume != "" {
		mode, resumed = "resume", &resume
	}
	if h.d.Key == manifest.HarnessClaude { // PROC-6: rewritten per run, 0600
		_ = os.WriteFile(filepath.Join(h.dir, harness.MCPConfigFile), h.br.ClaudeConfig(), 0o600)
	} else { // PROC-7: the stdio proxy's URL and bearer, 0600
		_ = os.WriteFile(filepath.Join(h.dir, harness.ProxyConfigFile), h.br.ProxyConfig(), 0o600)
	}
	start := trace.HarnessStart{TaskID: t.id, Run: n, Mode: mode, PromptKind: p.kind, Harness: h.d.Name, Binary: h.binary,
		ToolsOffered: nonNil(s.tools.Declared()), HarnessSessionID: resumed}
	if v := h.version; v.Line != "" {
		line, tested := v.Line, v.Tested
		start.Version, start.VersionTested = &line, &tested
	}
	_, _ = s.tr.Write(start)
	logf, err := os.OpenFile(s.nextLog(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		logf = nil
	}
	defer func() {
		if logf != nil {
			logf.Close()
		}
	}()
	r := &hrun{t: t, n: n, stop: make(chan string, 1), halted: make(chan struct{}), maxed: -1, ewa: -1, tools: map[int]bool{}}
	h.setRun(r)
	h.br.BeginRun()
	defer func() { h.br.EndRun(); h.setRun(nil) }()
	began := s.now()
	t.setPhase("inference") // LOOP-16: the harness is thinking (PROC-16)
	proc, err := harness.Start(harness.Spawn{Argv: h.d.Argv(harness.Run{Binary: h.binary, Dir: h.dir, URL: h.br.URL(), Proxy: h.mur,
		Model: s.m.Inference.Model, Resume: resume}), Env: h.env, Dir: s.workdir, Stdin: []byte(p.text), Stderr: logf,
		Sandbox: h.sandbox})
	if err != nil {
		msg := "the harness could not be started: " + err.Error()
		_, _ = s.tr.Write(trace.HarnessFailed{TaskID: t.id, Run: n, Kind: harness.FailOther, Source: "runtime", Message: msg})
		_, _ = s.tr.Write(trace.HarnessExit{TaskID: t.id, Run: n, Cause: "crashed", DurationMS: elapsedMS(began, s.now())})
		t.addRunTokens(harness.Usage{})
		return runResult{out: runFailed, kind: harness.FailOther, msg: msg}
	}
	st := &runState{turns: map[string]int{}, decided: map[int]bool{}}
	asked := t.readRun(ctx, r, st, proc, h.d.NewParser(), logf)
	exit := proc.Wait()
	return t.endRun(r, st, asked, exit, mode, began, resume)
}

// readRun reads the run's events until stdout closes, interrupting the
// harness on a cancel, on inactivity (PROC-17, BRG-8) and when an event or
// a bridged call asks (PROC-14, HEV-8). It returns why mur asked it to stop:
// "" when it did not, else runCanceled, runInactive, runMaxTurns or
// runFailed.
func (t *taskRun) readRun(ctx context.Context, r *hrun, st *runState, proc *harness.Process, parser harness.Parser, logf io.Writer) string {
	h := t.s.hx
	timer := time.NewTimer(h.limits.Inactivity)
	defer timer.Stop()
	rearm := func() {
		timer.Stop()
		if h.inFlight.Load() == 0 { // BRG-8: no window while a call is in flight
			timer.Reset(h.limits.Inactivity)
		}
	}
	defer r.halt()
	asked := ""
	ask := func(why string) {
		if asked == "" {
			asked = why
			proc.Interrupt(h.limits.Grace)
			r.halt()
		}
	}
	done := ctx.Done()
	lines := proc.Lines()
	handle := func(evs []harness.Event) {
		for _, ev := range evs {
			t.onEvent(r, st, ev, logf)
		}
		if st.stop != "" {
			ask(st.stop)
		}
	}
	for lines != nil {
		select {
		case line, ok := <-lines:
			if !ok {
				lines = nil
				continue
			}
			rearm() // HEV-10: a stdout line is activity
			handle(parser.Line(line))
		case <-h.act:
			rearm() // a bridged call started or ended
		case <-timer.C:
			if h.inFlight.Load() == 0 {
				ask(runInactive)
			}
		case why := <-r.stop:
			ask(why)
		case <-done:
			done = nil
			ask(runCanceled)
		}
	}
	handle(parser.End())
	// stdout closed: the leader may still be running; a cancel or
	// inactivity still ends it.
	for done, finished := ctx.Done(), proc.Done(); finished != nil; {
		select {
		case <-finished:
			finished = nil
		case <-timer.C:
			ask(runInactive)
		case why := <-r.stop:
			ask(why)
		case <-done:
			done = nil
			ask(runCanceled)
		}
	}
	return asked
}

// onEvent applies one event of the run (HEV-1..9, HREC-1..2).
func (t *taskRun) onEvent(r *hrun, st *runState, ev harness.Event, logf io.Writer) {
	s, h := t.s, t.s.hx
	switch e := ev.(type) {
	case harness.SessionReported:
		if st.session != "" {
			return
		}
		st.session = e.ID
		_, _ = s.tr.Write(trace.HarnessSession{TaskID: t.id, Run: r.n, HarnessSessionID: e.ID, Auth: e.Auth})
		if e.Auth == harness.AuthAPIKey && h.warnAPIKey() { // HEV-9
			s.harnessWarning(t.id, diag.SecHarnessAPIKey())
		}
	case harness.TurnOpened:
		st.turns[e.ID] = t.openTurn()
		h.br.Turn(st.turns[e.ID])
	case harness.ToolCalled:
		turn, ok := st.turns[e.TurnID]
		if !ok {
			turn = t.openTurn()
			st.turns[e.TurnID] = turn
		}
		if !st.decided[turn] {
			st.decided[turn] = true
			name := e.Name
			t.harnessInference(turn, "tool_call", &name, e.TurnID)
		}
		if r.markTool(turn, t.s.m.Inference.MaxTurns) { // before the bridge may run its call
			st.stop = runMaxTurns
		}
		id := e.CallID
		if h.d.Key == manifest.HarnessCodex {
			id = "" // codex's item id is not the call's (BRG-6): matched by name
		}
		h.br.ToolUse(turn, id, e.Name)
	case harness.TurnClosed:
		turn, ok := st.turns[e.ID]
		if !ok {
			return
		}
		delete(st.turns, e.ID)
		st.closed++
		t.mu.Lock()
		t.closed++
		t.mu.Unlock()
		if !st.decided[turn] {
			st.decided[turn] = true
			t.harnessInference(turn, "end_turn", nil, e.ID)
		}
		if !st.threaded && st.session != "" {
			st.threaded = t.writeThread(st.session) // THR-2: once the run's first turn closes
		}
	case harness.QuotaReported:
		h.addQuota(e.Windows)
	case harness.Compacted: // the harness compacts its own conversation
		t.mu.Lock()
		turn := t.turns
		t.mu.Unlock()
		_, _ = s.tr.Write(trace.Compaction{Turn: turn, TaskID: t.id, HookName: h.d.Key, TokensBefore: e.PreTokens,
			TokensBeforeSource: "harness", Source: "harness", Trigger: e.Trigger})
	case harness.BridgeFailed:
		st.terminal, st.kind, st.msg = runFailed, harness.FailHarness, bridgeFailedMsg
		st.stop = runFailed
	case harness.Completed:
		if st.terminal == "" {
			st.terminal, st.answer, st.usage = runCompleted, e.Answer, e.Usage
		}
	case harness.Failed:
		if st.terminal == "" {
			st.terminal, st.kind, st.msg, st.usage = runFailed, e.Kind, e.Message, e.Usage
		}
	case harness.Notice:
		if logf != nil {
			fmt.Fprintf(logf, "notice: %s\n", e.Text)
		}
	}
}

// bridgeFailedMsg is HEV-8's message.
const bridgeFailedMsg = "the harness could not connect to the loopback tool server"

// openTurn counts a turn the harness opened (PROC-14) and returns its
// 0-based index in the task.
func (t *taskRun) openTurn() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.turns++
	return t.turns - 1
}

// markTool records that turn showed a tool call; it reports true when that
// turn is the max_turns-th, whose calls PROC-14 refuses.
func (r *hrun) markTool(turn, maxTurns int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tools[turn] = true
	if turn >= maxTurns-1 && r.maxed < 0 {
		r.maxed = turn
		return true
	}
	return turn >= maxTurns-1
}

// harnessInference writes HREC-2's inference record for a turn: the
// turn node its bridged calls hang from; then the on-inference observers
// are handed it.
func (t *taskRun) harnessInference(turn int, decision string, toolName *string, harnessTurnID string) {
	_, _ = t.s.tr.Write(trace.Inference{Turn: turn, TaskID: t.id, Decision: decision, ToolName: toolName, HarnessTurnID: harnessTurnID})
	t.harnessInferenceEvent(turn, decision, toolName, harnessTurnID)
	t.mu.Lock()
	t.inferred++
	t.mu.Unlock()
	t.s.stats.mu.Lock()
	t.s.stats.turns++
	t.s.stats.mu.Unlock()
}

// endRun writes harness_failed and harness_exit and says how the run ended.
func (t *taskRun) endRun(r *hrun, st *runState, asked string, exit harness.Exit, mode string, began time.Time, resume string) runResult {
	s := t.s
	res := runResult{session: st.session, answer: st.answer, kind: st.kind, msg: st.msg}
	cause := ""
	switch {
	case asked == runInactive:
		cause, res.out = "inactivity", runInactive
	case asked != "":
		cause, res.out = "interrupted", asked
	case st.terminal == runCompleted:
		cause, res.out = "completed", runCompleted
	case st.terminal == runFailed:
		cause, res.out = "failed", runFailed
	default:
		cause, res.out = "crashed", runFailed
		res.kind = harness.FailOther
		res.msg = fmt.Sprintf("the harness exited with %s before reporting an outcome", exit)
		if t.s.hx.d.Key == manifest.HarnessCodex && st.session == "" && strings.Contains(t.lastLog(), "required MCP servers failed to initialize") {
			res.kind, res.msg = harness.FailHarness, bridgeFailedMsg // HEV-8
		}
	}
	if mode == "resume" && st.session == "" && (res.out == runFailed) { // THR-4
		res.out = runLost
		if res.msg == "" || res.kind == harness.FailOther {
			res.msg = lastLine(t.lastLog())
		}
	}
	switch res.out {
	case runFailed:
		_, _ = s.tr.Write(trace.HarnessFailed{TaskID: t.id, Run: r.n, Kind: res.kind, Source: "harness", Message: res.msg})
	case runMaxTurns:
		_, _ = s.tr.Write(trace.HarnessFailed{TaskID: t.id, Run: r.n, Kind: harness.FailMaxTurns, Source: "runtime",
			Message: agent.ResultMaxTurns(s.m.Inference.MaxTurns)})
	case runInactive:
		_, _ = s.tr.Write(trace.HarnessFailed{TaskID: t.id, Run: r.n, Kind: harness.FailOther, Source: "runtime",
			Message: diag.HarnessInactiveMessage(int64(s.hx.limits.Inactivity / time.Second))})
	}
	usage := t.runUsage(st, mode, resume)
	rec := trace.HarnessExit{TaskID: t.id, Run: r.n, Cause: cause, ExitCode: exit.Code, DurationMS: elapsedMS(began, s.now()),
		Turns: st.closed, InputTokens: usage.Input, OutputTokens: usage.Output, CachedTokens: usage.Cached, CacheWriteTokens: usage.CacheWrite}
	if exit.Signal != "" {
		sig := exit.Signal
		rec.Signal = &sig
	}
	_, _ = s.tr.Write(rec)
	t.addRunTokens(usage)
	if res.out == runCompleted && st.session != "" {
		t.writeThread(st.session) // THR-2: the run completed (usage_total refreshed)
	}
	return res
}

// lastLog is the text of the run's stderr log, the newest harness-<n>.log
// (read back only by HEV-8 and THR-4's message).
func (t *taskRun) lastLog() string {
	h := t.s.hx
	h.mu.Lock()
	n := h.logs
	h.mu.Unlock()
	b, _ := os.ReadFile(filepath.Join(t.s.logsDir, fmt.Sprintf("harness-%d.log", n)))
	return string(b)
}

// lastLine is the last non-empty line of text.
func lastLine(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(l, "notice: ") {
			return l
		}
	}
	return ""
}
