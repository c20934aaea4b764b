package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/murmur-go/mur/door"
	"github.com/murmur-go/mur/launcher"
	"github.com/murmur-go/mur/launcher/roster"
	"github.com/murmur-go/mur/launcher/view"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/store"
	"github.com/murmur-go/mur/runtime/traceview"
)

var runRosterUsage = fmt.Sprintf(`Usage: mur run --roster [<dir | dir/roster.yaml>] [--task <path-or-text>] [--json] [--verbose] [--no-env-file] [--deadline <time | duration>]

Launches the formation roster.yaml declares: every peer first, each ready once
its door answers, then the entry member in this directory's project. With
--task the entry runs that task and the formation ends with it; without, the
entry takes tasks at its door until mur stop <frm_id>, a signal or the
deadline.

Flags:
  --roster [<path>]            the project directory or its roster.yaml (default .)
  --task <path-or-text>        the entry member's task (a file path or the text)
  --resume <frm_id>            every member continues its conversation in that ended formation (docs/resume.md)
  --json                       stdout: the formation line, then the entry's readiness line
  --verbose, -v                the entry member's verbose startup lines
  --no-env-file                no member loads .env
  --deadline <time | duration> an RFC 3339 time or a duration (30s, 5m, 2h, 1d)
  --max-connections <n>        every member's door cap on connections open at once (default %d)
  --strict                     refuse to launch when there is any warning (roster.yaml: strict: true)
  --reinstall                  first install again each member whose source directory changed since it was installed
  --on kubernetes              run every member as a pod of a cluster (docs/kubernetes.md); with:
    --image <ref>              the mur image every member pod runs (required)
    --kubeconfig <path>        the kubeconfig (default $KUBECONFIG, then ~/.kube/config)
    --kube-context <name>      its context (default its current context)
    --namespace <name>         the namespace (default the context's)`, door.DefaultMaxConnections)

// runFlagsNotWithRoster are the mur run flags --roster refuses (LAUNCH-6, LAUNCH-9).
var runFlagsNotWithRoster = []string{"manifest", "capsule", "capsule-version", "capsule-sha256", "store-root",
	"inherited-deadline", "system-prompt", "context", "resume-mode", "lifecycle-task-acceptance",
	"lifecycle-after-task", "workdir", "bind", "port", "explain-scope", "containment", "forget-session"}

// rosterFlagNames are the flags parseRosterFlags reads, for did-you-mean.
var rosterFlagNames = []string{"roster", "task", "resume", "json", "verbose", "no-env-file", "deadline", "help", "strict", "reinstall", "max-connections",
	"on", "image", "kubeconfig", "kube-context", "namespace"}

// rosterFlags are the flags of `mur run --roster` (LAUNCH-6).
type rosterFlags struct {
	roster    string
	task      *string
	resume    string // --resume <frm_id>: the formation whose members continue
	json      bool
	verbose   bool
	noEnvFile bool
	deadline  time.Time
	maxConns  int // 0: the door's default
	help      bool
	strict    bool
	reinstall bool
	// --on kubernetes and its flags; kube is nil without --on.
	kube *launcher.KubeTarget
	// kubeFlag is the first Kubernetes flag given, for the error when --on
	// is missing.
	kubeFlag string
	onKube   bool
}

