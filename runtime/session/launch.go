package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/formation"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/spawn"
	"github.com/murmur-go/mur/runtime/store"
	"github.com/murmur-go/mur/runtime/tool"
)

// Options are `mur run`'s inputs once its flags are read (capsule.md CLI-1,
// CLI-2; formations.md LAUNCH-2).
type Options struct {
	// ManifestPath is --manifest, or <dir>/murmur.yaml for --capsule <dir>.
	ManifestPath string
	// StoreName and StoreVersion are --capsule <name> --capsule-version <v>:
	// the store form (STORE-3); ManifestPath is then empty.
	StoreName, StoreVersion string
	// CapsuleSHA256 is the hidden --capsule-sha256 the launcher admitted
	// (E-RUN-047); StoreRoot the hidden --store-root (<project>).
	CapsuleSHA256 string
	StoreRoot     string
	Workdir       string  // --workdir; "" = SES-2's default
	Task          *string // --task; nil when absent
	Acceptance    string  // --lifecycle-task-acceptance; "" = the manifest's
	AfterTask     string  // --lifecycle-after-task; "" = the manifest's
	SystemPrompt  *string // --system-prompt; replaces every prompt source
	// Deadline is the effective deadline: the earliest of --deadline and the
	// hidden --inherited-deadline (SES-7); nil for none.
	Deadline  *time.Time
	NoEnvFile bool
	Getenv    func(string) string // the process environment
	Cwd       string
	Version   string // this mur's version (mur_version, W-SEC-019)
	// Containment is --containment: a floor that raises the manifest's
	// class, never lowers it; "" for none.
	Containment string
}

// Launch is a capsule that passed MAN-4 steps 0–9: nothing is created yet.
// cmd/mur binds the door (step 10) and then calls Start.
type Launch struct {
	Opts     Options
	Manifest *manifest.Manifest
	Member   *formation.Member // nil outside a formation
	// Link is a delegated child's tie to the capsule that spawned it
	// (tools.md DLG-3, DLG-6); nil for a capsule nobody delegated to.
	Link    *spawn.Link
	Project string       // <project> (STORE-2), "" when none
	Workdir string       // the accessible workdir, absolute (SES-2)
	Env     manifest.Env // the environment after .env (SES-10)
	// Warnings go to stderr and logs/bootstrap.log (MAN-10), in order.
	Warnings []*diag.Diagnostic
	// Prompt is the resolved system prompt and its source (LOOP-6,
	// session_start.system_prompt_source).
	Prompt       string
	PromptSource string
	// CompactionPrompt is the built-in compactor's system prompt:
	// inference.compaction.system_prompt, or its file's text read at
	// launch; "" = the compactor's own.
	CompactionPrompt string
	// Drivers serve each choice by name (DRV-2); the primary is "primary".
	// None under transport: process.
	Drivers map[string]driver.Driver
	// HarnessBinary is the absolute path of the harness executable under
	// transport: process (PROC-1, PROC-4), "" otherwise.
	HarnessBinary string
	// TaskText is the launch task (SES-4); HasTask is false when there is none.
	TaskText string
	HasTask  bool
	// LaunchContextID is the launch task's context id (mur run --context,
	// --resume); "" mints a new one.
	LaunchContextID string
	// Resumed is the session the launch continues (mur run --resume), nil
	// for a fresh conversation.
	Resumed *Resumed
	// Artifacts are the declared tool and skill artifacts, resolved in the
	// stores (STORE-3, STORE-8), in manifest order.
	Artifacts []tool.Artifact
	// hooks are the declared runtime: hook entries bound to their installed
	// artifacts, in manifest order.
	hooks []hookEntry
	// override replaces tools by name once runtime/toolset built them: a
	// test's seam.
	override map[string]tool.Tool
	// Containment is the class Start holds the tool processes to: the
	// floor (the stronger of capabilities.containment and --containment),
	// or the best the kernel offers short of sealed when neither names one.
	Containment string
	// floor is that floor, "" for none; floorWhere says who asked for it
	// (E-CAP-003's <where>).
	floor, floorWhere string
	// Exit, when set, ends the process with a code: the formation's 20 s
	// exit timer calls it (LIFE-4). cmd/mur sets os.Exit.
	Exit func(code int)

	// createLock writes the project's murmur.lock when it has none (STORE-5);
	// Start calls it, since Prepare writes nothing.
	createLock func() error
}

// Prepare runs MAN-4 steps 0–9 in order and stops at the first fault, which
// it returns as a *diag.Diagnostic; it writes nothing (MAN-4: a refused launch
// leaves no directory).
func Prepare(opts Options) (*Launch, error) {
	return PrepareContext(context.Background(), opts)
}

// envAllowIgnored is the warning an http capsule's capabilities.env.allow
// gets without capabilities.spawn.
var envAllowIgnored = diag.SecNotSupported("capabilities.env.allow")

