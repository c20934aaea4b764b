package capsule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/trace"
)

// Bounds of CLI-13's waits.
const (
	stopAskTimeout = 5 * time.Second       // the session/stop call
	stopTaskWait   = 5 * time.Second       // per canceled task, for its ending in the trace
	stopKillWait   = 5 * time.Second       // after SIGKILL (E-RUN-024)
	stopPollEvery  = 20 * time.Millisecond // how often a pid or a trace is looked at again
)

// Stopped is what Stop did to a session (`mur stop <session>`, CLI-13), and
// its --json document (docs/json.md). Residue is what session/stop reported
// left running ([] for nothing), nil with AskError when the capsule could not
// be asked.
type Stopped struct {
	SessionID string   `json:"session_id"`
	Name      string   `json:"name"`
	Version   string   `json:"version"`
	Signal    string   `json:"signal"`
	Canceled  []string `json:"canceled"`
	Residue   []any    `json:"residue"`
	AskError  string   `json:"ask_error,omitempty"`
}

// Text is CLI-13's stdout block.
func (s *Stopped) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "stopped: %s\n", s.SessionID)
	fmt.Fprintf(&b, "capsule: %s@%s\n", s.Name, s.Version)
	fmt.Fprintf(&b, "signal:  %s\n", s.Signal)
	if s.AskError != "" {
		fmt.Fprintf(&b, "residue: unknown — the capsule could not be asked: %s\n", s.AskError)
		return b.String()
	}
	for _, id := range s.Canceled {
		fmt.Fprintf(&b, "canceled: %s\n", id)
	}
	if len(s.Residue) == 0 {
		b.WriteString("residue: nothing else was left running\n")
	} else {
		fmt.Fprintf(&b, "residue: %s\n", residueText(s.Residue))
	}
	return b.String()
}

// Stop ends the session of running record rec in CLI-13's three steps and
// returns what it did: session/stop at its door and each canceled task's
// ending in the trace, SIGTERM, and SIGKILL if the process outlives wait.
// An unconfirmed pid is never signalled: E-RUN-022 (gone or started at
// another time; the record is removed) or E-RUN-024 (start time unreadable;
// the record is kept). home is $MURMUR_HOME.
func Stop(ctx context.Context, home string, rec *murhome.Running, wait time.Duration) (*Stopped, error) {
	if err := confirm(home, rec); err != nil {
		return nil, err
	}
	// (1) session/stop at the door, then each canceled task's ending.
	res, askErr := askStop(ctx, rec)
	if askErr == nil {
		trace := rec.RecordsDir + "/" + murhome.TraceFile
		for _, id := range res.Canceled {
			waitTaskEnding(ctx, trace, string(id), stopTaskWait)
		}
	}
	// (2) SIGTERM, (3) SIGKILL after wait.
	signal, err := terminate(ctx, rec, wait)
	if err != nil {
		return nil, err
	}
	_ = murhome.RemoveRunning(home, rec.SessionID) // SIGKILL left it behind; SIGTERM's session removed it itself
	left := endLeftovers(ctx, rec.SessionID)

	out := &Stopped{SessionID: rec.SessionID, Name: rec.Name, Version: rec.Version, Signal: signal, Canceled: []string{}}
	if askErr != nil {
		out.AskError = askErr.Error()
		return out, nil
	}
	for _, id := range res.Canceled {
		out.Canceled = append(out.Canceled, string(id))
	}
	out.Residue = append(append([]any{}, res.Residue...), left...)
	return out, nil
}

// endLeftovers looks, once the session's process is gone, for processes its
// tools started that still run: a session SIGKILLed never stopped
// what left its process groups, and the residue line must say so. Every tool
// process carries MURMUR_SESSION_ID=<ses> (SES-10). It SIGKILLs them and
// returns one residue item each: "<comm> (pid <n>): killed", or "…: still
// running" for one that outlived the SIGKILL's wait.
func endLeftovers(ctx context.Context, ses string) []any {
	marker := "MURMUR_SESSION_ID=" + ses
	found := proc.FindByEnv(marker)
	if len(found) == 0 {
		return nil
	}
	for _, p := range found {
		_ = syscall.Kill(p.PID, syscall.SIGKILL)
	}
	pollUntil(ctx, stopKillWait, func() bool { return len(proc.FindByEnv(marker)) == 0 })
	still := map[int]bool{}
	for _, p := range proc.FindByEnv(marker) {
		still[p.PID] = true
	}
	items := make([]any, len(found))
	for i, p := range found {
		state := "killed"
		if still[p.PID] {
			state = "still running"
		}
		items[i] = fmt.Sprintf("%s (pid %d): %s", p.Comm, p.PID, state)
	}
	return items
}

