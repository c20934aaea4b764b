package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/murmur-go/mur/a2a"
)

// getTask: METH-GT-1, TASK-4 — the ended task reads back unchanged.
func getTask(ctx context.Context, s *suite) error {
	t, err := s.endedTask(ctx)
	if err != nil {
		return needs("an ended task", err)
	}
	got, err := s.getTask(ctx, t.ID, nil)
	if err != nil {
		return err
	}
	if got.ID != t.ID || got.ContextID != t.ContextID || got.Status.State != t.Status.State {
		return failf("GetTask answered %s/%s in %s, want %s/%s in %s", got.ID, got.ContextID, got.Status.State,
			t.ID, t.ContextID, t.Status.State)
	}
	if s.murmur && len(got.History) > 0 {
		return failf("GetTask without historyLength answered %d history messages, want none (TASK-4)", len(got.History))
	}
	return nil
}

// getHistory: TASK-4 (A2A historyLength) — at most N messages; a murmur door
// answers the newest N it accepted, and -32602 for N < 0.
func getHistory(ctx context.Context, s *suite) error {
	t, err := s.endedTask(ctx)
	if err != nil {
		return needs("an ended task", err)
	}
	for _, n := range []int{0, 1} {
		got, err := s.getTask(ctx, t.ID, map[string]any{"historyLength": n})
		if err != nil {
			return fmt.Errorf("historyLength %d: %w", n, err)
		}
		if len(got.History) > n {
			return failf("historyLength %d answered %d messages", n, len(got.History))
		}
		if s.murmur && n == 1 && len(got.History) != 1 {
			return failf("historyLength 1 answered %d messages, want the task's first message (TASK-4)", len(got.History))
		}
	}
	if !s.murmur {
		return nil
	}
	a, err := s.call(ctx, a2a.MethodGetTask, map[string]any{"id": string(t.ID), "historyLength": -1}, nil)
	if err != nil {
		return err
	}
	return s.expectStandard(a, -32602, "")
}

// getUnknown: METH-GT-1, RPC-4.
func getUnknown(ctx context.Context, s *suite) error {
	a, err := s.call(ctx, a2a.MethodGetTask, map[string]any{"id": unknownTaskID}, nil)
	if err != nil {
		return err
	}
	if err := s.expectA2A(a, -32001, "TASK_NOT_FOUND", map[string]string{"taskId": unknownTaskID}); err != nil {
		return err
	}
	if s.murmur && *a.err.Message != "Task not found" {
		return failf("message %q, want %q (RPC-4)", *a.err.Message, "Task not found")
	}
	return nil
}

// getMissingID: METH-GT-1.
// A door that reads the missing id as "" and answers -32001 is within A2A;
// a murmur door answers -32602 naming the parameter.
func getMissingID(ctx context.Context, s *suite) error {
	params := []map[string]any{{}}
	if s.murmur {
		params = append(params, map[string]any{"id": ""})
	}
	for _, p := range params {
		a, err := s.call(ctx, a2a.MethodGetTask, p, nil)
		if err != nil {
			return err
		}
		if !s.murmur && a.err != nil && *a.err.Code == -32001 {
			continue
		}
		if err := s.expectStandard(a, -32602, "GetTask requires an id"); err != nil {
			return fmt.Errorf("params %s: %w", jsonOf(p), err)
		}
	}
	return nil
}

// listShape: METH-LT-2 — every key present; no artifacts unasked; a murmur
// door sorts by status.timestamp, newest first (ties: id descending), with
// pageSize 50 by default.
func listShape(ctx context.Context, s *suite) error {
	a, err := s.call(ctx, a2a.MethodListTasks, map[string]any{}, nil)
	if err != nil {
		return err
	}
	res, err := a.ok()
	if err != nil {
		return err
	}
	if err := validate(res, listResponseSpec, "result"); err != nil {
		return err
	}
	if bytes.Contains(res, []byte(`"artifacts"`)) {
		return failf("a task carries artifacts without includeArtifacts (METH-LT-2)")
	}
	var r a2a.ListTasksResponse
	_ = json.Unmarshal(res, &r)
	if r.TotalSize < len(r.Tasks) || s.accepted && r.TotalSize == 0 {
		return failf("totalSize %d with %d tasks listed", r.TotalSize, len(r.Tasks))
	}
	for i := range r.Tasks {
		raw, _ := json.Marshal(r.Tasks[i])
		if err := s.checkTask(raw, &r.Tasks[i]); err != nil {
			return err
		}
	}
	if !s.murmur {
		return nil
	}
	if r.PageSize != 50 {
		return failf("pageSize %d, want the default 50 (METH-LT-1)", r.PageSize)
	}
	if !slices.IsSortedFunc(r.Tasks, func(x, y a2a.Task) int { return -compareListed(x, y) }) {
		return failf("tasks are not sorted by status.timestamp descending, ties by id descending (METH-LT-2)")
	}
	return nil
}

