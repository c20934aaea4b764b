package proc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"github.com/murmur-go/mur/runtime/proc/confine"
	_ "github.com/murmur-go/mur/runtime/proc/confine/sealed" // the trampoline's sealed stage
	"golang.org/x/sys/unix"
)

// LandlockABI is the Landlock ABI version the kernel offers, or an error
// saying why there is none.
func LandlockABI() (int, error) {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0, fmt.Errorf("landlock_create_ruleset: %w", err)
	}
	if v < 1 {
		return 0, ErrNoLandlock
	}
	return v, nil
}

// workdirRights are the rights under a read-write path: everything Landlock
// handles but making character and block devices (a root command could
// otherwise make a disk's node in its workdir and read the disk through it).
const workdirRights = landlock.AccessFSSet(0) | ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile |
	ll.AccessFSReadDir | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeDir | ll.AccessFSMakeReg |
	ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate |
	ll.AccessFSIoctlDev

// jail confines every command of a session through the trampoline
// (package confine): the command starts as a fresh re-exec of this
// binary that confines itself on one thread and then execs the command, so
// no thread of the runtime ever enters the session's Landlock domain. The
// jail holds what every start hands over: the Landlock ruleset (one fd,
// made once), the seccomp filter (assembled once), and the paths to hold
// read-only in the command's own mount namespace.
type jail struct {
	mu      sync.RWMutex // held for reading over a start, for writing by close
	ruleset *os.File     // nil once closed
	filter  []syscall.SockFilter
	protect []string
	mountNS bool            // each command gets its own mount namespace, for protect
	userNS  bool            // and a user namespace to own it (a runtime without CAP_SYS_ADMIN)
	sealed  *confine.Sealed // the composed root of a sealed session, but for the working directory
	limits  *limitGroup     // its cgroups
	notes   []string        // what a sealed session could not have, and why
}

// underAny reports whether path is one of dirs or below one.
func underAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if contains(d, []string{path}) {
			return true
		}
	}
	return false
}

// namespaces sets attr to start the command in a mount namespace of its
// own (Go makes its mounts private), owned by a new user namespace that
// maps the runtime's own uid and gid when the runtime may not make one
// itself.
func (j *jail) namespaces(attr *syscall.SysProcAttr) {
	if !j.mountNS {
		return
	}
	attr.Unshareflags |= syscall.CLONE_NEWNS
	if j.sealed != nil {
		attr.Cloneflags |= sealedNamespaces
	}
	if j.userNS {
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
		attr.GidMappingsEnableSetgroups = false
		// The trampoline keeps CAP_SYS_ADMIN in that namespace across its
		// exec, for its mounts (and CAP_NET_ADMIN, sealed, to bring up lo);
		// it drops them with every other.
		attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
		if j.sealed != nil {
			attr.AmbientCaps = append(attr.AmbientCaps, unix.CAP_NET_ADMIN)
		}
	}
}

// probeNamespaces starts a process with the namespaces the commands get,
// one that cannot exec: ENOENT says they could be made.
func (j *jail) probeNamespaces() error {
	cmd := exec.Command("/nonexistent-mur-namespace-probe")
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	j.namespaces(cmd.SysProcAttr)
	err := startDumpable(cmd)
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

func newJail(p *Policy) (*jail, error) {
	abi, err := LandlockABI()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoLandlock, err)
	}
	cfg := landlock.Config{HandledAccessFS: landlock.V7.HandledAccessFS, Scoped: landlock.V7.Scoped}
	cfg.HandledAccessNet = ll.AccessNetBindTCP
	if p.RestrictConnect {
		cfg.HandledAccessNet |= ll.AccessNetConnectTCP
	}
	fd, _, err := cfg.BestEffort().NewRulesetFD(p.rules()...)
	if err != nil {
		return nil, fmt.Errorf("landlock ruleset: %w", err)
	}
	if fd < 0 {
		return nil, ErrNoLandlock
	}
	unix.CloseOnExec(fd) // handed only to the trampolines, as one of their ExtraFiles
	filter, err := seccompFilter(p.AllowUDP)
	if err != nil {
		_ = unix.Close(fd)
		return nil, err
	}
	j := &jail{ruleset: os.NewFile(uintptr(fd), "landlock-ruleset"), filter: filter}
	if p.Seal != nil {
		return j.seal(p, abi)
	}
	for _, path := range p.Protect {
		if _, err := os.Lstat(path); err == nil && underAny(path, p.ReadWrite) {
			j.protect = append(j.protect, path)
		}
	}
	if len(j.protect) > 0 {
		j.mountNS = true
		j.userNS = !hasCap(unix.CAP_SYS_ADMIN)
		if err := j.probeNamespaces(); err != nil {
			j.ruleset.Close()
			return nil, fmt.Errorf("%w: holding %s read-only needs a mount namespace: %v", ErrNoLandlock, j.protect[0], err)
		}
	}
	return j, nil
}

// rules turns the policy into Landlock rules over the paths that exist.
func (p *Policy) rules() []landlock.Rule {
	var rules []landlock.Rule
	rwDirs, rwFiles := existing(p.ReadWrite)
	roDirs, roFiles := existing(append(append([]string(nil), SystemPaths...), p.ReadOnly...))
	_, devRW := existing(devicesRW)
	_, devRO := existing(devicesRO)
	if len(rwDirs) > 0 {
		rules = append(rules, landlock.PathAccess(workdirRights, rwDirs...))
	}
	if len(rwFiles)+len(devRW) > 0 {
		rules = append(rules, landlock.RWFiles(append(rwFiles, devRW...)...))
	}
	if len(roDirs) > 0 {
		rules = append(rules, landlock.RODirs(roDirs...))
	}
	if len(roFiles)+len(devRO) > 0 {
		rules = append(rules, landlock.ROFiles(append(roFiles, devRO...)...))
	}
	if p.RestrictConnect {
		for _, port := range p.Ports {
			rules = append(rules, landlock.ConnectTCP(port))
		}
	}
	for _, port := range p.Listen {
		rules = append(rules, landlock.BindTCP(port))
	}
	return rules
}

