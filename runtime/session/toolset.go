package session

import (
	"path/filepath"

	"github.com/murmur-go/mur/runtime/agent"
	"github.com/murmur-go/mur/runtime/tasktable"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/toolset"
	"github.com/murmur-go/mur/runtime/trace"
)

// buildTools makes the tools' environment, their sandbox and the
// delegation hub, then has runtime/toolset build the session's tools once
// (tools.md §1, §17) for staging, the inventory, tools_declared and
// dispatch.
func (s *Session) buildTools() error {
	m := s.m
	var strip, baseline []string
	if sh := m.Capabilities.Shell; sh != nil {
		strip, baseline = sh.StripEnv, sh.BaselineEnv
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
	s.buildHub()
	set, err := toolset.Build(toolset.Config{
		Manifest: m, Member: s.l.Member, Artifacts: s.l.Artifacts,
		ID: s.id, URL: s.url, Workdir: s.workdir, RuntimeDir: s.runtimeDir, LogsDir: s.logsDir,
		Project: s.l.Project, Home: s.cfg.Home, StoreForm: s.l.Opts.StoreName != "",
		Env: s.env, Sandbox: s.sandbox, Hub: s.hub, DelegationDeadline: s.delegationDeadline(),
		Now: s.now, Bootstrap: s.bootstrap,
		Record:   func(r trace.Record) { _, _ = s.tr.Write(r) },
		Tasks:    func() *tasktable.Registry { return s.reg },
		Status:   func() tool.StatusSnapshot { return s.statusSnapshot(s.runningTask()) },
		Choices:  s.choices.blocks,
		Switcher: s.choices, Generation: s.generation,
		AskingTask: func(taskID string) (toolset.Asking, bool) {
			if cur := s.runningTask(); cur != nil && cur.id == taskID {
				return toolset.Asking{Run: cur.run, Record: func() { cur.recordMessages(true) }}, true
			}
			return toolset.Asking{}, false
		},
		ReplyText: agent.PartsText,
		Override:  s.l.override,
	})
	if err != nil {
		return err
	}
	s.toolset, s.tools = set, set.Registry
	s.specs = driverSpecs(s.tools.Inventory())
	if set.Guidance != "" { // STAGE-4
		s.system += "\n\n" + set.Guidance
	}
	return nil
}

// Tools is the session's built tools; its peer plane is what the door's
// GET /resources/peer/<handle> dispatches to.
func (s *Session) Tools() *toolset.Set { return s.toolset }

// runningTask is the task the loop runs now, or nil.
func (s *Session) runningTask() *taskRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.curTask
}

// Trace is the session's trace writer (for tools that write their own
// records, tools.md CALL-11).
func (s *Session) Trace() *trace.Writer { return s.tr }
