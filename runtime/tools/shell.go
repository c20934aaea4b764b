package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/trace"
)

// heldOutputWait is how long output held by a command's children is waited
// for after the command exits (SHELL-3).
const heldOutputWait = 2 * time.Second

// Shell notes (SHELL-3).
const (
	noteHeldOutput = "[shell] processes this command started still hold its output; later output is not shown"
)

// noteDetached is the note of a command moved to the background (SHELL-3).
func noteDetached(workID string) string {
	return "[shell] " + workID + " runs in the background; check on it, wait for it or stop it with background-command."
}

// shellSchema is every shell tool's input schema (SHELL-3).
const shellSchema = `{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`

// Shell runs one session's shell binary tools (SHELL-1..3, LOOP-11). Its
// fields are set once before the first call.
type Shell struct {
	Workdir string   // the accessible workdir: every command's cwd
	Env     []string // SES-10's subprocess environment
	LogsDir string   // the records directory's logs/
	// Allowed re-checks a binary against capabilities.shell.allow at dispatch (TOOL-2).
	Allowed func(bin string) bool
	// Grace is lifecycle.shell_grace_secs; nil: nothing moves to the background.
	Grace *time.Duration
	// Works holds background commands; required when Grace is set.
	Works *Works
	Now   func() time.Time

	logSeq atomic.Int64 // logs/shell-<n>.log numbering, from 1
}

func (sh *Shell) now() time.Time {
	if sh.Now != nil {
		return sh.Now()
	}
	return time.Now()
}

// Tool returns the tool for one allowed binary.
func (sh *Shell) Tool(bin string) Tool { return &shellTool{sh: sh, bin: bin} }

type shellTool struct {
	sh  *Shell
	bin string
}

func (t *shellTool) Spec() Spec {
	return Spec{Name: t.bin, Description: "Runs " + t.bin + " in the workdir.", InputSchema: json.RawMessage(shellSchema), Kind: KindShell}
}

// unstartable is SHELL-3's refusal of a command that could not start.
func unstartable(bin, why string) Result {
	return Refusal(bin, fmt.Sprintf("'%s' could not be started: %s", bin, why))
}

func (t *shellTool) Call(ctx context.Context, cc *CallContext, input json.RawMessage) Result {
	sh, bin := t.sh, t.bin
	raw, ok := decodeObject(input)["command"]
	command, isStr := rawString(raw)
	if !ok || !isStr {
		return needs(bin, "command")
	}
	if sh.Allowed != nil && !sh.Allowed(bin) {
		return Refusal(bin, NotInInventory(bin))
	}
	argv, err := Argv(bin, command)
	if err != nil {
		return unstartable(bin, err.Error())
	}
	path, err := lookPath(argv[0], sh.Env)
	if err != nil {
		return unstartable(bin, err.Error())
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir = sh.Workdir
	cmd.Env = sh.Env
	cmd.SysProcAttr = ChildProcAttr()

	out := &output{}
	out.stdout.spill = sh.spill
	out.stderr.spill = sh.spill
	var work *Work
	if sh.Grace != nil && sh.Works != nil {
		work, err = sh.Works.prepare(sh.LogsDir, bin, command)
		if err != nil {
			return unstartable(bin, err.Error())
		}
		out.combined = work
	}
	start := sh.now()
	p, err := startProc(cmd, out.writer(&out.stdout), out.writer(&out.stderr), sh.now)
	if err != nil {
		if work != nil {
			work.discard()
		}
		return unstartable(bin, startErrText(err))
	}

	var grace <-chan time.Time
	if work != nil {
		timer := time.NewTimer(*sh.Grace)
		defer timer.Stop()
		grace = timer.C
	}
	select {
	case <-p.exited:
		// SHELL-3: exited in the foreground; output its children still hold
		// is waited for up to 2 s, then the held-output note.
	case <-grace:
		out.detach()
		sh.Works.adopt(work, p, start)
		return t.detached(cc, command, work)
	case <-ctx.Done():
		// LOOP-16: a cancel kills the foreground command's process group.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	<-p.done
	if work != nil {
		work.discard()
	}
	return t.finished(cc, command, start, p, out)
}

func (t *shellTool) finished(cc *CallContext, command string, start time.Time, p *proc, out *output) Result {
	out.stdout.close()
	out.stderr.close()
	code := exitCode(p.cmd.ProcessState)
	text := strings.Join([]string{
		"$ " + command,
		fmt.Sprintf("Exit code: %d", code),
		"Stdout:",
		out.stdout.text(),
		"",
		"Stderr:",
		out.stderr.text(),
	}, "\n")
	var notes []string
	if p.held {
		notes = append(notes, noteHeldOutput)
	}
	dur := p.exitAt.Sub(start).Milliseconds()
	return Result{
		Status:   Passed, // SHELL-1: a non-zero exit is data
		Summary:  fmt.Sprintf("%s: exit %d", t.bin, code),
		Data:     text,
		Notes:    notes,
		ExitCode: &code,
		Records: []Rec{{Record: trace.Shell{Turn: cc.Turn, TaskID: cc.TaskID, Binary: t.bin, Command: command,
			ExitCode: code, StdoutBytes: out.stdout.bytes(), StderrBytes: out.stderr.bytes(), DurationMS: dur}}},
	}
}

func (t *shellTool) detached(cc *CallContext, command string, w *Work) Result {
	return Result{
		Status:  Passed,
		Summary: fmt.Sprintf("%s: moved to the background as %s", t.bin, w.ID),
		Data:    w.Report(t.sh.now(), nil),
		Notes:   []string{noteDetached(w.ID)},
		Records: []Rec{{Record: trace.ShellDetached{Turn: cc.Turn, TaskID: cc.TaskID, Binary: t.bin, Command: command,
			WorkID: w.ID, GraceSecs: int64(*t.sh.Grace / time.Second)}}},
	}
}

// spill opens the next logs/shell-<n>.log for a foreground stream over 16 KiB.
func (sh *Shell) spill() (*os.File, error) {
	n := sh.logSeq.Add(1)
	return os.OpenFile(filepath.Join(sh.LogsDir, fmt.Sprintf("shell-%d.log", n)), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
}

// exitCode is a finished process's code: 128 + signal when a signal killed it.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// LookPath finds bin on the PATH of env (a subprocess environment), not the
// runtime's own; the error's text is SHELL-3's <why>.
func LookPath(bin string, env []string) (string, error) { return lookPath(bin, env) }

func lookPath(bin string, env []string) (string, error) {
	if strings.Contains(bin, "/") {
		return "", fmt.Errorf("%s names a path, not a binary on PATH", bin)
	}
	pathVar := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar = v
		}
	}
	for _, dir := range filepath.SplitList(pathVar) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, bin)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s was not found on PATH", bin)
}

func startErrText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// NewWorkID mints a background command's id (SHELL-2).
func NewWorkID() string { return a2a.NewID(a2a.PrefixWork) }