// parseRosterFlags reads the arguments after "run". --roster takes an
// optional value: none when it is last or followed by a flag (ROS-1).
func parseRosterFlags(args []string, now time.Time) (rosterFlags, error) {
	var f rosterFlags
	value := func(i *int, name string, inline *string) (string, error) {
		if inline != nil {
			return *inline, nil
		}
		if *i+1 >= len(args) {
			return "", usagef("flag needs an argument: --%s", name)
		}
		*i++
		return args[*i], nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			return f, usagef("unexpected argument '%s'", a)
		}
		name := strings.TrimLeft(a, "-")
		var inline *string
		if k, v, ok := strings.Cut(name, "="); ok {
			name, inline = k, &v
		}
		switch name {
		case "roster":
			switch {
			case inline != nil:
				f.roster = *inline
			case i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
				i++
				f.roster = args[i]
			}
		case "task":
			v, err := value(&i, name, inline)
			if err != nil {
				return f, err
			}
			f.task = &v
		case "resume":
			v, err := value(&i, name, inline)
			if err != nil {
				return f, err
			}
			f.resume = v
		case "json", "verbose", "v", "no-env-file", "h", "help", "strict", "reinstall":
			if inline != nil {
				return f, usagef("--%s takes no value", name)
			}
			switch name {
			case "json":
				f.json = true
			case "verbose", "v":
				f.verbose = true
			case "no-env-file":
				f.noEnvFile = true
			case "strict":
				f.strict = true
			case "reinstall":
				f.reinstall = true
			default:
				f.help = true
			}
		case "deadline":
			v, err := value(&i, name, inline)
			if err != nil {
				return f, err
			}
			if f.deadline, err = parseDeadline(v, now); err != nil {
				return f, err
			}
		case "max-connections":
			v, err := value(&i, name, inline)
			if err != nil {
				return f, err
			}
			if f.maxConns, err = strconv.Atoi(v); err != nil || f.maxConns < 1 {
				return f, usagef("--max-connections must be 1 or more, not '%s'", v)
			}
		case "on", "image", "kubeconfig", "kube-context", "namespace":
			v, err := value(&i, name, inline)
			if err != nil {
				return f, err
			}
			if f.kube == nil {
				f.kube = &launcher.KubeTarget{}
			}
			switch name {
			case "on":
				if v != "kubernetes" {
					return f, usagef("--on '%s': the only target is kubernetes", v)
				}
				f.onKube = true
			case "image":
				f.kube.Image = v
			case "kubeconfig":
				f.kube.Kubeconfig = v
			case "kube-context":
				f.kube.Context = v
			case "namespace":
				f.kube.Namespace = v
			}
			if name != "on" && f.kubeFlag == "" {
				f.kubeFlag = name
			}
		default:
			for _, n := range runFlagsNotWithRoster {
				if n == name {
					return f, usagef("--%s cannot be used with --roster", name)
				}
			}
			return f, usagef("%s", unknownFlag(name, rosterFlagNames))
		}
	}
	if f.kube != nil {
		switch {
		case !f.onKube:
			return f, usagef("--%s needs --on kubernetes", f.kubeFlag)
		case f.kube.Image == "":
			return f, usagef("--on kubernetes needs --image <ref>: the mur image every member pod runs")
		case f.resume != "":
			// A resumed member reads its old session's record, which is on
			// this machine and in no pod.
			return f, usagef("--resume cannot be used with --on kubernetes: the formation's records are on this machine, not in its pods")
		}
	}
	return f, nil
}

// maxDeadline is LAUNCH-8's clamp.
const maxDeadline = 10 * 365 * 24 * time.Hour

// parseDeadline reads --deadline (capsule.md CLI-2): an RFC 3339 time or a
// MAN-3 duration from now, once, as an absolute moment clamped at ten years
// (LAUNCH-8). A moment in the past is a usage error.
func parseDeadline(v string, now time.Time) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		d, derr := manifest.ParseDuration(v)
		if derr != nil {
			return time.Time{}, usagef("--deadline '%s' is neither an RFC 3339 time nor a duration", v)
		}
		t = now.Add(min(d, maxDeadline))
	}
	if !t.After(now) {
		return time.Time{}, usagef("--deadline '%s' is in the past", v)
	}
	if t.After(now.Add(maxDeadline)) {
		t = now.Add(maxDeadline)
	}
	return t, nil
}

// runRoster runs `mur run --roster …` (formations.md LAUNCH-*); args are every
// argument after "run".
func runRoster(ctx context.Context, env *Env, args []string) int {
	f, err := parseRosterFlags(args, time.Now())
	if err != nil {
		return fail(env, "run", err)
	}
	if f.help {
		fmt.Fprintln(env.Stdout, runRosterUsage)
		return 0
	}
	if f.onKube {
		if code, handed := kubeHandoff(env, "run", append([]string{"run"}, args...)); handed {
			return code
		}
	}
	if env.Getenv("MURMUR_FORMATION_ID") != "" { // LAUNCH-1 step 1
		return fail(env, "run", diag.RunAlreadyMember())
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fail(env, "run", err)
	}
	path, err := roster.Locate(cwd, f.roster)
	if err != nil {
		return fail(env, "run", err)
	}
	home, err := murhome.Home(env.Getenv)
	if err != nil {
		return fail(env, "run", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fail(env, "run", err)
	}
	// A closed stdout or stderr never stops the launcher (capsule.md CLI-4,
	// FCLI-4): a write to it fails and is dropped, and the formation runs to
	// its end. Notify, not Ignore: an ignored SIGPIPE would be inherited by
	// every member and so by every command its shell runs.
	pipes := make(chan os.Signal, 1) // only needs to exist; never read
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)
	sigs := make(chan os.Signal, 4) // a few signals may arrive before the launcher reads them
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if f.reinstall {
		if err := reinstallChanged(env, path, home); err != nil {
			return fail(env, "run", err)
		}
	}
	var resume map[string]string
	if f.resume != "" {
		if resume, err = formationResume(home, path, f.resume); err != nil {
			return fail(env, "run", err)
		}
	}
	cfg := launcher.Config{RosterPath: path, Resume: resume, Resolver: launcher.NewStoreResolver(roster.ProjectDir(path), home), Strict: f.strict,
		Home: home, Self: self, Cwd: cwd, Environ: os.Environ(),
		Task: f.task, JSON: f.json, Verbose: f.verbose, NoEnvFile: f.noEnvFile, Deadline: f.deadline, MaxConnections: f.maxConns,
		Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr, Signals: sigs,
		ProcessStart: func(pid int) string {
			s, _ := murhome.StartTime(pid)
			return s
		},
		Alive: func(pid int, start string) bool {
			l := murhome.Check(pid, start)
			return l == murhome.Alive || l == murhome.Unconfirmed
		},
		RunningFormations: func() (map[string]bool, error) { return runningFormations(home) },
		Kube:              f.kube,
	}
	// The launcher is a subreaper too, so what a member killed outright
	// (kill -9, OOM) left — a setsid'd or double-forked process — comes back
	// to it, and is stopped once that member is reaped. Off Linux nothing is
	// adopted.
	if reaper, err := proc.Subreap(); err == nil {
		defer reaper.Close()
		cfg.EndAdopted = proc.EndAdopted
	}
	// The launcher tells signals apart itself (130/143/129); main's context
	// would turn each into SIGTERM.
	code := launcher.Run(context.WithoutCancel(ctx), cfg)
	proc.StopDescendants(proc.StopGrace, nil)
	return code
}

