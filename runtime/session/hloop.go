package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/murmur-go/mur/runtime/agent"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/harness"
	"github.com/murmur-go/mur/runtime/manifest"
)

// harnessTransport is the agent loop's Transport under transport: process
// (process.md §5): a step is one run of the harness, ended by its terminal
// line; a reopen (the continuation, keep_working, done_check, a hook's
// reopen-task) is a resume of the same harness session with its message as
// the prompt (PROC-12, PROC-13).
type harnessTransport struct {
	t      *taskRun
	p      prompt // the next run's prompt
	resume string // the harness session the next run resumes, "" for a new one
	thread string // the thread entry that named resume under threaded (THR-2)
}

// Begin makes the first prompt, the task then the [Session] block, as the
// http loop's first two user messages (LOOP-6, PROC-5), and reads the
// thread entry under threaded (THR-2).
func (h *harnessTransport) Begin(context.Context) (agent.Ending, bool) {
	t := h.t
	h.p = prompt{kind: promptTask, text: agent.TaskText(t.run.Message(), t.run.Provenance()) + "\n\n" + t.s.context}
	resume, thread, e, ok := t.threadStart()
	h.resume, h.thread = resume, thread
	return e, ok
}

// Step runs the harness once and says how the run ended for the task
// (PROC-11..18, THR-4).
func (h *harnessTransport) Step(ctx context.Context) agent.Step {
	t, s := h.t, h.t.s
	ended := func(e agent.Ending) agent.Step { return agent.Step{Ended: true, Ending: e} }
	res := t.harnessRun(ctx, h.p, h.resume)
	if e, ok := t.canceled(); ok {
		return ended(e) // task_canceled.phase: where the cancel landed
	}
	t.setPhase("turn")
	if f, ok := t.state.Failed(); ok { // INP-7: a bridged call ended the attempt
		return ended(agent.Ending{Status: StatusFailed, Text: agent.ResultFailed(f.Reason), Cause: f.Cause, Reason: f.Reason, StatusText: f.Status})
	}
	if reason, ok := t.state.NoAnswer(); ok && res.out != runCanceled { // PROC-15, EWA-4
		return ended(agent.NoAnswer(reason))
	}
	switch res.out {
	case runCompleted:
	case runMaxTurns: // PROC-14
		return ended(agent.MaxTurns(s.m.Inference.MaxTurns))
	case runInactive: // PROC-17
		secs := int64(s.hx.limits.Inactivity.Seconds())
		fmt.Fprint(s.cfg.Stderr, diag.RunHarnessInactive(secs).Render())
		return ended(agent.Failed("harness_inactive", diag.HarnessInactiveMessage(secs)))
	case runLost:
		if k := h.p.kind; k == promptKeepWorking || k == promptDoneCheck || k == promptHookReopen { // PROC-13: restart from task.md
			h.p, h.resume = prompt{kind: promptRestart, text: t.restartText()}, ""
			return agent.Step{}
		}
		return ended(t.sessionLost(h.resume, h.thread, res.msg))
	case runCanceled: // only the task's cancel ends ctx
		if e, ok := t.canceled(); ok {
			return ended(e)
		}
		return ended(agent.Failed("harness_error", diag.HarnessTurnFailedMessage(harness.FailOther, "the harness run was interrupted")))
	default: // PROC-18
		fmt.Fprint(s.cfg.Stderr, diag.RunHarnessFailed(res.kind, res.msg).Render())
		return ended(agent.Failed("harness_error", diag.HarnessTurnFailedMessage(res.kind, res.msg)))
	}
	if res.session != "" {
		h.resume = res.session
	}
	return agent.Step{Answered: true, Ending: agent.Ending{Status: StatusOK, Text: res.answer, Answer: res.answer}}
}

// Resume makes the reopen's message the next run's prompt, a resume of the
// session the last run named; a harness that never named one cannot be
// resumed (E-RUN-036).
func (h *harnessTransport) Resume(context.Context) (agent.Ending, bool) {
	h.p = h.t.next
	if h.resume == "" {
		return h.t.sessionLost("", "", "the harness reported no session id to resume"), false
	}
	return agent.Ending{}, true
}

// harnessFailed is a task failure of PROC-17/18 and THR-4 (task_failed
// cause and reason).
func (t *taskRun) harnessFailed(cause, reason string) agent.Ending {
	return agent.Failed(cause, reason)
}

// sessionLost is E-RUN-036 (THR-4, PROC-13): a resume the harness could
// not continue. thread is the harness-session.json that named the session
// under threaded, "" when the task itself started it.
func (t *taskRun) sessionLost(id, thread, msg string) agent.Ending {
	s := t.s
	ctxID := ""
	if thread != "" && id == t.threadID {
		ctxID = string(t.run.ContextID())
	}
	d := diag.RunHarnessSessionLost(s.hx.d.Name, id, ctxID, t.id, msg, thread)
	fmt.Fprint(s.cfg.Stderr, d.Render())
	return t.harnessFailed("harness_session_lost", d.Msg)
}

