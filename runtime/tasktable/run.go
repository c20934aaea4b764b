package tasktable

import (
	"context"

	"github.com/murmur-go/mur/a2a"
)

// Run is a task the runtime took with Next. Its methods are safe for
// concurrent use; the runtime's task goroutine owns it.
type Run struct {
	r       *Registry
	e       *entry
	replies chan Reply
}

// Reply is the message that answered an AskInput question, with who sent it
// (input.md INP-5, INP-10).
type Reply struct {
	Message a2a.Message // contextId filled in
	Caller  Caller
	Prov    Provenance
}

// Next blocks until a task can start, moves it to WORKING and returns it: the
// front of the highest non-empty lane (user, peer, then bg), arrival order
// within a lane (capsule.md LOOP-4). It returns ErrClosed once Close was
// called and nothing is queued, and ctx's error when ctx ends first.
func (r *Registry) Next(ctx context.Context) (*Run, error) {
	for {
		r.mu.Lock()
		for l := range r.queue {
			if len(r.queue[l]) == 0 {
				continue
			}
			e := r.queue[l][0]
			r.queue[l] = r.queue[l][1:]
			r.left(e)
			run := &Run{r: r, e: e, replies: make(chan Reply, 1)} // one question at a time takes one reply (INP-6)
			e.run = run
			r.setState(e, a2a.TaskStateWorking, "")
			r.mu.Unlock()
			return run, nil
		}
		closing := r.closing
		r.mu.Unlock()
		if closing {
			return nil, ErrClosed
		}
		select {
		case <-r.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// ID is the task's id.
func (t *Run) ID() a2a.TaskID { return t.e.task.ID }

// ContextID is the task's context id.
func (t *Run) ContextID() a2a.ContextID { return t.e.task.ContextID }

// Message is the message that started the task.
func (t *Run) Message() a2a.Message {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	return t.e.history[0]
}

// Provenance is where the task came from.
func (t *Run) Provenance() Provenance { return t.e.prov }

// Caller is who submitted the task; Caller.Member names the calling member
// for a task a member token started (formations.md TRC-3 caller_member).
func (t *Run) Caller() Caller { return t.e.caller }

// Task is the task as the wire shows it now.
func (t *Run) Task() a2a.Task {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	return t.r.snapshot(t.e, nil, true)
}

// Canceled is closed once a cancel of this task is accepted (CancelTask,
// session/stop, CancelRun). The task is already CANCELED on the wire.
func (t *Run) Canceled() <-chan struct{} { return t.e.canceled }

// CancelCause is who canceled the task ("CancelTask", "session/stop", or
// CancelRun's reason); "" while it is not canceled.
func (t *Run) CancelCause() string {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	return t.e.cancelBy
}

// Status shows a WORKING status text on the task's streams and reads
// (tools.md RND-1, RND-2). It does nothing once the task has ended.
func (t *Run) Status(text string) {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	if t.e.task.Status.State != a2a.TaskStateWorking {
		return
	}
	ts := t.e.task.Status.Timestamp
	t.e.task.Status = a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: ts,
		Message: statusMessage(t.e.task.ID, t.e.task.ContextID, text)}
	t.r.publishStatus(t.e)
}

// SetMurmur sets the task's metadata.murmur while it runs (e.g. noAnswerBelow
// gathered so far); Finish may set it again.
func (t *Run) SetMurmur(m *a2a.MurmurTaskMetadata) {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	t.e.murmur = m
}

// AskInput moves a WORKING task to INPUT_REQUIRED with its "prompt"
// artifact holding the question (replacing an earlier one) and the question
// as its status message, which joins the history: subscribers get the
// artifactUpdate, then the statusUpdate, and their streams end (door.md
// SSE-3; input.md INP-4). The one reply arrives on Replies. It reports false,
// changing nothing, when the task is not WORKING (a cancel came first).
func (t *Run) AskInput(prompt string) bool {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	if t.e.task.Status.State != a2a.TaskStateWorking {
		return false
	}
	t.r.setArtifact(t.e, a2a.ArtifactPrompt, prompt)
	t.e.asking = true
	t.r.setState(t.e, a2a.TaskStateInputRequired, prompt)
	return true
}

// Replies delivers the reply to an AskInput question; the task is WORKING
// again when it arrives.
func (t *Run) Replies() <-chan Reply { return t.replies }

// Withdraw stops the question from taking a reply (its timeout, input.md
// INP-7): from now on a message naming the task is -32004. A reply the door
// took before it is returned with ok true (it won the race; the task is
// WORKING); otherwise the task stays INPUT_REQUIRED until Finish.
func (t *Run) Withdraw() (reply Reply, ok bool) {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	if t.e.asking {
		t.e.asking = false
		return Reply{}, false
	}
	select {
	case reply := <-t.replies:
		return reply, true
	default:
		return Reply{}, false
	}
}

// Finish records the task's end (door.md TASK-3, TASK-4, TASK-6): COMPLETED
// with its "response" artifact, or FAILED/CANCELED with its status text. It
// returns false, changing nothing, when the task had already ended — an
// accepted cancel is final.
func (t *Run) Finish(o Outcome) bool {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	if t.e.task.Status.State.Terminal() {
		return false
	}
	if o.Murmur != nil {
		t.e.murmur = o.Murmur
	}
	if o.State == a2a.TaskStateCompleted {
		t.r.setArtifact(t.e, a2a.ArtifactResponse, o.Response)
		t.r.remember(t.e, o.Response)
	}
	t.r.setState(t.e, o.State, o.Message)
	return true
}

// setArtifact stores a one-text-part artifact (artifactId = name, once per
// task) and streams it. Caller holds r.mu.
func (r *Registry) setArtifact(e *entry, name, text string) {
	a := a2a.Artifact{ArtifactID: name, Name: name, Parts: []a2a.Part{a2a.TextPart(text)}}
	replaced := false
	for i := range e.task.Artifacts {
		if e.task.Artifacts[i].ArtifactID == name {
			e.task.Artifacts[i], replaced = a, true
		}
	}
	if !replaced {
		e.task.Artifacts = append(e.task.Artifacts, a)
	}
	r.publish(e, a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{
		TaskID: e.task.ID, ContextID: e.task.ContextID, Artifact: a, LastChunk: true}}, false)
}
