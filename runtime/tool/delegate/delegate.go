package delegate

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/spawn"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// DefaultDeadline is lifecycle.delegation_deadline_secs's default (CALL-5,
// DLG-5).
const DefaultDeadline = 600 * time.Second

// Spawner starts sub-capsules; *spawn.Hub satisfies it.
type Spawner interface {
	Delegate(ctx context.Context, req spawn.Request) (*spawn.Child, error)
}

var _ Spawner = (*spawn.Hub)(nil)

// Config builds delegate-task.
type Config struct {
	// Hub starts the children; required.
	Hub Spawner
	// Allow is capabilities.spawn.allow, parsed: the schema's enum is their
	// bare names, in order, each once (DLG-1); required, non-empty.
	Allow []manifest.SpawnRef
	// Deadline bounds each delegation from its child's ready line (DLG-5):
	// lifecycle.delegation_deadline_secs after MURMUR_DELEGATION_TIMEOUT_SECS;
	// 0 means DefaultDeadline.
	Deadline time.Duration
}

// New returns delegate-task (tools.md §13).
func New(cfg Config) (tool.Tool, error) {
	if cfg.Hub == nil {
		return nil, errors.New("delegate-task: no hub")
	}
	if len(cfg.Allow) == 0 {
		return nil, errors.New("delegate-task: empty spawn.allow")
	}
	if cfg.Deadline <= 0 {
		cfg.Deadline = DefaultDeadline
	}
	return &delegateTool{cfg: cfg}, nil
}

type delegateTool struct{ cfg Config }

// Spec is DLG-1's schema: capsule an enum of the allow list's bare names.
func (t *delegateTool) Spec() tool.Spec {
	var names []string
	seen := map[string]bool{}
	for _, r := range t.cfg.Allow {
		if !seen[r.Name] {
			seen[r.Name] = true
			names = append(names, r.Name)
		}
	}
	schema := `{"type":"object","properties":{"capsule":{"type":"string","enum":` + tool.JSON(names) +
		`},"version":{"type":"string"},"task":{"type":"string"}},"required":["capsule","version","task"]}`
	return tool.Spec{Name: tool.NameDelegateTask, Description: description, InputSchema: json.RawMessage(schema), Kind: tool.KindRuntime}
}

// Call referees and launches one delegation (DLG-2..4) and returns once its
// child holds the task — started — or in the same turn failed, the child
// stopped and reaped. A started delegation goes on in its task's set.
func (t *delegateTool) Call(ctx context.Context, cc *tool.CallContext, input json.RawMessage) tool.Result {
	const self = tool.NameDelegateTask
	if cc == nil || cc.Task == nil {
		return tool.Refusal(self, refusedNoTask)
	}
	ts := cc.Task
	in := tool.DecodeObject(input)
	capsule, ok := tool.StringField(in, "capsule")
	if !ok {
		return tool.Needs(self, "capsule")
	}
	version, ok := tool.StringField(in, "version")
	if !ok {
		return tool.Needs(self, "version")
	}
	task, ok := tool.StringField(in, "task")
	if !ok {
		return tool.Needs(self, "task")
	}
	s := setFor(ts, &t.cfg)
	d := s.newDelegation(capsule, version)
	child, err := t.cfg.Hub.Delegate(ctx, spawn.Request{
		Capsule: capsule, Version: version, Task: task, ID: d.id,
		ContextID: ts.ContextID, Trust: ts.Trust,
		Ready: func(c *spawn.Child) {
			ts.Write(d.turnNode, tool.Rec{Record: trace.DelegationStart{DelegationID: d.id, Capsule: capsule, Version: version,
				ChildSessionID: c.SessionID, ChildWorkdir: c.RelWorkdir}})
		},
	})
	var ref *spawn.Refusal
	var le *spawn.LaunchError
	switch {
	case errors.As(err, &ref):
		s.drop(d)
		return tool.Result{Status: tool.Failed, Summary: summary(capsule, outcomeRefused), Data: ref.Sentence,
			Records: []tool.Rec{{Record: trace.Delegation{Capsule: capsule, Version: version,
				DurationMS: time.Since(d.start).Milliseconds(), Outcome: outcomeRefused, Reason: &ref.Sentence}}}}
	case err != nil:
		s.drop(d)
		out := err.Error()
		var ses *string
		data := map[string]string{"capsule": capsule, "delegation_id": d.id, "output": out, "status": statusFailed, "version": version}
		if errors.As(err, &le) && le.SessionID != "" {
			data["session_id"] = le.SessionID
			ses = &le.SessionID
		}
		return tool.Result{Status: tool.Failed, Summary: summary(capsule, statusFailed), Data: tool.JSON(data),
			Records: []tool.Rec{{Record: trace.Delegation{Capsule: capsule, Version: version, DelegationID: &d.id,
				ChildSessionID: ses, DurationMS: time.Since(d.start).Milliseconds(), Outcome: outcomeFailed, Reason: &out}}}}
	}
	s.started(ctx, d, child)
	return tool.Result{Status: tool.Passed, Summary: summary(capsule, statusStarted),
		Data: tool.JSON(map[string]string{"capsule": capsule, "child_workdir": child.RelWorkdir, "delegation_id": d.id,
			"session_id": child.SessionID, "status": statusStarted, "version": version}),
		Notes: []string{noteStarted(capsule, d.id)}}
}

// newID mints a delegation id (DLG-4: dlg_ + 32 hex).
func newID() string { return a2a.NewID(a2a.PrefixDelegation) }
