package session

import (
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/manifest"
	"github.com/murmur-go/mur/runtime/murhome"
	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/store"
	"github.com/murmur-go/mur/runtime/toolset"
)

// decideContainment is MAN-4 step 5's containment check. The floor is the
// stronger of capabilities.containment and --containment (which can only
// raise it). Scoped or sealed on a kernel without Landlock refuses the
// launch with E-CAP-003 (sealed's namespaces are tried when its sandbox is
// built); no floor takes the best the kernel offers short of sealed.
func (l *Launch) decideContainment(m *manifest.Manifest, file string) error {
	l.floor, l.floorWhere = m.Capabilities.Containment, file+": capabilities.containment"
	if proc.Rank(l.Opts.Containment) > proc.Rank(l.floor) {
		l.floor, l.floorWhere = l.Opts.Containment, "--containment"
	}
	_, err := landlockABI()
	switch l.floor {
	case proc.Advisory:
		l.Containment = proc.Advisory
	case proc.Scoped:
		if err != nil {
			return diag.CapContainment(file, err.Error())
		}
		l.Containment = proc.Scoped
	case proc.Sealed:
		if err != nil {
			return diag.CapSealed(l.floorWhere, err.Error())
		}
		l.Containment = proc.Sealed
	default:
		l.Containment = proc.Scoped
		if err != nil {
			l.Containment = proc.Advisory
		}
	}
	return nil
}

// landlockABI is the kernel's probe; a test of this package replaces it to
// stand for a kernel without Landlock.
var landlockABI = proc.LandlockABI

// containmentDeclared is session_start.containment_declared: the manifest's
// class, or the default taken when it declares none.
func (s *Session) containmentDeclared() string {
	if s.l.floor != "" {
		return s.l.floor
	}
	return s.l.Containment
}

// policy is what a scoped session's tool processes may reach: read-write
// the accessible workdir and the shell's HOME and TMPDIR, but never what
// the formation runs (the project store, murmur.lock, roster.yaml: held
// read-only even inside the workdir); read-only the system paths, the PATH
// directories (none that would open $MURMUR_HOME) and both artifact stores
// (native tools run from them, pulled ones too); TCP connect only to
// network.allow's ports when every entry names one; UDP only when
// network.allow names a host to resolve; TCP bind only to
// network.listen's ports. Nothing else under $MURMUR_HOME:
// not the running records, not this session's own trace, not another
// member's workdir.
func (s *Session) policy() *proc.Policy {
	return s.l.policy(s.workdir, s.recordsDir, s.env, s.cfg.Home)
}

// policy is (*Session).policy for a session whose workdir, records
// directory, subprocess environment and $MURMUR_HOME are these.
func (l *Launch) policy(workdir, records string, env []string, home string) *proc.Policy {
	p := &proc.Policy{
		ReadWrite: []string{workdir, filepath.Join(records, "home"), filepath.Join(records, "tmp")},
	}
	p.ReadOnly = append(p.ReadOnly, proc.PathDirs(env, home)...)
	storeHome, err := murhome.Home(l.Opts.Getenv)
	if err != nil {
		storeHome = home
	}
	stores := store.Stores{ProjectDir: l.Project, Home: storeHome}
	for _, sc := range []store.Scope{store.ScopeProject, store.ScopeGlobal} {
		if root := stores.Root(sc); root != "" {
			p.ReadOnly = append(p.ReadOnly, root)
			p.Protect = append(p.Protect, root)
		}
	}
	if l.Project != "" {
		p.Protect = append(p.Protect, filepath.Join(l.Project, store.LockFile), filepath.Join(l.Project, store.RosterFile))
	}
	p.ReadOnly = append(p.ReadOnly, toolset.ReadOnlyDirs(l.Artifacts)...)
	allow := l.Manifest.Capabilities.Network.Allow
	p.RestrictConnect, p.Ports = connectPorts(allow)
	p.AllowUDP = needsResolver(allow)
	p.Listen = l.Manifest.Capabilities.Network.Listen
	return p
}

