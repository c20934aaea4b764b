package artifact

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// nativeLimit is how long a native tool may run (LOOP-10).
const nativeLimit = 600 * time.Second

// Native is a native tool artifact (STORE-1, LOOP-10): command runs in the
// accessible workdir with the input JSON on stdin and its result on stdout.
type Native struct {
	Ref         string // the full name as declared or pulled, e.g. "local/grep"
	Name        string // the tool name: after the last "/"
	Description string
	Schema      json.RawMessage
	Command     string // absolute path inside the store tree
	Config      json.RawMessage
	Workdir     string
	Env         []string // SES-10's subprocess environment
	ManifestRaw []byte
	RequiredIn  []string
	Limit       time.Duration // 0: 600 s
	// Sandbox starts the command (confined, in the session's cgroup); nil
	// starts it unconfined.
	Sandbox *proc.Sandbox
}

var _ tool.Artifact = (*Native)(nil)

// Spec describes the tool.
func (n *Native) Spec() tool.Spec {
	return tool.Spec{Name: n.Name, Description: n.Description, InputSchema: n.Schema, Kind: tool.KindNative}
}

// Manifest is the artifact's murmur.yaml.
func (n *Native) Manifest() []byte { return n.ManifestRaw }

// FullName is the artifact's full name (MAN-6).
func (n *Native) FullName() string { return n.Ref }

// Required lists the schema's required fields.
func (n *Native) Required() []string { return n.RequiredIn }

// nativeStopped is LOOP-10's error for a tool killed at its limit.
func nativeStopped(name string, limit time.Duration) string {
	return fmt.Sprintf("tool '%s' was stopped after %ds", name, int64(limit/time.Second))
}

// Call runs the command; exit 0 is passed with stdout, else failed with stderr.
func (n *Native) Call(ctx context.Context, _ *tool.CallContext, input json.RawMessage) tool.Result {
	limit := n.Limit
	if limit == 0 {
		limit = nativeLimit
	}
	cmd := exec.Command(n.Command)
	cmd.Dir = n.Workdir
	cfg := n.Config
	if len(cfg) == 0 {
		cfg = json.RawMessage("{}")
	}
	cmd.Env = append(append([]string(nil), n.Env...), "MURMUR_ARTIFACT_CONFIG="+string(cfg))
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = proc.SysProcAttr()
	cmd.WaitDelay = proc.HeldOutputWait
	done, err := n.Sandbox.Spawn(cmd)
	if err != nil {
		return tool.Result{Status: tool.Failed, Summary: n.Name + ": error", Data: fmt.Sprintf("tool '%s' could not be started: %s", n.Name, proc.StartErrText(err))}
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		proc.KillGroup(cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return tool.Result{Status: tool.Failed, Summary: n.Name + ": stopped", Data: nativeStopped(n.Name, limit)}
	case <-ctx.Done():
		proc.KillGroup(cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return tool.Result{Status: tool.Failed, Summary: n.Name + ": canceled", Data: "canceled"}
	}
	if code := proc.ExitCode(cmd.ProcessState); code != 0 {
		return tool.Result{Status: tool.Failed, Summary: fmt.Sprintf("%s: exit %d", n.Name, code), Data: stderr.String(), ExitCode: &code}
	}
	return tool.Result{Status: tool.Passed, Summary: n.Name + ": ok", Data: stdout.String()}
}

// Skill is a skill artifact: its skill.md is the result (STORE-1, LOOP-10).
type Skill struct {
	Ref         string // the full name as declared or pulled
	Name        string
	Description string
	Schema      json.RawMessage
	Path        string // skill.md inside the store tree
	ManifestRaw []byte
	Now         func() time.Time
}

var _ tool.Artifact = (*Skill)(nil)

// Spec describes the skill.
func (s *Skill) Spec() tool.Spec {
	schema := s.Schema
	if len(schema) == 0 {
		schema = json.RawMessage(tool.EmptySchema)
	}
	return tool.Spec{Name: s.Name, Description: s.Description, InputSchema: schema, Kind: tool.KindSkill}
}

// Manifest is the artifact's murmur.yaml.
func (s *Skill) Manifest() []byte { return s.ManifestRaw }

// FullName is the artifact's full name (MAN-6).
func (s *Skill) FullName() string { return s.Ref }

// Required is nil: a skill takes no required input.
func (s *Skill) Required() []string { return nil }

// Call returns skill.md fenced under skill:<name> and writes skill_call.
func (s *Skill) Call(_ context.Context, cc *tool.CallContext, _ json.RawMessage) tool.Result {
	start := time.Now()
	b, err := os.ReadFile(s.Path)
	status, res := "ok", tool.Result{Status: tool.Passed, Summary: s.Name + ": ok", Data: string(b), Source: tool.SourceSkill + s.Name}
	if err != nil {
		status = "error"
		res = tool.Result{Status: tool.Failed, Summary: s.Name + ": error", Data: fmt.Sprintf("skill '%s' could not be read: %v", s.Name, err), Source: tool.SourceSkill + s.Name}
	}
	res.Skill = true
	res.Records = []tool.Rec{{Record: trace.SkillCall{Turn: cc.Turn, TaskID: cc.TaskID, SkillName: s.Name,
		OutputBytes: len(b), DurationMS: time.Since(start).Milliseconds(), Status: status}}}
	return res
}
