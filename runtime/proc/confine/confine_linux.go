package confine

import (
	"runtime"
	"syscall"
	"unsafe"
)

// Pending is the spec of a sealed start, which this package leaves to the
// sealed stage (package confine/sealed, whose init runs after this one's);
// nil in every other process.
var Pending *Spec

func init() {
	arg, ok := trampolineArg()
	if !ok {
		return
	}
	runtime.LockOSThread() // every step below is per thread, and so is the exec
	spec, code := readSpec(arg)
	if code != 0 {
		syscall.Exit(code)
	}
	if len(spec.Sealed) > 0 {
		Pending = &spec
		return
	}
	syscall.Exit(trampoline(&spec))
}

// trampolineArg is <fd> when this process was started as
// "<argv0> __confine <fd>" (read from /proc/self/cmdline: this package
// imports no os).
func trampolineArg() (string, bool) {
	fd, err := syscall.Open("/proc/self/cmdline", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	// argv0 may be a long path: room for PATH_MAX and the two arguments.
	var buf [4096 + 64]byte
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if m <= 0 {
			break
		}
		n += m
	}
	syscall.Close(fd)
	var args []string
	start := 0
	for i := 0; i < n; i++ {
		if buf[i] == 0 {
			args = append(args, string(buf[start:i]))
			start = i + 1
		}
	}
	if len(args) != 3 || args[1] != Command {
		return "", false
	}
	return args[2], true
}

// readSpec reads the spec from the memory file at fd; a code other than 0
// ends the process.
func readSpec(fdArg string) (Spec, int) {
	fd := 0
	for _, c := range fdArg {
		if c < '0' || c > '9' {
			fd = -1
			break
		}
		fd = fd*10 + int(c-'0')
	}
	if fd < 3 {
		stderr("mur: " + Command + " is started by the runtime only\n")
		return Spec{}, 2
	}
	var b []byte
	buf := make([]byte, 64<<10)
	for len(b) < 1<<20 {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if n <= 0 {
			break
		}
		b = append(b, buf[:n]...)
	}
	syscall.Close(fd)
	spec, ok := decodeSpec(b)
	if !ok {
		stderr("mur: " + Command + ": the spec cannot be read\n")
		return Spec{}, 2
	}
	syscall.CloseOnExec(spec.StatusFD)
	return spec, 0
}

func stderr(s string) { _, _ = syscall.Write(2, []byte(s)) }

// trampoline, on its locked thread: holds the protected paths read-only (in
// the mount namespace the sandbox gave the process), confines itself
// (Confine) and execs the command. A failed step is written to the status
// pipe and ends the process with Failed.
func trampoline(spec *Spec) int {
	for _, p := range spec.Protect {
		if err := bindReadOnly(p); err != nil {
			return Fail(spec.StatusFD, "read-only "+p, err)
		}
	}
	if step, err := Confine(spec, spec.RulesetFD); err != nil {
		return Fail(spec.StatusFD, step, err)
	}
	err := syscall.Exec(spec.Path, spec.Args, syscall.Environ())
	return Fail(spec.StatusFD, "exec", err)
}

// Confine drops every capability (bounding, ambient, effective, permitted,
// inheritable), sets no_new_privs, enters the Landlock domain of ruleset
// (and closes it) and installs the spec's seccomp filter, on this thread; a
// failure names its step.
func Confine(spec *Spec, ruleset int) (string, error) {
	if err := dropCapabilities(); err != nil {
		return "capabilities", err
	}
	if err := prctl(prSetNoNewPrivs, 1); err != nil {
		return "no_new_privs", err
	}
	if _, _, e := syscall.RawSyscall(sysLandlockRestrictSelf, uintptr(ruleset), 0, 0); e != 0 {
		return "landlock_restrict_self", e
	}
	_ = syscall.Close(ruleset)
	if len(spec.Seccomp) > 0 {
		prog := syscall.SockFprog{Len: uint16(len(spec.Seccomp)), Filter: &spec.Seccomp[0]}
		if err := prctl(prSetSeccomp, seccompModeFilter, uintptr(unsafe.Pointer(&prog))); err != nil {
			return "seccomp", err
		}
	}
	return "", nil
}

// Fail writes a failed step to the status pipe and returns Failed.
func Fail(statusFD int, step string, err error) int {
	r := Report{Step: step, Text: err.Error()}
	if errno, ok := err.(syscall.Errno); ok {
		r.Errno = int(errno)
	}
	_, _ = syscall.Write(statusFD, r.encode())
	return Failed
}

// The calls and constants the standard library does not name.
const (
	sysLandlockRestrictSelf = 446 // the same on every architecture
	prCapbsetDrop           = 24
	prSetSeccomp            = 22
	prSetNoNewPrivs         = 38
	prCapAmbient            = 47
	prCapAmbientClearAll    = 4
	seccompModeFilter       = 2
	capSetpcap              = 8
	capVersion3             = 0x20080522
)

// Prctl is prctl(2) with up to four arguments.
func Prctl(op uintptr, args ...uintptr) error { return prctl(op, args...) }

func prctl(op uintptr, args ...uintptr) error {
	var a [4]uintptr
	copy(a[:], args)
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, op, a[0], a[1], a[2], a[3], 0); e != 0 {
		return e
	}
	return nil
}

// bindReadOnly mounts path over itself read-only, keeping the flags of the
// mount it is on (a remount that dropped nosuid or nodev would be refused).
func bindReadOnly(path string) error {
	if err := syscall.Mount(path, path, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
		return err
	}
	return RemountReadOnly(path)
}

// RemountReadOnly makes the bind at path read-only, keeping the flags of the
// mount it came from.
func RemountReadOnly(path string) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return err
	}
	keep := uintptr(st.Flags) & (syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC | syscall.MS_NOATIME | syscall.MS_NODIRATIME | syscall.MS_RELATIME)
	return syscall.Mount("", path, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY|keep, "")
}

type capHeader struct {
	version uint32
	pid     int32
}

type capData struct{ effective, permitted, inheritable uint32 }

// dropCapabilities empties this thread's bounding set (when it may: that
// takes CAP_SETPCAP, which a non-root runtime lacks and no_new_privs then
// stands in for), its ambient set, and its effective, permitted and
// inheritable sets, so that the command runs without any capability even as
// root, and no exec can give one back.
func dropCapabilities() error {
	hdr := capHeader{version: capVersion3}
	var data [2]capData
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return e
	}
	if data[0].effective&(1<<capSetpcap) != 0 {
		for c := uintptr(0); ; c++ {
			err := prctl(prCapbsetDrop, c)
			if err == syscall.EINVAL { // past the last capability the kernel knows
				break
			}
			if err != nil {
				return err
			}
		}
	}
	if err := prctl(prCapAmbient, prCapAmbientClearAll); err != nil && err != syscall.EINVAL {
		return err
	}
	data = [2]capData{}
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return e
	}
	return nil
}
