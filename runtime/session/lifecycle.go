package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/agent"
	"github.com/murmur-go/mur/runtime/formation"
	"github.com/murmur-go/mur/runtime/tasktable"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// Cancel reasons of capsule.md SES-5 (`canceled: <by>`).
const (
	BySignal    = "SIGTERM" // any signal
	ByDeadline  = "deadline"
	ByFormation = "formation ended"
)

// Result is how a session ended (LOOP-20, CLI-5).
type Result struct {
	// ExitStatus is session_end.exit_status: ok, a deciding task's non-ok
	// status, or formation_ended.
	ExitStatus string
	// Text is the deciding task's SES-5 text when ExitStatus is not ok, for
	// E-RUN-040.
	Text string
	// Err is a failure that ended the session: E-RUN-007.
	Err error
	// FailedCalls are the launch task's member calls that did not end
	// completed, in the order they were accounted for: the
	// answer may stand on them, so mur run names each at the end.
	FailedCalls []trace.MemberCall
}

// Stop winds the session down as on a first SIGTERM (SES-8): the running task
// is cancelled with `canceled: <by>`, queued ones are rejected, and Run
// returns once session_end is written. Later calls do nothing.
func (s *Session) Stop(by string) { s.stop(by, true) }

func (s *Session) stop(by string, stopped bool) bool {
	s.mu.Lock()
	if s.stopCause != "" {
		s.mu.Unlock()
		return false
	}
	s.stopCause, s.stopped = by, stopped
	cur := s.current
	s.mu.Unlock()
	if cur != nil {
		s.reg.CancelRun(cur.ID(), by)
	}
	s.stopCancel()
	return true
}

// stopping reports whether the session is winding down.
func (s *Session) stopping() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopCause != ""
}

// setupDeadline computes the deadline notice's margin (NOTICE-2).
func (s *Session) setupDeadline() {
	if s.deadline == nil {
		return
	}
	var cfg *int64
	if n := s.m.Lifecycle.DeadlineNoticeSecs; n != nil {
		v := int64(*n)
		cfg = &v
	}
	if margin, ok := tool.NoticeMargin(cfg, s.start, *s.deadline); ok {
		at := s.deadline.Add(-margin)
		s.noticeAfter = &at
		s.noticeSecs = int64(margin / time.Second)
	}
}

// watch starts the session's watchers: the deadline (SES-7), the formation
// lifeline (LIFE-3) and the trace (E-RUN-007). They stop at stopCtx's end.
func (s *Session) watch() {
	if s.deadline != nil {
		s.wg.Go(func() {
			t := time.NewTimer(time.Until(*s.deadline))
			defer t.Stop()
			select {
			case <-t.C:
				s.deadlineReached()
			case <-s.stopCtx.Done():
			}
		})
	}
	if link := s.l.Link; link != nil {
		s.wg.Go(func() {
			select {
			case <-link.Ended():
				s.spawnerEnded(link)
			case <-s.stopCtx.Done():
			}
		})
	}
	if mem := s.l.Member; mem != nil && mem.Lifeline {
		s.wg.Go(func() {
			select {
			case <-mem.Ended():
				s.lifelineClosed(mem)
			case <-s.stopCtx.Done():
			}
		})
	}
	s.wg.Go(func() {
		select {
		case <-s.tr.Failed():
			s.stop("trace write failed", false)
		case <-s.stopCtx.Done():
		}
	})
}

// deadlineReached is SES-7: deadline_reached, live tasks cancelled
// (`canceled: deadline`), queued and new ones refused, the session ends.
func (s *Session) deadlineReached() {
	s.mu.Lock()
	live := []string{}
	if s.current != nil && s.stopCause == "" {
		live = append(live, string(s.current.ID()))
	}
	s.mu.Unlock()
	_, _ = s.tr.Write(trace.DeadlineReached{At: tool.FormatDeadline(*s.deadline), LiveTaskIDs: live})
	s.stop(ByDeadline, false)
}

// lifelineClosed is LIFE-3: formation_ended first, the stderr notice (only
// when the launcher did not announce an orderly end), the 20 s exit timer, then the wind-down of a first SIGTERM. Nothing happens
// when the session is already winding down (LIFE-4).
func (s *Session) lifelineClosed(mem *formation.Member) {
	if s.stopping() {
		return
	}
	_, _ = s.tr.Write(trace.FormationEnded{FormationID: mem.FormationID})
	if !mem.Orderly() {
		// Quiet success: the notice is an alarm for a launcher that died;
		// one that ended the formation itself announced it.
		fmt.Fprintln(s.cfg.Stderr, formation.LifelineClosedNotice)
	}
	if s.l.Exit != nil {
		mem.ArmExitTimer(s.l.Exit)
	}
	s.mu.Lock()
	s.formEnded = s.current != nil
	s.mu.Unlock()
	s.stop(ByFormation, true)
}

