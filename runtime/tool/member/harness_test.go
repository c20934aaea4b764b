package member

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/formation"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

// reply is what the fake door answers one request with.
type reply struct {
	task     *a2a.Task
	rpcCode  int64 // a JSON-RPC error when non-zero
	rpcMsg   string
	status   int    // an HTTP refusal when non-zero
	body     string // its body
	noAnswer bool   // connection refused
	hang     bool   // no answer until the request's context ends
}

// request is one request the fake door received.
type request struct {
	method string
	header http.Header
	params json.RawMessage
}

// fakeDoor is a member's door as an http.RoundTripper: requests are answered
// in the caller's goroutine, so tests run under testing/synctest. Its func
// fields pick each answer; n counts that method's requests from 1.
type fakeDoor struct {
	send    func(n int) reply
	get     func(n int) reply
	getByID func(id string) reply // when set, answers GetTask by the task id read
	cancel  func(n int) reply
	card    []byte // the Agent Card GET /.well-known/agent-card.json answers; nil: 404

	mu   sync.Mutex
	reqs []request
}

func (d *fakeDoor) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet && r.URL.Path == a2a.WellKnownCardPath {
		d.mu.Lock()
		d.reqs = append(d.reqs, request{method: "card", header: r.Header.Clone()})
		d.mu.Unlock()
		if d.card == nil {
			return response(http.StatusNotFound, ""), nil
		}
		return response(http.StatusOK, string(d.card)), nil
	}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &env)
	d.mu.Lock()
	d.reqs = append(d.reqs, request{method: env.Method, header: r.Header.Clone(), params: env.Params})
	n := 0
	for _, q := range d.reqs {
		if q.method == env.Method {
			n++
		}
	}
	d.mu.Unlock()
	pick := map[string]func(int) reply{a2a.MethodSendMessage: d.send, a2a.MethodGetTask: d.get, a2a.MethodCancelTask: d.cancel}[env.Method]
	rep := reply{rpcCode: -32601, rpcMsg: "Method not found"}
	switch {
	case env.Method == a2a.MethodGetTask && d.getByID != nil:
		var p a2a.GetTaskRequest
		_ = json.Unmarshal(env.Params, &p)
		rep = d.getByID(string(p.ID))
	case pick != nil:
		rep = pick(n)
	}
	switch {
	case rep.hang:
		<-r.Context().Done()
		return nil, r.Context().Err()
	case rep.noAnswer:
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	case rep.status != 0:
		return response(rep.status, rep.body), nil
	}
	out := map[string]any{"jsonrpc": "2.0", "id": env.ID}
	switch {
	case rep.rpcCode != 0:
		out["error"] = map[string]any{"code": rep.rpcCode, "message": rep.rpcMsg}
	case env.Method == a2a.MethodSendMessage:
		out["result"] = map[string]any{"task": rep.task}
	default:
		out["result"] = rep.task
	}
	body, _ := json.Marshal(out)
	return response(http.StatusOK, string(body)), nil
}

func response(status int, body string) *http.Response {
	return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader([]byte(body)))}
}

// requests returns the requests of method received so far.
func (d *fakeDoor) requests(method string) []request {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []request
	for _, q := range d.reqs {
		if q.method == method {
			out = append(out, q)
		}
	}
	return out
}

// directory is a Directory with a func field.
type directory struct {
	lookup func(ctx context.Context, callee string) (formation.Callee, error)
}

func (d directory) Lookup(ctx context.Context, callee string) (formation.Callee, error) {
	return d.lookup(ctx, callee)
}

const doorURL = "http://127.0.0.1:40001"

// addresses returns every callee at doorURL with token "tok-<name>".
func addresses() directory {
	return directory{lookup: func(_ context.Context, callee string) (formation.Callee, error) {
		return formation.Callee{Address: formation.Address{Name: callee, URL: doorURL, SessionID: "ses_x"}, Token: "tok-" + "member"}, nil
	}}
}

