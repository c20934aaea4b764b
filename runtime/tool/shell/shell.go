package shell

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// Shell notes (SHELL-3).
const (
	noteHeldOutput = "[shell] processes this command started still hold its output; later output is not shown"
	noteLimit      = "[shell] the command met its limit capabilities.resources."
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
	// Sandbox starts every command (confined, in the session's cgroup); nil
	// starts them unconfined.
	Sandbox *proc.Sandbox

	logSeq atomic.Int64 // logs/shell-<n>.log numbering, from 1
}

func (sh *Shell) now() time.Time {
	if sh.Now != nil {
		return sh.Now()
	}
	return time.Now()
}

// Tool returns the tool for one allowed binary.
func (sh *Shell) Tool(bin string) tool.Tool { return &shellTool{sh: sh, bin: bin} }

type shellTool struct {
	sh  *Shell
	bin string
}

func (t *shellTool) Spec() tool.Spec {
	return tool.Spec{Name: t.bin, Description: "Runs " + t.bin + " in the workdir.", InputSchema: json.RawMessage(shellSchema), Kind: tool.KindShell}
}

// unstartable is SHELL-3's refusal of a command that could not start.
func unstartable(bin, why string) tool.Result {
	return tool.Refusal(bin, proc.Unstartable(bin, why))
}

func (t *shellTool) Call(ctx context.Context, cc *tool.CallContext, input json.RawMessage) tool.Result {
	sh, bin := t.sh, t.bin
	command, ok := tool.StringField(tool.DecodeObject(input), "command")
	if !ok {
		return tool.Needs(bin, "command")
	}
	if sh.Allowed != nil && !sh.Allowed(bin) {
		return tool.Refusal(bin, tool.NotInInventory(bin))
	}
	argv, err := proc.Argv(bin, command)
	if err != nil {
		return unstartable(bin, err.Error())
	}
	path, err := proc.LookPath(argv[0], sh.Env)
	if err != nil {
		return unstartable(bin, err.Error())
	}
	if denied := cc.Gated(ctx, tool.ShellCommand{Binary: bin, Path: path, Argv: argv, Script: script(argv), Command: command}); denied != nil {
		return *denied
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir = sh.Workdir
	cmd.Env = sh.Env
	cmd.SysProcAttr = proc.SysProcAttr()

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
	start, mark := sh.now(), sh.Sandbox.Mark()
	p, err := proc.Start(sh.Sandbox, cmd, out.writer(&out.stdout), out.writer(&out.stderr), sh.now)
	if err != nil {
		if work != nil {
			work.discard()
		}
		return unstartable(bin, proc.StartErrText(err))
	}

	var grace <-chan time.Time
	if work != nil {
		timer := time.NewTimer(*sh.Grace)
		defer timer.Stop()
		grace = timer.C
	}
	select {
	case <-p.Exited():
		// SHELL-3: exited in the foreground; output its children still hold
		// is waited for up to 2 s, then the held-output note.
	case <-grace:
		out.detach()
		sh.Works.adopt(work, p, start)
		return t.detached(cc, command, work)
	case <-ctx.Done():
		// LOOP-16: a cancel kills the foreground command's process group.
		proc.KillGroup(cmd.Process.Pid, syscall.SIGKILL)
	}
	<-p.Done()
	if work != nil {
		work.discard()
	}
	return t.finished(cc, command, start, p, out, sh.Sandbox.LimitsHit(mark, p.Cmd.ProcessState))
}

func (t *shellTool) finished(cc *tool.CallContext, command string, start time.Time, p *proc.Proc, out *output, limits []string) tool.Result {
	out.stdout.close()
	out.stderr.close()
	code := proc.ExitCode(p.Cmd.ProcessState)
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
	if p.Held {
		notes = append(notes, noteHeldOutput)
	}
	for _, l := range limits {
		notes = append(notes, noteLimit+l)
	}
	dur := p.ExitAt.Sub(start).Milliseconds()
	return tool.Result{
		Status:   tool.Passed, // SHELL-1: a non-zero exit is data
		Summary:  fmt.Sprintf("%s: exit %d", t.bin, code),
		Data:     text,
		Notes:    notes,
		ExitCode: &code,
		Shells:   1,
		Records: []tool.Rec{{Record: trace.Shell{Turn: cc.Turn, TaskID: cc.TaskID, Binary: t.bin, Command: command,
			ExitCode: code, StdoutBytes: out.stdout.bytes(), StderrBytes: out.stderr.bytes(), DurationMS: dur, ResourceLimit: first(limits)}}},
	}
}

func (t *shellTool) detached(cc *tool.CallContext, command string, w *Work) tool.Result {
	return tool.Result{
		Status:   tool.Passed,
		Summary:  fmt.Sprintf("%s: moved to the background as %s", t.bin, w.ID),
		Data:     w.Report(t.sh.now(), nil),
		Notes:    []string{noteDetached(w.ID)},
		Shells:   1,
		Detached: []string{w.ID},
		Records: []tool.Rec{{Record: trace.ShellDetached{Turn: cc.Turn, TaskID: cc.TaskID, Binary: t.bin, Command: command,
			WorkID: w.ID, GraceSecs: int64(*t.sh.Grace / time.Second)}}},
	}
}

// script is the body after a -c flag in argv (sh -c, bash -c, …), nil when
// there is none.
func script(argv []string) *string {
	for i := 1; i+1 < len(argv); i++ {
		if argv[i] == "-c" {
			return &argv[i+1]
		}
	}
	return nil
}

// spill opens the next logs/shell-<n>.log for a foreground stream over 16 KiB.
func (sh *Shell) spill() (*os.File, error) {
	n := sh.logSeq.Add(1)
	return os.OpenFile(filepath.Join(sh.LogsDir, fmt.Sprintf("shell-%d.log", n)), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
}

// NewWorkID mints a background command's id (SHELL-2).
func NewWorkID() string { return a2a.NewID(a2a.PrefixWork) }

// first is the first of names, "" when none.
func first(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return names[0]
}
