package session

import (
	"github.com/murmur-go/mur/runtime/tools"
	"github.com/murmur-go/mur/runtime/trace"
)

// sessionStartFields are session_start's payload fields in capsule.md §6's
// order, then a member's TRC-1 fields.
func (s *Session) sessionStartFields() []trace.F {
	m := s.m
	primary := m.Inference.Driver
	var maxSession any
	if m.Inference.MaxSessionTokens > 0 {
		maxSession = m.Inference.MaxSessionTokens
	}
	var caps []string
	if len(m.Capabilities.Network.Allow) > 0 {
		caps = append(caps, "network")
	}
	if m.Capabilities.Filesystem.Scope != "" || len(m.Capabilities.Filesystem.ReadOnly) > 0 {
		caps = append(caps, "filesystem")
	}
	if m.Capabilities.Shell != nil {
		caps = append(caps, "shell")
	}
	if caps == nil {
		caps = []string{}
	}
	var ics []trace.Obj
	for _, c := range m.Inference.Choices() {
		ics = append(ics, trace.Obj{{K: "name", V: c.Name}, {K: "kind", V: c.Kind}, {K: "model", V: c.Model},
			{K: "available", V: c.Available}, {K: "credential_source", V: c.CredentialSource()}})
	}
	var deadline any
	if s.deadline != nil {
		deadline = tools.FormatDeadline(*s.deadline)
	}
	var promptSHA any
	if s.l.Prompt != "" {
		promptSHA = sha(s.l.Prompt)
	}
	fields := []trace.F{
		{K: "capsule_name", V: m.Name}, {K: "capsule_version", V: m.Version}, {K: "model", V: primary.Model},
		{K: "max_turns", V: m.Inference.MaxTurns}, {K: "max_session_tokens", V: maxSession},
		{K: "capabilities", V: caps}, {K: "tools_declared", V: nonNil(s.tools.Declared())},
		{K: "inference_choices", V: ics}, {K: "credential_source", V: primary.CredentialSource()},
		{K: "system_prompt_source", V: s.l.PromptSource}, {K: "system_prompt_sha256", V: promptSHA},
		{K: "resumed_from", V: nil}, {K: "context_id", V: nil},
		{K: "containment_declared", V: "advisory"}, {K: "containment_achieved", V: "advisory"},
		{K: "effective_grants", V: s.effectiveGrants()}, {K: "lifecycle", V: s.lifecycleObj()},
		{K: "deadline", V: deadline},
	}
	if mem := s.l.Member; mem != nil {
		fields = append(fields, trace.F{K: "formation_id", V: mem.FormationID})
		if mem.Launched() {
			fields = append(fields, trace.F{K: "formation_member", V: mem.Name},
				trace.F{K: "formation_callees", V: nonNil(mem.Callees)})
		}
	}
	return fields
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// effectiveGrants is session_start.effective_grants.
func (s *Session) effectiveGrants() trace.Obj {
	c := s.m.Capabilities
	netAllow := []string{}
	for _, e := range c.Network.Allow {
		netAllow = append(netAllow, e.Raw)
	}
	var shellAllow, spawn, peerFetch []string
	if c.Shell != nil {
		shellAllow = c.Shell.Allow
	}
	if c.Spawn != nil {
		spawn = c.Spawn.Allow
	}
	if c.PeerFetch != nil {
		for _, e := range c.PeerFetch.Allow {
			peerFetch = append(peerFetch, e.Raw)
		}
	}
	var scope, exportsFiles, peerFiles, install any
	if c.Filesystem.Scope != "" {
		scope = c.Filesystem.Scope
	}
	if f := s.m.Exports.Files; f != nil {
		exportsFiles = trace.Obj{{K: "root", V: f.Root}, {K: "mode", V: f.Mode}, {K: "max_bytes", V: f.MaxBytes}}
	}
	if p := s.m.Exports.PeerFiles; p != nil {
		peerFiles = trace.Obj{{K: "root", V: p.Root}, {K: "max_ttl_secs", V: int64(p.MaxTTL.Seconds())}, {K: "max_bytes", V: p.MaxBytes}}
	}
	if in := c.Install; in != nil {
		install = trace.Obj{{K: "skill", V: nonNil(in.Skill)}, {K: "tool", V: nonNil(in.Tool)}, {K: "from", V: nonNil(in.From)}}
	}
	return trace.Obj{
		{K: "network_allow", V: netAllow}, {K: "shell_allow", V: nonNil(shellAllow)},
		{K: "spawn_allow", V: nonNil(spawn)}, {K: "peer_fetch_allow", V: nonNil(peerFetch)},
		{K: "filesystem_scope", V: scope}, {K: "read_only_paths", V: nonNil(c.Filesystem.ReadOnly)},
		{K: "exports_files", V: exportsFiles}, {K: "peer_files", V: peerFiles},
		{K: "peer_tasks_accept", V: s.m.Exports.PeerTasks.Accept}, {K: "install", V: install},
	}
}

// lifecycleObj is session_start.lifecycle: §1.5's keys after the overrides.
func (s *Session) lifecycleObj() trace.Obj {
	lc := s.m.Lifecycle
	var kw, dc, grace, notice any
	if k := lc.KeepWorking; k != nil {
		kw = trace.Obj{{K: "limit", V: k.Limit}, {K: "message", V: k.Message}}
	}
	if d := lc.DoneCheck; d != nil {
		dc = trace.Obj{{K: "command", V: d.Command}, {K: "limit", V: d.Limit}, {K: "timeout_secs", V: d.TimeoutSecs}}
	}
	if lc.ShellGraceSecs != nil {
		grace = *lc.ShellGraceSecs
	}
	if lc.DeadlineNoticeSecs != nil {
		notice = *lc.DeadlineNoticeSecs
	}
	return trace.Obj{
		{K: "task_acceptance", V: lc.TaskAcceptance}, {K: "after_task", V: lc.AfterTask},
		{K: "queue_depth", V: lc.QueueDepth}, {K: "max_task_reopens", V: lc.MaxTaskReopens},
		{K: "keep_working", V: kw}, {K: "done_check", V: dc}, {K: "shell_grace_secs", V: grace},
		{K: "deadline_notice_secs", V: notice}, {K: "delegation_deadline_secs", V: lc.DelegationDeadlineSecs},
	}
}
