package session

import (
	"context"
	"fmt"
	"github.com/murmur-go/mur/runtime/tool"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/harness"
	"github.com/murmur-go/mur/runtime/harness/bridge"
	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/trace"
)

// harnessDir is the records directory's harness/ (<H>, PROC-6): the MCP
// config and the system prompt a run reads.
const harnessDir = "harness"

// hsession is a process session's harness side (process.md): the dialect
// and binary, the bridge (BRG-1), the version read once (PROC-10), the
// quota windows (HEV-6), codex's thread totals (HEV-5) and the run in
// progress. Only the task pump's goroutine starts runs; the bridge's
// goroutine reads run through mu.
type hsession struct {
	d       harness.Dialect
	binary  string
	dir     string        // <H>
	mur     string        // the mur binary codex starts as its MCP proxy (PROC-7)
	sandbox *proc.Sandbox // starts the CLI; nil: unconfined
	env     []string      // the harness's whole environment (PROC-8)
	limits  harness.Limits
	br      *bridge.Server
	version harness.Version

	// act wakes the run in progress when the bridge's count of calls in
	// flight changes (BRG-8); one buffered slot: a pending wake is enough.
	act      chan struct{}
	inFlight atomic.Int32

	mu       sync.Mutex
	logs     int                            // harness-<n>.log counter (PROC-9)
	quota    []tool.QuotaWindow             // latest per name, first-report order (HEV-6)
	totals   map[string]*harness.UsageTotal // codex: thread id → last running total seen (HEV-5)
	warnedAK bool                           // W-SEC-031 printed (HEV-9)
	run      *hrun                          // the run in progress, nil between runs
}

// startHarness prepares a process session before its first task (PROC-8,
// BRG-1): <H> with the system prompt, the bridge, the environment.
func (s *Session) startHarness() error {
	in := s.m.Inference
	h := &hsession{d: harness.DialectOf(in.Harness), binary: s.l.Binary(), dir: filepath.Join(s.recordsDir, harnessDir),
		limits: harness.LimitsFrom(s.l.Opts.Getenv), act: make(chan struct{}, 1), totals: map[string]*harness.UsageTotal{}}
	if h.mur = s.cfg.Mur; h.mur == "" {
		h.mur, _ = os.Executable()
	}
	if err := os.MkdirAll(h.dir, 0o700); err != nil {
		return diag.IOError(h.dir, osText(err))
	}
	if err := os.WriteFile(filepath.Join(h.dir, harness.SystemPromptFile), []byte(s.system), 0o600); err != nil {
		return diag.IOError(h.dir, osText(err))
	}
	br, err := bridge.Start(bridge.Config{Tools: s.tools.Inventory(), Version: s.l.Opts.Version, Dispatch: s.bridged,
		Activity: func(n int) {
			h.inFlight.Store(int32(n))
			select {
			case h.act <- struct{}{}:
			default:
			}
		}})
	if err == nil {
		if err = faultAt(s.l.Opts.Getenv, "bridge"); err != nil {
			_ = br.Close(context.Background())
		}
	}
	if err != nil {
		return diag.RunBridgeListen(err.Error()).WithErr(err)
	}
	h.br = br
	var allow []string
	if e := s.m.Capabilities.Env; e != nil {
		allow = e.Allow
	}
	h.env = h.d.Env(allow, s.lookupEnv)
	s.hx = h
	if s.sandbox.Class() != proc.Advisory { // sealed too: the CLI must reach its model endpoint
		g := h.d.Grants(h.env, h.binary, h.dir)
		sb, err := proc.NewSandbox(s.harnessPolicy(g), nil)
		if err != nil {
			return diag.CapContainment(s.m.Name, err.Error())
		}
		h.sandbox, h.env = sb, append(h.env, g.Env...)
	}
	return nil
}

