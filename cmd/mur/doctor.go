package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/murmur-go/mur/capsule"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/driver/scripted"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/store"
)

// cmdDoctor is `mur doctor` (capsule.md CLI-14, formations.md DOC-1).
var cmdDoctor = &command{
	name:    "doctor",
	summary: "check the project (murmur.yaml) or formation (roster.yaml) here",
	run:     runDoctor,
}

const doctorUsage = `Usage: mur doctor [--bind <addr>] [--strict] [--json]

Checks the project at or above the current directory without launching or
writing anything: its murmur.yaml, each declared artifact against
murmur.lock and the stores, each inference choice's credential, and whether
the door could bind. In a directory holding roster.yaml and no murmur.yaml it
checks the roster instead. Exits 1 when any check fails, and with --strict
(or a roster.yaml holding strict: true) also when there is any warning, as
mur run --strict refuses to launch then. --json prints the report as one
JSON document instead (docs/json.md).`

func runDoctor(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	bind := fs.String("bind", "127.0.0.1", "the `addr` the door would bind: an IP literal or localhost")
	jsonOut := fs.Bool("json", false, "print the report as one JSON document (docs/json.md)")
	strict := fs.Bool("strict", false, "exit 1 when there is any warning too")
	rest, code, done := parseFlags(env, "doctor", doctorUsage, fs, args)
	if done {
		return code
	}
	if len(rest) > 0 {
		return usageError(env, "doctor", fmt.Sprintf("unexpected argument '%s'", rest[0]))
	}
	if *bind != "localhost" && net.ParseIP(*bind) == nil {
		return usageError(env, "doctor", fmt.Sprintf("invalid value '%s' for --bind: give an IP literal or localhost", *bind))
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fail(env, "doctor", err)
	}
	out := env.out()
	if *jsonOut {
		out = io.Discard // the text is not printed; the report is collected
	}
	// DOC-1: a formation directory checks only its roster.
	if doctorIsFile(filepath.Join(cwd, "roster.yaml")) && !doctorIsFile(filepath.Join(cwd, manifest.FileName)) {
		code, doc, rosterStrict := doctorFormationDir(ctx, env, out, cwd)
		return doctorDone(env, out, *jsonOut, *strict || rosterStrict, code, doc)
	}
	project, ok := nearestManifestDir(cwd)
	if !ok {
		return fail(env, "doctor", diag.IONotFound(filepath.Join(cwd, manifest.FileName)))
	}
	home, err := murhome.Home(env.Getenv)
	if err != nil {
		return fail(env, "doctor", err)
	}
	r := &doctorReport{w: out, doc: doctorJSON{Project: project, Checks: []doctorCheck{}}}
	if doctorIsFile(filepath.Join(project, "roster.yaml")) {
		r.roster = doctorRosterBlock(ctx, env, out, project, *jsonOut)
		r.doc.Roster = &r.roster.doc
		fmt.Fprintln(out)
	}
	r.checkProject(env, cwd, project, store.Stores{ProjectDir: project, Home: home}, *bind)
	return doctorDone(env, out, *jsonOut, *strict || r.roster.strict, r.finish(), r.doc)
}

// doctorDone prints the JSON report under --json and returns code; under
// strict, a report with warnings and no error says so and exits 1.
func doctorDone(env *Env, out io.Writer, jsonOut, strict bool, code int, doc doctorJSON) int {
	if strict && code == 0 && doc.Warned > 0 {
		fmt.Fprintf(out, "\nStrict: %s count as errors, as mur run --strict would refuse this launch.\n", doctorCount(doc.Warned, "warning"))
		code = 1
	}
	if jsonOut {
		if err := writeJSON(env.Stdout, doc); err != nil {
			return fail(env, "doctor", err)
		}
	}
	return code
}

// doctorJSON is `mur doctor --json` (docs/json.md): what the text report
// says, in its order. Project is "" in a formation directory.
type doctorJSON struct {
	Project  string        `json:"project"`
	Roster   *rosterJSON   `json:"roster"`
	Checks   []doctorCheck `json:"checks"`
	Warnings []diagJSON    `json:"warnings"`
	Passed   int           `json:"passed"`
	Errors   int           `json:"errors"`
	Warned   int           `json:"warning_count"`
	Fixes    []string      `json:"fixes"`
}

// doctorCheck is one line of the checklist: its text after ✓ or ✗, and for
// a failed check what failed (a credential unset on an alternate is a
// warning, not an error).
type doctorCheck struct {
	Check   string    `json:"check"`
	Status  string    `json:"status"` // ok | error | warning
	Message string    `json:"message,omitempty"`
	Code    diag.Code `json:"code,omitempty"`
	Hint    string    `json:"hint,omitempty"`
}

func doctorIsFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// nearestManifestDir is CLI-14's project: the nearest directory at or above
// cwd holding murmur.yaml.
func nearestManifestDir(cwd string) (string, bool) {
	for dir := cwd; ; dir = filepath.Dir(dir) {
		if doctorIsFile(filepath.Join(dir, manifest.FileName)) {
			return dir, true
		}
		if filepath.Dir(dir) == dir {
			return "", false
		}
	}
}

// doctorReport accumulates CLI-14's checklist, warnings and tally, and the
// same as doc for --json.
type doctorReport struct {
	w            io.Writer
	passed, errs int
	errFixes     []string
	warnings     []*diag.Diagnostic
	roster       rosterResult
	doc          doctorJSON
}

func (r *doctorReport) pass(check string) {
	fmt.Fprintf(r.w, "✓ %s\n", check)
	r.passed++
	r.doc.Checks = append(r.doc.Checks, doctorCheck{Check: check, Status: "ok"})
}

// fail writes a failed check; it counts as an error unless warning is set.
func (r *doctorReport) fail(check string, err error, warning bool) {
	// A message that starts with the path the check names says it once:
	// "✗ manifest <path>:3:5: …", not "✗ manifest <path>: <path>:3:5: …".
	text := check + ": " + err.Error()
	if word, path, ok := strings.Cut(check, " "); ok && strings.HasPrefix(err.Error(), path+":") {
		text = word + " " + err.Error()
	}
	fmt.Fprintf(r.w, "✗ %s\n", text)
	c := doctorCheck{Check: check, Status: "error", Message: err.Error()}
	d, ok := diag.As(err)
	if ok {
		c.Code, c.Hint = d.Code, d.Hint
	}
	if warning {
		c.Status = "warning"
	}
	r.doc.Checks = append(r.doc.Checks, c)
	if warning {
		return
	}
	r.errs++
	if ok && d.Hint != "" {
		r.errFixes = append(r.errFixes, d.Hint)
	}
}

// checkProject runs CLI-14's checks in order; a manifest failure ends them.
func (r *doctorReport) checkProject(env *Env, cwd, project string, ss store.Stores, bind string) {
	path := filepath.Join(project, manifest.FileName)
	check := "manifest " + path
	dotenv, err := manifest.LoadDotEnv(project, cwd, env.Getenv)
	if err != nil {
		r.fail(check, err, false)
		return
	}
	m, warnings, err := manifest.Load(path, dotenv.Getenv)
	r.warnings = append(r.warnings, warnings...)
	if err == nil {
		err = checkPromptAndScripts(m)
	}
	if err != nil {
		r.fail(check, err, false)
		return
	}
	r.pass(check)

	lock, lockErr := store.ReadLock(project)
	for _, a := range m.Artifacts {
		check := fmt.Sprintf("artifact %s@%s", a.Ref, a.Version)
		if a.Builtin() { // INP-1: answered by the runtime, never looked up
			r.pass(check + " (built in)")
			continue
		}
		if lockErr != nil {
			r.fail(check, lockErr, false)
			continue
		}
		res, err := ss.CheckArtifact(lock, a)
		if err != nil {
			r.fail(check, err, false)
			continue
		}
		if a.Runtime == "hook" { // its contract, checked again as staging does
			am, err := store.ReadArtifact(res.TreeDir)
			if err != nil {
				r.fail(check, err, false)
				continue
			}
			if am.Hook == nil {
				r.fail(check, fmt.Errorf("declared runtime: hook, but the installed artifact is a %s", am.Kind()), false)
				continue
			}
			binding := am.Hook.Binding
			if binding == "" {
				binding = "every event"
			}
			r.pass(fmt.Sprintf("%s (%s store; hook: %s, %s, commit_policy %s)", check, res.Scope, binding, am.Hook.ExecutionMode, am.Hook.CommitPolicy))
			continue
		}
		r.pass(fmt.Sprintf("%s (%s store)", check, res.Scope))
	}

	for _, c := range m.Inference.Choices() {
		check := "credential " + c.Name
		switch {
		case c.Kind == manifest.KindScripted:
			r.pass(check + " (none)")
		case c.Keyless:
			r.pass(check + " (keyless)")
		case c.Available:
			r.pass(fmt.Sprintf("%s (%s)", check, c.APIKeyEnv))
		default: // an alternate: W-RUN-003 is among the warnings
			r.fail(check, fmt.Errorf("%s is not set", c.APIKeyEnv), true)
		}
	}

	r.checkContainment(path, m.Capabilities.Containment)
	r.checkDoor(bind, m.Network.InternalPort)

	if d := m.MurVersionWarning(version); d != nil {
		r.warnings = append(r.warnings, d)
	}
	if d := m.Lifecycle.GraceWarning(); d != nil {
		r.warnings = append(r.warnings, d)
	}
	if !capsule.IsLoopback(bind) && m.Network.Authentication == nil {
		r.warnings = append(r.warnings, diag.SecOpenDoor(bind))
	}
}