// formationResume maps each member of ended formation frm to its
// session's trace.jsonl, as mur trace show <frm_id> finds them (FCLI-8). A
// formation not found, still running, or whose members are not exactly the
// roster's is E-RUN-055, before anything is launched.
func formationResume(home, rosterPath, frm string) (map[string]string, error) {
	if why := diag.FormationIDFault(frm); why != "" {
		return nil, diag.RunNotFormationID(frm, why)
	}
	members, live, err := view.Members(home, frm)
	if err != nil {
		return nil, err
	}
	switch {
	case len(members) == 0:
		return nil, diag.RunResumeFormation(frm, diag.FormationNotFound)
	case live:
		return nil, diag.RunResumeFormation(frm, diag.FormationRunning)
	}
	r, err := roster.Load(rosterPath)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, m := range members {
		path := filepath.Join(m.RecordsDir, murhome.TraceFile)
		tr, err := traceview.Read(path)
		if err != nil {
			return nil, err
		}
		out[tr.Start.FormationMember] = path
	}
	var want []string
	for _, m := range r.Members {
		want = append(want, m.Name)
	}
	var had []string
	for name := range out {
		had = append(had, name)
	}
	slices.Sort(want)
	slices.Sort(had)
	if !slices.Equal(want, had) {
		return nil, diag.RunResumeFormation(frm, fmt.Sprintf("its members were %s, the roster's are %s", strings.Join(had, ", "), strings.Join(want, ", ")))
	}
	return out, nil
}

// runningFormations lists the formation ids a running record names whose
// process still runs (RET-3).
func runningFormations(home string) (map[string]bool, error) {
	recs, err := murhome.ListRunning(home)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, r := range recs {
		if l := r.Check(); r.FormationID != "" && (l == murhome.Alive || l == murhome.Unconfirmed) {
			out[r.FormationID] = true
		}
	}
	return out, nil
}

// reinstallChanged is --reinstall: every member capsule whose source
// directory (meta.json's source_path) has changed since it was installed is
// installed again from it, into the store it was found in, before the
// launch reads the stores. A roster that does not admit is left to the
// launch to report.
func reinstallChanged(env *Env, rosterPath, home string) error {
	ss := store.Stores{ProjectDir: roster.ProjectDir(rosterPath), Home: home}
	f, _, err := roster.Admit(rosterPath, launcher.NewStoreResolver(ss.ProjectDir, home))
	if err != nil {
		return nil
	}
	done := map[string]bool{}
	for _, m := range f.Members {
		id := m.Capsule + "@" + m.Version
		if done[id] {
			continue
		}
		done[id] = true
		if _, changed := store.SourceChanged(m.SourcePath, m.SHA256); !changed {
			continue
		}
		man, warnings, err := manifest.LoadArtifact(m.SourcePath)
		printWarnings(env.Stderr, warnings)
		if err != nil {
			return err
		}
		if man.Name != m.Capsule || man.Version != m.Version {
			return fmt.Errorf("--reinstall: %s, installed as %s, now declares %s@%s; install it with mur install", m.SourcePath, id, man.Name, man.Version)
		}
		r, err := ss.InstallForce(m.SourcePath, store.ArtifactID{Name: m.Capsule, Version: m.Version, Runtime: man.Kind()}, store.Scope(m.Scope))
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "[mur run] reinstalled %s from %s into the %s store: sha256:%s → sha256:%s\n", id, m.SourcePath, r.Scope, m.SHA256, r.SHA256)
	}
	return nil
}
