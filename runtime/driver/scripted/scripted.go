// Package scripted is the `scripted` inference driver (capsule.md DRV-7): it
// replays a YAML script, with no network, so capsules and the loop can be run
// and tested without a model.
//
// # Example
//
//	s, err := scripted.Load(filepath.Join(manifestDir, block.Script)) // E-RUN-009, E-MAN-003
//	if err != nil {
//		return err
//	}
//	d := scripted.New(s)
//	resp, err := d.Complete(ctx, req)
//
// Per call the task text (the first user message's text, or the content of
// its task:<origin> fence) picks the first matching rule, else the fallback;
// the cursor (assistant messages already in the task's conversation) picks
// the turn. Both start at the request's TaskFrom, so a task that continues a
// resumed conversation plays its script from the first turn.
package scripted

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/driver"
)

// Kind is the driver block kind this package serves.
const Kind = "scripted"

// Driver replays a Script. It keeps no state between calls and is safe for
// concurrent use.
type Driver struct {
	script *Script
}

var (
	_ driver.Driver  = (*Driver)(nil)
	_ driver.Encoder = (*Driver)(nil)
)

// New returns a driver replaying s, which Load or Parse validated.
func New(s *Script) *Driver { return &Driver{script: s} }

// Kind returns "scripted".
func (d *Driver) Kind() string { return Kind }

// Encode returns the neutral request as JSON: what the estimate of DRV-8
// counts for this driver.
func (d *Driver) Encode(req *driver.Request) ([]byte, error) { return a2a.Marshal(req) }

// Complete returns the scripted turn for req (DRV-7). Errors: *ScriptError for
// `no script rule matches the task`, `script exhausted after <n> turns` and a
// turn's `error:`; *CredentialError (credential "none") for `status: 401`; the
// context's error when ctx ends during `delay_ms`.
func (d *Driver) Complete(ctx context.Context, req *driver.Request) (*driver.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	reqBody, err := d.Encode(req)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	msgs := req.Messages
	if from := req.TaskFrom; from > 0 && from < len(msgs) {
		msgs = msgs[from:] // the task's own messages: an earlier conversation is not its turns
	}
	v := readVars(msgs)
	seq := d.script.pick(v.task, req.TaskMessageID)
	if seq == nil {
		return nil, &driver.ScriptError{Reason: "no script rule matches the task"}
	}
	cursor := 0
	for _, m := range msgs {
		if m.Role == driver.RoleAssistant {
			cursor++
		}
	}
	t, ok := seq.turn(cursor)
	if !ok {
		return nil, &driver.ScriptError{Reason: fmt.Sprintf("script exhausted after %d turns", len(seq.Turns))}
	}
	if t.DelayMS > 0 {
		if err := driver.Sleep(ctx, time.Duration(t.DelayMS)*time.Millisecond); err != nil { // DRV-7: cancellable
			return nil, err
		}
	}
	switch {
	case t.Error != nil:
		return nil, &driver.ScriptError{Reason: *t.Error}
	case t.Status == 401:
		return nil, &driver.CredentialError{Kind: Kind, Credential: "none", Status: 401}
	}
	resp, err := t.reply(v, cursor)
	if err != nil {
		return nil, err
	}
	resp.RequestBody = reqBody
	return resp, nil
}

// pick returns the sequence for the task text and the messageId of the
// message that started it: the first matching rule's, else the fallback,
// else nil.
func (s *Script) pick(task, messageID string) *Sequence {
	for i := range s.Rules {
		if s.Rules[i].Match.matches(task, messageID) {
			return &s.Rules[i].Sequence
		}
	}
	return s.Fallback
}

func (m Match) matches(task, messageID string) bool {
	switch {
	case m.Always:
		return true
	case m.MessageIDPrefix != nil:
		return strings.HasPrefix(messageID, *m.MessageIDPrefix)
	case m.Contains != nil:
		return strings.Contains(task, *m.Contains)
	case m.Regex != nil:
		return m.Regex.MatchString(task)
	}
	return false
}

// turn returns turn cursor, the last one forever under repeat.
func (q *Sequence) turn(cursor int) (Turn, bool) {
	switch {
	case cursor < len(q.Turns):
		return q.Turns[cursor], true
	case q.Repeat && len(q.Turns) > 0:
		return q.Turns[len(q.Turns)-1], true
	}
	return Turn{}, false
}

func (t Turn) reply(v *vars, cursor int) (*driver.Response, error) {
	resp := &driver.Response{StopReason: t.StopReason, Usage: driver.Usage{
		Input: t.Usage.Input, Output: t.Usage.Output, Cached: t.Usage.Cached, CacheWrite: t.Usage.CacheWrite,
	}}
	if t.Text != nil {
		resp.Blocks = append(resp.Blocks, driver.TextBlock(v.expand(*t.Text)))
	}
	for i, c := range t.ToolCalls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", cursor, i)
		}
		input, err := a2a.Marshal(v.expandValue(c.Input))
		if err != nil {
			return nil, fmt.Errorf("encode tool input: %w", err)
		}
		resp.Blocks = append(resp.Blocks, driver.ToolUseBlock(id, c.Name, input))
	}
	if resp.StopReason == "" {
		resp.StopReason = driver.StopEndTurn
		if len(t.ToolCalls) > 0 {
			resp.StopReason = driver.StopToolUse
		}
	}
	raw, err := a2a.Marshal(struct {
		Blocks     []driver.Block `json:"blocks"`
		StopReason string         `json:"stop_reason"`
		Usage      driver.Usage   `json:"usage"`
	}{resp.Blocks, resp.StopReason, resp.Usage})
	if err != nil {
		return nil, fmt.Errorf("encode reply: %w", err)
	}
	resp.RawBody = raw
	return resp, nil
}