// checkContainment reports the class the capsule's tool processes would run
// under: scoped where the kernel offers Landlock, unless the manifest asks
// for advisory or sealed; scoped or sealed asked of a kernel without it is
// E-CAP-003, as mur run refuses it.
func (r *doctorReport) checkContainment(file, declared string) {
	abi, err := proc.LandlockABI()
	switch {
	case declared == proc.Advisory:
		r.pass("containment advisory (declared)")
	case declared == proc.Sealed && err == nil:
		// The namespaces and the composed root are tried at launch (and by
		// mur run --explain-scope), not here.
		r.pass(fmt.Sprintf("containment sealed (Landlock ABI %d; mur run --explain-scope rehearses the rest)", abi))
	case declared == proc.Sealed:
		r.fail("containment sealed", diag.CapSealed(file+": capabilities.containment", err.Error()), false)
	case err == nil:
		r.pass(fmt.Sprintf("containment scoped (Landlock ABI %d)", abi))
	case declared == proc.Scoped:
		r.fail("containment scoped", diag.CapContainment(file, err.Error()), false)
	default:
		r.pass(fmt.Sprintf("containment advisory (no Landlock: %v)", err))
	}
}

// checkPromptAndScripts is MAN-4 step (9): the system prompt file and each
// scripted choice's script (E-RUN-009, E-MAN-003).
func checkPromptAndScripts(m *manifest.Manifest) error {
	if p := m.SystemPromptPath(); p != "" {
		if _, err := os.ReadFile(p); err != nil {
			return diag.RunUnreadable(p, doctorErrText(err)).WithErr(err)
		}
	}
	for _, c := range m.Inference.Choices() {
		if c.Kind != manifest.KindScripted {
			continue
		}
		if _, err := scripted.Load(m.ScriptPath(c)); err != nil {
			return err
		}
	}
	return nil
}

// checkDoor tries the bind the door would make (E-RUN-010), then releases it.
func (r *doctorReport) checkDoor(addr string, port int) {
	where := "any port"
	if port != 0 {
		where = strconv.Itoa(port)
	}
	check := fmt.Sprintf("door %s:%s", addr, where)
	ln, err := net.Listen("tcp", net.JoinHostPort(addr, strconv.Itoa(port)))
	if err != nil {
		r.fail(check, diag.RunBind(addr, port, doctorErrText(err)), false)
		return
	}
	ln.Close()
	r.pass(check)
}

// doctorErrText is an error's OS text, without the operation and path prefixes.
func doctorErrText(err error) string {
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err.Error()
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// warningOrder is the order CLI-14 lists warning codes in.
var warningOrder = map[diag.Code]int{diag.WSEC019: 0, diag.WSEC022: 1, diag.WSEC032: 2, diag.WRUN003: 3}

// finish prints the warnings, the tally and the Fix: lines, and returns the
// exit code (1 when any error was found).
func (r *doctorReport) finish() int {
	sort.SliceStable(r.warnings, func(i, j int) bool {
		return warningOrder[r.warnings[i].Code] < warningOrder[r.warnings[j].Code]
	})
	for _, d := range r.warnings {
		fmt.Fprint(r.w, d.Render())
	}
	errs := r.errs + r.roster.errs
	warns := len(r.warnings) + r.roster.warns
	fixes := append(append([]string{}, r.roster.errFixes...), r.errFixes...)
	fixes = append(fixes, r.roster.warnFixes...)
	for _, d := range r.warnings {
		if d.Hint != "" {
			fixes = append(fixes, d.Hint)
		}
	}
	r.doc.Warnings, r.doc.Passed, r.doc.Errors, r.doc.Warned, r.doc.Fixes = diagsJSON(r.warnings), r.passed, errs, warns, fixes
	fmt.Fprintln(r.w)
	if errs == 0 && warns == 0 {
		fmt.Fprintln(r.w, "All checks passed.")
		return 0
	}
	tally := fmt.Sprintf("%s passed, %s found", doctorCount(r.passed, "check"), doctorCount(errs, "error"))
	if warns > 0 {
		tally += ", " + doctorCount(warns, "warning")
	}
	fmt.Fprintln(r.w, tally+".")
	fmt.Fprintln(r.w)
	for _, f := range fixes {
		fmt.Fprintf(r.w, "Fix: %s\n", f)
	}
	if errs > 0 {
		return 1
	}
	return 0
}

// doctorCount is "<n> <word>", with an s unless n is 1 (CLI-14).
func doctorCount(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
