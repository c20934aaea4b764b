package confine

import (
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"unsafe"
)

// Sealed is the part of a Spec that the sealed class adds: the trampoline
// then runs as the init (pid 1) of the PID, network, IPC and UTS namespaces
// the sandbox started it in, builds the composed root in its own mount
// namespace, pivots into it, applies its resource limits and its own
// Landlock ruleset over the composed paths, confines itself as under
// scoped, and starts the command as its one child, which it waits for,
// forwarding signals and reaping every orphan, and whose exit it exits with.
type Sealed struct {
	Root      string  `json:"root"`   // an empty host directory the composed root is mounted on
	Mounts    []Mount `json:"mounts"` // in order: a parent before what lies below it
	Dir       string  `json:"dir"`    // the command's working directory inside the root
	HandledFS uint64  `json:"handled_fs"`
	Scoped    uint64  `json:"scoped"`
	Rules     []Rule  `json:"rules"` // paths inside the root
	Limits    []Limit `json:"limits"`
	CgroupFD  []int   `json:"cgroup_fds,omitempty"` // cgroup.procs files to join, each inherited
	Hostname  string  `json:"hostname"`
}

// Mount is one entry of the composed root: Kind "rw" or "ro" binds Src at
// Dst (a directory or a file, as Src is; an Src that does not exist is left
// out), "tmp" mounts a private tmpfs (64 MiB) at Dst, "proc" mounts a fresh proc of the new PID namespace at Dst, "dev"
// makes Dst a directory of the bound device files Names (plus fd, stdin,
// stdout, stderr links into /proc/self/fd).
type Mount struct {
	Kind  string   `json:"kind"`
	Src   string   `json:"src,omitempty"`
	Dst   string   `json:"dst"`
	Names []string `json:"names,omitempty"`
}

// Rule is one Landlock path-beneath rule: Access masked by what the path is
// (a file takes the file rights only) and by Sealed.HandledFS.
type Rule struct {
	Path   string `json:"path"`
	Access uint64 `json:"access"`
}

// Limit is one setrlimit(2) resource, soft and hard both Max.
type Limit struct {
	Resource int    `json:"resource"`
	Max      uint64 `json:"max"`
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
)

// seal builds the composed root and the namespaces' state, on the locked
// thread, before the confinement steps common with scoped. A failure names
// its step.
func seal(s *Sealed) (string, error) {
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
func limit(s *Sealed) (string, error) {
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
func compose(root string, m Mount) error {
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
	return remountReadOnly(dst)
}

// remountReadOnly makes the bind at path read-only, keeping the flags of the
// mount it came from (a remount that dropped nosuid or nodev is refused).
func remountReadOnly(path string) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return err
	}
	keep := uintptr(st.Flags) & (syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC | syscall.MS_NOATIME | syscall.MS_NODIRATIME | syscall.MS_RELATIME)
	return syscall.Mount("", path, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY|keep, "")
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
func sealedRuleset(s *Sealed) (int, error) {
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
func initLoop(spec *Spec, status *os.File) int {
	files := make([]uintptr, spec.StatusFD)
	for i := range files {
		files[i] = uintptr(i)
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
	if step, err := limit(spec.Sealed); err != nil {
		return reportFailure(status, step, err)
	}
	pid, err := syscall.ForkExec(spec.Path, spec.Args, &syscall.ProcAttr{Env: os.Environ(), Files: files})
	if err != nil {
		return reportFailure(status, "exec", err)
	}
	status.Close()
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
			return Failed
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
