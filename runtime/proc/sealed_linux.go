package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"github.com/murmur-go/mur/runtime/proc/confine"
	"golang.org/x/sys/unix"
)

// Landlock's rights as the sealed trampoline's own ruleset names them.
const (
	roDirRights  = uint64(ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir)
	rwFileRights = uint64(ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate)
)

// handledFS is every filesystem right the kernel's Landlock ABI knows.
func handledFS(abi int) uint64 {
	m := uint64(1)<<13 - 1 // ABI 1: execute … make_sym
	if abi >= 2 {
		m |= uint64(ll.AccessFSRefer)
	}
	if abi >= 3 {
		m |= uint64(ll.AccessFSTruncate)
	}
	if abi >= 5 {
		m |= uint64(ll.AccessFSIoctlDev)
	}
	return m
}

// sealedSpec is the composed root every sealed start of the session
// builds, but for the command's working directory: the system directories,
// /etc's entries and the synthetic accounts, the read-only paths (PATH
// directories, stores), the read-write paths at their own paths, a private
// /tmp, a fresh /proc and a /dev of SealedDevices; then the protected paths
// read-only over the read-write ones. Its Landlock rules name the same
// paths inside the root.
func sealedSpec(p *Policy, abi int) (*confine.Sealed, error) {
	s := p.Seal
	if err := writeAccounts(s.Etc, p.ReadWrite); err != nil {
		return nil, err
	}
	sp := &confine.Sealed{Root: s.Root, HandledFS: handledFS(abi), Hostname: "mur-sealed"}
	if abi >= 6 {
		sp.Scoped = uint64(ll.ScopeAbstractUnixSocket | ll.ScopeSignal)
	}
	ro := func(src, dst string) {
		sp.Mounts = append(sp.Mounts, confine.Mount{Kind: "ro", Src: src, Dst: dst})
		sp.Rules = append(sp.Rules, confine.Rule{Path: dst, Access: roDirRights})
	}
	for _, d := range SealedSystemPaths {
		ro(d, d)
	}
	for _, e := range SealedEtc {
		ro("/etc/"+e, "/etc/"+e)
	}
	ro(filepath.Join(s.Etc, "passwd"), "/etc/passwd")
	ro(filepath.Join(s.Etc, "group"), "/etc/group")
	for _, d := range p.ReadOnly {
		ro(d, d)
	}
	sp.Mounts = append(sp.Mounts, confine.Mount{Kind: "tmp", Dst: "/tmp"})
	sp.Rules = append(sp.Rules, confine.Rule{Path: "/tmp", Access: uint64(workdirRights)})
	for _, d := range p.ReadWrite {
		sp.Mounts = append(sp.Mounts, confine.Mount{Kind: "rw", Src: d, Dst: d})
		sp.Rules = append(sp.Rules, confine.Rule{Path: d, Access: uint64(workdirRights)})
	}
	// Stable by depth: a parent before what lies below it, a protected
	// path after the read-write path it is in.
	sort.SliceStable(sp.Mounts, func(i, j int) bool { return depth(sp.Mounts[i].Dst) < depth(sp.Mounts[j].Dst) })
	for _, d := range p.Protect {
		if _, err := os.Lstat(d); err == nil {
			sp.Mounts = append(sp.Mounts, confine.Mount{Kind: "ro", Src: d, Dst: d})
		}
	}
	sp.Mounts = append(sp.Mounts, confine.Mount{Kind: "proc", Dst: "/proc"},
		confine.Mount{Kind: "dev", Dst: "/dev", Names: SealedDevices})
	sp.Rules = append(sp.Rules, confine.Rule{Path: "/proc", Access: roDirRights},
		confine.Rule{Path: "/dev/null", Access: rwFileRights})
	for _, n := range SealedDevices[1:] {
		sp.Rules = append(sp.Rules, confine.Rule{Path: "/dev/" + n, Access: uint64(ll.AccessFSReadFile)})
	}
	l := s.Limits
	for _, r := range []struct {
		res int
		max uint64
	}{{unix.RLIMIT_NPROC, l.Processes}, {unix.RLIMIT_NOFILE, l.OpenFiles}, {unix.RLIMIT_FSIZE, l.FileSize},
		{unix.RLIMIT_AS, l.AddressSpace}, {unix.RLIMIT_CPU, l.CPUSeconds}} {
		if r.max > 0 {
			sp.Limits = append(sp.Limits, confine.Limit{Resource: r.res, Max: r.max})
		}
	}
	return sp, nil
}

func depth(p string) int { return strings.Count(filepath.Clean(p), "/") }

// writeAccounts writes the composed root's passwd and group into dir: root,
// and the runtime's uid and gid as "tool" with the shell's HOME (the second
// read-write path) as its home.
func writeAccounts(dir string, rw []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	home := "/"
	if len(rw) > 1 {
		home = rw[1]
	}
	passwd := "root:x:0:0:root:/root:/bin/sh\n"
	group := "root:x:0:\n"
	if uid, gid := os.Getuid(), os.Getgid(); uid != 0 {
		passwd += fmt.Sprintf("tool:x:%d:%d:tool:%s:/bin/sh\n", uid, gid, home)
		group += fmt.Sprintf("tool:x:%d:\n", gid)
	}
	if err := os.WriteFile(filepath.Join(dir, "passwd"), []byte(passwd), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "group"), []byte(group), 0o644)
}

