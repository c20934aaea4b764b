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

// Limits are a sealed session's resource limits; zero leaves one
// unlimited. OpenFiles (RLIMIT_NOFILE), FileSize (RLIMIT_FSIZE),
// AddressSpace (RLIMIT_AS) and Processes (RLIMIT_NPROC, which the kernel
// does not apply to root) are each tool process's rlimits. Where the
// machine lets the runtime make one, the session's cgroup also holds all of
// its tool processes together to Processes (pids.max: processes and
// threads, a call's init among them) and Memory (memory.limit_in_bytes).
type Limits struct {
	OpenFiles    uint64 `json:"open_files"`
	FileSize     uint64 `json:"file_size"`
	AddressSpace uint64 `json:"address_space"`
	Memory       uint64 `json:"memory"`
	Processes    uint64 `json:"processes"`
}

// DefaultLimits are sealed's limits where capabilities.resources names
// none. The address space is unlimited by default: runtimes (Go, Java,
// Node) reserve far more than they use.
var DefaultLimits = Limits{OpenFiles: 1024, FileSize: 1 << 30, Memory: 4 << 30, Processes: 256}

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
