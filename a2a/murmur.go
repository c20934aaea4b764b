package a2a

import "encoding/json"

// Murmur request headers (door.md PEER-1). Values are compared after
// lower-casing and trimming.
const (
	HeaderTaskOrigin        = "x-murmur-task-origin"
	HeaderTaskTrust         = "x-murmur-task-trust"
	HeaderForgetSession     = "x-murmur-forget-session"
	HeaderCompletionSession = "x-murmur-completion-session"
	HeaderDelegationID      = "x-murmur-delegation-id"
	HeaderLastEventID       = "Last-Event-ID"
)

// Origin says where a task came from (door.md PEER-4, capsule.md LOOP-4).
type Origin string

// The origins of tasks.
const (
	OriginUser       Origin = "user"
	OriginPeer       Origin = "peer"
	OriginEvent      Origin = "event"
	OriginCompletion Origin = "completion"
	OriginSchedule   Origin = "schedule"
	OriginSystem     Origin = "system"
)

// Trust is a task's trust class; it decides fencing (capsule.md LOOP-21).
type Trust string

// The trust classes.
const (
	TrustTrusted   Trust = "trusted"
	TrustUntrusted Trust = "untrusted"
)

// The status texts of tasks the door refuses or ends before they run (door.md TASK-3, TASK-5).
const (
	StatusBusy               = "task rejected: capsule is busy"
	StatusClosing            = "task rejected: the session is closing"
	StatusEndedBeforeStart   = "task rejected: the session ended before this task started"
	StatusStoppedBeforeStart = "task rejected: the session was stopped before this task started"
	StatusCanceledBeforeRun  = "task canceled before it started"
)

// Artifact names the door writes (door.md TASK-4).
const (
	ArtifactResponse = "response"
	ArtifactPrompt   = "prompt"
	ArtifactResidue  = "residue"
)

// MurmurTaskMetadata is a task's metadata.murmur (door.md TASK-6).
type MurmurTaskMetadata struct {
	NoAnswer        bool            `json:"noAnswer,omitempty"`
	NoAnswerBelow   []NoAnswerEntry `json:"noAnswerBelow,omitempty"`
	RunningCommands []string        `json:"runningCommands,omitempty"`
}

// Empty reports whether m has no key to write.
func (m *MurmurTaskMetadata) Empty() bool {
	return m == nil || !m.NoAnswer && len(m.NoAnswerBelow) == 0 && len(m.RunningCommands) == 0
}

// NoAnswerEntry names a member further down that gave no answer.
type NoAnswerEntry struct {
	Member string `json:"member"`
	Status string `json:"status"`
}

// MurmurMetadata reads metadata.murmur of a task as a door sent it. ok is false
// when the task carries none or it does not decode.
func MurmurMetadata(t *Task) (m MurmurTaskMetadata, ok bool) {
	v, found := t.Metadata["murmur"]
	if !found {
		return m, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return m, false
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return MurmurTaskMetadata{}, false
	}
	return m, true
}

// SetMurmurMetadata sets (or, when m is empty, removes) metadata.murmur.
func SetMurmurMetadata(t *Task, m *MurmurTaskMetadata) {
	if m.Empty() {
		delete(t.Metadata, "murmur")
		if len(t.Metadata) == 0 {
			t.Metadata = nil
		}
		return
	}
	if t.Metadata == nil {
		t.Metadata = map[string]any{}
	}
	cp := *m
	t.Metadata["murmur"] = cp
}

// Watch frame types of stream/watch, in the stream extension's order (door.md SSE-8).
const (
	FrameStatus         = "status"
	FrameArtifact       = "artifact"
	FrameText           = "text"
	FrameGap            = "gap"
	FrameLagged         = "lagged"
	FrameConnectionAck  = "connection-ack"
	FrameCapsuleClosed  = "capsule-closed"
	WatchReplayCapacity = 512 // numbered frames a session keeps for replay (SSE-9)
	StreamLagLimit      = 128 // events a connection may fall behind before it is cut or lagged (SSE-5, SSE-9)
)

// WatchFrames lists the frame types this build writes, in order (door.md SSE-8).
var WatchFrames = []string{FrameStatus, FrameArtifact, FrameText, FrameGap, FrameLagged, FrameConnectionAck, FrameCapsuleClosed}

// StatusFrame is a status frame's data (door.md SSE-8): a task's status as
// murmur words, final once the state is terminal.
type StatusFrame struct {
	ID        TaskID      `json:"id"`
	ContextID ContextID   `json:"context_id"`
	Status    WatchStatus `json:"status"`
	Final     bool        `json:"final"`
}

// WatchStatus is a status frame's status: the state's murmur word
// (TaskState.MurmurWord), the status message's text (null when there is
// none) and, once completed, the answer's text.
type WatchStatus struct {
	State    string  `json:"state"`
	Message  *string `json:"message"`
	Response *string `json:"response,omitempty"`
}

// GapFrame is a gap frame's data (door.md SSE-9): the oldest frame id the
// session still holds for replay.
type GapFrame struct {
	FirstAvailableID uint64 `json:"first_available_id"`
}

// LaggedFrame is a lagged frame's data (door.md SSE-9): how many live frames
// were dropped since the watcher's last delivery.
type LaggedFrame struct {
	Missed uint64 `json:"missed"`
}

// ConnectionAckFrame is a connection-ack frame's data (door.md SSE-6).
type ConnectionAckFrame struct {
	Role             string `json:"role"`
	ConversationMode string `json:"conversation_mode"`
}

// TextFrame is a text frame's data (door.md SSE-8): a task's assistant text,
// final once it is the answer.
type TextFrame struct {
	ID    TaskID `json:"id"`
	Text  string `json:"text"`
	Final bool   `json:"final"`
}

// ArtifactFrame is an artifact frame's data (door.md SSE-8): one tool-call
// result.
type ArtifactFrame struct {
	ID       TaskID       `json:"id"`
	Artifact ToolArtifact `json:"artifact"`
}

// ToolArtifact is an artifact frame's artifact: every key present, null
// when not applicable (SSE-8).
type ToolArtifact struct {
	ToolName    string  `json:"tool_name"`
	Content     string  `json:"content"`
	FenceSource *string `json:"fence_source"` // null for a refusal
	ToolCallID  *string `json:"tool_call_id"`
	IsError     bool    `json:"is_error"`
	DurationMS  int64   `json:"duration_ms"`
	ExitCode    *int    `json:"exit_code"` // a shell command's
	Truncated   bool    `json:"truncated"`
}

// WatchFrame is one stream/watch frame. ID is 0 for unnumbered frames.
type WatchFrame struct {
	ID    uint64
	Event string
	Data  json.RawMessage
}

// Formation token scopes (door.md GO-5).
const (
	MemberTokenScope   = "SendMessage GetTask ListTasks CancelTask SubscribeToTask"
	LauncherTokenScope = "GetExtendedAgentCard"
	LauncherSubject    = "launcher"
)

// MemberTokenMethods are the five methods a member token reaches (door.md AUTH-6).
var MemberTokenMethods = []string{MethodSendMessage, MethodGetTask, MethodListTasks, MethodCancelTask, MethodSubscribeToTask}

// FormationAudience is a formation token's aud entry for member at formation.
func FormationAudience(formationID, member string) string { return formationID + "/" + member }
