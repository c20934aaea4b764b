package sealed

import (
	"encoding/json"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"unsafe"

	"github.com/murmur-go/mur/runtime/proc/confine"
)

func init() {
	spec := confine.Pending
	if spec == nil {
		return
	}
	runtime.LockOSThread()
	var s confine.Sealed
	if err := json.Unmarshal(spec.Sealed, &s); err != nil {
		os.Exit(confine.Fail(spec.StatusFD, "sealed spec", err))
	}
	os.Exit(run(spec, &s))
}

// run is the sealed trampoline: the composed root and the namespaces'
// state (seal), its own Landlock ruleset, the common confinement, then the
// command as its one child (initLoop).
func run(spec *confine.Spec, s *confine.Sealed) int {
	if step, err := seal(s); err != nil {
		return confine.Fail(spec.StatusFD, step, err)
	}
	_ = syscall.Close(spec.RulesetFD) // the session's, over host paths
	ruleset, err := sealedRuleset(s)
	if err != nil {
		return confine.Fail(spec.StatusFD, "landlock ruleset", err)
	}
	if step, err := confine.Confine(spec, ruleset); err != nil {
		return confine.Fail(spec.StatusFD, step, err)
	}
	_ = confine.Prctl(prSetDumpable, 0)
	return initLoop(spec, s)
}

const (
	sysLandlockCreateRuleset = 444
	sysLandlockAddRule       = 445
	landlockRulePathBeneath  = 1
	landlockFileRights       = 1<<0 | 1<<1 | 1<<2 | 1<<14 | 1<<15 // execute, write, read, truncate, ioctl_dev
	sysPivotRoot             = 155
	siocsifflags             = 0x8914
	siocgifflags             = 0x8913
	iffUp                    = 0x1
	oPath                    = 0x200000
	prSetDumpable            = 4
)

// seal builds the composed root and the namespaces' state, on the locked
// thread, before the confinement steps common with scoped. A failure names
// its step.
func seal(s *confine.Sealed) (string, error) {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return "mount private", err
	}
	if err := syscall.Mount("tmpfs", s.Root, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=0755,size=1m"); err != nil {
		return "mount root", err
	}
	for _, m := range s.Mounts {
		if err := compose(s.Root, m); err != nil {
			return "mount " + m.Dst, err
		}
	}
	if err := syscall.Chdir(s.Root); err != nil {
		return "pivot_root", err
	}
	if _, _, e := syscall.RawSyscall(sysPivotRoot, uintptr(unsafe.Pointer(dot)), uintptr(unsafe.Pointer(dot)), 0); e != 0 {
		return "pivot_root", e
	}
	if err := syscall.Unmount(".", syscall.MNT_DETACH); err != nil {
		return "pivot_root", err
	}
	if err := syscall.Mount("", "/", "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV, ""); err != nil {
		return "read-only root", err
	}
	if err := syscall.Chdir(s.Dir); err != nil {
		return "chdir", err
	}
	if s.Hostname != "" {
		if err := syscall.Sethostname([]byte(s.Hostname)); err != nil {
			return "hostname", err
		}
	}
	if err := loopbackUp(); err != nil {
		return "loopback", err
	}
	return "", nil
}

// limit joins the session's cgroups and sets the rlimits, last before the
// command starts: both count this process too (its threads, its address
// space), which must have started every thread it needs by then.
func limit(s *confine.Sealed) (string, error) {
	for _, fd := range s.CgroupFD {
		f := os.NewFile(uintptr(fd), "cgroup.procs")
		_, err := f.WriteString("0\n")
		f.Close()
		if err != nil {
			return "cgroup", err
		}
	}
	for _, l := range s.Limits {
		if err := syscall.Setrlimit(l.Resource, &syscall.Rlimit{Cur: l.Max, Max: l.Max}); err != nil {
			return "rlimit", err
		}
	}
	return "", nil
}

var dot = &[]byte(".\x00")[0]

