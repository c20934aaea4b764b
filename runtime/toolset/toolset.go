// Package toolset is the one place a session's tools are built: the only
// importer of the concrete tool packages (runtime/tool/*). From a session's
// launch and the services it lends — its directories, environment,
// sandbox, trace, task table, delegation hub and its own measures — Build
// evaluates tools.md §1 once (tools.md §17): the shell binaries,
// background-command, session-status, switch-driver, delegate-task,
// share-file and fetch-peer-file, submit-plan, pull-artifact and
// remove-artifact, call-member and end-without-answer, request-input and the
// declared artifacts, for staging, the inventory, tools_declared and
// dispatch.
package toolset

import (
	"crypto/ed25519"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/formation"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/spawn"
	"github.com/murmur-go/mur/runtime/store"
	"github.com/murmur-go/mur/runtime/tasktable"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/tool/artifact"
	"github.com/murmur-go/mur/runtime/tool/delegate"
	"github.com/murmur-go/mur/runtime/tool/member"
	"github.com/murmur-go/mur/runtime/tool/peerfile"
	"github.com/murmur-go/mur/runtime/tool/plan"
	"github.com/murmur-go/mur/runtime/tool/shell"
	"github.com/murmur-go/mur/runtime/tool/status"
	"github.com/murmur-go/mur/runtime/tool/switchdriver"
	"github.com/murmur-go/mur/runtime/trace"
)

// TailBytes is how much of a command's output its tail keeps (the shell
// tool's, which done_check's reopen message shares).
const TailBytes = shell.TailBytes

// Config is what Build reads: the session's launch and the services its
// tools use. Every field is the session's; none is optional unless it says.
type Config struct {
	Manifest  *manifest.Manifest
	Member    *formation.Member // nil outside a formation
	Artifacts []tool.Artifact   // the declared tool and skill artifacts, in manifest order

	ID, URL                      string
	Workdir, RuntimeDir, LogsDir string
	Project, Home                string
	StoreForm                    bool // the store form: pulls never touch murmur.lock (STORE-5)
	Env                          []string
	Sandbox                      *proc.Sandbox
	Hub                          *spawn.Hub // nil without capabilities.spawn.allow
	DelegationDeadline           time.Duration
	Now                          func() time.Time
	// Record writes a tool's own record to the session's trace, and Tasks
	// is the session's task table: both exist only once the session begins,
	// after Build, so they are read when a tool needs them.
	Record     func(trace.Record)
	Tasks      func() *tasktable.Registry
	Bootstrap  func(text string) // the bootstrap log (CLI-4)
	Status     func() tool.StatusSnapshot
	Choices    []manifest.DriverBlock
	Switcher   switchdriver.Switcher
	Generation func() uint64
	// AskingTask is the task the loop runs now when its id is taskID, ok
	// false otherwise (request-input's door, INP-3).
	AskingTask func(taskID string) (task Asking, ok bool)
	// ReplyText is a reply's text (INP-5).
	ReplyText func(a2a.Message) string
	// Override replaces tools by name after the rest are built: a test's
	// seam, nil in a session.
	Override map[string]tool.Tool
}

// Set is a session's built tools and the services behind them.
type Set struct {
	Registry *tool.Registry
	// Guidance is the system prompt's addition for the staged tools
	// (STAGE-4: submit-plan's), "" for none.
	Guidance string
	works    *shell.Works
	peer     *peerfile.Plane
}