// Run runs tasks until the session ends (LOOP-1..3, SES-8), then writes
// session_end and closes the trace. It returns the session's exit status.
func (s *Session) Run() Result {
	s.watch()
	s.pump()
	return s.end()
}

// pump takes tasks from the table and runs them one at a time (LOOP-3, LOOP-4).
func (s *Session) pump() {
	lc := s.m.Lifecycle
	sleeps := lc.TaskAcceptance == "queue" && lc.AfterTask == "sleep"
	if lc.TaskAcceptance == "none" && !s.l.HasTask {
		return // SES-4: no task, the session ends ok
	}
	ran := 0
	for !s.stopping() {
		ctx := s.stopCtx
		var cancel context.CancelFunc = func() {}
		member := s.l.Member != nil && s.l.Member.Lifeline
		if ran == 0 && !s.l.HasTask && !sleeps && !member {
			ctx, cancel = context.WithTimeout(s.stopCtx, s.a2aTimeout())
		}
		run, err := s.reg.Next(ctx)
		cancel()
		if err != nil {
			return // closed, stopped, or LOOP-3's wait ran out: ok with no task
		}
		s.mu.Lock()
		s.current = run
		by := s.stopCause
		s.mu.Unlock()
		if by != "" {
			s.reg.CancelRun(run.ID(), by)
		}
		status, text := s.runTask(run)
		s.mu.Lock()
		s.current = nil
		s.mu.Unlock()
		ran++
		if s.decides(run, status, sleeps) {
			s.decide(status, text)
		}
		if !sleeps {
			return // after_task exit, single, none: the session ends with its task (LOOP-2, LOOP-3)
		}
	}
}

// decides reports whether a task's status decides the session's (LOOP-20):
// the launch task, a task the session ends after, or one live while it
// closes; never a peer task on a sleeping capsule, never no_answer.
func (s *Session) decides(run *tasktable.Run, status string, sleeps bool) bool {
	if status == StatusNoAnswer {
		return false
	}
	p := run.Provenance()
	if p.Source == "task_md" {
		return true
	}
	if !sleeps {
		return true
	}
	if p.Origin == a2a.OriginPeer {
		return false
	}
	s.mu.Lock()
	by := s.stopCause
	s.mu.Unlock()
	return status == StatusCanceled && by != "" && run.CancelCause() == by
}

func (s *Session) decide(status, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.deciding == "" && status != StatusOK {
		s.deciding, s.decidingMsg = status, text
	}
}

// end is SES-8 after the last task: queued tasks rejected, background
// commands killed (shell_abandoned), session_end, the trace closed.
func (s *Session) end() Result {
	s.mu.Lock()
	stopped := s.stopped
	s.mu.Unlock()
	s.reg.Close(stopped)
	s.toolset.ClosePeerFiles() // every handle this session minted is void (PFILE-3)
	if s.hub != nil {
		s.hub.Close() // no child outlives the session that spawned it (DLG-6)
	}
	for _, a := range s.toolset.CloseWorks() {
		_, _ = s.tr.Write(trace.ShellAbandoned{WorkID: a.Work.ID, Binary: a.Work.Binary, Command: a.Work.Command, RunningMS: a.RunningMS})
	}
	s.closeHooks()    // on-session-end, the async drain: their faults precede session_end
	s.sandbox.Close() // every command it started has been killed and reaped
	s.mu.Lock()
	res := Result{ExitStatus: StatusOK}
	if s.deciding != "" {
		res.ExitStatus, res.Text = s.deciding, s.decidingMsg
	}
	if s.formEnded {
		res.ExitStatus, res.Text = StatusFormationEnded, agent.ResultCanceled(ByFormation)
	}
	s.mu.Unlock()
	s.closeHarness()
	s.callsMu.Lock()
	res.FailedCalls = s.failedCalls
	s.callsMu.Unlock()
	s.stats.mu.Lock()
	end := trace.SessionEnd{TotalTurns: s.stats.turns, TotalInputTokens: s.stats.inTokens,
		TotalOutputTokens: s.stats.outTokens, TotalToolCalls: s.stats.toolCalls, TotalShellCalls: s.stats.shellCalls}
	s.stats.mu.Unlock()
	end.DurationMS, end.ExitStatus = elapsedMS(s.start, s.now()), res.ExitStatus
	s.closeRecords()
	_, _ = s.tr.Write(end)
	s.stopCancel()
	s.wg.Wait()
	if err := s.tr.Close(); err != nil && !errors.Is(err, trace.ErrClosed) {
		res.Err = err
	}
	if err := s.tr.Err(); err != nil {
		res.Err = err
	}
	s.reg.CloseFrames()
	s.flushTelemetry()
	if s.l.Link != nil {
		s.reportCompletion(res) // DLG-7
	}
	s.l.closeMember()
	return res
}
