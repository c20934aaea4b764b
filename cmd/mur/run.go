package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/murmur-go/mur/capsule"
	"github.com/murmur-go/mur/door"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/session"
	"github.com/murmur-go/mur/runtime/traceview"
)

// cmdRun is `mur run` (capsule.md CLI-1..5); `--roster` hands over to the
// formation launcher (run_roster.go).
var cmdRun = &command{
	name:    "run",
	summary: "run a capsule (--capsule, --manifest) or a formation (--roster)",
	run:     runRun,
}

const runUsage = `Usage: mur run [--manifest <path> | --capsule <dir> | --capsule <name> --capsule-version <version>] [flags]
       mur run --roster <dir> [flags]

Runs one capsule as a session: its door serves A2A at http://127.0.0.1:<port>
and the launch task (--task, or task.md/input.txt under task_acceptance none)
runs first. Without --json it prints the door, the session id, each task's
result and, last, "status:  <exit status>".

mur run --roster <dir> launches the formation <dir>/roster.yaml declares
instead; mur run --roster --help lists its flags.`

// laterRunFlags are parsed-but-unbuilt flags (CLI-2: LATER).
var laterRunFlags = []string{}

// runFlags are mur run's flags once read.
type runFlags struct {
	manifest, capsule, capsuleVersion, capsuleSHA, storeRoot string
	task, workdir, bind, acceptance, afterTask               string
	deadline, inherited, systemPrompt                        string
	contextID, resume, resumeMode, containment               string
	port, maxConns                                           int
	jsonOut, verbose, noEnvFile, strict, explainScope        bool
	set                                                      map[string]bool
}

func runRun(ctx context.Context, env *Env, args []string) int {
	for _, a := range args {
		if a == "--roster" || strings.HasPrefix(a, "--roster=") || a == "-roster" {
			return runRoster(ctx, env, args)
		}
	}
	f, code, done := parseRunFlags(env, args)
	if done {
		return code
	}
	opts, err := f.options(env)
	if err != nil {
		return fail(env, "run", err)
	}
	if f.explainScope {
		return explainScope(env, f, opts)
	}
	return runCapsule(env, f, opts)
}

func parseRunFlags(env *Env, args []string) (*runFlags, int, bool) {
	f := &runFlags{set: map[string]bool{}}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.StringVar(&f.manifest, "manifest", "", "the `path` of the capsule's murmur.yaml (default ./murmur.yaml)")
	fs.StringVar(&f.capsule, "capsule", "", "run the capsule at `dir-or-name`: its directory, or with --capsule-version an installed capsule's name")
	fs.StringVar(&f.capsuleVersion, "capsule-version", "", "the installed capsule's exact `version` (store form)")
	fs.StringVar(&f.task, "task", "", "the launch task's `path-or-text`: a file to read, or the text itself")
	fs.BoolVar(&f.jsonOut, "json", false, "print only the readiness line (one JSON object) on stdout")
	fs.BoolVar(&f.verbose, "verbose", false, "also print the workdir, records directory, manifest and driver")
	fs.BoolVar(&f.verbose, "v", false, "same as --verbose")
	fs.StringVar(&f.workdir, "workdir", "", "the accessible workdir `dir` (default: the manifest's directory)")
	fs.StringVar(&f.bind, "bind", "127.0.0.1", "bind the door to `addr`: an IP literal or localhost")
	fs.IntVar(&f.port, "port", 0, "the door's `port` (overrides network.internal_port; 0 = any)")
	fs.IntVar(&f.maxConns, "max-connections", door.DefaultMaxConnections, fmt.Sprintf("cap the door at `n` connections open at once; past it a request is answered 503 with Retry-After (default %d)", door.DefaultMaxConnections))
	fs.StringVar(&f.acceptance, "lifecycle-task-acceptance", "", "the task acceptance `mode`: none, single or queue")
	fs.StringVar(&f.afterTask, "lifecycle-after-task", "", "the `action` after a task: exit or sleep")
	fs.StringVar(&f.deadline, "deadline", "", "end the session at `when`: an RFC 3339 time, or a duration from now")
	fs.StringVar(&f.systemPrompt, "system-prompt", "", "replace every system prompt source with `text` (empty clears)")
	fs.BoolVar(&f.noEnvFile, "no-env-file", false, "do not load .env")
	fs.BoolVar(&f.strict, "strict", false, "refuse to launch when there is any warning")
	fs.StringVar(&f.capsuleSHA, "capsule-sha256", "", "(hidden) the sha256 admission bound")
	fs.StringVar(&f.storeRoot, "store-root", "", "(hidden) the project directory whose store serves the capsule")
	fs.StringVar(&f.inherited, "inherited-deadline", "", "(hidden) an inherited deadline in Unix ms")
	fs.StringVar(&f.contextID, "context", "", "run the launch task in this A2A `context`, continuing its conversation record")
	fs.StringVar(&f.resume, "resume", "", "continue the conversation of a `session` (an id, a suffix, @n or a path; alone: @1)")
	fs.StringVar(&f.resumeMode, "resume-mode", session.ResumeFull, "the `mode` --resume loads the conversation in: full or compact")
	fs.StringVar(&f.containment, "containment", "", "raise the tool processes' containment floor to `class`: advisory, scoped or sealed; it makes the manifest's capabilities.containment stricter, never looser")
	fs.BoolVar(&f.explainScope, "explain-scope", false, "print the containment and what a tool process could read, write, execute and connect to (--json: as JSON), and exit without starting anything")
	for _, name := range laterRunFlags {
		fs.Bool(name, false, "(hidden) not supported by this build")
	}
	rest, code, done := parseFlags(env, "run", runUsage, fs, resumeArgs(args))
	if done {
		return nil, code, true
	}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	for _, name := range laterRunFlags {
		if f.set[name] {
			return nil, usageError(env, "run", "--"+name+" is not supported by this build"), true
		}
	}
	if len(rest) > 0 {
		return nil, usageError(env, "run", fmt.Sprintf("unexpected argument '%s'", rest[0])), true
	}
	if f.set["resume"] && f.set["context"] { // refused before the address is resolved
		fmt.Fprint(env.Stderr, diag.RunResumeAndContext().Render())
		return nil, 1, true
	}
	switch {
	case f.set["context"] && f.contextID == "":
		return nil, usageError(env, "run", "--context needs a context id"), true
	case f.set["resume-mode"] && !f.set["resume"]:
		return nil, usageError(env, "run", "--resume-mode needs --resume"), true
	case f.resumeMode != session.ResumeFull && f.resumeMode != session.ResumeCompact:
		return nil, usageError(env, "run", fmt.Sprintf("--resume-mode '%s' is not one of full, compact", f.resumeMode)), true
	}
	return f, 0, false
}

