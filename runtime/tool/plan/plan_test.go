package plan

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// funcTool is a fake tool artifact whose calls run call.
type funcTool struct {
	name     string
	required []string
	call     func(input json.RawMessage) tool.Result
}

func (f *funcTool) Spec() tool.Spec {
	return tool.Spec{Name: f.name, Description: "fake " + f.name, InputSchema: json.RawMessage(`{"type":"object"}`), Kind: tool.KindNative}
}
func (f *funcTool) Call(_ context.Context, _ *tool.CallContext, input json.RawMessage) tool.Result {
	return f.call(input)
}
func (f *funcTool) Manifest() []byte   { return nil }
func (f *funcTool) Required() []string { return f.required }
func (f *funcTool) FullName() string   { return "" }

// fakeTool is a runtime-provided tool that answers nothing.
type fakeTool struct{ name string }

func (f *fakeTool) Spec() tool.Spec {
	return tool.Spec{Name: f.name, Description: "fake " + f.name, InputSchema: json.RawMessage(tool.EmptySchema), Kind: tool.KindRuntime}
}
func (f *fakeTool) Call(context.Context, *tool.CallContext, json.RawMessage) tool.Result {
	return tool.Result{Status: tool.Passed, Data: f.name}
}

// shellTools makes no shell tool: the fixture's plan steps run their own.
type shellTools struct{}

func (shellTools) Tool(bin string) tool.Tool { return &fakeTool{name: bin} }

// planFix is a session registry with submit-plan, a few fake tools, shell
// binaries sh and echo, and a real trace with a task and a turn.
type planFix struct {
	dir   string
	reg   *tool.Registry
	tr    *trace.Writer
	turn  string // the turn node's event id
	state *tool.TaskState
	mu    sync.Mutex
	phase []string
}

func newPlanFix(t *testing.T, extra ...tool.Artifact) *planFix {
	t.Helper()
	f := &planFix{dir: t.TempDir()}
	arts := append([]tool.Artifact{
		&funcTool{name: "notes", call: func(in json.RawMessage) tool.Result { return tool.Result{Status: tool.Passed, Data: string(in)} }},
		&funcTool{name: "fails", call: func(json.RawMessage) tool.Result { return tool.Result{Status: tool.Failed, Data: "nope"} }},
		&funcTool{name: "strict", required: []string{"path"}, call: func(json.RawMessage) tool.Result { return tool.Result{Status: tool.Passed} }},
	}, extra...)
	sh := &Shell{Workdir: f.dir, Env: []string{"PATH=" + os.Getenv("PATH")},
		Allowed: func(b string) bool { return b == "sh" || b == "echo" }}
	plan := New(Config{Registry: func() *tool.Registry { return f.reg }, Shell: sh, PlansDir: filepath.Join(f.dir, "plans")})
	f.reg, _ = tool.Build(tool.Config{
		Grants:    tool.Grants{ShellAllow: []string{"sh", "echo"}, PlanSubmit: true, Install: true},
		Shell:     shellTools{},
		Artifacts: arts,
		Impl:      map[string]tool.Tool{tool.NameSubmitPlan: plan, tool.NamePullArtifact: &fakeTool{name: tool.NamePullArtifact}},
	})
	var err error
	f.tr, err = trace.Open(filepath.Join(f.dir, "trace.jsonl"), "ses_x", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.tr.Close() })
	f.tr.Write(trace.SessionStart{})
	f.tr.Write(trace.TaskStart{TaskID: "tsk_a"})
	f.turn, _ = f.tr.Write(trace.Inference{Turn: 0, TaskID: "tsk_a"})
	f.state = tool.NewTaskState(tool.TaskInfo{ID: "tsk_a"}, f.tr)
	return f
}

func (f *planFix) submit(t *testing.T, ctx context.Context, plan string) tool.Result {
	t.Helper()
	self, refusal := f.reg.Lookup(tool.NameSubmitPlan)
	if refusal != "" {
		t.Fatal(refusal)
	}
	cc := &tool.CallContext{TaskID: "tsk_a", Turn: 0, Task: f.state, SetPhase: func(p string) {
		f.mu.Lock()
		f.phase = append(f.phase, p)
		f.mu.Unlock()
	}}
	return self.Call(ctx, cc, json.RawMessage(plan))
}

var envelope = regexp.MustCompile(`"event_id":"[^"]*","parent_id":("[^"]*"|null),"session_id":"ses_x","timestamp":\d+,`)
var durations = regexp.MustCompile(`"duration_ms":\d+`)

