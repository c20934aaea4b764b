package manifest

import (
	"encoding/json"
	"path/filepath"
	"time"
)

// Manifest is a loaded, defaulted and validated murmur.yaml (capsule.md §1).
// It is the contract the session runtime, the launcher (admission reads
// Exports.PeerTasks.Accept, Network.Authentication, Lifecycle.TaskAcceptance
// and Lifecycle.QueueDepth) and the CLI program against. Every field holds
// its default (Defaults, capsule.md §1.5–§1.6) when the key was absent.
// A Manifest is read-only after Load and safe for concurrent readers.
type Manifest struct {
	// Path is the manifest's path as given to Load; diagnostics name it.
	Path string
	// Dir is the absolute directory holding the manifest: relative paths
	// (inference.driver.script, system_prompt_file, exports roots) are
	// resolved against it, and it is <project> for a capsule (STORE-2).
	Dir string

	Name        string // [a-z0-9-], 1–100 characters (MAN-5)
	Version     string // exact version; unquoted numbers keep their source text (MAN-3)
	Description string
	// Runtime is the artifact role as written: "" (a capsule for mur run),
	// "capsule", "tool", "skill", "driver" or "hook".
	Runtime    string
	MurVersion string // "" when absent; see MurVersionWarning
	// Implementation, Execution and RequiresFiles are accepted on a capsule
	// with no run-time meaning (MAN-5); on a tool artifact Implementation is
	// "native" (STORE-1).
	Implementation string
	Execution      string
	RequiresFiles  []string

	Artifacts    []Artifact
	Capabilities Capabilities
	Exports      Exports
	Network      Network
	Control      Control
	Trace        Trace
	Context      Context
	Lifecycle    Lifecycle
	// Inference is nil when the manifest has no inference block (then Load
	// refuses with E-RUN-005; only LoadArtifact returns such a manifest).
	Inference *Inference

	// Hook is a hook artifact's contract (runtime: hook); nil on every
	// other manifest.
	Hook *HookContract

	// Tool and hook artifact fields (runtime: tool or hook, STORE-1); empty
	// on a capsule.
	Command     string          // relative to Dir, as written
	InputSchema json.RawMessage // compact JSON object; `{"type":"object"}` when absent on a tool
}

// Artifact is one artifacts[] entry (capsule.md §1.2, MAN-6).
type Artifact struct {
	Ref     string // the full reference as written, e.g. "murmur/tool-edit"
	Scope   string // the part before the last '/', "" when none (recorded only)
	Name    string // the tool name: the part after the last '/'; stores resolve by it
	Version string
	// Runtime is tool (default), skill, driver or hook; driver and hook are
	// refused at staging (MAN-7).
	Runtime string
	// Config is the entry's config mapping (LOOP-10), nil when absent;
	// ConfigJSON is its compact JSON (≤ 65536 bytes), nil when absent, the
	// value of MURMUR_ARTIFACT_CONFIG.
	Config     map[string]any
	ConfigJSON json.RawMessage
	// Source and LocalSource are LATER: validated, then ignored (W-SEC-019).
	Source      string
	LocalSource *bool
	// OnOverflow is a hook entry's on_overflow: "drop" (default) or
	// "block"; "" on any other role.
	OnOverflow string
	// Hook is a hook entry's own grant (capabilities:); nil when the entry
	// declares none — a hook then reads no task io and no conversation and
	// is given no directory.
	Hook *HookGrant
}

// HookContract is the three fields a hook artifact's own murmur.yaml
// declares (murmur's hook contract): the author's, never the operator's.
type HookContract struct {
	// Binding is the one event the hook is dispatched for, "" for every
	// event (observe only).
	Binding string
	// ExecutionMode is "blocking" (default) or "async".
	ExecutionMode string
	// CommitPolicy is what the runtime does with the hook's answer: "none"
	// (default), "deny", "reopen-task", "seed-context", "replace-context"
	// or "write-manifests".
	CommitPolicy string
}

// HookGrant is a hook entry's capabilities block, read from the capsule's
// manifest (the operator grants, the hook's own manifest cannot).
type HookGrant struct {
	TaskIORead       bool   // capabilities.task_io.read
	ConversationRead bool   // capabilities.conversation.read
	Scope            string // capabilities.filesystem.scope: <workdir>/<scope>, "" none
	DeadlineSecs     int    // capabilities.limits.deadline_seconds, 0: the default
}