// resumeArgs gives a bare --resume its default, @1, and the session address
// that follows it as its value, so --resume takes an optional value.
func resumeArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a != "--resume" && a != "-resume" {
			out = append(out, a)
			continue
		}
		if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			out = append(out, "--resume="+args[i+1])
			i++
			continue
		}
		out = append(out, "--resume=@1")
	}
	return out
}

// resumeLaunch applies --context and --resume to the prepared launch: the
// session --resume names is looked for as mur trace show looks (CLI-9),
// @N among the capsule workdir's sessions.
func resumeLaunch(env *Env, f *runFlags, l *session.Launch) error {
	if f.set["context"] {
		return l.Continue(f.contextID)
	}
	if !f.set["resume"] {
		return nil
	}
	workdir := ""
	if strings.HasPrefix(f.resume, "@") {
		workdir = l.Workdir
	}
	path, err := tracePath(env, workdir, f.resume)
	if err != nil {
		return err
	}
	return l.Resume(path, f.resumeMode)
}

// options checks the flag mix (CLI-1, CLI-2) and builds the session options.
func (f *runFlags) options(env *Env) (session.Options, error) {
	var o session.Options
	switch {
	case f.set["capsule-version"] && !f.set["capsule"]:
		return o, usagef("--capsule-version needs --capsule <name>")
	case f.set["capsule"] && f.set["manifest"]:
		return o, usagef("--capsule and --manifest cannot be used together")
	case f.set["capsule"] && f.capsule == "":
		return o, usagef("--capsule needs a directory or a name")
	}
	if f.maxConns < 1 {
		return o, usagef("--max-connections must be 1 or more, not %d", f.maxConns)
	}
	if f.port < 0 || f.port > 65535 {
		return o, usagef("--port %d is not a port number", f.port)
	}
	if f.bind != "localhost" && net.ParseIP(f.bind) == nil {
		return o, usagef("--bind '%s' is neither an IP literal nor localhost", f.bind)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return o, err
	}
	if f.set["containment"] && proc.Rank(f.containment) < 0 {
		return o, diag.ManOverrideNotOneOf("containment", f.containment, proc.Advisory, proc.Scoped, proc.Sealed)
	}
	o = session.Options{Workdir: f.workdir, Acceptance: f.acceptance, AfterTask: f.afterTask, Containment: f.containment,
		CapsuleSHA256: f.capsuleSHA, StoreRoot: f.storeRoot, NoEnvFile: f.noEnvFile,
		Getenv: env.Getenv, Cwd: cwd, Version: version}
	switch {
	case f.set["capsule-version"]:
		if err := checkStoreRef(f.capsule, f.capsuleVersion); err != nil {
			return o, err
		}
		o.StoreName, o.StoreVersion = f.capsule, f.capsuleVersion
	case f.set["capsule"]:
		o.ManifestPath = strings.TrimSuffix(f.capsule, "/") + "/murmur.yaml"
	case f.set["manifest"]:
		o.ManifestPath = f.manifest
	default:
		o.ManifestPath = "murmur.yaml"
	}
	if f.set["task"] {
		t := f.task
		o.Task = &t
	}
	if f.set["system-prompt"] {
		p := f.systemPrompt
		o.SystemPrompt = &p
	}
	now := time.Now()
	if f.set["deadline"] {
		d, err := parseDeadline(f.deadline, now)
		if err != nil {
			return o, err
		}
		o.Deadline = &d
	}
	if f.set["inherited-deadline"] {
		ms, err := strconv.ParseInt(f.inherited, 10, 64)
		if err != nil {
			return o, usagef("--inherited-deadline '%s' is not a Unix time in milliseconds", f.inherited)
		}
		if d := time.UnixMilli(ms); o.Deadline == nil || d.Before(*o.Deadline) {
			o.Deadline = &d // SES-7: the earliest wins
		}
	}
	return o, nil
}