// compose puts one mount into the root at root.
func compose(root string, m confine.Mount) error {
	dst := filepath.Join(root, m.Dst)
	switch m.Kind {
	case "proc":
		if err := os.MkdirAll(dst, 0o555); err != nil {
			return err
		}
		return syscall.Mount("proc", dst, "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "")
	case "tmp":
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return err
		}
		return syscall.Mount("tmpfs", dst, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=1777,size=64m")
	case "dev":
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return err
		}
		for _, n := range m.Names {
			if err := bindInto("/dev/"+n, filepath.Join(dst, n), false); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
		for i, n := range []string{"stdin", "stdout", "stderr"} {
			if err := os.Symlink("/proc/self/fd/"+string(rune('0'+i)), filepath.Join(dst, n)); err != nil {
				return err
			}
		}
		return os.Symlink("/proc/self/fd", filepath.Join(dst, "fd"))
	default:
		err := bindInto(m.Src, dst, m.Kind == "ro")
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
}

// bindInto binds src at dst, making dst (a directory or an empty file, as
// src is) and its parents first; readOnly remounts it read-only.
func bindInto(src, dst string, readOnly bool) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		err = os.MkdirAll(dst, 0o755)
	} else if err = os.MkdirAll(filepath.Dir(dst), 0o755); err == nil {
		var f *os.File
		if f, err = os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			f.Close()
		}
	}
	if err != nil {
		return err
	}
	if !readOnly {
		return syscall.Mount(src, dst, "", syscall.MS_BIND|syscall.MS_REC, "")
	}
	if err := syscall.Mount(src, dst, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return err
	}
	return confine.RemountReadOnly(dst)
}

// loopbackUp brings up lo, the one interface of the new network namespace.
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var req struct {
		name  [16]byte
		flags uint16
		_     [22]byte
	}
	copy(req.name[:], "lo")
	if _, _, e := syscall.RawSyscall(syscall.SYS_IOCTL, uintptr(fd), siocgifflags, uintptr(unsafe.Pointer(&req))); e != 0 {
		return e
	}
	req.flags |= iffUp
	if _, _, e := syscall.RawSyscall(syscall.SYS_IOCTL, uintptr(fd), siocsifflags, uintptr(unsafe.Pointer(&req))); e != 0 {
		return e
	}
	return nil
}

// sealedRuleset makes the Landlock ruleset over the composed root's paths
// (the host's inodes the runtime could name are not the root's: a fresh
// proc, the device directory, and the root itself are new).
func sealedRuleset(s *confine.Sealed) (int, error) {
	// Fields past what the kernel knows are zero (the runtime masked them
	// by its ABI), which every ABI accepts.
	attr := struct{ fs, net, scoped uint64 }{fs: s.HandledFS, scoped: s.Scoped}
	fd, _, e := syscall.RawSyscall(sysLandlockCreateRuleset, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if e != 0 {
		return -1, e
	}
	for _, r := range s.Rules {
		pfd, err := syscall.Open(r.Path, oPath|syscall.O_CLOEXEC, 0)
		if err != nil {
			continue // not in this root
		}
		access := r.Access & s.HandledFS
		var st syscall.Stat_t
		if syscall.Fstat(pfd, &st) == nil && st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			access &= landlockFileRights
		}
		// The kernel's struct is packed: 8 bytes of rights, then the fd.
		rule := struct {
			access uint64
			parent int32
		}{access, int32(pfd)}
		_, _, e := syscall.RawSyscall6(sysLandlockAddRule, fd, landlockRulePathBeneath, uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
		syscall.Close(pfd)
		if e != 0 {
			syscall.Close(int(fd))
			return -1, e
		}
	}
	return int(fd), nil
}

// initLoop starts the command as this init's child, then waits: signals
// this process receives are passed on to the child, every orphan is reaped,
// and the child's end is this process's (a signal's as 128+n: an init
// cannot be ended by its own signal).
func initLoop(spec *confine.Spec, s *confine.Sealed) int {
	files := make([]uintptr, spec.StatusFD-1) // the command's own: those before the spec's memory file
	for i := range files {
		files[i] = uintptr(i)
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
	if step, err := limit(s); err != nil {
		return confine.Fail(spec.StatusFD, step, err)
	}
	pid, err := syscall.ForkExec(spec.Path, spec.Args, &syscall.ProcAttr{Env: os.Environ(), Files: files})
	if err != nil {
		return confine.Fail(spec.StatusFD, "exec", err)
	}
	_ = syscall.Close(spec.StatusFD)
	go func() {
		for s := range sigs {
			_ = syscall.Kill(pid, s.(syscall.Signal))
		}
	}()
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return confine.Failed
		}
		if got != pid {
			continue
		}
		switch {
		case ws.Exited():
			return ws.ExitStatus()
		case ws.Signaled():
			return 128 + int(ws.Signal())
		}
	}
}