// PrepareContext is Prepare that gives up between steps once ctx ends (`mur
// run` got SIGTERM or SIGINT while it prepared), returning context.Cause(ctx)
// and leaving nothing behind, as a refusal does.
func PrepareContext(ctx context.Context, opts Options) (*Launch, error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	l := &Launch{Opts: opts}
	member, err := formation.JoinContext(ctx, opts.Getenv) // step 0
	if err != nil {
		return nil, err
	}
	l.Member = member
	link, err := spawn.Join(ctx, opts.Getenv) // step 0: a delegated child's spawner (DLG-6, E-RUN-020)
	if err != nil {
		l.closeMember()
		return nil, err
	}
	l.Link = link
	if member != nil {
		for _, w := range member.Warnings {
			// LIFE-7: W-RUN-007 is for a member without a lifeline; a
			// delegated child shares the formation's id and holds its
			// spawner's lifeline instead (formations.md CRED-7).
			if link != nil && w.Code == diag.WRUN007 {
				continue
			}
			l.Warnings = append(l.Warnings, w)
		}
	}
	if err := ctx.Err(); err != nil {
		l.closeMember()
		return nil, context.Cause(ctx)
	}
	path, resolved, err := l.locate()
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	if err != nil {
		l.closeMember()
		return nil, err
	}
	if !opts.NoEnvFile {
		if l.Env, err = manifest.LoadDotEnv(l.Project, opts.Cwd, opts.Getenv); err != nil {
			l.closeMember()
			return nil, err
		}
	} else {
		l.Env, _ = manifest.LoadDotEnv("", "", opts.Getenv)
	}
	m, warns, err := manifest.LoadContext(ctx, path, l.Env.Getenv) // steps 1–7
	for _, w := range warns {
		// Under http capabilities.env.allow acts only for a delegated
		// child (process.md PROC-3, tools.md DLG-3): in one it did act.
		if link != nil && w.Code == diag.WSEC019 && w.Msg == envAllowIgnored.Msg {
			continue
		}
		l.Warnings = append(l.Warnings, w)
	}
	for _, step := range []func() error{
		func() error { return l.applyOverrides(m) },
		func() error { return l.decideContainment(m, path) },  // step 5 (E-CAP-003)
		func() error { return l.checkArtifacts(m, resolved) }, // step 8
		func() error { return l.readFiles(m) },                // step 9
		func() error { return l.readTask(m) },
	} {
		if err != nil {
			break
		}
		if ctx.Err() != nil {
			err = context.Cause(ctx)
			break
		}
		err = step()
	}
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	if err != nil {
		l.closeMember()
		return nil, err
	}
	l.Manifest = m
	if w := m.MurVersionWarning(opts.Version); w != nil {
		l.Warnings = append(l.Warnings, w)
	}
	if w := m.Lifecycle.GraceWarning(); w != nil {
		l.Warnings = append(l.Warnings, w)
	}
	if member != nil && len(member.Callees) > 0 && !m.Capabilities.Network.Allow.ReachesDoors() {
		l.Warnings = append(l.Warnings, diag.RunNoEgress(member.Name, member.Callees)) // CRED-2, STAGE-9
	}
	if n, err := strconv.Atoi(strings.TrimSpace(opts.Getenv("MURMUR_DELEGATION_TIMEOUT_SECS"))); err == nil && n > 0 {
		m.Lifecycle.DelegationDeadlineSecs = n // §1.5: the environment overrides
	}
	return l, nil
}

// Close releases what Prepare joined (the formation member, the spawner
// link) for a launch that is not started; Start's session closes them
// itself when it ends.
func (l *Launch) Close() { l.closeMember() }

// closeMember closes what step 0 joined: the formation member, the
// spawner link.
func (l *Launch) closeMember() {
	if l.Member != nil {
		_ = l.Member.Close()
	}
	if l.Link != nil {
		_ = l.Link.Close()
	}
}

// locate finds the manifest and <project> (CLI-1, STORE-2, STORE-3).
func (l *Launch) locate() (path string, resolved *store.Resolved, err error) {
	o := l.Opts
	if o.StoreName == "" {
		abs, err := filepath.Abs(o.ManifestPath)
		if err != nil {
			return "", nil, diag.IOError(o.ManifestPath, err.Error())
		}
		l.Project = filepath.Dir(abs)
		return o.ManifestPath, nil, nil
	}
	l.Project = o.StoreRoot
	if l.Project == "" {
		l.Project, _ = store.FindProject(o.Cwd)
	}
	home, err := murhome.Home(o.Getenv)
	if err != nil {
		return "", nil, err
	}
	r, err := store.Stores{ProjectDir: l.Project, Home: home}.Resolve(o.StoreName, o.StoreVersion)
	if errors.Is(err, store.ErrNotInstalled) {
		return "", nil, diag.RunMissingArtifacts([]string{o.StoreName + "@" + o.StoreVersion})
	}
	if err != nil {
		return "", nil, err
	}
	return filepath.Join(r.TreeDir, manifest.FileName), &r, nil
}