func allowLocalhost(t testing.TB) manifest.AllowList {
	t.Helper()
	m, _, err := manifest.Parse("murmur.yaml", []byte("name: x\nversion: \"0.1.0\"\ninference:\n  driver: {kind: scripted, script: s.yaml}\ncapabilities:\n  network:\n    allow: [localhost]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return m.Capabilities.Network.Allow
}

// fixture is one member's tools over a fake door, and a task to call them in.
type fixture struct {
	door  *fakeDoor
	call  tool.Tool
	ewa   tool.Tool
	ts    *tool.TaskState
	tw    *trace.Writer // the trace ts writes to
	trace string
}

// newFixture builds the tools with callees worker and critic, a 600 s
// deadline unless set, no jitter, and a task caller sent ("" for none).
func newFixture(t *testing.T, door *fakeDoor, caller string, deadline time.Duration) *fixture {
	t.Helper()
	impls, err := Tools(Config{
		Callees: []string{"worker", "critic"}, Directory: addresses(), Allow: allowLocalhost(t), Deadline: deadline,
		Timing:     Timing{Jitter: func() time.Duration { return 0 }},
		HTTPClient: &http.Client{Transport: door},
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	tw, err := trace.Open(path, "ses_test", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tw.Close() })
	ts := tool.NewTaskState(tool.TaskInfo{ID: "tsk_test", Origin: "peer", Trust: "trusted", CallerMember: caller}, tw)
	return &fixture{door: door, call: impls[tool.NameCallMember], ewa: impls[tool.NameEndWithoutAnswer], ts: ts, tw: tw, trace: path}
}

func (f *fixture) cc() *tool.CallContext { return &tool.CallContext{TaskID: f.ts.ID, Task: f.ts} }

func (f *fixture) callMember(t *testing.T, member, task string) tool.Result {
	t.Helper()
	in, _ := json.Marshal(map[string]string{"member": member, "task": task})
	return f.call.Call(t.Context(), f.cc(), in)
}

// set returns the task's call set.
func (f *fixture) set(t *testing.T) *callSet {
	t.Helper()
	s := findSet(f.ts)
	if s == nil {
		t.Fatal("no call set registered on the task")
	}
	return s
}

// lines reads the fixture's trace (tracetest: every line checked against
// its record type).
func (f *fixture) lines(t *testing.T) []trace.Line {
	t.Helper()
	return tracetest.Read(t, f.trace)
}

// rec returns r's trace record as a T, failing t when it is another type.
func rec[T trace.Record](t *testing.T, r tool.Rec) T {
	t.Helper()
	v, ok := r.Record.(T)
	if !ok {
		t.Fatalf("record = %#v, want a %T", r.Record, v)
	}
	return v
}

// task returns a task in state with a status message text (none when "").
func task(id string, state a2a.TaskState, msg string) *a2a.Task {
	t := &a2a.Task{ID: a2a.TaskID(id), ContextID: "ctx_x", Status: a2a.TaskStatus{State: state}}
	if msg != "" {
		t.Status.Message = &a2a.Message{MessageID: "msg_s", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart(msg)}}
	}
	return t
}

// completed returns a COMPLETED task whose response artifact is answer.
func completed(id, answer string) *a2a.Task {
	t := task(id, a2a.TaskStateCompleted, "")
	t.Artifacts = []a2a.Artifact{{ArtifactID: "response", Name: "response", Parts: []a2a.Part{a2a.TextPart(answer)}}}
	return t
}

// withBelow sets metadata.murmur.noAnswerBelow (and noAnswer) on t.
func withBelow(t *a2a.Task, noAnswer bool, below ...a2a.NoAnswerEntry) *a2a.Task {
	a2a.SetMurmurMetadata(t, &a2a.MurmurTaskMetadata{NoAnswer: noAnswer, NoAnswerBelow: below})
	return t
}

func taken(id string) reply { return reply{task: task(id, a2a.TaskStateSubmitted, "")} }

func busy() reply { return reply{task: task("tsk_busy", a2a.TaskStateRejected, busyMessage)} }

// httpClient is a client over the fixture's fake door.
func (f *fixture) httpClient() *http.Client { return &http.Client{Transport: f.door} }