// manifestMissing gives E-IO-001 for the capsule's own murmur.yaml (path)
// a hint that says what to run instead: --roster when its directory holds
// a roster.yaml, else mur new or --capsule. Other errors, and a directory
// that does not exist either, pass unchanged.
func manifestMissing(path string, err error) error {
	d, ok := diag.As(err)
	if path == "" || !ok || d.Code != diag.EIO001 || d.Msg != path+": no such file or directory" {
		return err
	}
	dir := filepath.Dir(path)
	if !isDir(dir) {
		return err
	}
	if fi, serr := os.Stat(filepath.Join(dir, "roster.yaml")); serr == nil && fi.Mode().IsRegular() {
		return diag.IONoManifest(path, dir).WithErr(d.Err)
	}
	return diag.IONoManifest(path, "").WithErr(d.Err)
}

// runCapsule runs one session: MAN-4, the listener, capsule.Serve and the
// exit code (CLI-3..5). A signal only cancels Serve's context (SES-8).
func runCapsule(env *Env, f *runFlags, opts session.Options) int {
	// CLI-4: a closed stream never stops the session. Notify, not Ignore: an
	// ignored SIGPIPE would be inherited by every shell command, so `yes |
	// head -1` would end in an EPIPE error instead of quietly.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, abort, stopSignals := runSignals()
	defer stopSignals()

	// Orphans of the session's tool processes (setsid'd, double forked) come
	// back to this process, and the session's end stops them.
	reaper, _ := proc.Subreap() // an error: not Linux, nothing to adopt them
	defer reaper.Close()

	l, err := session.PrepareContext(ctx, opts)
	if sig, ok := signalOf(context.Cause(ctx)); ok { // a signal while it prepared
		if l != nil {
			l.Close()
		}
		return 128 + int(sig) // nothing was made yet (MAN-4)
	}
	if err != nil {
		return fail(env, "run", manifestMissing(opts.ManifestPath, err))
	}
	cfg := capsule.Config{Bind: f.bind, Stdout: env.Stdout, Stderr: env.Stderr, JSON: f.jsonOut, Verbose: f.verbose,
		MaxConnections: f.maxConns, OwnsDescendants: true, Exit: os.Exit, Abort: abort}
	if env.StderrTerminal {
		status := newLiveStatus(env.Stderr)
		cfg.Stderr, cfg.Progress = status, status
		defer status.ModelAnswered()
	}
	// refuse reports a fault found before Serve, after the launch's warnings.
	refuse := func(err error) int {
		for _, w := range l.Warnings {
			fmt.Fprint(cfg.Stderr, w.Render())
		}
		l.Close()
		return fail(env, "run", err)
	}
	if err := resumeLaunch(env, f, l); err != nil {
		return refuse(err)
	}
	port := f.port
	if !f.set["port"] {
		port = l.Manifest.Network.InternalPort
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(f.bind, strconv.Itoa(port)))
	if err != nil {
		return refuse(diag.RunBind(f.bind, port, bindErrText(err)))
	}
	if f.strict {
		// The open door's warning is Serve's to print; --strict counts it
		// and prints it here, as Serve never runs.
		if !capsule.IsLoopback(f.bind) && l.Manifest.Network.Authentication == nil {
			l.Warnings = append(l.Warnings, diag.SecOpenDoor(f.bind))
		}
		if len(l.Warnings) > 0 {
			ln.Close()
			return refuse(diag.RunStrict(len(l.Warnings), "--strict"))
		}
	}
	if cfg.Home, err = murhome.Home(env.Getenv); err != nil {
		ln.Close()
		return refuse(err)
	}
	res, err := capsule.Serve(ctx, l, ln, cfg)
	if err != nil {
		return fail(env, "run", err)
	}
	if !f.jsonOut {
		fmt.Fprintf(cfg.Stdout, "status:  %s\n", res.ExitStatus)
	}
	// An answer that stands on calls that did not complete says so last,
	// whatever the status, so it never passes for a whole success.
	for _, mc := range res.FailedCalls {
		fmt.Fprint(cfg.Stderr, diag.RunCallNotCompleted(mc.Member, mc.CallID, mc.Status, traceview.Cut(mc.Output)).Render())
	}
	if res.ExitStatus == session.StatusOK {
		// A run with warnings says last that its answer came despite them;
		// a formation's entry leaves that to its launcher, which knows all
		// the members' warnings.
		if len(l.Warnings) > 0 && env.Getenv("MURMUR_FORMATION_ID") == "" {
			codes := make([]diag.Code, len(l.Warnings))
			for i, w := range l.Warnings {
				codes[i] = w.Code
			}
			fmt.Fprint(cfg.Stderr, diag.RunDespite("this answer", codes).Render())
		}
		return 0
	}
	fmt.Fprint(cfg.Stderr, diag.RunTaskEnded(res.ExitStatus, session.BareReason(res.Text), traceShowCommand(res.SessionID, res.Workdir), res.RecordsDir).Render())
	return 1
}

