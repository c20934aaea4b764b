package traceview

import (
	"errors"
	"io"
	"os"

	"github.com/murmur-go/mur/internal/diag"
	"github.com/murmur-go/mur/runtime/trace"
)

// Trace is what `mur trace show` needs from one trace.jsonl, records in
// file order, each of its runtime/trace type.
type Trace struct {
	Path        string
	SessionID   string
	Start       trace.SessionStart
	End         trace.SessionEnd
	Inferences  []trace.Inference
	ToolCalls   []trace.ToolCall
	Shells      []trace.Shell
	Detached    int // shell_detached records (counted with Shells, TRACE-4)
	TaskStarts  []string
	TaskEnds    []trace.TaskEnd
	Failed      []trace.TaskFailed
	Canceled    []trace.TaskCanceled
	Rejected    []trace.TaskRejected
	Reopened    []trace.TaskReopened
	MemberCalls []trace.MemberCall
	Delegations []trace.Delegation
}

// Read reads the trace at path strictly (capsule.md CLI-9): every line one
// JSON object carrying a string event_type, a known record's fields of their
// types (trace.Line.Record); unknown record types are skipped. Errors are
// *diag.Diagnostic: E-TRC-001 `<path>:<line>: malformed JSON: <error>`, then
// `no session_start event found`, then `no session_end event found`;
// E-IO-001 when the file cannot be read.
func Read(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, diag.IONotFound(path).WithErr(err)
		}
		return nil, diag.IOError(path, osReason(err)).WithErr(err)
	}
	defer f.Close()
	return parse(path, f)
}

func osReason(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func parse(path string, r io.Reader) (*Trace, error) {
	tr := &Trace{Path: path}
	var started, ended bool
	for l, err := range trace.Lines(r) {
		var me *trace.MalformedError
		switch {
		case errors.As(err, &me):
			return nil, diag.TrcMalformed(path, me.Line, me.Err.Error()).WithErr(me.Err)
		case err != nil:
			return nil, diag.IOError(path, osReason(err)).WithErr(err)
		}
		rec, _, err := l.Record() // readers skip unknown types (capsule.md §6)
		if err != nil {
			return nil, diag.TrcMalformed(path, l.Num, err.Error()).WithErr(err)
		}
		switch r := rec.(type) {
		case trace.SessionStart:
			if !started { // TRACE-4: one per session; the first one counts
				started, tr.Start, tr.SessionID = true, r, l.SessionID
			}
		case trace.SessionEnd:
			ended, tr.End = true, r
		case trace.Inference:
			tr.Inferences = append(tr.Inferences, r)
		case trace.ToolCall:
			tr.ToolCalls = append(tr.ToolCalls, r)
		case trace.Shell:
			tr.Shells = append(tr.Shells, r)
		case trace.ShellDetached:
			tr.Detached++
		case trace.TaskStart:
			tr.TaskStarts = append(tr.TaskStarts, r.TaskID)
		case trace.TaskEnd:
			tr.TaskEnds = append(tr.TaskEnds, r)
		case trace.TaskFailed:
			tr.Failed = append(tr.Failed, r)
		case trace.TaskCanceled:
			tr.Canceled = append(tr.Canceled, r)
		case trace.TaskRejected:
			tr.Rejected = append(tr.Rejected, r)
		case trace.TaskReopened:
			tr.Reopened = append(tr.Reopened, r)
		case trace.MemberCall:
			tr.MemberCalls = append(tr.MemberCalls, r)
		case trace.Delegation:
			tr.Delegations = append(tr.Delegations, r)
		}
	}
	if !started {
		return nil, diag.TrcNoSessionStart(path)
	}
	if !ended {
		return nil, diag.TrcNoSessionEnd(path)
	}
	return tr, nil
}
