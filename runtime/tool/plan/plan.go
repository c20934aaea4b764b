package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/spawn"
	"github.com/murmur-go/mur/runtime/tool"
)

// planSchema is submit-plan's input schema (PLAN-1, PLAN-2).
const planSchema = `{"type":"object","properties":{"id":{"type":"string"},"steps":{"type":"array","items":{"type":"object","properties":{` +
	`"id":{"type":"string"},"tool":{"type":"string"},"shell":{"type":"string"},"capsule":{"type":"string"},"input":{},` +
	`"depends_on":{"type":"array","items":{"type":"string"}},"if":{"type":"string"},` +
	`"on_error":{"type":"string","enum":["fail","skip","continue"]},"retries":{"type":"integer","minimum":0}},"required":["id"]}}},"required":["id","steps"]}`

// Guidance is the runtime's plan guidance, appended to the system prompt
// exactly when submit-plan exists (STAGE-4; wording ours).
const Guidance = "[Plans]\n" +
	"When a task needs several tool calls or commands whose order you already know, some of them using others' results, " +
	"submit them as one plan with submit-plan instead of calling them one turn at a time. " +
	"Steps that do not depend on each other run at the same time; a step reads an earlier step's result as $<id>.output or $<id>.status, " +
	"and runs only once the steps in its depends_on have settled. The call returns one report with every step's result."

// planNotCallable lists TOOL-8's tools, which no plan step may call.
var planNotCallable = []string{tool.NameSubmitPlan, tool.NameSwitchDriver, tool.NamePullArtifact, tool.NameRemoveArtifact,
	tool.NameEndWithoutAnswer, tool.NameCallMember, tool.NameDelegateTask, tool.NameRequestInput}

// The step statuses of a report (PLAN-3, PLAN-7).
const (
	stepSuccess = "success"
	stepFailed  = "failed"
	stepSkipped = "skipped"
)

// planCanceled is PLAN-7's plan_end reason when the task is cancelled.
const planCanceled = "the task running this plan was cancelled"

// PLAN-5's refusals: the call's error text is planRefused(id, why).

func planRefused(id, why string) string {
	return fmt.Sprintf("plan '%s' was refused before any step ran: %s", id, why)
}

func planStepNotObject(i int) string { return fmt.Sprintf("steps[%d] is not an object", i) }
func planStepNoID(i int) string      { return fmt.Sprintf("steps[%d] has no id", i) }
func planFieldType(id, field, want string) string {
	return fmt.Sprintf("step '%s': %s must be %s", id, field, want)
}
func planDuplicate(id string) string { return fmt.Sprintf("two steps have the id '%s'", id) }
func planNoKind(id string) string {
	return fmt.Sprintf("step '%s' declares none of tool, shell and capsule", id)
}
func planManyKinds(id string) string {
	return fmt.Sprintf("step '%s' declares more than one of tool, shell and capsule", id)
}
func planUnknownTool(id, refusal string) string { return fmt.Sprintf("step '%s': %s", id, refusal) }
func planNotCallableTool(id, self string) string {
	return fmt.Sprintf("step '%s': '%s' cannot be called from a plan step", id, self)
}
func planShellNotAllowed(id, bin string) string {
	return fmt.Sprintf("step '%s': '%s' is not in capabilities.shell.allow", id, bin)
}
func planShellUnreadable(id, why string) string {
	return fmt.Sprintf("step '%s': its shell command cannot be split into words: %s", id, why)
}
func planCapsuleInput(id string) string {
	return fmt.Sprintf("step '%s': a capsule step's input must be a string or {\"objective\": \"<text>\"}", id)
}

// planCapsuleNotAllowed refuses a capsule step naming a capsule
// capabilities.spawn.allow does not list (PLAN-2, PLAN-5).
func planCapsuleNotAllowed(id, capsule string) string {
	return fmt.Sprintf("step '%s': capsule '%s' is not in capabilities.spawn.allow", id, capsule)
}
func planUnknownDep(id, dep string) string {
	return fmt.Sprintf("step '%s' depends on '%s', which the plan does not declare", id, dep)
}
func planUnknownRef(id string, r ref) string {
	return fmt.Sprintf("step '%s' refers to %s, but the plan declares no step '%s'", id, r, r.step)
}
func planBadField(id string, r ref) string {
	return fmt.Sprintf("step '%s' refers to %s; a reference reads output or status", id, r)
}
func planBadOnError(id, v string) string {
	return fmt.Sprintf("step '%s': on_error '%s' is not one of fail, skip, continue", id, v)
}
func planCycle(ids []string) string {
	return fmt.Sprintf("steps %s wait on each other in a cycle, so none of them can start", strings.Join(ids, ", "))
}

