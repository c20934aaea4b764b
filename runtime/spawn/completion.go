package spawn

import (
	"encoding/json"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// CompletionFile is completion.json, in the child's records directory
// (tools.md DLG-7).
const CompletionFile = "completion.json"

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

// MaxDetail bounds a completion's detail, in bytes (DLG-7).
const MaxDetail = 2000

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

// message is the completion as a child posts it: the outcome and where the
// result is, never the delivery fields (DLG-7).
func (c Completion) message() string {
	c.ReportedBy, c.Delivered, c.DeliveryError = "", false, ""
	b, _ := json.Marshal(struct {
		Completion
		ReportedBy    string `json:"reported_by,omitempty"`
		Delivered     bool   `json:"delivered,omitempty"`
		DeliveryError string `json:"delivery_error,omitempty"`
	}{Completion: c})
	return string(b)
}

// cutDetail keeps detail within MaxDetail bytes, on a UTF-8 boundary.
func cutDetail(s string) string {
	if len(s) <= MaxDetail {
		return s
	}
	s = s[:MaxDetail]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// writeCompletion writes c to dir/completion.json, 0600, replacing what was
// there (temp file and rename, so a reader never sees half of one).
func writeCompletion(dir string, c Completion) error {
	c.Detail = cutDetail(c.Detail)
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".completion-*.json")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, CompletionFile))
}

// ReadCompletion reads dir/completion.json; ok is false when there is none
// or it does not read as a completion (DLG-8: the parent then reports
// unknown, or crashed when there is no file at all).
func ReadCompletion(dir string) (c Completion, exists, ok bool) {
	b, err := os.ReadFile(filepath.Join(dir, CompletionFile))
	if err != nil {
		return c, !os.IsNotExist(err), false
	}
	return parseCompletion(b)
}

// parseCompletion reads a completion posted or written.
func parseCompletion(b []byte) (c Completion, exists, ok bool) {
	if err := json.Unmarshal(b, &c); err != nil {
		return Completion{}, true, false
	}
	switch c.Status {
	case StatusOK, StatusError, StatusCrashed, StatusTerminated:
	default:
		return Completion{}, true, false
	}
	if !delegationID.MatchString(c.DelegationID) {
		return Completion{}, true, false
	}
	return c, true, true
}
