package proc

import "errors"

// Sealed is the strictest class: the trampoline runs as the init of its own
// PID, network, IPC and UTS namespaces, inside a composed root.
const Sealed = "sealed"

// Rank orders the classes from the weakest: advisory 0, scoped 1, sealed 2;
// an unknown class is -1.
func Rank(class string) int {
	switch class {
	case Advisory:
		return 0
	case Scoped:
		return 1
	case Sealed:
		return 2
	}
	return -1
}

// Seal is what a sealed Policy adds to scoped's: where the composed root is
// built and what it is held to.
type Seal struct {
	// Root is an empty directory of the session's own that each tool
	// process mounts its composed root on, in its own mount namespace.
	Root string
	// Etc holds the synthetic passwd and group the root carries.
	Etc string
	// Limits are the tool processes' resource limits.
	Limits Limits
	// Name names the session's cgroup (mur-<pid>-<Name>).
	Name string
}

// Limits are a sealed session's resource limits (capabilities.resources);
// zero leaves one unlimited. Processes (RLIMIT_NPROC: threads of the uid,
// which the kernel does not count for root; in the user namespace of a
// runtime that is not root, those of the one call), OpenFiles
// (RLIMIT_NOFILE), FileSize (RLIMIT_FSIZE), AddressSpace (RLIMIT_AS) and
// CPUSeconds (RLIMIT_CPU) are each tool process's rlimits, soft and hard.
// Where the runtime may make one (root, a cgroup v1 hierarchy), the
// session's cgroup holds all of its tool processes together to CgroupPids
// (pids.max: processes and threads, each call's init among them) and
// CgroupMemory (memory.limit_in_bytes).
type Limits struct {
	Processes    uint64 `json:"max_processes,omitempty"`
	OpenFiles    uint64 `json:"max_open_files,omitempty"`
	FileSize     uint64 `json:"max_file_size_bytes,omitempty"`
	AddressSpace uint64 `json:"memory_bytes,omitempty"`
	CPUSeconds   uint64 `json:"cpu_seconds,omitempty"`
	CgroupPids   uint64 `json:"cgroup_pids_max,omitempty"`
	CgroupMemory uint64 `json:"cgroup_memory_bytes,omitempty"`
}

// DefaultLimits are sealed's limits where capabilities.resources names
// none. The address space and CPU time are unlimited by default: runtimes
// (Go, Java, Node) reserve far more address space than they use.
var DefaultLimits = Limits{Processes: 256, OpenFiles: 1024, FileSize: 1 << 30, CgroupPids: 256, CgroupMemory: 4 << 30}

// SealedSystemPaths are the host directories a composed root binds
// read-only (with the PATH directories and the stores): /etc is not among
// them, only SealedEtc's entries are.
var SealedSystemPaths = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// SealedEtc are the entries of /etc a composed root carries, bound
// read-only when the host has them: the loader's, TLS roots, name
// resolution, time zone, terminal database. The account databases are
// synthetic (root, and the runtime's own uid as "tool").
var SealedEtc = []string{"ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "ssl", "pki",
	"ca-certificates", "ca-certificates.conf", "resolv.conf", "hosts", "nsswitch.conf", "localtime",
	"timezone", "terminfo"}

// SealedDevices are the device files a composed root's /dev carries: null
// read-write, the others read-only.
var SealedDevices = []string{"null", "zero", "full", "random", "urandom"}

// ErrNoSeal is returned by NewSandbox for a sealed policy the machine cannot
// build (no namespaces, a refused mount or pivot_root); the error names the
// step.
var ErrNoSeal = errors.New("the machine cannot seal a tool process")
