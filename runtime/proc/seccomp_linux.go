package proc

import (
	"fmt"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// refusedSyscalls are the calls no confined command may make: reaching
// another process's memory (ptrace, process_vm_*), the kernel's own state
// (kexec, bpf, perf_event_open, modules, keyrings), the mount table and the
// namespaces (which would undo the read-only paths or escape the domain), and
// io_uring (whose operations pass by this filter). Names this architecture
// lacks are skipped.
var refusedSyscalls = []string{
	"ptrace", "process_vm_readv", "process_vm_writev",
	"kexec_load", "kexec_file_load", "bpf", "perf_event_open",
	"mount", "umount2", "umount", "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr", "pivot_root",
	"unshare", "setns",
	"keyctl", "add_key", "request_key",
	"init_module", "finit_module", "delete_module",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
}

// cloneNamespaces are clone's flags that make a new namespace.
const cloneNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// seccompFilter assembles the filter every confined command runs under: the
// refused calls fail with EPERM; clone with a namespace flag too; clone3
// (whose flags a filter cannot read) with ENOSYS, so that libc falls back to
// clone; and, unless allowUDP, every IPv4 or IPv6 socket that is not a
// stream (UDP, raw, SCTP: Landlock holds TCP only) and every packet socket.
// A call from another architecture's ABI (int 0x80 on x86-64) is refused
// with ENOSYS before any of it, so none of it can be passed by.
func seccompFilter(allowUDP bool) ([]syscall.SockFilter, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	var names []string
	for _, n := range refusedSyscalls {
		if _, ok := info.SyscallNames[n]; ok {
			names = append(names, n)
		}
	}
	refused := seccomp.SyscallGroup{Names: names, Action: seccomp.ActionErrno}
	refused.NamesWithCondtions = append(refused.NamesWithCondtions, seccomp.NameWithConditions{Name: "clone",
		Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: cloneNamespaces}}})
	if !allowUDP {
		for _, domain := range []uint64{unix.AF_INET, unix.AF_INET6} {
			// SOCK_STREAM is 1; every other type has bit 1 or 2 set.
			refused.NamesWithCondtions = append(refused.NamesWithCondtions, seccomp.NameWithConditions{Name: "socket",
				Conditions: seccomp.ArgumentConditions{
					{Argument: 0, Operation: seccomp.Equal, Value: domain},
					{Argument: 1, Operation: seccomp.BitsSet, Value: 6},
				}})
		}
		refused.NamesWithCondtions = append(refused.NamesWithCondtions, seccomp.NameWithConditions{Name: "socket",
			Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.Equal, Value: unix.AF_PACKET}}})
	}
	policy := seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: []seccomp.SyscallGroup{
		refused,
		{Names: []string{"clone3"}, Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS)},
	}}
	insts, err := policy.Assemble()
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	foreign := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: uint32(seccomp.ActionErrno) | uint32(unix.ENOSYS)},
	}
	raw, err := bpf.Assemble(append(foreign, insts...))
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	out := make([]syscall.SockFilter, len(raw))
	for i, r := range raw {
		out[i] = syscall.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return out, nil
}
