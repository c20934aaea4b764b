package proc

import (
	"os"
	"path/filepath"
	"strings"
)

// Policy is what a confined session's tool processes may reach: read and
// write only under ReadWrite (the accessible workdir, the shell's HOME and
// TMPDIR) but never what Protect names (held read-only in the command's own
// mount namespace: the project store, murmur.lock, roster.yaml, which may
// lie inside the workdir), read and execute under ReadOnly (the system
// paths a command needs, the stores' artifact trees), the fixed device set,
// and, when RestrictConnect is set, TCP connect only to Ports
// (capabilities.network.allow where every entry names a port), TCP bind
// only to Listen (capabilities.network.listen). IPv4 and
// IPv6 sockets other than TCP are refused unless AllowUDP. Paths that do not
// exist are left out.
type Policy struct {
	ReadWrite       []string
	ReadOnly        []string
	Protect         []string
	RestrictConnect bool
	Ports           []uint16
	AllowUDP        bool
	// Listen is the TCP ports the command may bind (Landlock ABI ≥ 4);
	// it may bind no other, an OS-chosen one (port 0) included.
	Listen []uint16
	// Seal, when set, makes the policy sealed: every path above is bound
	// into a composed root and nothing else is in it (Seal's doc).
	Seal *Seal
}

// SystemPaths are the read-only system paths every confined command gets:
// binaries, libraries, /etc (loader cache, resolver, TLS roots, accounts)
// and /proc. Another process's environ, fds or memory stay out of reach
// there because the command has no capability (so a process with any is
// refused by the kernel's ptrace access check), every mur process is
// non-dumpable, Landlock refuses attaching outside the domain, and seccomp
// refuses ptrace and process_vm_* outright.
var SystemPaths = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc"}

// Devices are the device files a confined command may open: /dev/null for
// reading and writing, the others for reading.
var (
	devicesRW = []string{"/dev/null"}
	devicesRO = []string{"/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}
)

// PathDirs are the absolute directories of a subprocess environment's PATH,
// for Policy.ReadOnly, without any that contains one of keepOut ($MURMUR_HOME,
// say: a PATH entry of "/" or "~" must not open it).
func PathDirs(env []string, keepOut ...string) []string {
	var out []string
	for _, kv := range env {
		v, ok := strings.CutPrefix(kv, "PATH=")
		if !ok {
			continue
		}
		out = out[:0]
		for _, d := range filepath.SplitList(v) {
			if !filepath.IsAbs(d) || contains(d, keepOut) {
				continue
			}
			out = append(out, filepath.Clean(d))
		}
	}
	return out
}

// contains reports whether dir is one of paths or an ancestor of one.
func contains(dir string, paths []string) bool {
	dir = filepath.Clean(dir)
	for _, p := range paths {
		if p == "" {
			continue
		}
		rel, err := filepath.Rel(dir, filepath.Clean(p))
		if err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// existing splits paths that exist into directories and other files.
func existing(paths []string) (dirs, files []string) {
	for _, p := range paths {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
		case fi.IsDir():
			dirs = append(dirs, p)
		default:
			files = append(files, p)
		}
	}
	return dirs, files
}