// Capabilities is the capabilities block (capsule.md §1.3). A nil pointer
// means the block is absent; for grants (plan, install, peer_fetch) absence
// means the tool does not exist (tools.md §1).
type Capabilities struct {
	Shell      *Shell
	Network    CapNetwork
	Filesystem Filesystem
	Spawn      *Spawn     // grants delegate-task when Allow is non-empty (tools.md DLG)
	Plan       *Plan      // grants submit-plan when Submit
	PeerFetch  *PeerFetch // grants fetch-peer-file (tools.md PFILE)
	Install    *Install   // grants pull-artifact and remove-artifact
	// Containment is capabilities.containment: "advisory", "scoped",
	// "sealed", or "" when absent (the best the kernel offers short of
	// sealed).
	Containment string
	Env         *EnvGrant // nil when absent: the harness gets no variable (PROC-3)
	// Resources is capabilities.resources: the tool processes' limits
	// under sealed, each 0 where the manifest names none.
	Resources Resources
}

// Resources is capabilities.resources: rlimits of every sealed tool
// process and the session cgroup's ceilings (docs/containment.md); each is
// greater than 0 when named, 0 when not (the default applies).
type Resources struct {
	MaxProcesses      int64 // max_processes: RLIMIT_NPROC
	MaxOpenFiles      int64 // max_open_files: RLIMIT_NOFILE
	MaxFileSizeBytes  int64 // max_file_size_bytes: RLIMIT_FSIZE
	MemoryBytes       int64 // memory_bytes: RLIMIT_AS
	CPUSeconds        int64 // cpu_seconds: RLIMIT_CPU
	CgroupPidsMax     int64 // cgroup_pids_max
	CgroupMemoryBytes int64 // cgroup_memory_bytes
}

// EnvGrant is capabilities.env (process.md PROC-3): Allow names the
// variables a harness (and, later, a delegated child) sees, in manifest
// order, each [A-Za-z_][A-Za-z0-9_]*.
type EnvGrant struct {
	Allow []string
}

// Shell is capabilities.shell: Allow is non-empty when the block exists.
type Shell struct {
	Allow       []string // bare binary names, in manifest order
	StripEnv    []string // globs (SES-10)
	BaselineEnv []string // globs kept whatever removed them
}

// CapNetwork is capabilities.network.
type CapNetwork struct {
	Allow AllowList // entries in manifest order; see AllowList.Allows
	// Listen is the TCP ports a contained tool process may bind and
	// listen on; none when empty.
	Listen []uint16
}

// Filesystem is capabilities.filesystem: recorded in effective_grants, not
// enforced (capsule.md §1.3).
type Filesystem struct {
	Scope    string   // relative to the workdir; "" when absent
	ReadOnly []string // relative paths
}

// Spawn is capabilities.spawn (tools.md DLG-1).
type Spawn struct {
	Allow []string   // the entries as written, in manifest order
	Refs  []SpawnRef // the same entries, parsed
}

// SpawnRef is one capabilities.spawn.allow entry: <scope>/<name>@<version>.
type SpawnRef struct {
	Scope, Name, Version string
}

// String is the entry as <scope>/<name>@<version>.
func (r SpawnRef) String() string { return r.Scope + "/" + r.Name + "@" + r.Version }

// Plan is capabilities.plan.
type Plan struct {
	Submit bool
}

// PeerFetch is capabilities.peer_fetch; Allow is non-empty.
type PeerFetch struct {
	Allow    AllowList
	MaxBytes int64 // the most a fetch receives; default 10Mi
}

// Install is capabilities.install (tools.md PULL): entries are full names or
// end in '*'.
type Install struct {
	Skill []string
	Tool  []string
	From  []string
}

// Exports is the exports block (capsule.md §1.4).
type Exports struct {
	PeerTasks PeerTasks
	PeerFiles *PeerFiles  // grants share-file and the peer plane (tools.md PFILE)
	Files     *FileExport // LATER
}

// PeerTasks is exports.peer_tasks: Accept makes the capsule callable by
// formation members (formations.md ADM-1 check 7, E-ROS-005).
type PeerTasks struct {
	Accept bool
}

// PeerFiles is exports.peer_files (tools.md PFILE-1, PFILE-3).
type PeerFiles struct {
	Root   string        // relative to the workdir
	MaxTTL time.Duration // default 1h (DefaultPeerFilesTTL)
	// TTLDeclared says max_ttl was written: under after_task: sleep it must
	// be (E-CAP-008, CheckPeerFilesTTL).
	TTLDeclared bool
	MaxBytes    int64 // default 10Mi
}

// FileExport is exports.files (LATER).
type FileExport struct {
	Root     string
	Mode     string // "read-only", the only value
	MaxBytes int64  // default 10Mi
}

// Network is the top-level network block (capsule.md §1.4).
type Network struct {
	// InternalPort is the door port; 0 means OS-assigned (--port overrides).
	InternalPort int
	// Authentication is nil for a public door (door.md AUTH-1).
	Authentication *Authentication
}

