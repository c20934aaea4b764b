package shell

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// bgSchema is background-command's input schema, exact (BG-1).
const bgSchema = `{"type":"object","properties":{"operation":{"type":"string","enum":["status","wait","stop"]},"work_id":{"type":"string"},"wait_secs":{"type":"integer","minimum":0}},"required":["operation","work_id"]}`

const bgDescription = "Reports on, waits for or stops a shell command that moved to the background, by the work id (wrk_…) its shell call returned. operation status returns at once; wait returns when the command exits or after wait_secs (default and most 600); stop ends its process group."

// maxWait is the longest a wait operation waits (BG-1).
const maxWait = 600 * time.Second

// BG-4's refusal texts (the first four ours).
func bgNeedsWorkID() string {
	return "background-command needs work_id: the wrk_<hex> id a shell call returned"
}
func bgBadWorkID(v string) string {
	return fmt.Sprintf("work_id '%s' is not a work id: it has the form wrk_<hex>", v)
}
func bgBadOperation(v string) string {
	return fmt.Sprintf("operation '%s' is not one of status, wait, stop", v)
}
func bgBadWaitSecs(v string) string {
	return fmt.Sprintf("wait_secs '%s' is not a whole number of seconds", v)
}
func bgUnknown(id string) string {
	return fmt.Sprintf("no background command with work id `%s` in this session", id)
}

// Background returns the background-command tool over works (BG-1..4).
func Background(works *Works) tool.Tool { return &bgTool{works: works} }

type bgTool struct{ works *Works }

func (t *bgTool) Spec() tool.Spec {
	return tool.Spec{Name: tool.NameBackgroundCommand, Description: bgDescription, InputSchema: json.RawMessage(bgSchema), Kind: tool.KindRuntime}
}

func (t *bgTool) Call(ctx context.Context, cc *tool.CallContext, input json.RawMessage) tool.Result {
	const name = tool.NameBackgroundCommand
	obj := tool.DecodeObject(input)
	rawID, ok := obj["work_id"]
	if !ok {
		return tool.Refusal(name, bgNeedsWorkID())
	}
	id, isStr := tool.RawString(rawID)
	if !isStr || !a2a.ValidID(id, a2a.PrefixWork) {
		return tool.Refusal(name, bgBadWorkID(id))
	}
	rawOp, ok := obj["operation"]
	if !ok {
		return tool.Needs(name, "operation")
	}
	op, _ := tool.RawString(rawOp)
	if op != "status" && op != "wait" && op != "stop" {
		return tool.Refusal(name, bgBadOperation(op))
	}
	wait := maxWait
	if rawWait, ok := obj["wait_secs"]; ok {
		n, err := strconv.ParseInt(string(rawWait), 10, 64)
		if err != nil || n < 0 {
			s, _ := tool.RawString(rawWait)
			return tool.Refusal(name, bgBadWaitSecs(s))
		}
		if d := time.Duration(n) * time.Second; d < wait {
			wait = d
		}
	}
	w := t.works.Get(id)
	if w == nil {
		return tool.Refusal(name, bgUnknown(id))
	}
	var waited *time.Duration
	switch op {
	case "wait":
		d := t.wait(ctx, cc, w, wait)
		waited = &d
	case "stop":
		t.works.Stop(w)
	}
	now := t.works.now()
	s := w.Snapshot(now)
	if s.State != "running" {
		w.mu.Lock()
		w.returned = true
		w.mu.Unlock()
	}
	var notes []string
	if s.Held {
		notes = append(notes, noteHeldOutput)
	}
	rec := trace.BackgroundCommand{Turn: cc.Turn, TaskID: cc.TaskID, WorkID: id, Operation: op, State: s.State,
		ElapsedSecs: s.ElapsedSecs, OutputBytes: s.OutputBytes}
	if waited != nil {
		ws := int64(*waited / time.Second)
		rec.WaitedSecs = &ws
	}
	if s.ExitCode != nil {
		rec.ExitCode, rec.Status = s.ExitCode, &s.Status
	}
	return tool.Result{
		Status:  tool.Passed, // BG-2: whatever the exit code
		Summary: fmt.Sprintf("%s: %s %s", name, op, s.State),
		Data:    w.Report(now, waited),
		Notes:   notes,
		Records: []tool.Rec{{Record: rec}},
	}
}

// wait blocks until w exits, d passes or ctx ends (a task cancel: phase
// background_wait, BG-1), and returns how long it waited.
func (t *bgTool) wait(ctx context.Context, cc *tool.CallContext, w *Work, d time.Duration) time.Duration {
	start := t.works.now()
	if d <= 0 {
		return 0
	}
	w.mu.Lock()
	w.waiters++
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.waiters--
		w.mu.Unlock()
	}()
	cc.Phase("background_wait")
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-w.done:
	case <-timer.C:
	case <-ctx.Done():
		// The phase stays background_wait: the loop records the cancel that
		// ended the wait in it (BG-1, LOOP-16).
		return t.works.now().Sub(start)
	}
	cc.Phase("turn")
	return t.works.now().Sub(start)
}