// runSignals turns mur run's signals into a context (SES-8): the first
// SIGINT, SIGTERM or SIGHUP cancels ctx with the signal as its cause (read it
// with signalOf), the second closes abort. stop ends the watch and waits for
// it.
func runSignals() (ctx context.Context, abort <-chan struct{}, stop func()) {
	sigs := make(chan os.Signal, 2) // buffered: the first and second signal
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	ctx, cancel := context.WithCancelCause(context.Background())
	aborted := make(chan struct{})
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case s := <-sigs:
			cancel(signalCause{s.(syscall.Signal)})
		case <-quit:
			return
		}
		select {
		case <-sigs:
			close(aborted)
		case <-quit:
		}
	})
	return ctx, aborted, func() {
		signal.Stop(sigs)
		close(quit)
		wg.Wait()
		cancel(nil)
	}
}

// signalCause is the cause of runSignals' context: the signal that ended it.
type signalCause struct{ sig syscall.Signal }

func (s signalCause) Error() string { return "mur run was interrupted by " + s.sig.String() }

// signalOf reports the signal an error carries from runSignals' context.
func signalOf(err error) (syscall.Signal, bool) {
	var sc signalCause
	if errors.As(err, &sc) {
		return sc.sig, true
	}
	return 0, false
}

// traceShowCommand is the `mur trace show` command that finds session ses,
// of workdir, from the current directory (E-RUN-040's hint): --workdir
// only when the current directory is another, relative when below it.
func traceShowCommand(ses, workdir string) string {
	cmd := "mur trace show " + ses
	wd, err := murhome.Workdir(workdir)
	if err != nil {
		return cmd + " --workdir " + diag.ShellWord(workdir)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return cmd + " --workdir " + diag.ShellWord(wd)
	}
	here, err := murhome.Workdir(cwd)
	switch rel, relErr := filepath.Rel(here, wd); {
	case err != nil:
		return cmd + " --workdir " + diag.ShellWord(wd)
	case here == wd:
		return cmd
	case relErr == nil && !strings.HasPrefix(rel, ".."):
		return cmd + " --workdir " + diag.ShellWord(rel)
	}
	return cmd + " --workdir " + diag.ShellWord(wd)
}

// bindErrText is the OS error of a failed listen, without the operation.
func bindErrText(err error) string {
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err.Error()
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err.Error()
	}
	return err.Error()
}

// checkStoreRef checks the store form's --capsule <name> --capsule-version
// <v> where they are read (STORE-3): both name a directory in a store, so a
// path never passes. E-BLD-001 for the name, E-REG-004 for a reserved
// version, a usage error for anything else that is not a version.
func checkStoreRef(name, version string) error {
	if p := manifest.NameProblem(name); p != "" {
		return diag.BldName(name, p)
	}
	if manifest.IsReservedVersion(version) {
		return diag.RegReservedVersion(version)
	}
	if p := manifest.VersionProblem(version); p != "" {
		return usagef("--capsule-version '%s' is not a version: %s", version, p)
	}
	return nil
}