// planRecords returns the plan records written so far, without their
// envelopes and with durations zeroed, after checking each hangs from the turn.
func (f *planFix) planRecords(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, "trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.Contains(line, `"event_type":"plan_`) {
			continue
		}
		if !strings.Contains(line, `"parent_id":"`+f.turn+`"`) {
			t.Errorf("record not parented to the turn (TRACE-2): %s", line)
		}
		out = append(out, durations.ReplaceAllString(envelope.ReplaceAllString(line, ""), `"duration_ms":0`))
	}
	return strings.Join(out, "\n") + "\n"
}

func TestPlanRuns_PLAN3_PLAN4_PLAN7(t *testing.T) {
	f := newPlanFix(t)
	plan := `{"id":"build","steps":[
		{"id":"greet","shell":"echo hello world"},
		{"id":"note","tool":"notes","depends_on":["greet"],"input":{"text":"$greet.output","nested":["$greet.status"],"keep":"$HOME"}},
		{"id":"never","tool":"notes","depends_on":["greet"],"if":"$greet.status == 'failed' || $greet.output < 'a'"},
		{"id":"broken","shell":"sh -c 'echo oops >&2; exit 3'","depends_on":["note"],"on_error":"continue","retries":1},
		{"id":"skipme","tool":"fails","depends_on":["broken"],"on_error":"skip"},
		{"id":"onfail","tool":"notes","depends_on":["skipme"],"if":"$broken.status == 'failed' && $skipme.status != 'success'","input":{"t":"ran"}},
		{"id":"lacks","tool":"strict","depends_on":["onfail"],"on_error":"continue"}
	]}`
	res := f.submit(t, context.Background(), plan)
	if res.IsError() || res.Refused {
		t.Errorf("a completed plan is an error: %+v", res)
	}
	content, _ := res.Content(tool.NameSubmitPlan)
	golden.Check(t, "plan_report", content+"\n")
	golden.Check(t, "plan_records", f.planRecords(t))
	var shells []string
	for _, r := range res.Records {
		shells = append(shells, r.Record.EventType())
	}
	if strings.Join(shells, ",") != "shell,shell,shell" || res.Shells != 3 { // greet once, broken twice
		t.Errorf("step records = %v, Shells = %d", shells, res.Shells)
	}
	if b, err := os.ReadFile(filepath.Join(f.dir, "plans", "plan-1.json")); err != nil || string(b) != plan {
		t.Errorf("plans/plan-1.json = %q, %v", b, err)
	}
	if res := f.submit(t, context.Background(), `{"id":"empty","steps":[]}`); res.IsError() ||
		res.Data != `{"completed":true,"failed_step":null,"plan_id":"empty","steps":[]}` {
		t.Errorf("empty plan = %+v", res)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "plans", "plan-2.json")); err != nil {
		t.Errorf("the second plan's file: %v", err)
	}
	if got := strings.Join(f.phase, ","); got != "plan,turn,plan,turn" {
		t.Errorf("phases = %s", got)
	}
}

func TestPlanFailStops_PLAN4(t *testing.T) {
	f := newPlanFix(t)
	res := f.submit(t, context.Background(), `{"id":"p","steps":[
		{"id":"ok","tool":"notes","input":{}},
		{"id":"bad","shell":"sh -c 'echo bad; exit 4'","depends_on":["ok"]},
		{"id":"after","tool":"notes","depends_on":["bad"]}
	]}`)
	want := `{"completed":false,"failed_step":"bad","plan_id":"p","steps":[` +
		`{"error":null,"output":"{}","status":"success","step_id":"ok"},` +
		`{"error":"exit code 4","output":"bad\n","status":"failed","step_id":"bad"}]}`
	if !res.IsError() || res.Refused || res.Data != want {
		t.Errorf("result = %+v\nwant data %s", res, want)
	}
	recs := f.planRecords(t)
	end := recs[strings.LastIndex(strings.TrimSpace(recs), "\n")+1:]
	wantEnd := `{"event_type":"plan_end","turn":0,"task_id":"tsk_a","plan_id":"p","outcome":"failed","failed_step":"bad","steps_total":3,` +
		`"steps_succeeded":1,"steps_failed":1,"steps_skipped":0,"duration_ms":0,"reason":null}` + "\n"
	if end != wantEnd {
		t.Errorf("plan_end = %s\nwant %s", end, wantEnd)
	}
}

func TestPlanUnsettledReference_PLAN3(t *testing.T) {
	f := newPlanFix(t)
	fifo := filepath.Join(f.dir, "a.fifo")
	testmur.FIFO(t, fifo)
	// a waits for c; b reads a's output without depending on it, so a has
	// not settled when b is dispatched; c runs after b and releases a.
	res := f.submit(t, context.Background(), `{"id":"p","steps":[
		{"id":"a","shell":"sh -c 'cat `+fifo+`'"},
		{"id":"b","tool":"notes","input":{"x":"$a.output"},"on_error":"continue"},
		{"id":"c","shell":"sh -c 'echo released > `+fifo+`'","depends_on":["b"]},
		{"id":"d","tool":"notes","depends_on":["a","c"],"if":"$a.output = 'x'","on_error":"continue"}
	]}`)
	want := `{"completed":true,"failed_step":null,"plan_id":"p","steps":[` +
		`{"error":"$a.output names step 'a', which has not settled; list it in depends_on","output":null,"status":"failed","step_id":"b"},`
	if res.IsError() || !strings.HasPrefix(res.Data, want) ||
		!strings.HasSuffix(res.Data, `{"error":"if \"$a.output = 'x'\": '=' is neither a reference nor a quoted literal","output":null,"status":"failed","step_id":"d"}]}`) ||
		!strings.Contains(res.Data, `{"error":null,"output":"released\n","status":"success","step_id":"a"}`) {
		t.Errorf("report = %s", res.Data)
	}
}

func TestPlanShellStepsConcurrent_PLAN6(t *testing.T) {
	f := newPlanFix(t)
	fifo := filepath.Join(f.dir, "x.fifo")
	testmur.FIFO(t, fifo)
	// Each step blocks until the other opens the pipe: run one after the
	// other, they would never finish.
	res := f.submit(t, context.Background(), `{"id":"p","steps":[
		{"id":"w","shell":"sh -c 'echo ping > `+fifo+`'"},
		{"id":"r","shell":"sh -c 'cat `+fifo+`'"}
	]}`)
	if res.IsError() || !strings.Contains(res.Data, `{"error":null,"output":"ping\n","status":"success","step_id":"r"}`) {
		t.Errorf("report = %s", res.Data)
	}
}

func TestPlanToolStepsOneAtATime_PLAN6(t *testing.T) {
	var inflight, most atomic.Int32
	slow := &funcTool{name: "slow", call: func(json.RawMessage) tool.Result {
		n := inflight.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		for range 200 {
			runtime.Gosched()
		}
		inflight.Add(-1)
		return tool.Result{Status: tool.Passed, Data: "ok"}
	}}
	f := newPlanFix(t, slow)
	var steps []string
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		steps = append(steps, `{"id":"`+id+`","tool":"slow"}`)
	}
	if res := f.submit(t, context.Background(), `{"id":"p","steps":[`+strings.Join(steps, ",")+`]}`); res.IsError() {
		t.Fatalf("plan: %+v", res)
	}
	if most.Load() != 1 {
		t.Errorf("%d tool steps ran at once, want 1", most.Load())
	}
}

func TestPlanCanceled_PLAN7(t *testing.T) {
	f := newPlanFix(t)
	started := filepath.Join(f.dir, "started.fifo")
	block := filepath.Join(f.dir, "block.fifo")
	for _, p := range []string{started, block} {
		testmur.FIFO(t, p)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		b, _ := os.ReadFile(started) // returns once the step has written to it
		if len(b) > 0 {
			cancel()
		}
	}()
	res := f.submit(t, ctx, `{"id":"p","steps":[{"id":"wait","shell":"sh -c 'echo go > `+started+`; cat `+block+`'"},
		{"id":"later","tool":"notes","depends_on":["wait"]}]}`)
	want := `{"completed":false,"failed_step":null,"plan_id":"p","steps":[{"error":"the task running this plan was cancelled","output":"","status":"failed","step_id":"wait"}]}`
	if !res.IsError() || res.Data != want {
		t.Errorf("result = %+v\nwant data %s", res, want)
	}
	recs := f.planRecords(t)
	if !strings.Contains(recs, `"outcome":"canceled","failed_step":null,"steps_total":2,"steps_succeeded":0,"steps_failed":1,"steps_skipped":0,"duration_ms":0,"reason":"the task running this plan was cancelled"}`) {
		t.Errorf("records:\n%s", recs)
	}
	if got := strings.Join(f.phase, ","); got != "plan" {
		t.Errorf("phases = %s, want the cancel to land in plan", got)
	}
}

// TestPlanRefusals_PLAN5 holds every refusal before anything runs.
func TestPlanRefusals_PLAN5(t *testing.T) {
	f := newPlanFix(t)
	plans := []string{
		`{"steps":[]}`,
		`{"id":"p"}`,
		`{"id":"p","steps":[3]}`,
		`{"id":"p","steps":[{"tool":"notes"}]}`,
		`{"id":"p","steps":[{"id":"a","tool":"notes","retries":-1}]}`,
		`{"id":"p","steps":[{"id":"a","tool":"notes","depends_on":"b"}]}`,
		`{"id":"p","steps":[{"id":"a","tool":"notes"},{"id":"a","shell":"echo"}]}`,
		`{"id":"p","steps":[{"id":"a"}]}`,
		`{"id":"p","steps":[{"id":"a","tool":"notes","shell":"echo"}]}`,
		`{"id":"p","steps":[{"id":"a","tool":"grep"}]}`,
		`{"id":"p","steps":[{"id":"a","tool":"pull-artifact","input":{"artifact":"x/y"}}]}`,
		`{"id":"p","steps":[{"id":"a","tool":"submit-plan"}]}`,
		`{"id":"p","steps":[{"id":"a","tool":"switch-driver"}]}`,
		`{"id":"p","steps":[{"id":"a","shell":"rm -rf /"}]}`,
		`{"id":"p","steps":[{"id":"a","shell":"echo 'open"}]}`,
		`{"id":"p","steps":[{"id":"a","capsule":"helper","input":{"task":"x"}}]}`,
		`{"id":"p","steps":[{"id":"a","capsule":"helper","input":{"objective":"x"}}]}`,
		`{"id":"p","steps":[{"id":"a","tool":"notes","depends_on":["zz"]}]}`,
		`{"id":"p","steps":[{"id":"a","tool":"notes","input":{"x":["$zz.output"]}}]}`,
		`{"id":"p","steps":[{"id":"a","tool":"notes","if":"$zz.status == 'x'"}]}`,
		`{"id":"p","steps":[{"id":"a","tool":"notes"},{"id":"b","tool":"notes","input":{"x":"$a.stdout"}}]}`,
		`{"id":"p","steps":[{"id":"a","tool":"notes","on_error":"retry"}]}`,
		`{"id":"p","steps":[{"id":"a","tool":"notes","depends_on":["c"]},{"id":"b","tool":"notes"},{"id":"c","tool":"notes","depends_on":["a"]}]}`,
	}
	var out []string
	for _, p := range plans {
		res := f.submit(t, context.Background(), p)
		if !res.Refused {
			t.Errorf("%s: not refused: %+v", p, res)
		}
		out = append(out, p+" → "+res.Data)
	}
	golden.Check(t, "plan_refusals", strings.Join(out, "\n")+"\n")
	recs := f.planRecords(t)
	if n := strings.Count(recs, `"event_type":"plan_end","turn":0,"task_id":"tsk_a","plan_id":"p","outcome":"failed","failed_step":"plan"`); n != len(plans)-2 {
		t.Errorf("%d refused plan_end records, want %d:\n%s", n, len(plans)-2, recs)
	}
	if strings.Contains(recs, "plan_step") {
		t.Errorf("a refused plan dispatched a step:\n%s", recs)
	}
	entries, _ := os.ReadDir(filepath.Join(f.dir, "plans"))
	if len(entries) != len(plans)-2 || !slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == "plan-21.json" }) {
		t.Errorf("plans/ holds %d files, want %d", len(entries), len(plans)-2)
	}
}

func TestPlanSpec_PLAN1_STAGE4(t *testing.T) {
	f := newPlanFix(t)
	self, _ := f.reg.Lookup(tool.NameSubmitPlan)
	s := self.Spec()
	golden.Check(t, "plan_spec", s.Description+"\n"+string(s.InputSchema)+"\n"+Guidance+"\n")
	if !f.reg.Staged(tool.NameSubmitPlan) {
		t.Error("submit-plan granted but not staged")
	}
	reg, _ := tool.Build(tool.Config{Impl: map[string]tool.Tool{tool.NameSubmitPlan: self}})
	if reg.Staged(tool.NameSubmitPlan) {
		t.Error("submit-plan staged without capabilities.plan.submit")
	}
}