// Build builds the session's tools (tools.md §1, §17).
func Build(c Config) (*Set, error) {
	m := c.Manifest
	set := &Set{}
	var allow []string
	if sh := m.Capabilities.Shell; sh != nil {
		allow = sh.Allow
	}
	set.works = &shell.Works{Now: c.Now, OnExit: c.workExited}
	sh := &shell.Shell{
		Workdir: c.Workdir, Env: c.Env, LogsDir: c.LogsDir, Works: set.works, Now: c.Now, Sandbox: c.Sandbox,
		Allowed: func(bin string) bool { return slices.Contains(allow, bin) },
	}
	if g := m.Lifecycle.ShellGraceSecs; g != nil {
		d := time.Duration(*g) * time.Second
		sh.Grace = &d
	}
	impl := map[string]tool.Tool{
		tool.NameSessionStatus:     status.New(func(*tool.CallContext) status.Snapshot { return c.Status() }),
		tool.NameBackgroundCommand: shell.Background(set.works),
		tool.NameSwitchDriver:      switchdriver.New(switchChoices(c.Choices), c.Switcher),
	}
	reg := func() *tool.Registry { return set.Registry }
	if c.Hub != nil { // DLG-1
		if t, err := delegate.New(delegate.Config{Hub: c.Hub, Allow: m.Capabilities.Spawn.Refs, Deadline: c.DelegationDeadline}); err != nil {
			c.Bootstrap(fmt.Sprintf("delegate-task is unavailable: %v\n", err))
		} else {
			impl[tool.NameDelegateTask] = t
		}
	}
	for name, t := range c.peerFiles(set) {
		impl[name] = t
	}
	for name, t := range c.planAndInstall(sh, reg) {
		impl[name] = t
	}
	if mt, err := c.memberTools(); err != nil {
		return nil, err
	} else {
		for name, t := range mt {
			impl[name] = t
		}
	}
	for name, t := range c.Override {
		impl[name] = t
	}
	var callees []string
	if c.Member != nil {
		callees = c.Member.Callees
	}
	arts := make([]tool.Artifact, 0, len(c.Artifacts)+1)
	for _, a := range c.Artifacts {
		if n, ok := a.(*artifact.Native); ok {
			n.Workdir, n.Env, n.Sandbox = c.Workdir, c.Env, c.Sandbox
		}
		arts = append(arts, a)
	}
	if ri := c.requestInput(); ri != nil { // INP-1: in manifest order among the declared artifacts
		arts = slices.Insert(arts, min(stagedBefore(m, m.RequestInputIndex()), len(arts)), ri)
	}
	set.Registry, _ = tool.Build(tool.Config{
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
		Shell:     sh,
		Impl:      impl,
	})
	if set.Registry.Staged(tool.NameSubmitPlan) { // STAGE-4
		set.Guidance = plan.Guidance
	}
	return set, nil
}

// Running lists the background commands still running (task_end
// running_commands).
func (s *Set) Running() []string { return s.works.Running() }

// Abandoned is a background command killed as the session ended.
type Abandoned = shell.Abandoned

// ClosePeerFiles voids every peer-file handle the session minted: the
// plane's key is gone (PFILE-3).
func (s *Set) ClosePeerFiles() {
	if s.peer != nil {
		s.peer.Close()
	}
}

// CloseWorks kills and reaps every background command still running and
// returns them (SES-8: shell_abandoned).
func (s *Set) CloseWorks() []Abandoned { return s.works.Close() }

// PeerFiles is the session's peer plane, which the door's GET
// /resources/peer/<handle> dispatches to; nil without exports.peer_files.
func (s *Set) PeerFiles() *peerfile.Plane { return s.peer }

// ReadOnlyDirs are the directories the declared native tools run from,
// which a scoped tool process may read (the sandbox policy).
func ReadOnlyDirs(arts []tool.Artifact) []string {
	var out []string
	for _, a := range arts {
		if n, ok := a.(*artifact.Native); ok {
			out = append(out, filepath.Dir(n.Command))
		}
	}
	return out
}

// Installed is an installed tool or skill artifact, read for staging
// (STORE-8).
type Installed = artifact.Installed

// FromInstalled makes the declared artifact of an installed one.
func FromInstalled(in Installed) tool.Artifact { return artifact.FromInstalled(in) }

// switchChoices describes the driver choices for switch-driver (SWD-1),
// primary first.
func switchChoices(blocks []manifest.DriverBlock) []switchdriver.Choice {
	out := make([]switchdriver.Choice, len(blocks))
	for i, b := range blocks {
		out[i] = switchdriver.Choice{Name: b.Name, Kind: b.Kind, Model: b.Model, Available: b.Available, Credential: b.APIKeyEnv}
	}
	return out
}

// stagedBefore counts the tool and skill artifacts declared before
// artifacts[i]: the ones Config.Artifacts holds ahead of it.
func stagedBefore(m *manifest.Manifest, i int) int {
	n := 0
	for _, a := range m.Artifacts[:i] {
		if (a.Runtime == "tool" || a.Runtime == "skill") && !a.Builtin() {
			n++
		}
	}
	return n
}

// spawnAllow is capabilities.spawn.allow, nil when absent.
func spawnAllow(m *manifest.Manifest) []string {
	if m.Capabilities.Spawn == nil {
		return nil
	}
	return m.Capabilities.Spawn.Allow
}

// memberTools are call-member and end-without-answer for a formation
// member that roster.yaml lets call another (tools.md §10, §11); none for
// other sessions. Prepare already applied MURMUR_DELEGATION_TIMEOUT_SECS to
// lifecycle.delegation_deadline_secs (CALL-5).
func (c Config) memberTools() (map[string]tool.Tool, error) {
	mb := c.Member
	if mb == nil || len(mb.Callees) == 0 {
		return nil, nil
	}
	return member.Tools(member.Config{
		Callees:   mb.Callees,
		Directory: mb,
		Allow:     c.Manifest.Capabilities.Network.Allow,
		Deadline:  time.Duration(c.Manifest.Lifecycle.DelegationDeadlineSecs) * time.Second,
		Cascade:   mb.Cascade,
		CardKey:   cardPublic(mb.CardKey),
		Formation: mb.FormationID,
	})
}

