package traceview

import (
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/trace"
)

// Trace is what `mur trace show` needs from one trace.jsonl, records in
// file order, each of its runtime/trace type.
type Trace struct {
	Path       string
	SessionID  string
	Start      trace.SessionStart
	End        trace.SessionEnd
	Inferences []trace.Inference
	ToolCalls  []trace.ToolCall
	Shells     []trace.Shell
	Detached   int // shell_detached records (counted with Shells, TRACE-4)
	TaskStarts []string
	TaskEnds   []trace.TaskEnd
	Failed     []trace.TaskFailed
	Canceled   []trace.TaskCanceled
	Rejected   []trace.TaskRejected
	Reopened   []trace.TaskReopened
	// Compactions holds compaction and compaction_declined records in order.
	Compactions []trace.Record
	MemberCalls []trace.MemberCall
	Delegations []trace.Delegation
	// Input holds input_request, input_reply and input_timeout records in
	// file order; PeerFiles peer_handle_mint, peer_handle_redeem and
	// peer_file_fetch records.
	Input     Input
	PeerFiles PeerFiles
	// Hooks holds the policy and observer hooks' records.
	Hooks Hooks
	// Live is true for a trace with no session_end yet: a session still
	// running (or one that ended without writing it). End is then zero and
	// LastMS is the newest record's timestamp.
	Live            bool
	StartMS, LastMS int64 // the first and the newest record's timestamps, Unix ms

	inputOrder, peerOrder []trace.Record // Input's and PeerFiles' records, in file order
}

// Read reads the trace at path strictly (capsule.md CLI-9): every line one
// JSON object carrying a string event_type, a known record's fields of their
// types (trace.Line.Record); unknown record types are skipped. Errors are
// *diag.Diagnostic: E-TRC-001 `<path>:<line>: malformed JSON: <error>`, then
// `no session_start event found`; E-IO-001 when the file cannot be read. A
// trace without session_end is read as Live (a running session's
// trace is readable), the last line only when it is whole.
func Read(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, diag.IONotFound(path).WithErr(err)
		}
		return nil, diag.IOError(path, osReason(err)).WithErr(err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, diag.IOError(path, osReason(err)).WithErr(err)
	}
	return parse(path, bytes.NewReader(wholeLines(data)))
}

// wholeLines drops a last line that has no newline yet and is not a record:
// the writer of a running session is in the middle of it.
func wholeLines(data []byte) []byte {
	i := bytes.LastIndexByte(data, '\n')
	if i == len(data)-1 {
		return data
	}
	if _, err := trace.ParseLine(data[i+1:]); err != nil {
		return data[:i+1]
	}
	return data
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
		if tr.StartMS == 0 {
			tr.StartMS = l.Timestamp
		}
		tr.LastMS = l.Timestamp
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
		case trace.Compaction, trace.CompactionDeclined:
			tr.Compactions = append(tr.Compactions, r)
		case trace.CallDenied:
			tr.Hooks.Denied = append(tr.Hooks.Denied, r)
		case trace.HookDispatchError:
			tr.Hooks.Faults = append(tr.Hooks.Faults, r)
		case trace.ContextSeed:
			tr.Hooks.Seeds = append(tr.Hooks.Seeds, r)
		case trace.MemberCall:
			tr.MemberCalls = append(tr.MemberCalls, r)
		case trace.Delegation:
			tr.Delegations = append(tr.Delegations, r)
		case trace.InputRequest:
			tr.Input.Requests = append(tr.Input.Requests, r)
			tr.inputOrder = append(tr.inputOrder, r)
		case trace.InputReply:
			tr.Input.Replies = append(tr.Input.Replies, r)
			tr.inputOrder = append(tr.inputOrder, r)
		case trace.InputTimeout:
			tr.Input.Timeouts = append(tr.Input.Timeouts, r)
			tr.inputOrder = append(tr.inputOrder, r)
		case trace.PeerHandleMint:
			tr.PeerFiles.Mints = append(tr.PeerFiles.Mints, r)
			tr.peerOrder = append(tr.peerOrder, r)
		case trace.PeerHandleRedeem:
			tr.PeerFiles.Redeems = append(tr.PeerFiles.Redeems, r)
			tr.peerOrder = append(tr.peerOrder, r)
		case trace.PeerFileFetch:
			tr.PeerFiles.Fetches = append(tr.PeerFiles.Fetches, r)
			tr.peerOrder = append(tr.peerOrder, r)
		}
	}
	if !started {
		return nil, diag.TrcNoSessionStart(path)
	}
	if tr.Live = !ended; tr.Live {
		// What session_end will total, so far.
		tr.End = trace.SessionEnd{ExitStatus: "running", TotalTurns: len(tr.Inferences),
			TotalToolCalls: len(tr.ToolCalls), TotalShellCalls: len(tr.Shells) + tr.Detached}
		for _, inf := range tr.Inferences {
			tr.End.TotalInputTokens += inf.InputTokens
			tr.End.TotalOutputTokens += inf.OutputTokens
		}
	}
	return tr, nil
}
