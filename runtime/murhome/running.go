package murhome

import (
	"errors"
	"fmt"
	"time"

	"github.com/murmur-go/mur/a2a"
)

// Running is one running file. Keys are written in the order of SES-6, then
// the FCLI-5 formation keys, each only when it applies; Tokens only under
// network.authentication (the only copy of the door tokens, door.md AUTH-5).
type Running struct {
	SessionID    string    `json:"session_id"`
	URL          string    `json:"url"` // DOOR-1 form, http://127.0.0.1:<port>
	PID          int       `json:"pid"`
	ProcessStart string    `json:"process_start"` // /proc/<pid>/stat field 22, "" if unreadable
	Name         string    `json:"name"`
	Version      string    `json:"version"`
	Workdir      string    `json:"workdir"`
	RecordsDir   string    `json:"records_dir"`
	StartedAt    time.Time `json:"started_at"` // RFC 3339
	Tokens       Tokens    `json:"tokens,omitempty"`

	FormationID       string    `json:"formation_id,omitempty"`
	FormationLifeline bool      `json:"formation_lifeline,omitempty"`
	FormationLauncher *Launcher `json:"formation_launcher,omitempty"`
	SpawnedBy         string    `json:"spawned_by,omitempty"`
	// ResumedFrom is the session mur run --resume continued.
	ResumedFrom string `json:"resumed_from,omitempty"`
}

// Launcher is a member's formation_launcher (FCLI-5): the launcher's pid and
// process start time, as the channel's first line carried them.
type Launcher struct {
	PID          int    `json:"pid"`
	ProcessStart string `json:"process_start"`
}

// Token is one door token of a record: operator, or a declared credential.
type Token struct {
	Name  string
	Value string
}

// Tokens are a record's door tokens in order: operator first, then the
// declared credentials in manifest order (capsule.md CLI-11). They encode as
// one JSON object whose key order is this order.
type Tokens []Token

// MarshalJSON writes the tokens as an object, keys in slice order
// (a2a.Object).
func (ts Tokens) MarshalJSON() ([]byte, error) {
	o := make(a2a.Object, len(ts))
	for i, t := range ts {
		o[i] = a2a.Member{Key: t.Name, Value: t.Value}
	}
	return o.MarshalJSON()
}

// UnmarshalJSON reads an object of string values, keeping its key order.
func (ts *Tokens) UnmarshalJSON(data []byte) error {
	var o a2a.Object
	if err := o.UnmarshalJSON(data); err != nil {
		if me, ok := errors.AsType[*a2a.MemberError](err); ok {
			return fmt.Errorf("tokens.%s: %w", me.Key, me.Err)
		}
		return fmt.Errorf("tokens: %w", err)
	}
	out := make(Tokens, len(o))
	for i, m := range o {
		out[i] = Token{Name: m.Key, Value: m.Value}
	}
	*ts = out
	return nil
}

// Operator returns the operator token, or "" on a public door.
func (ts Tokens) Operator() string {
	for _, t := range ts {
		if t.Name == "operator" {
			return t.Value
		}
	}
	return ""
}

// validate checks what readers rely on; a record failing it is unreadable
// (FCLI-5: a malformed formation_id or formation_launcher makes it so).
func (r *Running) validate() error {
	switch {
	case !a2a.ValidID(r.SessionID, a2a.PrefixSession):
		return fmt.Errorf("session_id %q is not a session id", r.SessionID)
	case r.PID <= 0:
		return fmt.Errorf("pid %d is not a process id", r.PID)
	case r.FormationID != "" && !a2a.ValidID(r.FormationID, a2a.PrefixFormation):
		return fmt.Errorf("formation_id %q is not a formation id", r.FormationID)
	case r.FormationLauncher != nil && r.FormationLauncher.PID <= 0:
		return fmt.Errorf("formation_launcher.pid %d is not a process id", r.FormationLauncher.PID)
	}
	return nil
}