// start starts cmd through the trampoline and returns once the command
// itself runs (the trampoline's exec closed the status pipe) or the
// trampoline has failed, with the failure as the error (the process is then
// reaped). cmd's Path, Args and ExtraFiles are as given when start returns.
func (j *jail) start(cmd *exec.Cmd) error {
	j.mu.RLock()
	defer j.mu.RUnlock()
	if j.ruleset == nil {
		return errJailClosed
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer statusR.Close()
	base := 3 + len(cmd.ExtraFiles)
	spec := confine.Spec{Path: cmd.Path, Args: cmd.Args, StatusFD: base + 1, RulesetFD: base + 2,
		Seccomp: j.filter, Protect: j.protect}
	var cgroups []*os.File
	if j.sealed != nil {
		sealed := *j.sealed
		if sealed.Dir = cmd.Dir; sealed.Dir == "" {
			sealed.Dir, _ = os.Getwd()
		}
		for i, f := range j.limits.procs {
			sealed.CgroupFD = append(sealed.CgroupFD, base+3+i)
			cgroups = append(cgroups, f)
		}
		if spec.Sealed, err = json.Marshal(&sealed); err != nil {
			statusR.Close()
			statusW.Close()
			return err
		}
	}
	specFile, err := specMemfd(&spec)
	if err != nil {
		statusW.Close()
		return err
	}
	path, args, extra := cmd.Path, cmd.Args, cmd.ExtraFiles
	cmd.Path, cmd.Args = "/proc/self/exe", []string{args[0], confine.Command, strconv.Itoa(base)}
	cmd.ExtraFiles = append(append(append([]*os.File(nil), extra...), specFile, statusW, j.ruleset), cgroups...)
	j.namespaces(cmd.SysProcAttr)
	if j.userNS {
		err = startDumpable(cmd)
	} else {
		err = cmd.Start()
	}
	cmd.Path, cmd.Args, cmd.ExtraFiles = path, args, extra
	specFile.Close()
	statusW.Close() // the trampoline holds its own copy now (or never will)
	if err != nil {
		return err
	}
	report, _ := io.ReadAll(io.LimitReader(statusR, 64<<10))
	if len(report) == 0 {
		return nil
	}
	_ = cmd.Wait()
	return trampolineError(path, report)
}

var errJailClosed = errors.New("the session's confined starter is closed")

func (j *jail) close() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.ruleset != nil {
		j.ruleset.Close()
		j.ruleset = nil
	}
	j.limits.remove()
	j.limits = nil
}

// seal makes j a sealed jail: its composed root, its cgroups, and a
// rehearsal of a start; the error says which step the machine refused.
func (j *jail) seal(p *Policy, abi int) (*jail, error) {
	sp, err := sealedSpec(p, abi)
	if err != nil {
		j.close()
		return nil, fmt.Errorf("%w: sealed: %v", ErrNoLandlock, err)
	}
	j.sealed, j.mountNS, j.userNS = sp, true, !hasCap(unix.CAP_SYS_ADMIN)
	if !j.userNS {
		j.limits, j.notes = newLimitGroup(p.Seal.Name, p.Seal.Limits)
	} else {
		j.limits = &limitGroup{}
		j.notes = append(j.notes, "no cgroup for the sealed tool processes: the runtime is not root (the rlimits hold)")
	}
	if err := j.probeSealed(); err != nil {
		j.close()
		return nil, fmt.Errorf("%w: sealed: %v", ErrNoSeal, err)
	}
	return j, nil
}

// specMemfd writes spec into a memory file, at offset 0.
func specMemfd(spec *confine.Spec) (*os.File, error) {
	fd, err := unix.MemfdCreate("mur-confine", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "mur-confine")
	if _, err := f.Write(spec.Encode()); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// trampolineError turns the trampoline's report into the start's error: an
// exec that failed is the *os.PathError os/exec would have returned (so
// StartErrText reads the same), any other step says which it was.
func trampolineError(path string, report []byte) error {
	r, ok := confine.ParseReport(report)
	if !ok {
		return fmt.Errorf("confining the command failed: %s", report)
	}
	if r.Step == "exec" && r.Errno != 0 {
		return &os.PathError{Op: "fork/exec", Path: path, Err: syscall.Errno(r.Errno)}
	}
	return fmt.Errorf("confining the command failed: %s: %s", r.Step, r.Text)
}

// dumpable counts the starts that need this process dumpable.
var dumpable struct {
	sync.Mutex
	n    int
	was0 bool
}

// startDumpable starts cmd with this process dumpable meanwhile: a start
// into a new user namespace writes the child's uid_map, which the kernel
// refuses to a runtime without CAP_SYS_ADMIN while the child (a copy of
// this process) is non-dumpable. A confined tool still cannot read this
// process then: it has no capability and is in a Landlock domain, whose
// ptrace scope refuses it.
func startDumpable(cmd *exec.Cmd) error {
	dumpable.Lock()
	if dumpable.n == 0 {
		v, _ := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
		dumpable.was0 = v == 0
		_ = unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0)
	}
	dumpable.n++
	dumpable.Unlock()
	err := cmd.Start()
	dumpable.Lock()
	dumpable.n--
	if dumpable.n == 0 && dumpable.was0 {
		_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	}
	dumpable.Unlock()
	return err
}

// hasCap reports whether this thread has capability c in its effective set.
func hasCap(c int) bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[c/32].Effective&(1<<(uint(c)%32)) != 0
}
