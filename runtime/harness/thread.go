package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/murmur-go/mur/runtime/atomicfile"
	"github.com/murmur-go/mur/runtime/conversation"
)

// ThreadFile is the file that maps an A2A context to a harness session
// under lifecycle.conversation: threaded (THR-1).
const ThreadFile = "harness-session.json"

// Thread is harness-session.json (THR-1): compact JSON, fields in this
// order; UsageTotal only for codex, whose counts are a thread's running
// total (HEV-5).
type Thread struct {
	Harness    string      `json:"harness"` // claude-code | codex
	SessionID  string      `json:"session_id"`
	ContextID  string      `json:"context_id"`
	WrittenAt  string      `json:"written_at"` // RFC 3339
	UsageTotal *UsageTotal `json:"usage_total,omitempty"`
}

// UsageTotal is a codex thread's last running total (HEV-5).
type UsageTotal struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	Cached     int64 `json:"cached"`
	CacheWrite int64 `json:"cache_write"`
}

// ThreadPath is $MURMUR_HOME/conversations/<capsule>/<context>/harness-session.json
// (THR-1). A context id is the caller's input: one that is not a plain
// name of at most 128 characters ([A-Za-z0-9._-], not starting with '.'
// or '-') is never used as a path; its directory is ctx-sha256-<hex of
// its sha256> instead.
func ThreadPath(home, capsule, contextID string) string {
	return filepath.Join(conversation.ContextDir(home, capsule, contextID), ThreadFile)
}

// ReadThread reads path; (nil, nil) when there is none.
func ReadThread(path string) (*Thread, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var t Thread
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if t.SessionID == "" {
		return nil, fmt.Errorf("%s: no session_id", path)
	}
	return &t, nil
}

// WriteThread writes t to path (THR-1): directories 0700, the file 0600,
// replaced atomically (atomicfile.Write), so a reader sees the
// old entry or the new one, never part of either.
func WriteThread(path string, t Thread, now time.Time) error {
	t.WrittenAt = now.UTC().Format(time.RFC3339)
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, b, 0o600)
}
