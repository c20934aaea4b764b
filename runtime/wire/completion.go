package wire

import (
	"encoding/json"
	"regexp"
)

// The statuses of a completion (DLG-7), and the parent's own for a child it
// could not read (DLG-8).
const (
	StatusOK         = "ok"
	StatusError      = "error"
	StatusCrashed    = "crashed"
	StatusTerminated = "terminated"
	StatusUnknown    = "unknown"
)

// Who built a completion record (DLG-7 reported_by).
const (
	ReportedByChild    = "child"
	ReportedByLauncher = "launcher"
)

// Completion is a delegation's outcome as its child (or, for a child that
// died without one, its parent) recorded it: the fields DLG-7 lists, in
// order. The message a child posts carries the fields up to Detail; the
// file adds reported_by, delivered and delivery_error.
type Completion struct {
	DelegationID   string `json:"delegation_id"`
	CapsuleName    string `json:"capsule_name"`
	CapsuleVersion string `json:"capsule_version"`
	SessionID      string `json:"session_id"`
	Status         string `json:"status"`                // ok | error | crashed | terminated
	ResultPath     string `json:"result_path,omitempty"` // relative to Workdir; absent when no result file
	Workdir        string `json:"workdir"`               // the child's accessible workdir, absolute
	DurationMS     int64  `json:"duration_ms"`
	Detail         string `json:"detail,omitempty"` // at most MaxDetail bytes
	ReportedBy     string `json:"reported_by,omitempty"`
	Delivered      bool   `json:"delivered"`
	DeliveryError  string `json:"delivery_error,omitempty"`
}

// MaxDetail bounds a completion's detail, in bytes (DLG-7).
const MaxDetail = 2000

// Message is the completion as a child posts it: the outcome and where the
// result is, never the delivery fields (DLG-7).
func (c Completion) Message() string {
	c.ReportedBy, c.Delivered, c.DeliveryError = "", false, ""
	b, _ := json.Marshal(struct {
		Completion
		ReportedBy    string `json:"reported_by,omitempty"`
		Delivered     bool   `json:"delivered,omitempty"`
		DeliveryError string `json:"delivery_error,omitempty"`
	}{Completion: c})
	return string(b)
}

// delegationID is a delegation id's shape: dlg_ and 32 lower hex digits.
var delegationID = regexp.MustCompile(`^dlg_[0-9a-f]{32}$`)

// ParseCompletion reads a completion posted or written: ok is false unless
// it decodes, carries a status a child reports and names a delegation.
func ParseCompletion(b []byte) (c Completion, ok bool) {
	if err := json.Unmarshal(b, &c); err != nil {
		return Completion{}, false
	}
	switch c.Status {
	case StatusOK, StatusError, StatusCrashed, StatusTerminated:
	default:
		return Completion{}, false
	}
	if !delegationID.MatchString(c.DelegationID) {
		return Completion{}, false
	}
	return c, true
}