// harnessPolicy is what a scoped or sealed session's harness CLI may
// reach, like a tool process but with its own grants: read-write the accessible
// workdir, <H> and the CLI's config, state and temp directories
// (harness.Dialect.Grants), never what the formation runs; read-only the
// system paths, its PATH directories (none that would open $MURMUR_HOME)
// and the node_modules trees they lie in,
// its install tree and the mur binary codex starts as its MCP proxy. Any
// TCP port and UDP: the model endpoint is the CLI's to resolve and reach.
func (s *Session) harnessPolicy(g harness.Grants) *proc.Policy {
	h := s.hx
	g.EnsureDirs()
	p := &proc.Policy{ReadWrite: append([]string{s.workdir, h.dir}, g.ReadWrite...), AllowUDP: true,
		Protect: s.policy().Protect}
	for _, d := range proc.PathDirs(h.env, s.cfg.Home) {
		// a PATH directory inside a node_modules tree (npm's .bin) links
		// into that tree
		p.ReadOnly = append(p.ReadOnly, d, harness.InstallTree(filepath.Join(d, "-")))
	}
	p.ReadOnly = append(p.ReadOnly, g.ReadOnly...)
	if h.mur != "" {
		p.ReadOnly = append(p.ReadOnly, h.mur)
	}
	return p
}

// Binary is the harness executable Prepare resolved (PROC-4).
func (l *Launch) Binary() string { return l.HarnessBinary }

// lookupEnv is a name's value in mur's environment after .env (PROC-8):
// the process environment's, .env's when that is unset or empty; found
// false when neither sets it.
func (s *Session) lookupEnv(name string) (string, bool) {
	val, found := "", false
	for _, kv := range processEnv() {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			val, found = v, true
		}
	}
	if val == "" {
		if v, ok := s.l.Env.Vars[name]; ok {
			return v, true
		}
	}
	return val, found
}

// probeHarness is PROC-10, right after session_start: W-RUN-002 on stderr,
// in logs/bootstrap.log and as harness_warning when the version is not the
// tested one or cannot be read.
func (s *Session) probeHarness() {
	h := s.hx
	h.version = h.d.Probe(context.Background(), h.binary, h.env, s.workdir, harness.ProbeTimeout, h.sandbox)
	if w := h.version.Warning; w != nil {
		s.harnessWarning("", w)
	}
}

// harnessWarning prints w (W-RUN-002, W-SEC-031) and writes harness_warning
// under the task, or the session when taskID is "".
func (s *Session) harnessWarning(taskID string, w *diag.Diagnostic) {
	fmt.Fprint(s.cfg.Stderr, w.Render())
	s.bootstrap(w.Render())
	_, _ = s.tr.WriteTask(taskID, trace.HarnessWarning{Code: string(w.Code), Message: w.Msg})
}

// closeHarness stops the bridge at the session's end (SES-8).
func (s *Session) closeHarness() {
	if s.hx == nil || s.hx.br == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.hx.br.Close(ctx)
	s.hx.sandbox.Close()
}

// nextLog is the path of the session's next harness stderr log,
// logs/harness-<n>.log from 1 (PROC-9).
func (s *Session) nextLog() string {
	h := s.hx
	h.mu.Lock()
	defer h.mu.Unlock()
	h.logs++
	return filepath.Join(s.logsDir, fmt.Sprintf("harness-%d.log", h.logs))
}

// addQuota merges reported windows into the session's (HEV-6): the latest
// per name replaces the earlier, order is first report.
func (h *hsession) addQuota(ws []tool.QuotaWindow) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, w := range ws {
		replaced := false
		for i := range h.quota {
			if h.quota[i].Name == w.Name {
				h.quota[i], replaced = w, true
			}
		}
		if !replaced {
			h.quota = append(h.quota, w)
		}
	}
}

// quotaNow is a copy of the session's quota windows, nil until one came.
func (h *hsession) quotaNow() []tool.QuotaWindow {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]tool.QuotaWindow(nil), h.quota...)
}

// currentRun is the run in progress, nil between runs.
func (h *hsession) currentRun() *hrun {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.run
}

func (h *hsession) setRun(r *hrun) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.run = r
}

// warnAPIKey reports whether W-SEC-031 is still to be printed this session
// (HEV-9), and marks it printed.
func (h *hsession) warnAPIKey() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.warnedAK {
		return false
	}
	h.warnedAK = true
	return true
}