// cardPublic is the public half of the formation's card key; nil for none.
func cardPublic(k ed25519.PrivateKey) ed25519.PublicKey {
	if k == nil {
		return nil
	}
	return k.Public().(ed25519.PublicKey)
}

// peerFiles builds share-file and the peer plane for exports.peer_files,
// and fetch-peer-file for capabilities.peer_fetch (tools.md PFILE-1:
// neither implies the other). The plane's key is minted here, at launch,
// and voided when the session ends (Close, PFILE-3). Both tools send
// through one client (peerfile.NewClient).
func (c Config) peerFiles(set *Set) map[string]tool.Tool {
	m := c.Manifest
	out := map[string]tool.Tool{}
	client := peerfile.NewClient()
	if pf := m.Exports.PeerFiles; pf != nil {
		p, err := peerfile.NewPlane(peerfile.Config{
			SessionID: c.ID, Workdir: c.Workdir, Root: pf.Root, MaxTTL: pf.MaxTTL, MaxBytes: pf.MaxBytes,
			Network: m.Capabilities.Network.Allow, Now: c.Now, Client: client,
			// The listener's records hang from the session node; the trace
			// writer exists by the time the door serves.
			Record:     c.Record,
			Generation: c.Generation,
		})
		if err != nil {
			c.Bootstrap(fmt.Sprintf("share-file is unavailable: %v\n", err))
		} else {
			set.peer = p
			out[tool.NameShareFile] = p.ShareFile()
		}
	}
	if pf := m.Capabilities.PeerFetch; pf != nil {
		out[tool.NameFetchPeerFile] = peerfile.Fetch(peerfile.FetchConfig{
			Workdir: c.Workdir, Allow: pf.Allow, Name: m.Name, URL: c.URL, Client: client, MaxBytes: pf.MaxBytes,
		})
	}
	return out
}

// planAndInstall builds submit-plan (tools.md §14) and, under
// capabilities.install, pull-artifact and remove-artifact (tools.md §9); the
// registry stages each only where its grant exists. Pulls read the project
// store, then the global store; murmur.lock pins them unless the session
// runs the store form, which never touches the lock (STORE-5).
func (c Config) planAndInstall(sh *shell.Shell, reg func() *tool.Registry) map[string]tool.Tool {
	m := c.Manifest
	var capsules *plan.Capsules
	if c.Hub != nil { // PLAN-6: capsule steps delegate through the session's hub
		capsules = &plan.Capsules{Hub: c.Hub, Allow: m.Capabilities.Spawn.Refs, Deadline: c.DelegationDeadline}
	}
	out := map[string]tool.Tool{
		tool.NameSubmitPlan: plan.New(plan.Config{Registry: reg,
			Shell:    &plan.Shell{Workdir: sh.Workdir, Env: sh.Env, Allowed: sh.Allowed, Sandbox: sh.Sandbox},
			PlansDir: filepath.Join(c.RuntimeDir, "plans"), Now: c.Now, Capsules: capsules}),
	}
	g := m.Capabilities.Install
	if g == nil {
		return out
	}
	lockDir := c.Project
	if c.StoreForm {
		lockDir = ""
	}
	in := artifact.NewInstaller(artifact.InstallConfig{
		Grant: *g, Stores: store.Stores{ProjectDir: c.Project, Home: c.Home}, LockDir: lockDir,
		RuntimeDir: c.RuntimeDir, Workdir: c.Workdir, Env: c.Env, SessionID: c.ID, Registry: reg,
	})
	out[tool.NamePullArtifact] = in.Pull()
	out[tool.NameRemoveArtifact] = in.Remove()
	return out
}

// workExited writes shell_completed and, under queue + sleep unless
// background-command returned the exit, starts a completion task (SHELL-3).
func (c Config) workExited(w *shell.Work, returned bool) {
	snap := w.Snapshot(c.Now())
	var completion *string
	lc := c.Manifest.Lifecycle
	if !returned && lc.TaskAcceptance == "queue" && lc.AfterTask == "sleep" {
		text := "Background command " + w.ID + " (" + w.Command + ") ended.\n\n" + w.Report(c.Now(), nil)
		msg := a2a.Message{MessageID: a2a.NewID(a2a.PrefixMessage), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}}
		prov := tasktable.Provenance{Origin: a2a.OriginCompletion, Trust: a2a.TrustTrusted, Source: "detached_shell"}
		if t, err := c.Tasks().Submit(prov, msg); err == nil {
			id := string(t.ID)
			completion = &id
		}
	}
	c.Record(trace.ShellCompleted{WorkID: w.ID, ExitCode: snap.ExitCode, Status: snap.Status,
		DurationMS: snap.Duration.Milliseconds(), OutputBytes: snap.OutputBytes, CompletionTaskID: completion})
}