// Authentication is network.authentication (door.md AUTH-2).
type Authentication struct {
	Scheme      string       // "bearer", the only value
	Credentials []Credential // in manifest order; names unique, without ':'
}

// Credential is one network.authentication.credentials entry: a door token
// with exactly Scopes (door.md AUTH-3 method names).
type Credential struct {
	Name   string
	Scopes []string
}

// Control is the control block: only agent_settings is built.
type Control struct {
	// AgentSettings lists the settings the agent may change; the only
	// accepted value is "inference.driver" (grants switch-driver).
	AgentSettings []string
}

// SwitchDriver reports whether switch-driver is granted (tools.md §1 row 6).
func (c Control) SwitchDriver() bool {
	for _, s := range c.AgentSettings {
		if s == "inference.driver" {
			return true
		}
	}
	return false
}

// Trace is the trace block (capsule.md §1.4, TRACE-5, SES-9).
type Trace struct {
	Capture string // none | meta (default) | content
	// Retain is nil when absent: never delete.
	Retain *Retain
}

// Context is the context block: the durable conversation record under
// $MURMUR_HOME/conversations/<RecordStore>/<context id>/, and the model's
// context window.
type Context struct {
	Record      string // on (default) | off
	RecordStore string // default: the capsule's name
	// Retain is nil when absent: every record kept whole and forever.
	Retain *ContextRetain
	// MaxTokens is context.max_tokens, the model's context window, which
	// overrides every choice's config.context_window_tokens; 0 = not declared.
	MaxTokens int64
}

// ContextRetain is context.retain; a zero field is not declared (at least
// one is). MaxMessages trims the front of the record a launch opens;
// MaxAge drops a record of the store not written to for that long.
type ContextRetain struct {
	MaxMessages int
	MaxAge      time.Duration
}

// Retain is trace.retain; a zero field is not declared (at least one is).
type Retain struct {
	MaxSessions int
	MaxAge      time.Duration
}

// Lifecycle is the lifecycle block with every default applied (capsule.md §1.5).
type Lifecycle struct {
	TaskAcceptance string // none | single (default) | queue
	AfterTask      string // exit (default) | sleep
	QueueDepth     int    // ≥1, default 1
	MaxTaskReopens int    // ≥0, default 1
	KeepWorking    *KeepWorking
	DoneCheck      *DoneCheck
	// ShellGraceSecs is nil when absent: nothing moves to the background.
	ShellGraceSecs *int
	// DeadlineNoticeSecs is nil when absent: tools.md NOTICE-2's default.
	DeadlineNoticeSecs *int
	// DelegationDeadlineSecs defaults to 600; MURMUR_DELEGATION_TIMEOUT_SECS
	// overrides it at run time (not applied by Load).
	DelegationDeadlineSecs int
	// Conversation is "stateless" (default) or "threaded": contexts mapped to
	// harness sessions under inference.transport: process (process.md THR-1),
	// LATER under http (warns).
	Conversation string
	// InputTimeoutSecs bounds how long request-input waits for a reply
	// (input.md INP-7); nil when absent: it waits indefinitely.
	InputTimeoutSecs *int
}

// DefaultKeepWorkingMessage is lifecycle.keep_working.message's default (LOOP-13).
const DefaultKeepWorkingMessage = "Keep working on the task. When it is finished, reply with your complete final answer."

// KeepWorking is lifecycle.keep_working (LOOP-13).
type KeepWorking struct {
	Limit   int    // ≥1
	Message string // DefaultKeepWorkingMessage when absent
}

// DoneCheck is lifecycle.done_check (LOOP-14).
type DoneCheck struct {
	Command     string // its first word is in capabilities.shell.allow
	Limit       int    // ≥0, default 1
	TimeoutSecs int    // ≥1, default 600
}

// Inference is the inference block (capsule.md §1.6) with defaults applied.
type Inference struct {
	Driver     DriverBlock   // the primary choice, Name "primary"
	Alternates []DriverBlock // choices for switch-driver, in manifest order
	Transport  string        // TransportHTTP (default) or TransportProcess
	MaxTurns   int           // >0, default 10, per task
	MaxTokens  int           // >0, default 8192, per-turn output cap
	// MaxSessionTokens is the session spend ceiling; 0 = none (LOOP-18).
	MaxSessionTokens int64
	// SystemPrompt is the inline prompt, trimmed; SystemPromptFile the file
	// as written (relative to Manifest.Dir), read verbatim at MAN-4 step 9.
	// At most one is set.
	SystemPrompt     string
	SystemPromptFile string
	ToolRefresh      string // task (default) | turn

	// Harness, Command and Model are read under TransportProcess only
	// (process.md PROC-1). Harness is the dialect, HarnessClaude or
	// HarnessCodex, defaulted from Command's base name; Command is the
	// executable as written ("" = the dialect's default, see
	// HarnessCommand); Model is passed to the harness, "" = its own default.
	Harness string
	Command string
	Model   string

	// Compaction is inference.compaction; its defaults when absent.
	Compaction Compaction
}

