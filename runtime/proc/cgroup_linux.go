package proc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Cgroup is a cgroup v2 the runtime made for one session's tool processes:
// each is started into it (clone3 CLONE_INTO_CGROUP, no window to
// escape before it is moved), and Kill ends all of them and everything they
// started at once, whatever process group, session or parent they moved to.
// A nil *Cgroup does nothing.
type Cgroup struct {
	path string
	fd   int
}

// NewCgroup makes a cgroup for name as a child of this process's own cgroup
// v2, when the machine lets it (cgroup v2 mounted, and root or a delegated
// subtree); the error says why not. Its directory is mur-<pid>-<name>. The
// cgroups beside it whose process is gone (a session killed outright) are
// killed and removed first: what they hold was left by a session that
// ended.
func NewCgroup(name string) (*Cgroup, error) {
	parent, err := ownCgroupDir()
	if err != nil {
		return nil, err
	}
	pruneCgroups(parent)
	dir := filepath.Join(parent, CgroupPrefix+strconv.Itoa(os.Getpid())+"-"+name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("make cgroup: %w", err)
	}
	fd, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("open cgroup: %w", err)
	}
	cg := &Cgroup{path: dir, fd: fd}
	if err := cg.probe(); err != nil {
		cg.Remove()
		return nil, err
	}
	return cg, nil
}

// CgroupPrefix starts the name of every cgroup the runtime makes.
const CgroupPrefix = "mur-"

// probe starts a process into the cgroup: one that cannot exec, so that an
// ENOENT says the clone into the cgroup worked and anything else that it
// did not.
func (c *Cgroup) probe() error {
	cmd := exec.Command("/nonexistent-mur-cgroup-probe")
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: c.fd}
	err := cmd.Start()
	if err == nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil
	}
	if errors.Is(err, syscall.ENOENT) {
		return nil
	}
	return fmt.Errorf("start into cgroup: %w", err)
}

// Path is the cgroup's directory under the cgroup v2 mount.
func (c *Cgroup) Path() string {
	if c == nil {
		return ""
	}
	return c.path
}

func (c *Cgroup) apply(attr *syscall.SysProcAttr) {
	if c == nil {
		return
	}
	attr.UseCgroupFD, attr.CgroupFD = true, c.fd
}

// Procs lists the pids in the cgroup.
func (c *Cgroup) Procs() []int {
	if c == nil {
		return nil
	}
	return CgroupProcs(c.path)
}

// Kill SIGKILLs every process in the cgroup (cgroup.kill, Linux 5.14; else
// each listed pid, again until none is left) and waits up to 5 s for it to
// be empty. It reports whether it is.
func (c *Cgroup) Kill() bool {
	if c == nil {
		return true
	}
	return KillCgroup(c.path)
}

// Remove kills what is left and removes the cgroup. Idempotent.
func (c *Cgroup) Remove() {
	if c == nil || c.fd < 0 {
		return
	}
	KillCgroup(c.path)
	_ = unix.Close(c.fd)
	c.fd = -1
	_ = os.Remove(c.path)
}

// CgroupProcs lists the pids in the cgroup at dir.
func CgroupProcs(dir string) []int {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// KillCgroup SIGKILLs everything in the cgroup at dir and waits up to 5 s for
// it to be empty; it reports whether it is.
func KillCgroup(dir string) bool {
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids := CgroupProcs(dir)
		if len(pids) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		if err := os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0); err != nil {
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(stopPoll)
	}
}

// ownCgroupDir is this process's cgroup v2 directory.
func ownCgroupDir() (string, error) {
	mnt, err := cgroup2Mount()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			return filepath.Join(mnt, filepath.Clean("/"+rest)), nil
		}
	}
	return "", errors.New("this process is in no cgroup v2")
}

// cgroup2Mount finds where cgroup v2 is mounted.
func cgroup2Mount() (string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source superopts
		fields := strings.Fields(sc.Text())
		for i, fld := range fields {
			if fld == "-" && i+1 < len(fields) && fields[i+1] == "cgroup2" && len(fields) > 4 {
				return fields[4], nil
			}
		}
	}
	return "", errors.New("cgroup v2 is not mounted")
}

// pruneCgroups kills and removes the cgroups in parent whose owner (the pid
// in mur-<pid>-…) no longer runs.
func pruneCgroups(parent string) {
	ents, _ := os.ReadDir(parent)
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), CgroupPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		owner, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(owner)
		if err != nil || pid <= 0 || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		KillCgroup(dir)
		_ = unix.Rmdir(dir)
	}
}