// Step errors in a report.
func stepUnsettled(r ref) string {
	return fmt.Sprintf("%s names step '%s', which has not settled; list it in depends_on", r, r.step)
}
func stepToolFailed(self string) string { return fmt.Sprintf("tool '%s' reported failed", self) }
func stepExit(code int) string          { return fmt.Sprintf("exit code %d", code) }
func stepStopped(failed string) string {
	return fmt.Sprintf("stopped: step '%s' failed and the plan stopped", failed)
}

// Config is what submit-plan works with (tools.md §14).
type Config struct {
	// Registry is the session's registry, read at call time (it is built
	// after the tools): tool steps go through its dispatch.
	Registry func() *tool.Registry
	// Shell runs shell steps; nil allows none.
	Shell *Shell
	// PlansDir is the runtime directory's plans/ (PLAN-1).
	PlansDir string
	Now      func() time.Time
	// Capsules runs capsule steps (PLAN-6); nil without
	// capabilities.spawn.allow, so every capsule step is refused.
	Capsules *Capsules
}

// Capsules is what capsule steps run with (PLAN-2, PLAN-6): the session's
// delegation hub, capabilities.spawn.allow and the delegation deadline.
type Capsules struct {
	Hub      Spawner
	Allow    []manifest.SpawnRef
	Deadline time.Duration // from the child's ready line (CALL-5); 0: 600 s
	Poll     time.Duration // GetTask every Poll (PLAN-6: 500 ms); 0: 500 ms
}

// Spawner starts sub-capsules; *spawn.Hub satisfies it.
type Spawner interface {
	Delegate(ctx context.Context, req spawn.Request) (*spawn.Child, error)
}

var _ Spawner = (*spawn.Hub)(nil)

// capsuleVersion is the version a capsule step runs its capsule at (PLAN-2):
// the capabilities.spawn.allow entry's, which pins one exact version; with
// several entries of that name, 0.1.0 when it is one of them, else the
// first.
func (t *planTool) capsuleVersion(name string) (string, bool) {
	c := t.cfg.Capsules
	if c == nil {
		return "", false
	}
	version := ""
	for _, r := range c.Allow {
		if r.Name != name {
			continue
		}
		if version == "" || r.Version == "0.1.0" {
			version = r.Version
		}
	}
	return version, version != ""
}

// Shell is what shell steps run with (PLAN-2): the accessible workdir, the
// session's subprocess environment (SES-10) and capabilities.shell.allow,
// re-checked at dispatch.
type Shell struct {
	Workdir string
	Env     []string
	Allowed func(bin string) bool
	// Sandbox starts the steps' processes (confined, in the session's
	// cgroup); nil starts them unconfined.
	Sandbox *proc.Sandbox
}

// New returns the submit-plan tool (PLAN-1..8).
func New(cfg Config) tool.Tool { return &planTool{cfg: cfg} }

type planTool struct {
	cfg Config
	seq atomic.Int64 // plans/plan-<n>.json numbering, per session, from 1
}

func (t *planTool) now() time.Time {
	if t.cfg.Now != nil {
		return t.cfg.Now()
	}
	return time.Now()
}

func (t *planTool) Spec() tool.Spec {
	desc := "Runs one plan of steps against this session's own tools and returns every step's result in one report. " +
		"A step has an id and exactly one of tool (a tool in your tool list, with input as its JSON input) or shell " +
		"(a command line whose first word is an allowed shell binary, split into words, no shell). " +
		"depends_on lists the steps it waits for; if is a condition such as \"$build.status == 'failed'\"; " +
		"$<id>.output and $<id>.status, as whole strings in input, take an earlier step's result. " +
		"on_error is fail (stop the plan, the default), skip or continue; retries re-runs a failed step. " +
		"Independent shell steps run at the same time, tool steps one at a time. " +
		capsuleHint(t.cfg.Capsules) +
		"submit-plan, switch-driver, pull-artifact, remove-artifact, call-member, end-without-answer and delegate-task cannot be plan steps."
	return tool.Spec{Name: tool.NameSubmitPlan, Description: desc, InputSchema: json.RawMessage(planSchema), Kind: tool.KindRuntime}
}

