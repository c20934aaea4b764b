package traceview

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/murmur-go/mur/internal/diag"
)

// Trace is what `mur trace show` needs from one trace.jsonl, records in file order.
type Trace struct {
	Path        string
	SessionID   string
	Start       SessionStart
	End         SessionEnd
	Inferences  []Inference
	ToolCalls   []ToolCall
	Shells      []Shell
	Detached    int // shell_detached records (counted with Shells, TRACE-4)
	TaskStarts  []string
	TaskEnds    []TaskEnd
	Failed      []TaskFailed
	Canceled    []TaskCanceled
	Rejected    []TaskRejected
	Reopened    []TaskReopened
	MemberCalls []MemberCall
}

// SessionStart holds the session_start fields the summary shows.
type SessionStart struct {
	CapsuleName    string            `json:"capsule_name"`
	CapsuleVersion string            `json:"capsule_version"`
	Model          string            `json:"model"`
	MaxTurns       int64             `json:"max_turns"`
	Capabilities   []string          `json:"capabilities"`
	ToolsDeclared  []json.RawMessage `json:"tools_declared"`
	FormationID    string            `json:"formation_id"`
}

// SessionEnd holds session_end's totals.
type SessionEnd struct {
	TotalTurns        int64  `json:"total_turns"`
	TotalInputTokens  int64  `json:"total_input_tokens"`
	TotalOutputTokens int64  `json:"total_output_tokens"`
	TotalToolCalls    int64  `json:"total_tool_calls"`
	TotalShellCalls   int64  `json:"total_shell_calls"`
	DurationMS        int64  `json:"duration_ms"`
	ExitStatus        string `json:"exit_status"`
}

// Inference holds the provider-reported counts of one inference record.
type Inference struct {
	InputTokensActual  *int64 `json:"input_tokens_actual"`
	OutputTokensActual *int64 `json:"output_tokens_actual"`
}

// ToolCall is one tool_call record.
type ToolCall struct {
	Turn       int64           `json:"turn"`
	ToolName   string          `json:"tool_name"`
	Input      json.RawMessage `json:"input"`
	DurationMS int64           `json:"duration_ms"`
	Status     string          `json:"status"`
}

// Shell is one shell record.
type Shell struct {
	Turn       int64  `json:"turn"`
	Binary     string `json:"binary"`
	Command    string `json:"command"`
	ExitCode   int64  `json:"exit_code"`
	DurationMS int64  `json:"duration_ms"`
}