// limitGroup is the cgroup (v1 pids and memory hierarchies, each where the
// runtime may make one) holding a sealed session's tool processes to
// Limits.Processes and Limits.Memory: each trampoline joins it before it
// starts its command, through the cgroup.procs files held open here.
type limitGroup struct {
	dirs  []string
	procs []*os.File
}

// newLimitGroup makes name's cgroups; notes say why one was not made.
func newLimitGroup(name string, l Limits) (*limitGroup, []string) {
	g := &limitGroup{}
	var notes []string
	for _, c := range []struct {
		controller, file string
		max              uint64
	}{{"pids", "pids.max", l.CgroupPids}, {"memory", "memory.limit_in_bytes", l.CgroupMemory}} {
		if c.max == 0 {
			continue
		}
		if err := g.add(c.controller, name, c.file, c.max); err != nil {
			notes = append(notes, fmt.Sprintf("no %s cgroup for the sealed tool processes: %v", c.controller, err))
		}
	}
	return g, notes
}

func (g *limitGroup) add(controller, name, file string, max uint64) error {
	own, err := ownV1Dir(controller)
	if err != nil {
		return err
	}
	pruneCgroups(own)
	dir := filepath.Join(own, CgroupPrefix+strconv.Itoa(os.Getpid())+"-"+name)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(strconv.FormatUint(max, 10)), 0); err != nil {
		_ = unix.Rmdir(dir)
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, "cgroup.procs"), os.O_WRONLY, 0)
	if err != nil {
		_ = unix.Rmdir(dir)
		return err
	}
	g.dirs, g.procs = append(g.dirs, dir), append(g.procs, f)
	return nil
}

// remove kills what is left in the group and removes it.
func (g *limitGroup) remove() {
	if g == nil {
		return
	}
	for i, dir := range g.dirs {
		g.procs[i].Close()
		KillCgroup(dir)
		_ = unix.Rmdir(dir)
	}
	g.dirs, g.procs = nil, nil
}

// ownV1Dir is this process's directory in the cgroup v1 hierarchy of
// controller.
func ownV1Dir(controller string) (string, error) {
	mnt := filepath.Join("/sys/fs/cgroup", controller)
	var st unix.Statfs_t
	if err := unix.Statfs(mnt, &st); err != nil || st.Type != unix.CGROUP_SUPER_MAGIC {
		return "", fmt.Errorf("no cgroup v1 %s hierarchy at %s", controller, mnt)
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) == 3 && f[1] == controller {
			return filepath.Join(mnt, filepath.Clean("/"+f[2])), nil
		}
	}
	return "", fmt.Errorf("this process is in no %s cgroup", controller)
}

// sealedNamespaces are the namespaces a sealed trampoline starts in, besides
// its mount namespace.
const sealedNamespaces = syscall.CLONE_NEWPID | syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS

// probeSealed rehearses a sealed start through the whole composed root up
// to the exec, of a command that does not exist: ENOENT says every step
// before it worked.
func (j *jail) probeSealed() error {
	cmd := exec.Command("/nonexistent-mur-sealed-probe")
	cmd.Dir = "/"
	cmd.SysProcAttr = SysProcAttr()
	err := j.start(cmd)
	if err == nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil
	}
	if errors.Is(err, syscall.ENOENT) {
		return nil
	}
	return err
}

// Mark is a sandbox's limit counters at one moment: how often the session
// cgroup refused a process (pids.events max) and killed one for memory
// (memory.oom_control oom_kill).
type Mark struct{ pids, oom uint64 }

// Mark reads the counters now; zero outside a sealed sandbox with cgroups.
func (sb *Sandbox) Mark() Mark {
	if sb == nil || sb.jail == nil || sb.jail.limits == nil {
		return Mark{}
	}
	var m Mark
	for _, dir := range sb.jail.limits.dirs {
		m.pids += counter(filepath.Join(dir, "pids.events"), "max")
		m.oom += counter(filepath.Join(dir, "memory.oom_control"), "oom_kill")
	}
	return m
}

// LimitsHit names the capabilities.resources fields a command that ended as ps met since
// mark: a file-size or CPU signal in its exit (the code 128+n a sealed init
// exits with, or a shell reports), the cgroup's refused processes or memory
// kills. Nil outside a sealed sandbox.
func (sb *Sandbox) LimitsHit(mark Mark, ps *os.ProcessState) []string {
	if sb.Class() != Sealed || ps == nil {
		return nil
	}
	var hit []string
	switch ps.ExitCode() {
	case 128 + int(syscall.SIGXFSZ):
		hit = append(hit, "max_file_size_bytes")
	case 128 + int(syscall.SIGXCPU):
		hit = append(hit, "cpu_seconds")
	}
	now := sb.Mark()
	if now.pids > mark.pids {
		hit = append(hit, "cgroup_pids_max")
	}
	if now.oom > mark.oom {
		hit = append(hit, "cgroup_memory_bytes")
	}
	return hit
}

// counter reads the number after key in a "key value" lines file; 0 when
// there is none.
func counter(path, key string) uint64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+" "); ok {
			n, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