// planStep is one authored step (PLAN-2).
type planStep struct {
	ID                   string
	Tool, Shell, Capsule string
	kinds                int // how many of tool, shell, capsule it declares
	Input                json.RawMessage
	DependsOn            []string
	If                   string
	OnError              string
	Retries              int
	problem              string // why it does not decode, "" when it does
}

func (s *planStep) kind() string {
	switch {
	case s.kinds != 1:
		return "unknown"
	case s.Tool != "":
		return "tool"
	case s.Shell != "":
		return "shell"
	}
	return "capsule"
}

func (t *planTool) Call(ctx context.Context, cc *tool.CallContext, input json.RawMessage) tool.Result {
	const self = tool.NameSubmitPlan
	obj := tool.DecodeObject(input)
	id, isStr := tool.RawString(obj["id"])
	if _, ok := obj["id"]; !ok || !isStr {
		return tool.Needs(self, "id")
	}
	var rawSteps []json.RawMessage
	if err := json.Unmarshal(obj["steps"], &rawSteps); err != nil || rawSteps == nil {
		return tool.Needs(self, "steps")
	}
	start := t.now()
	file := t.writePlan(input)
	steps := make([]*planStep, len(rawSteps))
	for i, raw := range rawSteps {
		steps[i] = decodeStep(i, raw)
	}
	if cc == nil {
		cc = &tool.CallContext{} // no task: the records are not written
	}
	run := &planRun{t: t, cc: cc, id: id, steps: steps, start: start}
	run.writeStart(file)
	if why := t.validate(steps); why != "" {
		run.writeEnd("failed", "plan", why)
		return tool.Refusal(self, planRefused(id, why))
	}
	return run.run(ctx)
}

// writePlan writes the plan to plans/plan-<n>.json (PLAN-1) and returns its
// path relative to the runtime directory; the runtime never reads it back.
func (t *planTool) writePlan(input json.RawMessage) string {
	n := t.seq.Add(1)
	name := fmt.Sprintf("plan-%d.json", n)
	if t.cfg.PlansDir != "" {
		if err := os.MkdirAll(t.cfg.PlansDir, 0o700); err == nil {
			_ = os.WriteFile(filepath.Join(t.cfg.PlansDir, name), input, 0o600)
		}
	}
	return "plans/" + name
}

// decodeStep reads one step leniently: plan_start records the authored shape
// before validation (PLAN-8), so a fault is kept in problem.
func decodeStep(i int, raw json.RawMessage) *planStep {
	s := &planStep{}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		s.problem = planStepNotObject(i)
		return s
	}
	id, ok := tool.RawString(m["id"])
	if _, has := m["id"]; !has || !ok || id == "" {
		s.problem = planStepNoID(i)
	}
	s.ID = id
	str := func(field string, dst *string) {
		v, has := m[field]
		if !has {
			return
		}
		if str, ok := tool.RawString(v); ok {
			*dst = str
		} else if s.problem == "" {
			s.problem = planFieldType(id, field, "a string")
		}
	}
	str("tool", &s.Tool)
	str("shell", &s.Shell)
	str("capsule", &s.Capsule)
	str("if", &s.If)
	str("on_error", &s.OnError)
	for _, f := range []string{"tool", "shell", "capsule"} {
		if _, has := m[f]; has {
			s.kinds++
		}
	}
	s.Input = m["input"]
	if v, has := m["depends_on"]; has {
		if err := json.Unmarshal(v, &s.DependsOn); err != nil && s.problem == "" {
			s.problem = planFieldType(id, "depends_on", "an array of step ids")
		}
	}
	if v, has := m["retries"]; has {
		if err := json.Unmarshal(v, &s.Retries); (err != nil || s.Retries < 0) && s.problem == "" {
			s.problem = planFieldType(id, "retries", "an integer, 0 or more")
		}
	}
	return s
}
