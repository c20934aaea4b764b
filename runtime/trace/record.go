package trace

import "reflect"

// Record is one trace record's payload: a struct of this package whose
// fields, in declaration order, are the record's payload fields in the
// order of the spec (capsule.md §6, tools.md REC, formations.md TRC, …).
// A field tagged omitempty/omitzero is absent when unset; a pointer or a
// nil slice without one is written null.
//
// The set is sealed: only this package's types implement Record, and each
// is listed once in Types with its TRACE-2 parent and TRACE-3 fsync. A
// Writer writes nothing else, so every record the runtime writes has a
// type here.
type Record interface {
	// EventType is the record's event_type, e.g. "tool_call".
	EventType() string
	// task is the record's task_id, "" for a record without one; it seals
	// the interface.
	task() string
}

// Parent is the node a record type hangs from (TRACE-2).
type Parent int

// The three kinds of node.
const (
	ParentSession Parent = iota
	ParentTask
	ParentTurn
)

// Kind describes one record type: its event_type, a zero value of its Go
// type, the node it hangs from (TRACE-2) and whether the file is fsynced
// after it (TRACE-3).
type Kind struct {
	EventType string
	Zero      Record
	Parent    Parent
	Sync      bool
}

// kinds is every record type, in capsule.md §6's order, then the other
// records by the spec that owns them.
var kinds = []Kind{
	{"session_start", SessionStart{}, ParentSession, true},
	{"task_start", TaskStart{}, ParentSession, true},
	{"inference", Inference{}, ParentTask, false},
	{"tool_call", ToolCall{}, ParentTurn, false},
	{"shell", Shell{}, ParentTurn, false},
	{"task_end", TaskEnd{}, ParentTask, true},
	{"task_failed", TaskFailed{}, ParentTask, false},
	{"task_rejected", TaskRejected{}, ParentSession, false},
	{"session_end", SessionEnd{}, ParentSession, true},
	{"a2a_task_received", A2ATaskReceived{}, ParentSession, false},
	{"task_canceled", TaskCanceled{}, ParentTask, false},
	{"task_reopened", TaskReopened{}, ParentTask, false},
	{"task_continued", TaskContinued{}, ParentTask, false},
	{"keep_working", KeepWorking{}, ParentTask, false},
	{"done_check", DoneCheck{}, ParentTask, false},
	{"skill_call", SkillCall{}, ParentTurn, false},
	{"tool_input_refused", ToolInputRefused{}, ParentTurn, false},
	{"deadline_reached", DeadlineReached{}, ParentSession, false},
	{"spend_ceiling_reached", SpendCeilingReached{}, ParentTurn, false},
	{"inference_credential", InferenceCredential{}, ParentSession, false},
	{"retention", Retention{}, ParentSession, false},
	{"control_applied", ControlApplied{}, ParentTask, false},
	{"formation_ended", FormationEnded{}, ParentSession, false},
	{"shell_detached", ShellDetached{}, ParentTurn, true},
	{"shell_completed", ShellCompleted{}, ParentSession, false},
	{"shell_abandoned", ShellAbandoned{}, ParentSession, false},
	{"shell_lost", ShellLost{}, ParentSession, true},
	{"background_command", BackgroundCommand{}, ParentTurn, false},
	{"session_status", SessionStatus{}, ParentTurn, false},
	{"deadline_notice", DeadlineNotice{}, ParentTurn, false},
	{"artifact_pulled", ArtifactPulled{}, ParentTurn, false},
	{"tools_refreshed", ToolsRefreshed{}, ParentTask, false},
	{"control_change", ControlChange{}, ParentTurn, false},
	{"control_refused", ControlRefused{}, ParentTurn, false},
	{"member_call_busy", MemberCallBusy{}, ParentTurn, false},
	{"member_call_start", MemberCallStart{}, ParentTurn, false},
	{"member_call", MemberCall{}, ParentTask, false},
	{"plan_start", PlanStart{}, ParentTurn, false},
	{"plan_step_start", PlanStepStart{}, ParentTurn, false},
	{"plan_step", PlanStep{}, ParentTurn, false},
	{"plan_end", PlanEnd{}, ParentTurn, false},
	{"input_request", InputRequest{}, ParentTurn, false},
	{"input_reply", InputReply{}, ParentTask, false},
	{"input_timeout", InputTimeout{}, ParentTask, false},
	{"delegation_start", DelegationStart{}, ParentTurn, false},
	{"delegation", Delegation{}, ParentTurn, false},
	{"spawner_ended", SpawnerEnded{}, ParentSession, false},
	{"peer_handle_mint", PeerHandleMint{}, ParentTurn, false},
	{"peer_handle_redeem", PeerHandleRedeem{}, ParentSession, false},
	{"peer_file_fetch", PeerFileFetch{}, ParentTurn, false},
	{"harness_start", HarnessStart{}, ParentTask, false},
	{"harness_session", HarnessSession{}, ParentTask, false},
	{"harness_warning", HarnessWarning{}, ParentTask, false}, // the session's when no task: Writer.WriteTask
	{"harness_failed", HarnessFailed{}, ParentTask, false},
	{"harness_exit", HarnessExit{}, ParentTask, false},
	{"driver_retry", DriverRetry{}, ParentTask, false},
	{"call_denied", CallDenied{}, ParentTurn, false},
	{"hook_dispatch_error", HookDispatchError{}, ParentSession, false},
	{"context_seed", ContextSeed{}, ParentTask, false},
	{"compaction", Compaction{}, ParentTurn, false},
	{"compaction_declined", CompactionDeclined{}, ParentTurn, false},
}

// byType indexes kinds by event_type and byGo by Go type.
var byType, byGo = index()

func index() (map[string]*Kind, map[reflect.Type]*Kind) {
	t, g := map[string]*Kind{}, map[reflect.Type]*Kind{}
	for i := range kinds {
		k := &kinds[i]
		t[k.EventType] = k
		g[reflect.TypeOf(k.Zero)] = k
	}
	return t, g
}

// Kinds returns every record type this package declares, in the spec's
// order. The slice is a copy.
func Kinds() []Kind { return append([]Kind(nil), kinds...) }

// KindOf returns the record type named eventType, and false for a type
// this build does not write (readers skip those, capsule.md §6).
func KindOf(eventType string) (Kind, bool) {
	k, ok := byType[eventType]
	if !ok {
		return Kind{}, false
	}
	return *k, true
}

// ParentOf returns the node kind a record type hangs from (TRACE-2); a type
// this build does not write hangs from the session.
func ParentOf(eventType string) Parent {
	if k, ok := byType[eventType]; ok {
		return k.Parent
	}
	return ParentSession
}

// kindOf returns r's entry in kinds, or nil when its Go type has none (a
// programmer error the Writer reports).
func kindOf(r Record) *Kind {
	if r == nil {
		return nil
	}
	t := reflect.TypeOf(r)
	if t.Kind() == reflect.Pointer {
		if reflect.ValueOf(r).IsNil() {
			return nil
		}
		t = t.Elem()
	}
	k := byGo[t]
	if k == nil || k.EventType != r.EventType() {
		return nil
	}
	return k
}
