package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/proc"
)

// Records stands for the session's records directory in a Scope: it is
// made when the session starts, and an explained scope makes nothing.
const Records = "<records>"

// Scope is what `mur run --explain-scope` prints: the containment asked for
// and achieved, and what a tool process of the session can read, write,
// execute and connect to. The JSON fields are its --json form.
type Scope struct {
	Declared  string `json:"declared"` // the floor; "" when nothing asks for one
	Achieved  string `json:"achieved"`
	FloorMet  bool   `json:"floor_met"`
	Mechanism string `json:"mechanism"`
	// Why says why the achieved class is below the floor; "" when it is not.
	Why string `json:"why,omitempty"`
	// ReadWrite paths, read-write; ReadOnlyInside, read-only though inside
	// one of them; ReadExec, readable and executable.
	ReadWrite      []string `json:"read_write"`
	ReadOnlyInside []string `json:"read_only_inside"`
	ReadExec       []string `json:"read_exec"`
	Devices        []string `json:"devices"`
	Processes      string   `json:"processes"`
	Network        string   `json:"network"`
	UDP            bool     `json:"udp"`
	// Limits are sealed's resource limits (0: unlimited); nil otherwise.
	Limits *proc.Limits `json:"limits"`
}

// ExplainScope works out the session's Scope without starting it: the
// achieved class is what building the sandbox gives (sealed rehearses a
// whole start in a temporary root, removed again). A floor the machine
// cannot meet is the Scope and E-CAP-003.
func (l *Launch) ExplainScope() (*Scope, error) {
	home, err := murhome.Home(l.Opts.Getenv)
	if err != nil {
		return nil, err
	}
	m := l.Manifest
	var strip, baseline []string
	if sh := m.Capabilities.Shell; sh != nil {
		strip, baseline = sh.StripEnv, sh.BaselineEnv
	}
	env := subprocessEnv(processEnv(), l.Env.Vars, strip, baseline, map[string]string{
		"HOME": filepath.Join(Records, "home"), "TMPDIR": filepath.Join(Records, "tmp")})
	p := l.policy(l.Workdir, Records, env, home)
	sc := &Scope{Declared: l.floor, Achieved: l.Containment, ReadWrite: p.ReadWrite, ReadOnlyInside: []string{},
		ReadExec: append(append([]string(nil), proc.SystemPaths...), p.ReadOnly...)}
	for _, d := range p.Protect {
		if _, err := os.Lstat(d); err == nil {
			sc.ReadOnlyInside = append(sc.ReadOnlyInside, d)
		}
	}
	var refused error
	switch l.Containment {
	case proc.Advisory:
		sc.Mechanism, sc.Processes, sc.Network, sc.UDP = "none", "every process the runtime's user may reach", "any", true
		sc.ReadWrite, sc.ReadOnlyInside, sc.ReadExec = []string{"/ (as the runtime's user)"}, []string{}, []string{"/ (as the runtime's user)"}
		sc.Devices = []string{"any"}
	case proc.Scoped:
		sc.Mechanism = "landlock+seccomp"
		if len(sc.ReadOnlyInside) > 0 {
			sc.Mechanism = "mountns+landlock+seccomp"
		}
		sc.Processes = "every process, but none outside its Landlock domain by signal, and no other's memory or environment"
		sc.Network, sc.UDP = connectText(p.RestrictConnect, p.Ports)+"; "+listenText(p.Listen), p.AllowUDP
		sc.Devices = []string{"/dev/null (read-write)", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}
		if sb, err := proc.NewSandbox(p, nil); err != nil {
			sc.Achieved, sc.Why = proc.Advisory, err.Error()
		} else {
			sb.Close()
		}
	case proc.Sealed:
		sc.Mechanism = "pidns+netns+ipcns+utsns+mountns+pivot_root+landlock+seccomp"
		if os.Getuid() != 0 {
			sc.Mechanism = "userns+" + sc.Mechanism
		}
		sc.Processes, sc.Network, sc.UDP = "its own only (it is in a PID namespace of its own)", "none (lo of its own network namespace only)", false
		sc.ReadWrite = append(append([]string(nil), p.ReadWrite...), "/tmp (a private tmpfs)")
		sc.ReadExec = append(append([]string(nil), proc.SealedSystemPaths...), "/proc (of its own PID namespace)")
		for _, e := range proc.SealedEtc {
			sc.ReadExec = append(sc.ReadExec, "/etc/"+e)
		}
		sc.ReadExec = append(append(sc.ReadExec, "/etc/passwd (synthetic)", "/etc/group (synthetic)"), p.ReadOnly...)
		sc.Devices = []string{"/dev/null (read-write)", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}
		lim := sealedLimits(m.Capabilities.Resources)
		sc.Limits = &lim
		if why := rehearseSealed(p, lim); why != "" {
			sc.Achieved, sc.Why = proc.Scoped, why
			refused = diag.CapSealed(l.floorWhere, why)
		}
	}
	sc.FloorMet = proc.Rank(sc.Achieved) >= proc.Rank(sc.Declared)
	return sc, refused
}