func compareListed(x, y a2a.Task) int {
	if c := strings.Compare(x.Status.Timestamp, y.Status.Timestamp); c != 0 {
		return c
	}
	return strings.Compare(string(x.ID), string(y.ID))
}

// listPaging: METH-LT-1, METH-LT-2 — pages of one, followed by their tokens,
// list every task once; the last page's token is "".
func listPaging(ctx context.Context, s *suite) error {
	seen := map[a2a.TaskID]bool{}
	token, total := "", -1
	for page := 0; ; page++ {
		p := map[string]any{"pageSize": 1}
		if token != "" {
			p["pageToken"] = token
		}
		r, err := s.list(ctx, p)
		if err != nil {
			return fmt.Errorf("page %d: %w", page+1, err)
		}
		if total < 0 {
			total = r.TotalSize
		}
		if len(r.Tasks) > 1 || r.PageSize != 1 {
			return failf("page %d: %d tasks with pageSize %d, want at most 1 and pageSize 1", page+1, len(r.Tasks), r.PageSize)
		}
		for _, t := range r.Tasks {
			if seen[t.ID] {
				return failf("task %s listed twice", t.ID)
			}
			seen[t.ID] = true
		}
		if r.NextPageToken == "" {
			break
		}
		if page > total {
			return failf("more than %d pages for %d tasks: nextPageToken never ends", page, total)
		}
		token = r.NextPageToken
	}
	if len(seen) != total {
		return failf("the pages listed %d tasks, totalSize said %d", len(seen), total)
	}
	return nil
}

// listFilters: METH-LT-1 — contextId and status filter exactly.
func listFilters(ctx context.Context, s *suite) error {
	if s.ctxTask == nil {
		return skipf("needs the task send.return-immediately started")
	}
	r, err := s.list(ctx, map[string]any{"contextId": string(s.ctxTask.ContextID), "pageSize": 100})
	if err != nil {
		return err
	}
	if len(r.Tasks) != 1 || r.Tasks[0].ID != s.ctxTask.ID || r.TotalSize != 1 {
		return failf("contextId %s listed %d tasks (totalSize %d), want exactly task %s", s.ctxTask.ContextID, len(r.Tasks), r.TotalSize, s.ctxTask.ID)
	}
	t, err := s.endedTask(ctx)
	if err != nil {
		return needs("an ended task", err)
	}
	r, err = s.list(ctx, map[string]any{"status": string(t.Status.State), "pageSize": 100})
	if err != nil {
		return err
	}
	found := false
	for _, lt := range r.Tasks {
		if lt.Status.State != t.Status.State {
			return failf("status %s listed task %s in %s", t.Status.State, lt.ID, lt.Status.State)
		}
		found = found || lt.ID == t.ID
	}
	if !found && r.TotalSize <= 100 {
		return failf("status %s did not list task %s, which is in that state", t.Status.State, t.ID)
	}
	return nil
}

// listInvalid: METH-LT-1 — malformed values are -32602.
func listInvalid(ctx context.Context, s *suite) error {
	cases := map[string]map[string]any{
		"an unknown state":       {"status": "TASK_STATE_CONFORMANCE"},
		"a token never issued":   {"pageToken": "conformance-not-a-token"},
		"a pageSize string":      {"pageSize": "ten"},
		"a statusTimestampAfter": {"statusTimestampAfter": "yesterday"},
	}
	if s.murmur {
		cases["a negative historyLength"] = map[string]any{"historyLength": -1}
		cases["pageSize 0"] = map[string]any{"pageSize": 0}
		cases["pageSize 101"] = map[string]any{"pageSize": 101}
	}
	names := make([]string, 0, len(cases))
	for k := range cases {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		a, err := s.call(ctx, a2a.MethodListTasks, cases[name], nil)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := s.expectStandard(a, -32602, ""); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}
