package manifest

import (
	"path"
	"time"
)

// Defaults of capsule.md §1.4–§1.6 and STORE-1.
const (
	DefaultTaskAcceptance         = "single"
	DefaultAfterTask              = "exit"
	DefaultQueueDepth             = 1
	DefaultMaxTaskReopens         = 1
	DefaultDoneCheckLimit         = 1 // ours: the spec gives none
	DefaultKeepWorkingLimit       = 1 // ours: the spec gives none
	DefaultDoneCheckTimeoutSecs   = 600
	DefaultDelegationDeadlineSecs = 600
	DefaultCapture                = "meta"
	DefaultTransport              = TransportHTTP
	DefaultMaxTurns               = 10
	DefaultMaxTokens              = 8192
	DefaultToolRefresh            = "task"
	DefaultExportMaxBytes         = 10 << 20         // 10Mi
	DefaultPeerFilesTTL           = time.Hour        // exports.peer_files.max_ttl under after_task: exit (PFILE-3)
	MaxSleepPeerFilesTTL          = 15 * time.Minute // its ceiling under after_task: sleep (E-CAP-008)
	DefaultInputSchema            = `{"type":"object"}`
)

// applyDefaults is the one place defaults are set (STYLE.md §8): every key
// present(dotted) reports absent gets its default.
func applyDefaults(m *Manifest, present func(dotted string) bool) {
	for i := range m.Artifacts {
		if m.Artifacts[i].Runtime == "" {
			m.Artifacts[i].Runtime = "tool"
		}
	}
	if m.Runtime == "tool" && m.InputSchema == nil {
		m.InputSchema = []byte(DefaultInputSchema)
	}
	if m.Context.Record == "" {
		m.Context.Record = "on"
	}
	if m.Context.RecordStore == "" {
		m.Context.RecordStore = m.Name
	}
	if m.Trace.Capture == "" {
		m.Trace.Capture = DefaultCapture
	}
	if e := m.Exports.PeerFiles; e != nil && !present("exports.peer_files.max_bytes") {
		e.MaxBytes = DefaultExportMaxBytes
	}
	if e := m.Exports.PeerFiles; e != nil && !e.TTLDeclared {
		e.MaxTTL = DefaultPeerFilesTTL
	}
	if c := m.Capabilities.PeerFetch; c != nil && !present("capabilities.peer_fetch.max_bytes") {
		c.MaxBytes = DefaultExportMaxBytes
	}
	if e := m.Exports.Files; e != nil && !present("exports.files.max_bytes") {
		e.MaxBytes = DefaultExportMaxBytes
	}

	lc := &m.Lifecycle
	if lc.TaskAcceptance == "" {
		lc.TaskAcceptance = DefaultTaskAcceptance
	}
	if lc.AfterTask == "" {
		lc.AfterTask = DefaultAfterTask
	}
	if !present("lifecycle.queue_depth") {
		lc.QueueDepth = DefaultQueueDepth
	}
	if !present("lifecycle.max_task_reopens") {
		lc.MaxTaskReopens = DefaultMaxTaskReopens
	}
	if !present("lifecycle.delegation_deadline_secs") {
		lc.DelegationDeadlineSecs = DefaultDelegationDeadlineSecs
	}
	if lc.Conversation == "" {
		lc.Conversation = "stateless"
	}
	if kw := lc.KeepWorking; kw != nil {
		if !present("lifecycle.keep_working.limit") {
			kw.Limit = DefaultKeepWorkingLimit
		}
		if !present("lifecycle.keep_working.message") {
			kw.Message = DefaultKeepWorkingMessage
		}
	}
	if dc := lc.DoneCheck; dc != nil {
		if !present("lifecycle.done_check.limit") {
			dc.Limit = DefaultDoneCheckLimit
		}
		if !present("lifecycle.done_check.timeout_secs") {
			dc.TimeoutSecs = DefaultDoneCheckTimeoutSecs
		}
	}

	in := m.Inference
	if in == nil {
		return
	}
	if in.Transport == "" {
		in.Transport = DefaultTransport
	}
	if in.Transport == TransportProcess && in.Harness == "" {
		// murmur's rule (PROC-1): codex when the command's base name is codex.
		in.Harness = HarnessClaude
		if path.Base(in.Command) == HarnessCodex {
			in.Harness = HarnessCodex
		}
	}
	if !present("inference.max_turns") {
		in.MaxTurns = DefaultMaxTurns
	}
	if !present("inference.max_tokens") {
		in.MaxTokens = DefaultMaxTokens
	}
	if in.ToolRefresh == "" {
		in.ToolRefresh = DefaultToolRefresh
	}
	driverDefaults(&in.Driver)
	for i := range in.Alternates {
		driverDefaults(&in.Alternates[i])
	}
}

func driverDefaults(d *DriverBlock) {
	if d.Kind == KindScripted && d.Model == "" {
		d.Model = KindScripted
	}
	if d.Config == nil {
		d.Config = map[string]any{}
	}
	if d.Where == "" {
		d.Where = "inference.driver"
		d.Name = PrimaryChoice
		d.Available = true
	}
}
