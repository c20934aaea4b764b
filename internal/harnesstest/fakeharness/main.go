// Command fakeharness is the harness of mur's unit and integration tests
// (process.md PTEST-1): it speaks both dialects — Codex when its first
// argument is "exec", else Claude Code — from a JSON script named by
// FAKE_HARNESS_SCRIPT. Its steps emit the dialect's event lines, call the
// bridge's tools as a real MCP client (claude: over HTTP with the token from
// --mcp-config's file; codex: through the stdio server its -c
// mcp_servers.mur.command names, mur's proxy), write stderr, fall silent,
// fail as HEV-7 and THR-4 describe, or exit. It keeps its sessions and
// records in <state>, the dialect's own config directory's .fakeharness
// (~/.claude/.fakeharness, ~/.codex/.fakeharness), so --resume and `exec
// resume` work; it appends each invocation's argv, environment names
// (never values), stdin and containment status to <state>/calls.jsonl, and
// each bridged call's answer as it received it to <state>/results.jsonl.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Script is FAKE_HARNESS_SCRIPT's file: Runs[i] is the i-th invocation in
// this HOME (counted in <state>/count); past the end, the last.
type Script struct {
	Runs []RunScript `json:"runs"`
}

// RunScript is one invocation's steps, in order. Without an "answer",
// "fail" or "exit" step the run answers "ok". BadToken makes the fake
// present a wrong bearer token to the bridge (HEV-8).
type RunScript struct {
	Steps    []Step `json:"steps"`
	BadToken bool   `json:"bad_token,omitempty"`
}

// Step is one thing the fake does; exactly one field is set.
type Step struct {
	// Tool calls a bridged tool: the dialect's line showing the call, the
	// tools/call, then its echo. Text, when set, is claude text in the same
	// message.
	Tool *ToolStep `json:"tool,omitempty"`
	// Answer ends the run with this text and Usage (tokens per run for
	// claude; codex adds them to its thread's running total).
	Answer *string `json:"answer,omitempty"`
	Usage  *Usage  `json:"usage,omitempty"`
	// Quota emits claude's rate_limit_event with this rate_limit_info.
	Quota json.RawMessage `json:"quota,omitempty"`
	// Raw writes a stdout line as it is.
	Raw *string `json:"raw,omitempty"`
	// Stderr writes a line to stderr.
	Stderr *string `json:"stderr,omitempty"`
	// Sleep falls silent for a Go duration.
	Sleep string `json:"sleep,omitempty"`
	// Fail ends the run with a terminal failure line (HEV-7).
	Fail *Fail `json:"fail,omitempty"`
	// Exit ends the process with this code and no terminal line.
	Exit *int `json:"exit,omitempty"`
	// Spawn starts `sleep <secs>` in the fake's group and leaves it there,
	// its pid appended to <state>/spawned.
	Spawn int `json:"spawn,omitempty"`
	// Forget deletes this run's session, as a harness that lost it (THR-4).
	Forget bool `json:"forget,omitempty"`
	// IgnoreTerm ignores SIGTERM from here on (PROC-16's escalation).
	IgnoreTerm bool `json:"ignore_term,omitempty"`
	// Read tries to read each path and appends what came of it (the
	// bytes read, or the error) to <state>/reads.jsonl.
	Read []string `json:"read,omitempty"`
}

// ToolStep is one bridged call.
type ToolStep struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
	Text string          `json:"text,omitempty"`
	// NoEvent calls the tool without first showing it on stdout.
	NoEvent bool `json:"no_event,omitempty"`
}

// Fail is a terminal failure: Status is claude's api_error_status (0 =
// null), Subtype its subtype; Message the text.
type Fail struct {
	Status  int    `json:"status,omitempty"`
	Subtype string `json:"subtype,omitempty"`
	Message string `json:"message"`
}

// Usage is a run's token counts.
type Usage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	Cached     int64 `json:"cached"`
	CacheWrite int64 `json:"cache_write"`
}

// Call is one calls.jsonl line.
type Call struct {
	Argv  []string `json:"argv"`
	Env   []string `json:"env"` // names only
	Stdin string   `json:"stdin"`
	// Status is the CapEff, NoNewPrivs and Seccomp lines of its
	// /proc/self/status: how it was contained.
	Status []string `json:"status"`
}