// needsResolver reports whether an allow entry names a host that only DNS
// resolves (not an IP address, not localhost): then a tool process needs
// UDP.
func needsResolver(allow manifest.AllowList) bool {
	for _, e := range allow {
		if e.Host != "localhost" && net.ParseIP(e.Host) == nil {
			return true
		}
	}
	return false
}

// connectPorts is network.allow as Landlock can hold a subprocess to it:
// ports only, so only when every entry names one (a URL names its scheme's
// default); a bare host allows every port, and nothing is restricted. An
// empty list allows no TCP connect.
func connectPorts(allow manifest.AllowList) (bool, []uint16) {
	var ports []uint16
	for _, e := range allow {
		if e.Port == 0 {
			return false, nil
		}
		ports = append(ports, uint16(e.Port))
	}
	return true, ports
}

// buildSandbox makes the sandbox every tool process starts through: in the
// session's cgroup when StartConfig.Cgroup made one, confined when the
// launch is scoped or sealed. A ruleset the kernel refuses leaves the
// session advisory, noted in logs/bootstrap.log, unless scoped was the
// floor: then Start fails with E-CAP-003; a sealed sandbox the machine
// cannot build always does (sealed is never a default).
func (s *Session) buildSandbox() error {
	if s.cfg.Cgroup {
		cg, err := proc.NewCgroup(s.id)
		if err != nil {
			s.bootstrap(fmt.Sprintf("no cgroup for the tool processes: %v\n", err))
		}
		s.cgroup = cg
	}
	var p *proc.Policy
	switch s.l.Containment {
	case proc.Scoped:
		p = s.policy()
	case proc.Sealed:
		var err error
		if p, err = s.sealedPolicy(); err != nil {
			return diag.CapSealed(s.l.floorWhere, err.Error())
		}
	}
	sb, err := proc.NewSandbox(p, s.cgroup)
	switch {
	case err != nil && s.l.Containment == proc.Sealed:
		return diag.CapSealed(s.l.floorWhere, err.Error())
	case err != nil && s.l.floor == proc.Scoped:
		return diag.CapContainment(s.m.Name, err.Error())
	case err != nil:
		s.bootstrap(fmt.Sprintf("containment: advisory: %v\n", err))
		sb, _ = proc.NewSandbox(nil, s.cgroup)
	}
	for _, n := range sb.Notes() {
		s.bootstrap(n + "\n")
	}
	s.sandbox = sb
	return nil
}

// sealedLimits are capabilities.resources over proc.DefaultLimits.
func sealedLimits(r manifest.Resources) proc.Limits {
	lim := proc.DefaultLimits
	for _, f := range []struct {
		dst *uint64
		v   int64
	}{{&lim.Processes, r.MaxProcesses}, {&lim.OpenFiles, r.MaxOpenFiles}, {&lim.FileSize, r.MaxFileSizeBytes},
		{&lim.AddressSpace, r.MemoryBytes}, {&lim.CPUSeconds, r.CPUSeconds}, {&lim.CgroupPids, r.CgroupPidsMax},
		{&lim.CgroupMemory, r.CgroupMemoryBytes}} {
		if f.v > 0 {
			*f.dst = uint64(f.v)
		}
	}
	return lim
}

// sealedPolicy is scoped's policy in a composed root under the session's
// records (sealed/root, sealed/etc), with no network but lo (network.allow
// still applies to the runtime's own requests) and capabilities.resources'
// limits over DefaultLimits.
func (s *Session) sealedPolicy() (*proc.Policy, error) {
	p := s.policy()
	p.RestrictConnect, p.Ports, p.AllowUDP = false, nil, false
	root := filepath.Join(s.recordsDir, "sealed", "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	lim := sealedLimits(s.m.Capabilities.Resources)
	p.Seal = &proc.Seal{Root: root, Etc: filepath.Join(s.recordsDir, "sealed", "etc"), Limits: lim, Name: s.id}
	return p, nil
}

// Cgroup is the cgroup of the session's tool processes, nil when none
// (StartConfig.Cgroup unset, or the machine offers none). cmd/mur kills and
// removes it once the session has ended.
func (s *Session) Cgroup() *proc.Cgroup { return s.cgroup }