// TaskEnd is one task_end record.
type TaskEnd struct {
	TaskID       string `json:"task_id"`
	ExitStatus   string `json:"exit_status"`
	DurationMS   int64  `json:"duration_ms"`
	Turns        int64  `json:"turns"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
}

// TaskFailed is one task_failed record.
type TaskFailed struct {
	TaskID string `json:"task_id"`
	Turn   int64  `json:"turn"`
	Cause  string `json:"cause"`
	Reason string `json:"reason"`
}

// TaskCanceled is one task_canceled record (LOOP-16).
type TaskCanceled struct {
	TaskID string `json:"task_id"`
	Phase  string `json:"phase"`
}

// TaskRejected is one task_rejected record.
type TaskRejected struct {
	TaskID string `json:"task_id"`
	Cause  string `json:"cause"`
}

// TaskReopened is one task_reopened record.
type TaskReopened struct {
	ReopenNumber int64  `json:"reopen_number"`
	HookName     string `json:"hook_name"`
	Reason       string `json:"reason"`
}

// MemberCall is one member_call record (tools.md CALL-11).
type MemberCall struct {
	CallID     string `json:"call_id"`
	Member     string `json:"member"`
	Status     string `json:"status"`
	DurationMS int64  `json:"duration_ms"`
}

// envelope is the part of every line read before its type is known.
type envelope struct {
	EventType *string `json:"event_type"`
	SessionID string  `json:"session_id"`
}

// Read reads the trace at path strictly (capsule.md CLI-9): every line one
// JSON object carrying a string event_type, a known record's fields of their
// types; unknown record types are skipped. Errors are *diag.Diagnostic:
// E-TRC-001 `<path>:<line>: malformed JSON: <error>`, then `no session_start
// event found`, then `no session_end event found`; E-IO-001 when the file
// cannot be read.
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
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, diag.IOError(path, osReason(err)).WithErr(err)
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		malformed := func(e error) error { return diag.TrcMalformed(path, n, e.Error()).WithErr(e) }
		if !json.Valid(line) {
			var v any
			return nil, malformed(json.Unmarshal(line, &v))
		}
		var env envelope
		if t := bytes.TrimLeft(line, " \t\r"); len(t) == 0 || t[0] != '{' {
			return nil, malformed(errors.New("not a JSON object"))
		}
		if err := json.Unmarshal(line, &env); err != nil {
			return nil, malformed(typeError("record", err))
		}
		if env.EventType == nil {
			return nil, malformed(errors.New("no event_type"))
		}
		if err := tr.add(*env.EventType, line, &started, &ended); err != nil {
			return nil, malformed(err)
		}
		if !started && *env.EventType == "session_start" {
			started = true
			tr.SessionID = env.SessionID
		}
		if errors.Is(err, io.EOF) {
			break
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

// add decodes one line of a known type into tr.
func (tr *Trace) add(typ string, line []byte, started, ended *bool) error {
	var dst any
	switch typ {
	case "session_start":
		if *started {
			return nil // TRACE-4: one per session; the first one counts
		}
		dst = &tr.Start
	case "session_end":
		tr.End = SessionEnd{}
		*ended = true
		dst = &tr.End
	case "inference":
		tr.Inferences = append(tr.Inferences, Inference{})
		dst = &tr.Inferences[len(tr.Inferences)-1]
	case "tool_call":
		tr.ToolCalls = append(tr.ToolCalls, ToolCall{})
		dst = &tr.ToolCalls[len(tr.ToolCalls)-1]
	case "shell":
		tr.Shells = append(tr.Shells, Shell{})
		dst = &tr.Shells[len(tr.Shells)-1]
	case "shell_detached":
		tr.Detached++
		return nil
	case "task_start":
		var ts struct {
			TaskID string `json:"task_id"`
		}
		if err := json.Unmarshal(line, &ts); err != nil {
			return typeError(typ, err)
		}
		tr.TaskStarts = append(tr.TaskStarts, ts.TaskID)
		return nil
	case "task_end":
		tr.TaskEnds = append(tr.TaskEnds, TaskEnd{})
		dst = &tr.TaskEnds[len(tr.TaskEnds)-1]
	case "task_failed":
		tr.Failed = append(tr.Failed, TaskFailed{})
		dst = &tr.Failed[len(tr.Failed)-1]
	case "task_canceled":
		tr.Canceled = append(tr.Canceled, TaskCanceled{})
		dst = &tr.Canceled[len(tr.Canceled)-1]
	case "task_rejected":
		tr.Rejected = append(tr.Rejected, TaskRejected{})
		dst = &tr.Rejected[len(tr.Rejected)-1]
	case "task_reopened":
		tr.Reopened = append(tr.Reopened, TaskReopened{})
		dst = &tr.Reopened[len(tr.Reopened)-1]
	case "member_call":
		tr.MemberCalls = append(tr.MemberCalls, MemberCall{})
		dst = &tr.MemberCalls[len(tr.MemberCalls)-1]
	default:
		return nil // readers skip unknown types (capsule.md §6)
	}
	if err := json.Unmarshal(line, dst); err != nil {
		return typeError(typ, err)
	}
	return nil
}

// typeError words a field of the wrong JSON type without Go type names.
func typeError(typ string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("%s.%s holds a JSON %s", typ, te.Field, te.Value)
	}
	return fmt.Errorf("%s: %w", typ, err)
}