func main() {
	args := os.Args[1:]
	codex := len(args) > 0 && args[0] == "exec"
	if len(args) == 1 && args[0] == "--version" {
		conf := ".claude"
		if strings.Contains(filepath.Base(os.Args[0]), "codex") || os.Getenv("FAKE_HARNESS_DIALECT") == "codex" {
			conf = ".codex"
			fmt.Println("codex-cli 0.169.0")
		} else {
			fmt.Println("2.1.328 (Claude Code)")
		}
		// how the probe ran it, for a test of its containment
		dir := filepath.Join(os.Getenv("HOME"), conf, ".fakeharness")
		if os.MkdirAll(dir, 0o700) == nil {
			_ = os.WriteFile(filepath.Join(dir, "version-status"), []byte(strings.Join(status(), ",")), 0o600)
		}
		return
	}
	stdin, _ := io.ReadAll(os.Stdin)
	stateDir = filepath.Join(os.Getenv("HOME"), ".claude", ".fakeharness")
	if codex {
		stateDir = filepath.Join(os.Getenv("HOME"), ".codex", ".fakeharness")
	}
	home := stateDir
	if err := os.MkdirAll(filepath.Join(home, "sessions"), 0o700); err != nil {
		fail(err)
	}
	record(home, Call{Argv: os.Args, Env: envNames(), Stdin: string(stdin), Status: status()})
	script := load()
	rs := script.Runs[min(next(home), len(script.Runs)-1)]
	badToken = rs.BadToken
	var h harness
	if codex {
		h = newCodex(home, args)
	} else {
		h = newClaude(home, args)
	}
	os.Exit(run(h, rs))
}

// run plays rs through h and returns the exit code.
func run(h harness, rs RunScript) int {
	if code, lost := h.start(); lost {
		return code
	}
	for _, st := range rs.Steps {
		switch {
		case st.Tool != nil:
			h.tool(*st.Tool)
		case st.Answer != nil:
			return h.answer(*st.Answer, st.Usage)
		case st.Quota != nil:
			h.quota(st.Quota)
		case st.Raw != nil:
			fmt.Println(*st.Raw)
		case st.Stderr != nil:
			fmt.Fprintln(os.Stderr, *st.Stderr)
		case st.Sleep != "":
			d, err := time.ParseDuration(st.Sleep)
			if err != nil {
				fail(err)
			}
			time.Sleep(d)
		case st.Fail != nil:
			return h.fail(*st.Fail)
		case st.Exit != nil:
			return *st.Exit
		case st.Spawn > 0:
			spawn(st.Spawn, filepath.Join(stateDir, "spawned"))
		case st.Forget:
			h.forget()
		case st.IgnoreTerm:
			signal.Ignore(syscall.SIGTERM)
		case len(st.Read) > 0:
			reads(st.Read, filepath.Join(stateDir, "reads.jsonl"))
		}
	}
	return h.answer("ok", nil)
}

// harness is one dialect's way of saying things.
type harness interface {
	start() (code int, lost bool)
	tool(ToolStep)
	quota(json.RawMessage)
	answer(text string, u *Usage) int
	fail(Fail) int
	forget()
}

// stateDir is where the fake keeps its sessions and records: inside the
// dialect's own config directory (~/.claude, ~/.codex), as the real CLIs
// do, which a contained harness may write.
var stateDir string

// badToken is the run's BadToken.
var badToken bool

func load() Script {
	b, err := os.ReadFile(os.Getenv("FAKE_HARNESS_SCRIPT"))
	if err != nil {
		fail(err)
	}
	var s Script
	if err := json.Unmarshal(b, &s); err != nil || len(s.Runs) == 0 {
		fail(fmt.Errorf("FAKE_HARNESS_SCRIPT: %v (or no runs)", err))
	}
	return s
}

// next returns this invocation's 0-based number in home and counts it.
func next(home string) int {
	p := filepath.Join(home, "count")
	b, _ := os.ReadFile(p)
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err := os.WriteFile(p, []byte(strconv.Itoa(n+1)), 0o600); err != nil {
		fail(err)
	}
	return n
}

func record(home string, c Call) {
	f, err := os.OpenFile(filepath.Join(home, "calls.jsonl"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		fail(err)
	}
	defer f.Close()
	b, _ := json.Marshal(c)
	fmt.Fprintf(f, "%s\n", b)
}

func envNames() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		out = append(out, k)
	}
	return out
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fakeharness:", err)
	os.Exit(70)
}

// emit writes v as one stdout line.
func emit(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fail(err)
	}
	fmt.Printf("%s\n", b)
}

// newID is a session id of the fake's own.
func newID() string {
	return fmt.Sprintf("fake-%d-%d", os.Getpid(), time.Now().UnixNano())
}

// status is the containment lines of /proc/self/status.
func status() []string {
	b, _ := os.ReadFile("/proc/self/status")
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		for _, k := range []string{"CapEff:", "NoNewPrivs:", "Seccomp:"} {
			if strings.HasPrefix(l, k) {
				out = append(out, strings.Join(strings.Fields(l), " "))
			}
		}
	}
	return out
}

// Read is one reads.jsonl line.
type Read struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
	Error string `json:"error,omitempty"`
}

// reads tries each path (a directory is listed) and appends the outcome.
func reads(paths []string, record string) {
	f, err := os.OpenFile(record, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		fail(err)
	}
	defer f.Close()
	for _, p := range paths {
		r := Read{Path: p}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			ents, err := os.ReadDir(p)
			r.Bytes = len(ents)
			if err != nil {
				r.Error = err.Error()
			}
		} else if b, err := os.ReadFile(p); err != nil {
			r.Error = err.Error()
		} else {
			r.Bytes = len(b)
		}
		b, _ := json.Marshal(r)
		fmt.Fprintf(f, "%s\n", b)
	}
}