// rehearseSealed builds a sealed sandbox of p in a temporary directory and
// removes it again; it says why it could not.
func rehearseSealed(p *proc.Policy, lim proc.Limits) string {
	tmp, err := os.MkdirTemp("", "mur-explain-")
	if err != nil {
		return err.Error()
	}
	defer os.RemoveAll(tmp)
	root := filepath.Join(tmp, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		return err.Error()
	}
	q := *p
	q.ReadWrite = nil
	for _, d := range p.ReadWrite {
		if !strings.HasPrefix(d, Records) {
			q.ReadWrite = append(q.ReadWrite, d)
		}
	}
	q.RestrictConnect, q.Ports, q.AllowUDP = false, nil, false
	lim.CgroupPids, lim.CgroupMemory = 0, 0 // the rehearsal makes no cgroup
	q.Seal = &proc.Seal{Root: root, Etc: filepath.Join(tmp, "etc"), Limits: lim, Name: "explain"}
	sb, err := proc.NewSandbox(&q, nil)
	if err != nil {
		return err.Error()
	}
	sb.Close()
	return ""
}

// connectText is scoped's TCP connect grant in words.
func connectText(restrict bool, ports []uint16) string {
	if !restrict {
		return "TCP connect to any port"
	}
	if len(ports) == 0 {
		return "no TCP connect"
	}
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = strconv.Itoa(int(p))
	}
	return "TCP connect to ports " + strings.Join(s, ", ") + " only"
}

// listenText is scoped's TCP bind grant in words.
func listenText(ports []uint16) string {
	if len(ports) == 0 {
		return "no TCP listen"
	}
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = strconv.Itoa(int(p))
	}
	return "TCP listen on ports " + strings.Join(s, ", ") + " only"
}

// Text is the Scope as --explain-scope prints it without --json.
func (sc *Scope) Text() string {
	var b strings.Builder
	declared := sc.Declared
	if declared == "" {
		declared = "(none)"
	}
	met := "yes"
	if !sc.FloorMet {
		met = "no"
	}
	fmt.Fprintf(&b, "Containment\n  declared:  %s\n  achieved:  %s\n  floor met: %s\n  mechanism: %s\n", declared, sc.Achieved, met, sc.Mechanism)
	if sc.Why != "" {
		fmt.Fprintf(&b, "  why:       %s\n", sc.Why)
	}
	b.WriteString("Tool processes\n")
	list := func(name string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "  %s:\n", name)
		for _, it := range items {
			fmt.Fprintf(&b, "    %s\n", it)
		}
	}
	list("read-write", sc.ReadWrite)
	list("read-only inside those", sc.ReadOnlyInside)
	list("read and execute", sc.ReadExec)
	list("devices", sc.Devices)
	fmt.Fprintf(&b, "  processes: %s\n  network:   %s\n", sc.Processes, sc.Network)
	udp := "refused"
	if sc.UDP {
		udp = "allowed"
	}
	fmt.Fprintf(&b, "  udp:       %s\n", udp)
	if l := sc.Limits; l != nil {
		b.WriteString("  limits:\n")
		for _, f := range []struct {
			name string
			v    uint64
		}{{"max_processes", l.Processes}, {"max_open_files", l.OpenFiles}, {"max_file_size_bytes", l.FileSize},
			{"memory_bytes", l.AddressSpace}, {"cpu_seconds", l.CPUSeconds}, {"cgroup_pids_max", l.CgroupPids},
			{"cgroup_memory_bytes", l.CgroupMemory}} {
			v := "unlimited"
			if f.v > 0 {
				v = strconv.FormatUint(f.v, 10)
			}
			fmt.Fprintf(&b, "    %s: %s\n", f.name, v)
		}
	}
	fmt.Fprintf(&b, "%s is the session's records directory, made when it starts.\n", Records)
	return b.String()
}
