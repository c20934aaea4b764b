package input

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// Door is the door of the task a call runs in, as request-input needs it;
// the session adapts the task table's run to it (runtime/session input.go).
// Its methods are safe for concurrent use.
type Door interface {
	// Ask parks the task INPUT_REQUIRED with prompt as its "prompt"
	// artifact (door.md SSE-3). It reports false, asking nothing, when the
	// task is not WORKING (a cancel came first).
	Ask(prompt string) bool
	// Wait blocks until the reply arrives, or returns ctx's error once ctx
	// ends.
	Wait(ctx context.Context) (Reply, error)
	// Withdraw stops the question from taking a reply; a reply taken just
	// before is returned with ok true.
	Withdraw() (r Reply, ok bool)
}

// Reply is the message that answered the question (INP-5, INP-10).
type Reply struct {
	MessageID string
	// Text is the message's parts as capsule.md LOOP-21 joins a task's: text
	// parts by "\n", data parts as compact JSON.
	Text         string
	Origin       string
	Trust        string
	CallerMember string // the member whose token sent it, "" for any other
}

// Config builds the tool of one session.
type Config struct {
	// Ref is the artifacts[] entry's reference as declared (MAN-6), Version
	// its exact version: staged in the tool's murmur.yaml (INP-1).
	Ref, Version string
	// Timeout is lifecycle.input_timeout_secs; 0: wait indefinitely (INP-7).
	Timeout time.Duration
	// Door returns the door of the task the call runs in, nil when there is
	// none (the call then fails). Required.
	Door func(cc *tool.CallContext) Door
	// Now is the clock; nil: time.Now.
	Now func() time.Time
}

// Tool is murmur-tool-request-input (input.md §1). It is a tool.Artifact:
// staged and listed where artifacts[] declares it, in manifest order.
type Tool struct {
	cfg      Config
	manifest []byte
}

var _ tool.Artifact = (*Tool)(nil)

// New returns the tool cfg describes.
func New(cfg Config) (*Tool, error) {
	if cfg.Door == nil {
		return nil, errors.New("request-input: no door")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	body, err := yaml.Marshal(staged{Name: tool.NameRequestInput, Version: cfg.Version, Runtime: "tool",
		Implementation: "native", Description: Description, InputSchema: Schema})
	if err != nil {
		return nil, fmt.Errorf("request-input: stage: %w", err)
	}
	return &Tool{cfg: cfg, manifest: body}, nil
}

// staged is the tool's staged murmur.yaml (INP-1, tools.md STAGE-2).
type staged struct {
	Name           string `yaml:"name"`
	Version        string `yaml:"version"`
	Runtime        string `yaml:"runtime"`
	Implementation string `yaml:"implementation"`
	Description    string `yaml:"description"`
	InputSchema    string `yaml:"input_schema"`
}

// Spec describes the tool (INP-3).
func (t *Tool) Spec() tool.Spec {
	return tool.Spec{Name: tool.NameRequestInput, Description: Description, InputSchema: json.RawMessage(Schema), Kind: tool.KindNative}
}

// FullName is the entry's reference as declared.
func (t *Tool) FullName() string { return t.cfg.Ref }

// Manifest is the staged murmur.yaml.
func (t *Tool) Manifest() []byte { return t.manifest }

// Required is nil: the tool checks its own input (tools.md TOOL-11, INP-4).
func (t *Tool) Required() []string { return nil }

// errTimeout is the wait's cause when lifecycle.input_timeout_secs passes.
var errTimeout = errors.New("input timeout")

// Call puts the question (INP-4) and waits in the call for the one reply
// (INP-5), the timeout (INP-7) or the task's cancel (INP-8): the turn stays
// open and no inference call is made meanwhile. Its records go through the
// task's state as they happen, before the call's tool_call (INP-10).
func (t *Tool) Call(ctx context.Context, cc *tool.CallContext, input json.RawMessage) tool.Result {
	prompt, ok := tool.StringField(tool.DecodeObject(input), "prompt")
	if !ok || strings.TrimSpace(prompt) == "" {
		return tool.Refusal(tool.NameRequestInput, refusalPrompt)
	}
	var door Door
	if cc != nil {
		door = t.cfg.Door(cc)
	}
	if door == nil || cc.Task == nil {
		return failed(summaryCanceled, textCanceled)
	}
	prompt, _ = tool.Cut64(prompt) // TOOL-10
	cc.Phase("input")              // a cancel from here lands in phase input (INP-8)
	if !door.Ask(prompt) {
		cc.Phase("turn") // a cancel came before the question: it was never put
		return failed(summaryCanceled, textCanceled)
	}
	start := t.cfg.Now()
	var timeoutSecs *int
	if t.cfg.Timeout > 0 {
		n := int(t.cfg.Timeout / time.Second)
		timeoutSecs = &n
	}
	var callID *string
	if cc.CallID != "" {
		callID = &cc.CallID
	}
	cc.Task.Write("", tool.Rec{Record: trace.InputRequest{Turn: cc.Turn, TaskID: cc.TaskID, ToolCallID: callID,
		PromptBytes: len(prompt), TimeoutSecs: timeoutSecs}})

	wctx := ctx
	if t.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeoutCause(ctx, t.cfg.Timeout, errTimeout)
		defer cancel()
	}
	r, err := door.Wait(wctx)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(wctx), errTimeout) {
		if r, ok = door.Withdraw(); !ok {
			return t.timedOut(cc, start, *timeoutSecs)
		}
		err = nil // the reply came in as the time ran out: it counts
	}
	if err != nil {
		return failed(summaryCanceled, textCanceled) // the phase stays input
	}
	cc.Phase("turn")
	text, _ := tool.Cut64(r.Text)
	cc.Task.Write("", tool.Rec{Record: trace.InputReply{TaskID: cc.TaskID, MessageID: r.MessageID, Origin: r.Origin,
		Trust: r.Trust, CallerMember: r.CallerMember, WaitedMS: t.cfg.Now().Sub(start).Milliseconds(), ReplyBytes: len(text)}})
	return tool.Result{Status: tool.Passed, Summary: summaryReplied, Data: text}
}

// timedOut is INP-7: input_timeout, and the attempt ends failed as the call
// returns.
func (t *Tool) timedOut(cc *tool.CallContext, start time.Time, secs int) tool.Result {
	cc.Task.Write("", tool.Rec{Record: trace.InputTimeout{TaskID: cc.TaskID, WaitedMS: t.cfg.Now().Sub(start).Milliseconds(), TimeoutSecs: secs}})
	cc.Task.Fail(tool.Failure{Cause: causeTimeout, Reason: statusTimeout, Status: statusTimeout})
	return failed(summaryTimedOut, textTimedOut(secs))
}

func failed(summary, text string) tool.Result {
	return tool.Result{Status: tool.Failed, Summary: summary, Data: text}
}
