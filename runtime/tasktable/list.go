package tasktable

import (
	"crypto/rand"
	"encoding/base64"
	"slices"
	"strings"
	"time"

	"github.com/murmur-go/mur/a2a"
)

// pageCursor is where a page token resumes: after (timestamp, id) in the
// listing order, for the same filter. Tokens live as long as the registry.
type pageCursor struct {
	timestamp string
	id        a2a.TaskID
	filter    string // the request's filters, so a token is used only with them
	caller    Caller
}

// DefaultPageSize and MaxPageSize bound ListTasks pages (door.md METH-LT-1).
const (
	DefaultPageSize = 50
	MaxPageSize     = 100
)

// List answers ListTasks (door.md METH-LT-1, METH-LT-2): only tasks caller
// may see, newest status timestamp first (ties: task id descending), filtered
// and paged. Out-of-range or malformed values, unknown state names and page
// tokens this registry did not issue (for these filters and caller) are -32602.
func (r *Registry) List(c Caller, q a2a.ListTasksRequest) (a2a.ListTasksResponse, error) {
	size := DefaultPageSize
	if q.PageSize != nil {
		if *q.PageSize < 1 || *q.PageSize > MaxPageSize {
			return a2a.ListTasksResponse{}, a2a.InvalidParams("ListTasks pageSize must be between 1 and 100")
		}
		size = *q.PageSize
	}
	if q.HistoryLength != nil && *q.HistoryLength < 0 {
		return a2a.ListTasksResponse{}, a2a.InvalidParams("ListTasks historyLength must not be negative")
	}
	if q.Status != "" && !q.Status.Valid() {
		return a2a.ListTasksResponse{}, a2a.InvalidParams("ListTasks status '" + string(q.Status) + "' is not a task state")
	}
	state := q.Status
	if state == a2a.TaskStateUnspecified {
		state = ""
	}
	var after time.Time
	if q.StatusTimestampAfter != "" {
		t, err := time.Parse(time.RFC3339Nano, q.StatusTimestampAfter)
		if err != nil {
			return a2a.ListTasksResponse{}, a2a.InvalidParams("ListTasks statusTimestampAfter is not an RFC 3339 time")
		}
		after = t
	}
	filter := strings.Join([]string{string(q.ContextID), string(state), q.StatusTimestampAfter}, "\x00")

	r.mu.Lock()
	defer r.mu.Unlock()
	var cur *pageCursor
	if q.PageToken != "" {
		pc, ok := r.pages[q.PageToken]
		if !ok || pc.filter != filter || pc.caller != c {
			return a2a.ListTasksResponse{}, a2a.InvalidParams("ListTasks pageToken was not issued by this door for these filters")
		}
		cur = &pc
	}
	var match []*entry
	for _, e := range r.tasks {
		if !visible(e, c) || q.ContextID != "" && e.task.ContextID != q.ContextID ||
			state != "" && e.task.Status.State != state {
			continue
		}
		if !after.IsZero() {
			ts, err := time.Parse(time.RFC3339Nano, e.task.Status.Timestamp)
			if err != nil || ts.Before(after) {
				continue
			}
		}
		match = append(match, e)
	}
	slices.SortFunc(match, func(a, b *entry) int {
		return -compareKey(a.task.Status.Timestamp, a.task.ID, b.task.Status.Timestamp, b.task.ID)
	})
	start := 0
	if cur != nil {
		start = len(match)
		for i, e := range match {
			if compareKey(e.task.Status.Timestamp, e.task.ID, cur.timestamp, cur.id) < 0 {
				start = i
				break
			}
		}
	}
	end := min(start+size, len(match))
	resp := a2a.ListTasksResponse{Tasks: []a2a.Task{}, PageSize: size, TotalSize: len(match)}
	for _, e := range match[start:end] {
		resp.Tasks = append(resp.Tasks, r.snapshot(e, q.HistoryLength, q.IncludeArtifacts))
	}
	if end < len(match) {
		last := match[end-1]
		tok := newPageToken()
		r.pages[tok] = pageCursor{timestamp: last.task.Status.Timestamp, id: last.task.ID, filter: filter, caller: c}
		resp.NextPageToken = tok
	}
	return resp, nil
}

// compareKey orders (timestamp, id) pairs ascending. Timestamps are all
// written by FormatTime, so their text order is their time order.
func compareKey(ta string, ia a2a.TaskID, tb string, ib a2a.TaskID) int {
	if c := strings.Compare(ta, tb); c != 0 {
		return c
	}
	return strings.Compare(string(ia), string(ib))
}

func newPageToken() string {
	var b [18]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
