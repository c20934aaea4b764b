package confine

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	goruntime "runtime"
	"strconv"
	"syscall"
	"unsafe"
)

// Spec is what the sandbox hands the trampoline, through an inherited memory
// file (never argv or the environment): the command, the inherited fds of
// the status pipe and the Landlock ruleset, the seccomp filter, and the
// paths to hold read-only in the process's own mount namespace.
type Spec struct {
	Path      string               `json:"path"`
	Args      []string             `json:"args"`
	StatusFD  int                  `json:"status_fd"`
	RulesetFD int                  `json:"ruleset_fd"`
	Seccomp   []syscall.SockFilter `json:"seccomp"`
	Protect   []string             `json:"protect,omitempty"`
	Sealed    *Sealed              `json:"sealed,omitempty"`
}

// Report is what the trampoline writes to the status pipe when a step
// fails; an exec that succeeds closes the pipe unwritten.
type Report struct {
	Step  string `json:"step"`
	Errno int    `json:"errno,omitempty"`
	Text  string `json:"text"`
}

func init() {
	if len(os.Args) == 3 && os.Args[1] == Command {
		goruntime.LockOSThread() // every step below is per thread, and so is the exec
		os.Exit(trampoline(os.Args[2]))
	}
}

// trampoline, on its locked thread: holds the protected paths read-only (in
// the mount namespace the sandbox gave the process), drops every capability
// (bounding, ambient, effective, permitted, inheritable), sets
// no_new_privs, enters the session's Landlock domain, installs the seccomp
// filter, and execs the command. A failed step is written to the status
// pipe and ends the process with Failed.
func trampoline(fdArg string) int {
	fd, err := strconv.Atoi(fdArg)
	if err != nil || fd < 3 {
		os.Stderr.WriteString("mur: " + Command + " is started by the runtime only\n")
		return 2
	}
	specFile := os.NewFile(uintptr(fd), "spec")
	var spec Spec
	err = json.NewDecoder(io.LimitReader(specFile, 1<<20)).Decode(&spec)
	specFile.Close()
	if err != nil {
		os.Stderr.WriteString("mur: " + Command + ": " + err.Error() + "\n")
		return 2
	}
	status := os.NewFile(uintptr(spec.StatusFD), "status")
	fail := func(step string, err error) int { return reportFailure(status, step, err) }
	syscall.CloseOnExec(spec.StatusFD)
	ruleset := spec.RulesetFD
	if spec.Sealed != nil {
		if step, err := seal(spec.Sealed); err != nil {
			return fail(step, err)
		}
		_ = syscall.Close(spec.RulesetFD) // the session's, over host paths
		if ruleset, err = sealedRuleset(spec.Sealed); err != nil {
			return fail("landlock ruleset", err)
		}
	}
	for _, p := range spec.Protect {
		if err := bindReadOnly(p); err != nil {
			return fail("read-only "+p, err)
		}
	}
	if err := dropCapabilities(); err != nil {
		return fail("capabilities", err)
	}
	if err := prctl(prSetNoNewPrivs, 1); err != nil {
		return fail("no_new_privs", err)
	}
	if _, _, e := syscall.RawSyscall(sysLandlockRestrictSelf, uintptr(ruleset), 0, 0); e != 0 {
		return fail("landlock_restrict_self", e)
	}
	_ = syscall.Close(ruleset)
	if len(spec.Seccomp) > 0 {
		prog := syscall.SockFprog{Len: uint16(len(spec.Seccomp)), Filter: &spec.Seccomp[0]}
		if err := prctl(prSetSeccomp, seccompModeFilter, uintptr(unsafe.Pointer(&prog))); err != nil {
			return fail("seccomp", err)
		}
	}
	if spec.Sealed != nil {
		_ = prctl(prSetDumpable, 0)
		return initLoop(&spec, status)
	}
	err = syscall.Exec(spec.Path, spec.Args, os.Environ())
	return fail("exec", err)
}

// reportFailure writes a failed step to the status pipe.
func reportFailure(status *os.File, step string, err error) int {
	r := Report{Step: step, Text: err.Error()}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		r.Errno = int(errno)
	}
	b, _ := json.Marshal(r)
	_, _ = status.Write(b)
	return Failed
}

// The calls and constants the standard library does not name.
const (
	sysLandlockRestrictSelf = 446 // the same on every architecture
	prCapbsetDrop           = 24
	prSetSeccomp            = 22
	prSetDumpable           = 4
	prSetNoNewPrivs         = 38
	prCapAmbient            = 47
	prCapAmbientClearAll    = 4
	seccompModeFilter       = 2
	capSetpcap              = 8
	capVersion3             = 0x20080522
)

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
