package session

import (
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// sessionStartRecord is session_start (capsule.md §6), with a member's TRC-1
// fields.
func (s *Session) sessionStartRecord() trace.SessionStart {
	m := s.m
	primary := m.Inference.Driver
	rec := trace.SessionStart{
		CapsuleName: m.Name, CapsuleVersion: m.Version, Model: &primary.Model,
		MaxTurns: m.Inference.MaxTurns, Capabilities: []string{},
		ToolsDeclared: nonNil(s.tools.Declared()), CredentialSource: primary.CredentialSource(),
		SystemPromptSource: s.l.PromptSource,
		ContainmentDecl:    s.containmentDeclared(), ContainmentAchv: s.sandbox.Class(),
		EffectiveGrants: s.effectiveGrants(), Lifecycle: s.lifecycle(),
	}
	if r := s.l.Resumed; r != nil && r.SessionID != "" {
		rec.ResumedFrom = &r.SessionID
	}
	if id := s.l.LaunchContextID; id != "" {
		rec.ContextID = &id
	}
	if n := m.Inference.MaxSessionTokens; n > 0 {
		rec.MaxSessionTokens = &n
	}
	if len(m.Capabilities.Network.Allow) > 0 {
		rec.Capabilities = append(rec.Capabilities, "network")
	}
	if m.Capabilities.Filesystem.Scope != "" || len(m.Capabilities.Filesystem.ReadOnly) > 0 {
		rec.Capabilities = append(rec.Capabilities, "filesystem")
	}
	if m.Capabilities.Shell != nil {
		rec.Capabilities = append(rec.Capabilities, "shell")
	}
	rec.Transport = m.Inference.Transport
	if m.Inference.Process() { // HREC-4
		rec.Model, rec.CredentialSource, rec.InferenceChoices = nil, "none", []trace.InferenceChoice{}
		if in := m.Inference.Model; in != "" {
			rec.Model = &in
		}
	} else {
		for _, c := range m.Inference.Choices() {
			rec.InferenceChoices = append(rec.InferenceChoices, trace.InferenceChoice{Name: c.Name, Kind: c.Kind,
				Model: c.Model, Available: c.Available, CredentialSource: c.CredentialSource()})
		}
	}
	if s.l.Prompt != "" {
		h := sha(s.l.Prompt)
		rec.SystemPromptSHA256 = &h
	}
	if s.deadline != nil {
		d := tool.FormatDeadline(*s.deadline)
		rec.Deadline = &d
	}
	if mem := s.l.Member; mem != nil {
		rec.FormationID = mem.FormationID
		if mem.Launched() {
			rec.FormationMember, rec.FormationCallees = mem.Name, nonNil(mem.Callees)
		}
	}
	if link := s.l.Link; link != nil {
		rec.SpawnedBy, rec.DelegationID = link.SessionID, link.DelegationID // DLG-9
	}
	return rec
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// effectiveGrants is session_start.effective_grants.
func (s *Session) effectiveGrants() trace.Grants {
	c := s.m.Capabilities
	g := trace.Grants{NetworkAllow: []string{}, ReadOnlyPaths: nonNil(c.Filesystem.ReadOnly),
		PeerTasksAccept: s.m.Exports.PeerTasks.Accept}
	for _, e := range c.Network.Allow {
		g.NetworkAllow = append(g.NetworkAllow, e.Raw)
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
	g.ShellAllow, g.SpawnAllow, g.PeerFetchAllow = nonNil(shellAllow), nonNil(spawn), nonNil(peerFetch)
	if sc := c.Filesystem.Scope; sc != "" {
		g.FilesystemScope = &sc
	}
	if f := s.m.Exports.Files; f != nil {
		g.ExportsFiles = &trace.ExportsFiles{Root: f.Root, Mode: f.Mode, MaxBytes: f.MaxBytes}
	}
	if p := s.m.Exports.PeerFiles; p != nil {
		g.PeerFiles = &trace.PeerFiles{Root: p.Root, MaxTTLSecs: int64(p.MaxTTL.Seconds()), MaxBytes: p.MaxBytes}
	}
	if in := c.Install; in != nil {
		g.Install = &trace.Install{Skill: nonNil(in.Skill), Tool: nonNil(in.Tool), From: nonNil(in.From)}
	}
	g.EnvAllow = []string{}
	if e := c.Env; e != nil {
		g.EnvAllow = nonNil(e.Allow)
	}
	return g
}

// lifecycle is session_start.lifecycle: §1.5's keys after the overrides.
func (s *Session) lifecycle() trace.Lifecycle {
	lc := s.m.Lifecycle
	out := trace.Lifecycle{TaskAcceptance: lc.TaskAcceptance, AfterTask: lc.AfterTask,
		QueueDepth: lc.QueueDepth, MaxTaskReopens: lc.MaxTaskReopens,
		ShellGraceSecs: lc.ShellGraceSecs, DeadlineNoticeSecs: lc.DeadlineNoticeSecs,
		DelegationDeadlineSecs: lc.DelegationDeadlineSecs}
	if k := lc.KeepWorking; k != nil {
		out.KeepWorking = &trace.LifecycleKeepWorking{Limit: k.Limit, Message: k.Message}
	}
	if d := lc.DoneCheck; d != nil {
		out.DoneCheck = &trace.LifecycleDoneCheck{Command: d.Command, Limit: d.Limit, TimeoutSecs: d.TimeoutSecs}
	}
	return out
}
