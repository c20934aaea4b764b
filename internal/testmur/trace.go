package testmur

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// HasEvent reports whether the trace.jsonl in the records directory dir
// holds a whole record of type eventType (its event_type field); a line
// still being written is no record yet.
func HasEvent(dir, eventType string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "trace.jsonl"))
	if err != nil {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var r struct {
			EventType string `json:"event_type"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.EventType == eventType {
			return true
		}
	}
	return false
}

// WaitEvent waits until the trace in the records directory dir holds a
// record of type eventType, failing t when d passes first: a trace is
// another process's file, whose growth no event reports.
func WaitEvent(t testing.TB, dir, eventType string, d time.Duration) {
	t.Helper()
	Eventually(t, d, func() bool { return HasEvent(dir, eventType) }, "a %s record in %s", eventType, filepath.Join(dir, "trace.jsonl"))
}