// residueText lists what session/stop says the session leaves running (its
// shape is LATER, METH-STOP-1): strings as they are, anything else as JSON.
func residueText(items []any) string {
	parts := make([]string, len(items))
	for i, it := range items {
		if s, ok := it.(string); ok {
			parts[i] = s
			continue
		}
		b, _ := json.Marshal(it)
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}

// confirm checks the record's pid before anything is asked or signalled.
func confirm(home string, rec *murhome.Running) error {
	switch rec.Check() {
	case murhome.Gone:
		_ = murhome.RemoveRunning(home, rec.SessionID)
		return diag.RunNoSuchPID(rec.SessionID, rec.PID)
	case murhome.Reused:
		_ = murhome.RemoveRunning(home, rec.SessionID)
		return diag.RunPIDReused(rec.SessionID, rec.PID)
	case murhome.Unconfirmed:
		return diag.RunStartUnreadable(rec.SessionID, rec.PID)
	}
	return nil
}

// askStop calls session/stop with the record's operator token (door.md
// METH-STOP-1); a public door is called without one.
func askStop(ctx context.Context, rec *murhome.Running) (*a2a.StopSessionResult, error) {
	c, err := client.New(client.Config{BaseURL: rec.URL, Token: rec.Tokens.Operator(), RequestTimeout: stopAskTimeout})
	if err != nil {
		return nil, err
	}
	return c.StopSession(ctx)
}

// terminate sends SIGTERM, then SIGKILL if the process outlives wait, each
// after verifying pid and start time, and returns the `signal:` value.
func terminate(ctx context.Context, rec *murhome.Running, wait time.Duration) (string, error) {
	err := murhome.SignalVerified(rec.PID, rec.ProcessStart, syscall.SIGTERM)
	switch {
	case errors.Is(err, murhome.ErrGone):
		// Ended on its own once its tasks were canceled (lifecycle exit).
		return "none — the session ended after session/stop", nil
	case err != nil:
		return "", signalError(rec, "SIGTERM", err)
	}
	if wait > 0 && waitGone(ctx, rec, wait) {
		return "SIGTERM", nil
	}
	err = murhome.SignalVerified(rec.PID, rec.ProcessStart, syscall.SIGKILL)
	switch {
	case errors.Is(err, murhome.ErrGone):
		return "SIGTERM", nil
	case err != nil:
		return "", signalError(rec, "SIGKILL", err)
	}
	if !waitGone(ctx, rec, stopKillWait) {
		return "", diag.RunSurvivedKill(rec.SessionID, rec.PID)
	}
	return fmt.Sprintf("SIGKILL after %ds", int(wait/time.Second)), nil
}

// signalError maps a refused signal to E-RUN-024 (or E-RUN-022 for a pid now
// held by another process).
func signalError(rec *murhome.Running, sig string, err error) error {
	switch {
	case errors.Is(err, murhome.ErrReused):
		return diag.RunPIDReused(rec.SessionID, rec.PID)
	case errors.Is(err, murhome.ErrStartUnreadable):
		return diag.RunStartUnreadable(rec.SessionID, rec.PID)
	}
	why := err.Error()
	var errno syscall.Errno
	if errors.As(err, &errno) {
		why = errno.Error()
	}
	return diag.RunSignalRefused(rec.SessionID, sig, rec.PID, why).WithErr(err)
}

// waitGone reports whether the record's process is gone within d.
func waitGone(ctx context.Context, rec *murhome.Running, d time.Duration) bool {
	return pollUntil(ctx, d, func() bool { return rec.Check() == murhome.Gone || rec.Check() == murhome.Reused })
}

// pollUntil calls cond every stopPollEvery until it holds (true) or d passes
// or ctx ends (false). There is no event for a foreign process's exit or a
// trace line, so both are looked at again and again.
func pollUntil(ctx context.Context, d time.Duration, cond func() bool) bool {
	if cond() {
		return true
	}
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(stopPollEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-deadline.C:
			return cond()
		case <-tick.C:
			if cond() {
				return true
			}
		}
	}
}

// waitTaskEnding waits up to d for task id's ending in the trace at path: its
// task_end, or a queued task's task_canceled (capsule.md LOOP-16).
func waitTaskEnding(ctx context.Context, path, id string, d time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	for l, err := range trace.Tail(ctx, f, stopPollEvery) {
		if err != nil {
			var me *trace.MalformedError
			if errors.As(err, &me) {
				continue
			}
			return false
		}
		switch r, _, _ := l.Record(); r := r.(type) {
		case trace.TaskEnd:
			if r.TaskID == id {
				return true
			}
		case trace.TaskCanceled:
			if r.TaskID == id && r.Phase == "queued" {
				return true
			}
		}
	}
	return false
}
