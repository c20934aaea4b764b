package session

import (
	"path/filepath"
	"slices"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/tasktable"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/tool/artifact"
	"github.com/murmur-go/mur/runtime/tool/plan"
	"github.com/murmur-go/mur/runtime/tool/shell"
	"github.com/murmur-go/mur/runtime/tool/status"
	"github.com/murmur-go/mur/runtime/tool/switchdriver"
	"github.com/murmur-go/mur/runtime/trace"
)

// ToolImpls lets other parts of the runtime add implementations of tools
// 2–12 before Start (call-member, end-without-answer: tools.md §10–§11). Each
// is built once per session from the session's services.
type ToolImpls func(s *Session) map[string]tool.Tool

// buildTools evaluates tools.md §1 once (tools.md §17): shell binaries,
// background-command, session-status, switch-driver, submit-plan,
// pull-artifact, remove-artifact and the declared artifacts, for staging,
// the inventory, tools_declared and dispatch.
func (s *Session) buildTools() error {
	m := s.m
	var strip, baseline, allow []string
	if sh := m.Capabilities.Shell; sh != nil {
		strip, baseline, allow = sh.StripEnv, sh.BaselineEnv, sh.Allow
	}
	s.env = subprocessEnv(processEnv(), s.l.Env.Vars, strip, baseline, map[string]string{
		"HOME":               filepath.Join(s.recordsDir, "home"),
		"TMPDIR":             filepath.Join(s.recordsDir, "tmp"),
		"MURMUR_SESSION_ID":  s.id,
		"MURMUR_CAPSULE_URL": s.url,
	})
	if err := s.buildSandbox(); err != nil {
		return err
	}
	s.works = &shell.Works{Now: s.now, OnExit: s.workExited}
	s.shell = &shell.Shell{
		Workdir: s.workdir, Env: s.env, LogsDir: s.logsDir, Works: s.works, Now: s.now, Sandbox: s.sandbox,
		Allowed: func(bin string) bool { return slices.Contains(allow, bin) },
	}
	if g := m.Lifecycle.ShellGraceSecs; g != nil {
		d := time.Duration(*g) * time.Second
		s.shell.Grace = &d
	}
	impl := map[string]tool.Tool{
		tool.NameSessionStatus:     status.New(func(*tool.CallContext) status.Snapshot { return s.statusSnapshot(s.runningTask()) }),
		tool.NameBackgroundCommand: shell.Background(s.works),
		tool.NameSwitchDriver:      switchdriver.New(s.choices.toolChoices(), s.choices),
	}
	for name, t := range s.buildDelegation() {
		impl[name] = t
	}
	for name, t := range s.buildPeerFiles() {
		impl[name] = t
	}
	for name, t := range s.planAndInstall() {
		impl[name] = t
	}
	if s.l.Impls != nil {
		for name, t := range s.l.Impls(s) {
			impl[name] = t
		}
	}
	var callees []string
	if s.l.Member != nil {
		callees = s.l.Member.Callees
	}
	arts := make([]tool.Artifact, 0, len(s.l.Artifacts)+1)
	for _, a := range s.l.Artifacts {
		if n, ok := a.(*artifact.Native); ok {
			n.Workdir, n.Env, n.Sandbox = s.workdir, s.env, s.sandbox
		}
		arts = append(arts, a)
	}
	if ri := s.requestInput(); ri != nil { // INP-1: in manifest order among the declared artifacts
		arts = slices.Insert(arts, min(s.stagedBefore(s.m.RequestInputIndex()), len(arts)), ri)
	}
	s.tools, _ = tool.Build(tool.Config{
		Grants: tool.Grants{
			ShellAllow:   allow,
			ShellGrace:   m.Lifecycle.ShellGraceSecs != nil,
			PlanSubmit:   m.Capabilities.Plan != nil && m.Capabilities.Plan.Submit,
			SwitchDriver: m.Control.SwitchDriver(),
			Callees:      callees,
			Install:      m.Capabilities.Install != nil && m.Inference.Transport == "http",
			SpawnAllow:   spawnAllow(m),
			PeerFiles:    m.Exports.PeerFiles != nil,
			PeerFetch:    m.Capabilities.PeerFetch != nil,
		},
		Artifacts: arts,
		Shell:     s.shell,
		Impl:      impl,
	})
	s.specs = driverSpecs(s.tools.Inventory())
	if s.tools.Staged(tool.NameSubmitPlan) { // STAGE-4
		s.system += "\n\n" + plan.Guidance
	}
	return nil
}

// stagedBefore counts the tool and skill artifacts declared before
// artifacts[i]: the ones s.l.Artifacts holds ahead of it.
func (s *Session) stagedBefore(i int) int {
	n := 0
	for _, a := range s.m.Artifacts[:i] {
		if (a.Runtime == "tool" || a.Runtime == "skill") && !a.Builtin() {
			n++
		}
	}
	return n
}

// runningTask is the task the loop runs now, or nil.
func (s *Session) runningTask() *taskRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.curTask
}

// Trace is the session's trace writer (for tools that write their own
// records, tools.md CALL-11).
func (s *Session) Trace() *trace.Writer { return s.tr }

// workExited writes shell_completed and, under queue + sleep unless
// background-command returned the exit, starts a completion task (SHELL-3).
func (s *Session) workExited(w *shell.Work, returned bool) {
	snap := w.Snapshot(s.now())
	var completion *string
	lc := s.m.Lifecycle
	if !returned && lc.TaskAcceptance == "queue" && lc.AfterTask == "sleep" {
		text := "Background command " + w.ID + " (" + w.Command + ") ended.\n\n" + w.Report(s.now(), nil)
		msg := a2a.Message{MessageID: a2a.NewID(a2a.PrefixMessage), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}}
		prov := tasktable.Provenance{Origin: a2a.OriginCompletion, Trust: a2a.TrustTrusted, Source: "detached_shell"}
		if t, err := s.reg.Submit(prov, msg); err == nil {
			id := string(t.ID)
			completion = &id
		}
	}
	_, _ = s.tr.Write(trace.ShellCompleted{WorkID: w.ID, ExitCode: snap.ExitCode, Status: snap.Status,
		DurationMS: snap.Duration.Milliseconds(), OutputBytes: snap.OutputBytes, CompletionTaskID: completion})
}

// spawnAllow is capabilities.spawn.allow, nil when absent.
func spawnAllow(m *manifest.Manifest) []string {
	if m.Capabilities.Spawn == nil {
		return nil
	}
	return m.Capabilities.Spawn.Allow
}