// DefaultCompactionThreshold is inference.compaction.threshold's default.
const DefaultCompactionThreshold = 0.98

// Compaction is inference.compaction: when the conversation is compacted
// and how the built-in compactor summarises it. Under transport: process it
// is parsed and does nothing (the harness compacts its own conversation).
type Compaction struct {
	Threshold float64 // of the input budget; 0 < t ≤ 1, default DefaultCompactionThreshold
	Model     string  // the summary call's model; "" = the serving choice's
	// SystemPrompt is the summary call's system prompt, verbatim;
	// SystemPromptFile the file as written (relative to Manifest.Dir). At
	// most one is set; neither: the compactor's own.
	SystemPrompt     string
	SystemPromptFile string
	DumpSummaries    bool // append each summary to out/compaction-summaries.jsonl
}

// Transports (process.md PROC-1).
const (
	TransportHTTP    = "http"
	TransportProcess = "process"
)

// Harness dialects (process.md PROC-1, §4).
const (
	HarnessClaude = "claude"
	HarnessCodex  = "codex"
)

// HarnessRequiredEnv is what each dialect needs in capabilities.env.allow
// (process.md PROC-3, E-CAP-019): the harness reads its login under HOME
// and finds its own helpers on PATH.
var HarnessRequiredEnv = []string{"HOME", "PATH"}

// Process reports whether the capsule drives a harness (process.md).
func (in *Inference) Process() bool { return in != nil && in.Transport == TransportProcess }

// HarnessName is the dialect's name in records and messages:
// "claude-code" or "codex" (HREC-1, E-CAP-019).
func (in *Inference) HarnessName() string {
	if in.Harness == HarnessCodex {
		return "codex"
	}
	return "claude-code"
}

// HarnessCommand is the executable to run as written: inference.command,
// else the dialect's default, "claude" or "codex" (PROC-1).
func (in *Inference) HarnessCommand() string {
	if in.Command != "" {
		return in.Command
	}
	return in.Harness
}

// Choices is the primary then every alternate, in order (DRV-2).
func (in *Inference) Choices() []DriverBlock {
	out := make([]DriverBlock, 0, 1+len(in.Alternates))
	out = append(out, in.Driver)
	return append(out, in.Alternates...)
}

// PrimaryChoice is the name of the primary choice (MAN-8).
const PrimaryChoice = "primary"

// Driver kinds (capsule.md §1.6).
const (
	KindScripted  = "scripted"
	KindOpenAI    = "openai"
	KindAnthropic = "anthropic"
)

// DriverBlock is inference.driver or one inference.alternates[] entry.
type DriverBlock struct {
	Name  string // PrimaryChoice, or the alternate's name
	Where string // "inference.driver" or "inference.alternates[<i>]", for messages
	Kind  string // scripted | openai | anthropic
	Model string // "scripted" by default on scripted
	// Endpoint is "" for the kind's default (DRV-5/6).
	Endpoint string
	// APIKeyEnv is NAME from `api_key: ${NAME}`, "" when none. The value is
	// never stored here: resolve it with the loader's getenv at launch (DRV-3).
	APIKeyEnv string
	Keyless   bool
	// Script is the scripted driver's script as written (relative to
	// Manifest.Dir); see Manifest.ScriptPath.
	Script string
	Config map[string]any // {} when absent
	// Available is false for an alternate whose credential was unset or
	// empty at load (W-RUN-003); always true for the primary.
	Available bool
}

// CredentialSource is DRV-3's credential_source: "environment", "keyless"
// or "none" (scripted).
func (d DriverBlock) CredentialSource() string {
	switch {
	case d.Kind == KindScripted:
		return "none"
	case d.Keyless:
		return "keyless"
	default:
		return "environment"
	}
}

// ScriptPath is the absolute path of d's script, "" when d has none.
func (m *Manifest) ScriptPath(d DriverBlock) string {
	if d.Script == "" {
		return ""
	}
	return m.abs(d.Script)
}

// SystemPromptPath is the absolute path of inference.system_prompt_file, ""
// when none is declared.
func (m *Manifest) SystemPromptPath() string {
	if m.Inference == nil || m.Inference.SystemPromptFile == "" {
		return ""
	}
	return m.abs(m.Inference.SystemPromptFile)
}

// CommandPath is the absolute path of a tool artifact's command.
func (m *Manifest) CommandPath() string {
	if m.Command == "" {
		return ""
	}
	return m.abs(m.Command)
}

func (m *Manifest) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(m.Dir, p)
}