// restartText is PROC-13's restart prompt: the runtime directory's task.md
// (the original task, then `# Reopen feedback`) for the launch task; for
// another task the same built from its text.
func (t *taskRun) restartText() string {
	if t.run.Provenance().Source == "task_md" {
		if b, err := os.ReadFile(filepath.Join(t.s.runtimeDir, "task.md")); err == nil {
			return string(b)
		}
	}
	text := agent.TaskText(t.run.Message(), t.run.Provenance())
	if len(t.feedback) > 0 {
		text += "\n\n# Reopen feedback\n"
		for _, f := range t.feedback {
			text += "\n" + f + "\n"
		}
	}
	return text
}

// threadStart is THR-2: under threaded, a task whose context has an entry
// resumes its session. It returns the session to resume ("" for new), the
// entry's path ("" when none is used), and ok false with the ending when
// the entry cannot be read.
func (t *taskRun) threadStart() (resume, path string, e agent.Ending, ok bool) {
	s := t.s
	if s.m.Lifecycle.Conversation != "threaded" {
		return "", "", agent.Ending{}, true // THR-3
	}
	path = harness.ThreadPath(s.cfg.Home, s.m.Name, string(t.run.ContextID()))
	t.threadPath = path
	th, err := harness.ReadThread(path)
	if err != nil {
		d := diag.RunHarnessSessionLost(s.hx.d.Name, "", string(t.run.ContextID()), t.id, err.Error(), path)
		fmt.Fprint(s.cfg.Stderr, d.Render())
		return "", path, t.harnessFailed("harness_session_lost", d.Msg), false
	}
	if th == nil {
		return "", path, agent.Ending{}, true
	}
	t.threadID = th.SessionID
	if th.UsageTotal != nil && s.hx.d.Key == manifest.HarnessCodex {
		h := s.hx
		h.mu.Lock()
		if _, seen := h.totals[th.SessionID]; !seen {
			u := *th.UsageTotal
			h.totals[th.SessionID] = &u
		}
		h.mu.Unlock()
	}
	return th.SessionID, path, agent.Ending{}, true
}

// writeThread writes the context's entry under threaded (THR-1, THR-2),
// with codex's latest running total; it reports whether it was written.
func (t *taskRun) writeThread(session string) bool {
	s := t.s
	if t.threadPath == "" {
		return false
	}
	th := harness.Thread{Harness: s.hx.d.Name, SessionID: session, ContextID: string(t.run.ContextID())}
	if s.hx.d.Key == manifest.HarnessCodex {
		h := s.hx
		h.mu.Lock()
		if u := h.totals[session]; u != nil {
			c := *u
			th.UsageTotal = &c
		}
		h.mu.Unlock()
	}
	if err := harness.WriteThread(t.threadPath, th, s.now()); err != nil {
		s.bootstrap(fmt.Sprintf("%s could not be written: %v\n", t.threadPath, err))
		return false
	}
	return true
}

// runUsage is the run's token counts (HEV-5): claude's as reported; codex's
// the difference between the thread's running total and the last one this
// session (or harness-session.json) saw — none when a resumed thread has
// no known earlier total.
func (t *taskRun) runUsage(st *runState, mode, resume string) harness.Usage {
	h := t.s.hx
	u := st.usage
	if h.d.Key != manifest.HarnessCodex || !u.Reported() || st.session == "" {
		return u
	}
	total := harness.UsageTotal{Input: val(u.Input), Output: val(u.Output), Cached: val(u.Cached), CacheWrite: val(u.CacheWrite)}
	h.mu.Lock()
	prev, known := h.totals[st.session]
	h.totals[st.session] = &total
	h.mu.Unlock()
	if !known {
		if mode == "resume" {
			return harness.Usage{}
		}
		prev = &harness.UsageTotal{}
	}
	diff := func(now *int64, was int64) *int64 {
		if now == nil {
			return nil
		}
		d := *now - was
		return &d
	}
	return harness.Usage{Input: diff(u.Input, prev.Input), Output: diff(u.Output, prev.Output),
		Cached: diff(u.Cached, prev.Cached), CacheWrite: diff(u.CacheWrite, prev.CacheWrite)}
}

func val(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// addRunTokens adds a run's counts to the task's (task_end, HREC-3) and the
// session's (session-status tokens and spend, PROC-19).
func (t *taskRun) addRunTokens(u harness.Usage) {
	t.mu.Lock()
	t.inTokens += val(u.Input)
	t.outTokens += val(u.Output)
	t.mu.Unlock()
	st := &t.s.stats
	st.mu.Lock()
	defer st.mu.Unlock()
	addPtr(&st.input, u.Input)
	addPtr(&st.output, u.Output)
	addPtr(&st.cached, u.Cached)
	addPtr(&st.cacheWrite, u.CacheWrite)
	st.spent += val(u.Input) + val(u.Output)
	if !u.Reported() {
		st.unreported++
	}
}