// applyOverrides applies the --lifecycle-* flags (E-MAN-003) and settles the
// accessible workdir (SES-2).
func (l *Launch) applyOverrides(m *manifest.Manifest) error {
	o := l.Opts
	if o.Acceptance != "" {
		switch o.Acceptance {
		case "none", "single", "queue":
			m.Lifecycle.TaskAcceptance = o.Acceptance
			if i := m.RequestInputIndex(); i >= 0 && o.Acceptance == "none" { // input.md INP-2
				return manifest.RequestInputUnserved("--lifecycle-task-acceptance none", i)
			}
		default:
			return diag.ManOverrideNotOneOf("lifecycle-task-acceptance", o.Acceptance, "none", "single", "queue")
		}
	}
	if o.AfterTask != "" {
		switch o.AfterTask {
		case "exit", "sleep":
			m.Lifecycle.AfterTask = o.AfterTask
			if d := m.CheckPeerFilesTTL(o.AfterTask); d != nil {
				return d // a sleeping capsule's handles outlive its tasks (PFILE-3)
			}
		default:
			return diag.ManOverrideNotOneOf("lifecycle-after-task", o.AfterTask, "exit", "sleep")
		}
	}
	wd := o.Workdir
	switch {
	case wd != "":
	case o.StoreName == "":
		wd = m.Dir
	default:
		wd = o.Cwd
	}
	abs, err := filepath.Abs(wd)
	if err != nil {
		return diag.IOError(wd, err.Error())
	}
	if fi, err := os.Stat(abs); err != nil {
		return ioDiag(abs, err)
	} else if !fi.IsDir() {
		return diag.IOError(abs, "not a directory")
	}
	l.Workdir = abs
	if o.Workdir != "" {
		if d := m.CheckExports(abs); d != nil {
			return d
		}
	}
	return nil
}

// checkArtifacts is MAN-4 step 8: the artifacts against the lock and stores,
// and, for a formation member, the admitted bytes (E-RUN-047).
func (l *Launch) checkArtifacts(m *manifest.Manifest, resolved *store.Resolved) error {
	o := l.Opts
	if resolved != nil && o.CapsuleSHA256 != "" && resolved.SHA256 != o.CapsuleSHA256 {
		return diag.RunBytesChanged(o.StoreName, o.StoreVersion, resolved.SHA256, o.CapsuleSHA256)
	}
	// An installed capsule run by hand whose source was edited since runs
	// the old copy: say so (a formation's launcher says it for its members).
	if resolved != nil && o.CapsuleSHA256 == "" {
		if now, changed := store.SourceChanged(resolved.Meta.SourcePath, resolved.SHA256); changed {
			fix := "mur install -g --force " + diag.ShellWord(resolved.Meta.SourcePath)
			if resolved.Scope == store.ScopeProject {
				fix = "mur install --force " + diag.ShellWord(resolved.Meta.SourcePath)
			}
			l.Warnings = append(l.Warnings, diag.RegSourceChanged(o.StoreName, o.StoreVersion, string(resolved.Scope), resolved.Meta.SourcePath, resolved.SHA256, now, fix, ""))
		}
	}
	return l.resolveArtifacts(m)
}

// ioDiag is E-IO-001 for a failed stat or read of path.
func ioDiag(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return diag.IONotFound(path)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return diag.IOError(path, pe.Err.Error())
	}
	return diag.IOError(path, err.Error())
}

// osText is an os error's text without its operation and path.
func osText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// readTask resolves the launch task (SES-4): --task names an existing regular
// file (relative to cwd) read as UTF-8, else it is the text; without it, under
// task_acceptance none, <workdir>/task.md then <workdir>/input.txt.
func (l *Launch) readTask(m *manifest.Manifest) error {
	if t := l.Opts.Task; t != nil {
		p := *t
		if !filepath.IsAbs(p) {
			p = filepath.Join(l.Opts.Cwd, p)
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return ioDiag(*t, err)
			}
			if !utf8.Valid(b) {
				return diag.IOError(*t, "not UTF-8 text")
			}
			l.TaskText, l.HasTask = string(b), true
			return nil
		}
		l.TaskText, l.HasTask = *t, true
		return nil
	}
	if m.Lifecycle.TaskAcceptance != "none" {
		return nil
	}
	for _, name := range []string{"task.md", "input.txt"} {
		b, err := os.ReadFile(filepath.Join(l.Workdir, name))
		if err == nil {
			l.TaskText, l.HasTask = string(b), true
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return ioDiag(filepath.Join(l.Workdir, name), err)
		}
	}
	return nil
}

// String names the launch for logs.
func (l *Launch) String() string {
	return fmt.Sprintf("%s v%s", l.Manifest.Name, l.Manifest.Version)
}
